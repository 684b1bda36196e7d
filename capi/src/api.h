/* What the public handles are, behind minigraf.h's opaque types. */
#ifndef MG_CAPI_API_H
#define MG_CAPI_API_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "minigraf.h"
#include "base/error.h"
#include "db/db.h"
#include "db/fact_log.h"
#include "db/log_writer.h"
#include "exec/result.h"
#include "thread_errors.h"

struct MiniGrafDb {
    db *engine; /* NULL once closed while fact logs still point here */
    thread_errors errors;
    /* Calls in flight and closing (db_calls.c): every entry point runs
     * between api_db_enter and api_db_leave; close waits for `calls` to
     * reach zero. The struct's memory is never freed, only reused for
     * another handle (db_calls.c says why). */
    atomic_size_t calls;
    atomic_bool closed;
    pthread_mutex_t mu;     /* `drained`, `fact_logs` */
    pthread_cond_t drained; /* `calls` reached zero while closed */
    size_t fact_logs;       /* fact logs holding the struct (api_db_retain) */
    MiniGrafDb *next_free;  /* in the pool of closed structs */
};

struct MiniGrafCursor {
    db_cursor *rows; /* independent of the MiniGrafDb once open */
    int format;
    bool failed; /* an error ended the rows: `last` keeps it */
    err last;
};

struct MiniGrafFactLog {
    MiniGrafDb *db; /* retained (api_db_retain) */
    fact_log *log;
    err last;
};

struct MiniGrafLogWriter {
    log_writer *w;
    err last;
};

/* A fact log keeps its database struct (not its store) alive: the struct
 * is not reused for another handle while a fact log points at it. Retain
 * inside an entered call (db_calls.h). */
void api_db_retain(MiniGrafDb *h);
void api_db_release(MiniGrafDb *h);

/* Checks an input text argument: NULL or invalid UTF-8 → API-017. */
int api_check_text(const char *text, const char *what, err *e);
/* api_check_text that also gives the text's length (a query's text is
 * checked and then handed on with its length: one strlen). */
int api_check_text_len(const char *text, const char *what, size_t *len, err *e);

/* The fixed messages for bad handles. */
#define API_NULL_HANDLE "[API-017] handle is NULL"
#define API_DEAD_HANDLE "[API-018] handle was already closed or freed"

#endif
