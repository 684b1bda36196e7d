/* Stopping a running call from outside it: minigraf_interrupt (another
 * thread, or a signal handler), a progress handler, a time limit.
 *
 * A database keeps an interrupt counter (cancel_source) that any thread
 * may bump. A call that may run long (a query, a cursor fetch, a write)
 * starts a `cancel` on its stack: it remembers the counter's value at
 * that moment, so an interrupt stops the calls that were running when it
 * came and none that start after it (SQLite's semantics, per call). The
 * executor counts its work in ticks (rows and records, exec/meter.h) and
 * polls the cancel every CANCEL_POLL_TICKS ticks, or every
 * progress_every ticks when that is smaller: an interrupted call fails
 * with API-013 at its next poll. */
#ifndef MG_BASE_CANCEL_H
#define MG_BASE_CANCEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

/* Ticks between two polls: a tick is a record read or a row produced,
 * tens of nanoseconds each, so a poll comes every few tens of
 * microseconds of work. */
#define CANCEL_POLL_TICKS 1024

/* The per-database interrupt counter. Lock-free on every platform we
 * build for, so cancel_interrupt is async-signal-safe. */
typedef struct cancel_source {
    atomic_uint interrupts;
} cancel_source;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "cancel_interrupt must be lock-free");

void cancel_source_init(cancel_source *s);
/* Stops every call running on `s` now. Only an atomic increment. */
void cancel_interrupt(cancel_source *s);

/* A progress handler: non-zero stops the call. */
typedef int (*cancel_progress_fn)(void *ctx);

typedef struct cancel {
    const cancel_source *src;    /* NULL: not interruptible */
    unsigned seen;               /* src->interrupts when the call began */
    int64_t deadline_ns;         /* monotonic; 0: no time limit */
    int64_t timeout_ms;          /* for the message */
    cancel_progress_fn progress; /* NULL: none */
    void *progress_ctx;
    int64_t progress_every, progress_left; /* ticks */
    int64_t poll_every;                    /* ticks between polls */
    int stopped;                           /* the error code once stopped: sticky */
} cancel;

/* Starts a call: `timeout_ms` 0 means no limit; `progress` NULL none
 * (then `every` is ignored). */
void cancel_begin(cancel *c, const cancel_source *src, int64_t timeout_ms,
                  cancel_progress_fn progress, void *progress_ctx, int64_t every);
/* A poll after `ticks` ticks of work: 0, or API-013 with `e` set (and
 * every later poll fails the same way). `c` NULL: 0. */
int cancel_poll(cancel *c, int64_t ticks, err *e);

#endif
