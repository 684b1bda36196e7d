/*
 * async.c — the Promise variants, run on the libuv thread pool.
 *
 * JS signatures (index.js is the only caller; `abort` is an abort token
 * from abortNew(), or null):
 *   dbExecuteAsync(handle, text: string, abort) -> Promise<object>
 *   dbQueryAsync(db, text, abort) -> Promise<cursor handle>
 *   stmtQueryAsync(stmt, abort) -> Promise<cursor handle>
 *   cursorRowsAsync(cursor, maxRows, flags, abort) -> Promise<packed batch | null>
 *   stmtRowsAsync(stmt, flags, abort) -> Promise<packed batch | null>  (a run)
 *   factLogNextBatchAsync(handle, maxRecords: number, abort) -> Promise<record[] | null>
 *
 * Opening a query runs it up to its first row (aggregates, sorts and
 * joins included), so dbQueryAsync and stmtQueryAsync keep all of that off
 * the event loop; cursorRowsAsync steps rows on the pool and makes their JS
 * values on the JS thread. An abort token's flag is seen by the addon's
 * progress handler (host.c) on the pool thread running the job.
 *
 * A job copies its input on the JS thread, runs one mg_op_* call on a pool
 * thread (no Node-API calls there), and settles the promise back on the JS
 * thread, where the result JSON is decoded. While the job exists it holds a
 * reference to the handle object and counts in `pending`, so neither close()
 * nor the GC frees the C handle under the pool thread (see handle.c).
 * Argument and closed-handle errors throw synchronously, as for the sync
 * calls; library errors reject the promise.
 */
#include "addon.h"

#include <stdint.h>
#include <stdlib.h>

typedef enum job_kind {
    JOB_EXECUTE,
    JOB_NEXT_BATCH, /* a cursor's or a fact log's, by `next_batch` */
    JOB_QUERY,      /* db + text -> cursor */
    JOB_STMT_QUERY, /* stmt -> cursor */
    JOB_ROWS,       /* cursor -> typed rows */
    JOB_STMT_ROWS   /* stmt -> every row of a run (no cursor object) */
} job_kind;

typedef struct job {
    job_kind kind;
    mg_handle *handle;
    napi_ref handle_ref;
    napi_deferred deferred;
    napi_async_work work;
    char *text;      /* JOB_EXECUTE input */
    size_t max_rows; /* JOB_NEXT_BATCH input, with: */
    mg_next_batch_op next_batch;
    char *result;           /* library JSON, NULL on error or at the end */
    MiniGrafCursor *cursor; /* JOB_QUERY, JOB_STMT_QUERY result */
    mg_rows *rows;          /* JOB_ROWS result, with: */
    int flags;
    mg_abort *abort;    /* the call's AbortSignal, or NULL */
    napi_ref abort_ref; /* keeps the token alive */
    mg_error err;
} job;

/* Pool thread. */
static void job_run(napi_env env, void *data) {
    job *j = data;
    (void)env;
    if (j->abort != NULL && atomic_load(&j->abort->aborted)) {
        mg_error_set(&j->err, MINIGRAF_E_API_013, "[API-013] aborted");
        return;
    }
    if ((j->kind == JOB_EXECUTE || j->kind == JOB_QUERY) && atomic_load(&j->handle->db->closing)) {
        mg_error_set(&j->err, MG_API_018, "[API-018] the database is closed");
        return;
    }
    mg_abort_enter(j->abort);
    switch (j->kind) {
    case JOB_EXECUTE: j->result = mg_op_execute(j->handle, j->text, &j->err); break;
    case JOB_NEXT_BATCH: j->result = j->next_batch(j->handle, j->max_rows, &j->err); break;
    case JOB_QUERY: j->cursor = mg_op_query(j->handle, j->text, &j->err); break;
    case JOB_STMT_QUERY:
        pthread_mutex_lock(&j->handle->lock);
        j->cursor = minigraf_stmt_query(j->handle->native);
        if (j->cursor == NULL)
            mg_error_set(&j->err, minigraf_stmt_last_error_code(j->handle->native),
                         minigraf_stmt_last_error(j->handle->native));
        pthread_mutex_unlock(&j->handle->lock);
        break;
    case JOB_ROWS:
        pthread_mutex_lock(&j->handle->lock);
        mg_rows_fill(j->handle->native, j->max_rows, j->rows, &j->err);
        pthread_mutex_unlock(&j->handle->lock);
        break;
    case JOB_STMT_ROWS: {
        MiniGrafCursor *c = minigraf_stmt_query(j->handle->native);
        if (c == NULL)
            mg_error_set(&j->err, minigraf_stmt_last_error_code(j->handle->native),
                         minigraf_stmt_last_error(j->handle->native));
        else
            mg_rows_fill(c, SIZE_MAX, j->rows, &j->err);
        minigraf_cursor_free(c);
        break;
    }
    }
    mg_abort_leave();
}

