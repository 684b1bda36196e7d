/* What the public handles are, behind minigraf.h's opaque types. */
#ifndef MG_CAPI_API_H
#define MG_CAPI_API_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "minigraf.h"
#include "base/error.h"
#include "db/db.h"
#include "db/db_tx.h"
#include "db/fact_log.h"
#include "db/log_writer.h"
#include "exec/result.h"
#include "thread_errors.h"

struct MiniGrafDb {
    db *engine; /* NULL once closed while fact logs still point here */
    thread_errors errors;
    /* Fact logs read the store under `use` (shared); close takes it
     * exclusively, so it never frees the store under a running batch. The
     * struct itself lives until the last fact log lets go of it. */
    pthread_rwlock_t use;
    size_t fact_logs; /* changed under `use`, exclusively */
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

/* A write transaction (api_tx.c). Its calls run under the database's
 * `use` lock (shared), like a fact log's batches, so minigraf_close (which
 * rolls an open transaction back) never runs in the middle of one. */
struct MiniGrafTx {
    MiniGrafDb *db; /* retained (api_db_retain) */
    db_tx *tx;
    err last;
};

/* A fact log keeps its database struct (not its store) alive. */
void api_db_retain(MiniGrafDb *h);
void api_db_release(MiniGrafDb *h);

/* Checks an input text argument: NULL or invalid UTF-8 → API-017. */
int api_check_text(const char *text, const char *what, err *e);
/* api_check_text that also gives the text's length (a query's text is
 * checked and then handed on with its length: one strlen). */
int api_check_text_len(const char *text, const char *what, size_t *len, err *e);

/* minigraf_execute's JSON for a command's result (api_db.c); NULL when
 * out of memory. */
char *api_render_result(const db_result *r);

/* The fixed messages for bad handles. */
#define API_NULL_HANDLE "[API-017] handle is NULL"
#define API_DEAD_HANDLE "[API-018] handle was already closed or freed"

#endif
