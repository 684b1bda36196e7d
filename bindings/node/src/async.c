/*
 * async.c — the Promise variants, run on the libuv thread pool.
 *
 * JS signatures (index.js is the only caller):
 *   dbExecuteAsync(handle, text: string) -> Promise<object>
 *   cursorNextBatchAsync(handle, maxRows: number) -> Promise<row[] | null>
 *   factLogNextBatchAsync(handle, maxRecords: number) -> Promise<record[] | null>
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

#include <stdlib.h>

typedef enum job_kind {
  JOB_EXECUTE,
  JOB_NEXT_BATCH /* a cursor's or a fact log's, by `next_batch` */
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
  char *result;    /* library JSON, NULL on error or at the end */
  mg_error err;
} job;

/* Pool thread. */
static void job_run(napi_env env, void *data) {
  job *j = data;
  (void)env;
  switch (j->kind) {
    case JOB_EXECUTE:
      j->result = mg_op_execute(j->handle, j->text, &j->err);
      break;
    case JOB_NEXT_BATCH:
      j->result = j->next_batch(j->handle, j->max_rows, &j->err);
      break;
  }
}

static void job_free(napi_env env, job *j) {
  if (j->handle_ref != NULL) napi_delete_reference(env, j->handle_ref);
  if (j->work != NULL) napi_delete_async_work(env, j->work);
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
  if (j->err.code == 0 && j->result != NULL) {
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
  if (value == NULL) napi_get_undefined(env, &value);
  if (ok)
    napi_resolve_deferred(env, j->deferred, value);
  else
    napi_reject_deferred(env, j->deferred, value);

  mg_handle_job_done(j->handle);
  job_free(env, j);
}

/* Queues `j` (already filled with its input) on `handle_obj`; returns the
 * promise, or NULL with an exception pending (and `j` freed). */
static napi_value job_start(napi_env env, job *j, napi_value handle_obj,
                            const char *name) {
  napi_value promise, resource_name;

  if (napi_create_reference(env, handle_obj, 1, &j->handle_ref) != napi_ok ||
      napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) !=
          napi_ok ||
      napi_create_async_work(env, NULL, resource_name, job_run, job_settle, j,
                             &j->work) != napi_ok ||
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

napi_value mg_db_execute_async(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  mg_handle *db;
  job *j;
  char *text;

  if (!mg_args(env, info, 2, argv) ||
      (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
      (text = mg_string_arg(env, argv[1], "text")) == NULL)
    return NULL;
  j = calloc(1, sizeof *j);
  if (j == NULL) {
    free(text);
    napi_throw_error(env, NULL, "minigraf: out of memory");
    return NULL;
  }
  j->kind = JOB_EXECUTE;
  j->handle = db;
  j->text = text;
  return job_start(env, j, argv[0], "minigraf.executeAsync");
}

/* The batch variants: (handle, maxRows) of `kind`. */
static napi_value next_batch_async(napi_env env, napi_callback_info info,
                                   mg_kind kind, mg_next_batch_op next_batch,
                                   const char *name) {
  napi_value argv[2];
  mg_handle *h;
  size_t max_rows;
  job *j;

  if (!mg_args(env, info, 2, argv) ||
      (h = mg_handle_open(env, argv[0], kind)) == NULL ||
      !mg_max_rows_arg(env, argv[1], &max_rows))
    return NULL;
  j = calloc(1, sizeof *j);
  if (j == NULL) {
    napi_throw_error(env, NULL, "minigraf: out of memory");
    return NULL;
  }
  j->kind = JOB_NEXT_BATCH;
  j->next_batch = next_batch;
  j->handle = h;
  j->max_rows = max_rows;
  return job_start(env, j, argv[0], name);
}

napi_value mg_cursor_next_batch_async(napi_env env, napi_callback_info info) {
  return next_batch_async(env, info, MG_KIND_CURSOR, mg_op_next_batch,
                          "minigraf.nextBatchAsync");
}

napi_value mg_fact_log_next_batch_async(napi_env env, napi_callback_info info) {
  return next_batch_async(env, info, MG_KIND_FACT_LOG,
                          mg_op_fact_log_next_batch,
                          "minigraf.factLogNextBatchAsync");
}