static void job_free(napi_env env, job *j) {
    if (j->handle_ref != NULL)
        napi_delete_reference(env, j->handle_ref);
    if (j->abort_ref != NULL)
        napi_delete_reference(env, j->abort_ref);
    if (j->cursor != NULL)
        minigraf_cursor_free(j->cursor);
    mg_rows_free(j->rows);
    if (j->work != NULL)
        napi_delete_async_work(env, j->work);
    minigraf_string_free(j->result);
    mg_error_clear(&j->err);
    free(j->text);
    free(j);
}

/* JS thread. */
static void job_settle(napi_env env, napi_status status, void *data) {
    job *j = data;
    napi_value value = NULL;
    bool ok = true;

    if (status != napi_ok) { /* cancelled: only at environment teardown */
        mg_error_clear(&j->err);
        mg_error_set(&j->err, MG_API_018, "[API-018] the operation was cancelled");
    }
    if (j->err.code == 0 && j->cursor != NULL) {
        value = mg_handle_new(env, MG_KIND_CURSOR, j->cursor); /* owns it now */
        j->cursor = NULL;
        if (value == NULL) {
            ok = false;
            napi_get_and_clear_last_exception(env, &value);
        }
    } else if (j->err.code == 0 && (j->kind == JOB_ROWS || j->kind == JOB_STMT_ROWS)) {
        value = mg_rows_pack(env, j->rows, j->flags | MG_ROWS_OWN_BUFFER);
        if (value == NULL) {
            ok = false;
            napi_get_and_clear_last_exception(env, &value);
        }
    } else if (j->err.code == 0 && j->result != NULL) {
        value = mg_result_value(env, j->result); /* frees it */
        j->result = NULL;
        if (value == NULL) {
            /* Decoding failed: reject with the pending exception. */
            ok = false;
            napi_get_and_clear_last_exception(env, &value);
        }
    } else if (j->err.code != 0 || j->err.message != NULL) {
        ok = false;
        value = mg_error_value(env, &j->err);
    } else {
        napi_get_null(env, &value); /* end of the rows / records */
    }
    if (value == NULL)
        napi_get_undefined(env, &value);
    if (ok)
        napi_resolve_deferred(env, j->deferred, value);
    else
        napi_reject_deferred(env, j->deferred, value);

    mg_handle_job_done(j->handle);
    job_free(env, j);
}

/* Queues `j` (already filled with its input) on `handle_obj`; returns the
 * promise, or NULL with an exception pending (and `j` freed). `abort_obj`
 * is the call's abort token or null / undefined. */
static napi_value job_start_abortable(napi_env env, job *j, napi_value handle_obj,
                                      napi_value abort_obj, const char *name) {
    napi_value promise, resource_name;

    if (abort_obj != NULL) {
        if (!mg_abort_arg(env, abort_obj, &j->abort)) {
            job_free(env, j);
            return NULL;
        }
        if (j->abort != NULL &&
            napi_create_reference(env, abort_obj, 1, &j->abort_ref) != napi_ok) {
            mg_throw_last_status(env);
            job_free(env, j);
            return NULL;
        }
    }
    if (napi_create_reference(env, handle_obj, 1, &j->handle_ref) != napi_ok ||
        napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) != napi_ok ||
        napi_create_async_work(env, NULL, resource_name, job_run, job_settle, j, &j->work) !=
            napi_ok ||
        napi_create_promise(env, &j->deferred, &promise) != napi_ok) {
        mg_throw_last_status(env);
        job_free(env, j);
        return NULL;
    }
    if (napi_queue_async_work(env, j->work) != napi_ok) {
        napi_value error;
        mg_throw_last_status(env);
        /* The promise exists: settle it so its deferred is released. */
        napi_get_and_clear_last_exception(env, &error);
        napi_reject_deferred(env, j->deferred, error);
        job_free(env, j);
        return promise;
    }
    j->handle->pending++;
    return promise;
}

