/* What the public handles are, behind minigraf.h's opaque types. */
#ifndef MG_CAPI_API_H
#define MG_CAPI_API_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "minigraf.h"
#include "base/error.h"
#include "cursor_rows.h"
#include "db/db.h"
#include "db/db_tx.h"
#include "db/fact_log.h"
#include "db/log_writer.h"
#include "exec/result.h"
#include "thread_errors.h"

/* One count of calls in flight, alone on its cache line (db_calls.c). */
#define API_CALL_STRIPES 8
typedef struct api_call_count {
    _Alignas(64) atomic_size_t n;
} api_call_count;

struct MiniGrafDb {
    db *engine; /* NULL once closed while fact logs still point here */
    thread_errors errors;
    /* Calls in flight and closing (db_calls.c): every entry point runs
     * between api_db_enter and api_db_leave; close waits for the sum of
     * `calls` to reach zero. The struct's memory is never freed, only
     * reused for another handle (db_calls.c says why). */
    atomic_bool closed;
    pthread_mutex_t mu;                     /* `drained`, `fact_logs` */
    pthread_cond_t drained;                 /* `calls` reached zero while closed */
    size_t fact_logs;                       /* fact logs holding the struct (api_db_retain) */
    MiniGrafDb *next_free;                  /* in the pool of closed structs */
    api_call_count calls[API_CALL_STRIPES]; /* a thread counts in one */
};

struct MiniGrafCursor {
    cursor_rows rows; /* over a db_cursor independent of the MiniGrafDb */
    int format;
    size_t batch_bytes; /* the last JSON batch's length: room taken for the next at once */
    err last;
};

/* The one constructor of cursors (minigraf_query, prepared statements):
 * takes `rows` (freed on failure too). NULL, with `e` set, when out of
 * memory. */
MiniGrafCursor *api_cursor_new(db_cursor *rows, err *e);

struct MiniGrafFactLog {
    MiniGrafDb *db; /* retained (api_db_retain) */
    fact_log *log;
    err last;
};

struct MiniGrafLogWriter {
    log_writer *w;
    err last;
};

/* A write transaction (api_tx.c). Its calls run as calls on its database
 * (api_db_enter), so minigraf_close (which rolls an open transaction back)
 * never runs in the middle of one. */
struct MiniGrafTx {
    MiniGrafDb *db; /* retained (api_db_retain) */
    db_tx *tx;
    err last;
};

/* A fact log keeps its database struct (not its store) alive: the struct
 * is not reused for another handle while a fact log points at it. Retain
 * inside an entered call (db_calls.h). */
void api_db_retain(MiniGrafDb *h);
void api_db_release(MiniGrafDb *h);

/* Checks an input text argument: NULL or invalid UTF-8 → API-017. */
int api_check_text(const char *text, const char *what, err *e);
/* api_check_text for a file path, which must not be empty either (API-017). */
int api_check_path(const char *path, err *e);
/* api_check_text that also gives the text's length (a query's text is
 * checked and then handed on with its length: one strlen). */
int api_check_text_len(const char *text, const char *what, size_t *len, err *e);

/* A 0.1 function's status: 0 or -1 (the code stays on the handle, for
 * its *_last_error_code). 0.2.0 functions return the code itself. */
#define API_STATUS(code) ((code) != 0 ? -1 : 0)

/* A constructor's error handed to the caller: the message into *errmsg
 * (when not NULL; the caller frees it), `e` emptied; returns the code. */
int api_give_error(err *e, char **errmsg);

/* minigraf_execute's JSON for a command's result (api_db.c); NULL when
 * out of memory. */
char *api_render_result(const db_result *r);

/* The fixed messages for bad handles. */
#define API_DEAD_HANDLE "[API-018] handle was already closed or freed"
#define API_FORKED_HANDLE \
    "[API-022] handle was opened by the parent process: after fork() a child opens its own"

#endif
