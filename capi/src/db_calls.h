/* Calls in flight on a database handle, so that closing it while other
 * threads are inside calls on it is safe.
 *
 * Every minigraf_* entry point that takes a MiniGrafDb (and every one a
 * later feature adds: statements, transactions, host functions) runs its
 * work between one api_db_enter and one api_db_leave:
 *
 *     int rc = api_db_enter(h);
 *     if (rc != 0)
 *         return rc;              // API-017 NULL, API-018 closed or foreign
 *     ... use h->engine ...
 *     api_db_leave(h);
 *
 * minigraf_close removes the handle from the registry (no call can enter
 * after that), interrupts the calls inside (db_interrupt, repeated until
 * they are out, so a call that had entered but not yet begun its query is
 * stopped too), waits for them to leave, then closes the engine. A call
 * that entered runs to its end on a live engine, or fails with API-013.
 *
 * Both functions are lock-free (atomics only) except api_db_leave of the
 * last call out of a closing handle, which wakes the closer. */
#ifndef MG_CAPI_DB_CALLS_H
#define MG_CAPI_DB_CALLS_H

#include "api.h"

/* 0: the call may use `h` until api_db_leave. Otherwise ERR(API, 17) for
 * NULL, ERR(API, 22) for a handle of the parent process (in a child after
 * fork(): its engine, file and locks are the parent's) or ERR(API, 18) for
 * a closed, freed or foreign pointer, and the call must not touch `h`. */
int api_db_enter(const MiniGrafDb *h);
/* api_db_enter for a struct the caller holds with api_db_retain (a
 * statement's, a transaction's or a fact log's, whose own handle the call
 * has just found live): such a struct is never reused for another handle
 * and stays `closed` once closed, so `closed` alone decides, without the
 * registry's lookup. 0, or ERR(API, 18) for a closed database. */
int api_db_enter_held(const MiniGrafDb *h);
void api_db_leave(const MiniGrafDb *h);

/* A struct for a new handle (closed, not registered), or NULL when out of
 * memory; api_db_publish registers it once its engine is open. */
MiniGrafDb *api_db_alloc(void);
int api_db_publish(MiniGrafDb *h); /* false when out of memory */
/* Back to the pool (after close, or when an open failed). */
void api_db_recycle(MiniGrafDb *h);

/* Waits until a close of `h` that has begun has closed the engine (a
 * handle that holds `h` with api_db_retain and found it closing: its
 * engine object is then ended, never used again). */
void api_db_wait_closed(MiniGrafDb *h);

/* minigraf_close's work: false if `h` was not a live handle. */
void api_db_close(MiniGrafDb *h);

#endif