static job *job_new(napi_env env, job_kind kind, mg_handle *h) {
    job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    j->kind = kind;
    j->handle = h;
    return j;
}

/* (db, text, abort) for JOB_EXECUTE and JOB_QUERY. */
static napi_value db_text_async(napi_env env, napi_callback_info info, job_kind kind,
                                const char *name) {
    napi_value argv[3];
    mg_handle *db;
    job *j;
    char *text;

    if (!mg_args(env, info, 3, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        (text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    if ((j = job_new(env, kind, db)) == NULL) {
        free(text);
        return NULL;
    }
    j->text = text;
    return job_start_abortable(env, j, argv[0], argv[2], name);
}

napi_value mg_db_execute_async(napi_env env, napi_callback_info info) {
    return db_text_async(env, info, JOB_EXECUTE, "minigraf.executeAsync");
}

napi_value mg_db_query_async(napi_env env, napi_callback_info info) {
    return db_text_async(env, info, JOB_QUERY, "minigraf.queryAsync");
}

napi_value mg_stmt_query_async(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    mg_handle *s;
    job *j;
    if (!mg_args(env, info, 2, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL ||
        (j = job_new(env, JOB_STMT_QUERY, s)) == NULL)
        return NULL;
    return job_start_abortable(env, j, argv[0], argv[1], "minigraf.stmtQueryAsync");
}

/* stmtRowsAsync(stmt, flags, abort): a whole run on the pool, one hop. */
napi_value mg_stmt_rows_async(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    mg_handle *s;
    job *j;
    int flags;
    if (!mg_args(env, info, 3, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL ||
        !mg_flags_arg(env, argv[1], &flags) || (j = job_new(env, JOB_STMT_ROWS, s)) == NULL)
        return NULL;
    j->flags = flags;
    if ((j->rows = calloc(1, sizeof *j->rows)) == NULL) {
        job_free(env, j);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    return job_start_abortable(env, j, argv[0], argv[2], "minigraf.stmtRowsAsync");
}

napi_value mg_cursor_rows_async(napi_env env, napi_callback_info info) {
    napi_value argv[4];
    mg_handle *c;
    job *j;
    size_t max_rows;
    int flags;
    if (!mg_args(env, info, 4, argv) ||
        (c = mg_handle_open(env, argv[0], MG_KIND_CURSOR)) == NULL ||
        !mg_max_rows_arg(env, argv[1], &max_rows) || !mg_flags_arg(env, argv[2], &flags) ||
        (j = job_new(env, JOB_ROWS, c)) == NULL)
        return NULL;
    j->max_rows = max_rows;
    j->flags = flags;
    if ((j->rows = calloc(1, sizeof *j->rows)) == NULL) {
        job_free(env, j);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    return job_start_abortable(env, j, argv[0], argv[3], "minigraf.rowsAsync");
}

/* The batch variants: (handle, maxRows) of `kind`. */
static napi_value next_batch_async(napi_env env, napi_callback_info info, mg_kind kind,
                                   mg_next_batch_op next_batch, const char *name) {
    napi_value argv[3];
    mg_handle *h;
    size_t max_rows;
    job *j;

    if (!mg_args(env, info, 3, argv) || (h = mg_handle_open(env, argv[0], kind)) == NULL ||
        !mg_max_rows_arg(env, argv[1], &max_rows))
        return NULL;
    if ((j = job_new(env, JOB_NEXT_BATCH, h)) == NULL)
        return NULL;
    j->next_batch = next_batch;
    j->max_rows = max_rows;
    return job_start_abortable(env, j, argv[0], argv[2], name);
}

napi_value mg_fact_log_next_batch_async(napi_env env, napi_callback_info info) {
    return next_batch_async(env, info, MG_KIND_FACT_LOG, mg_op_fact_log_next_batch,
                            "minigraf.factLogNextBatchAsync");
}
