/*
 * fact_log.c — the synchronous functions on a fact log handle.
 *
 * JS signatures (index.js is the only caller):
 *   dbFactLog(db, filterJson: string | null) -> fact log handle
 *   factLogTxCount(handle) -> number | bigint   (the database's counter when
 *                                                the log opened)
 *   factLogNextBatch(handle, maxRecords: number) -> record[] | null (null: end)
 *   factLogClose(handle) -> undefined           (idempotent)
 * factLogNextBatchAsync is in async.c. Records are decoded by json_to_js.c
 * straight into JS objects with the library's keys (entity, attribute,
 * value: {type, value}, tx_count, tx_id, valid_from, valid_to, asserted);
 * integers beyond 2^53 - 1 (valid_to's "forever" among them) are BigInts.
 */
#include "addon.h"

#include <stdlib.h>

napi_value mg_db_fact_log(napi_env env, napi_callback_info info) {
  napi_value argv[2], obj;
  mg_handle *db, *log_handle;
  mg_error err = {0};
  MiniGrafFactLog *log;
  uint64_t tx_count = 0;
  char *filter = NULL;

  if (!mg_args(env, info, 2, argv) ||
      (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
      !mg_optional_string_arg(env, argv[1], "filter", &filter))
    return NULL;
  log = mg_op_fact_log(db, filter, &tx_count, &err);
  free(filter);
  if (log == NULL) {
    mg_throw(env, &err);
    mg_error_clear(&err);
    return NULL;
  }
  obj = mg_handle_new(env, MG_KIND_FACT_LOG, log);
  if (obj == NULL) return NULL;
  log_handle = mg_handle_unwrap(env, obj, MG_KIND_FACT_LOG);
  if (log_handle == NULL) return NULL;
  log_handle->tx_count = tx_count;
  return obj;
}

napi_value mg_fact_log_tx_count(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  mg_handle *log;
  if (!mg_args(env, info, 1, argv) ||
      (log = mg_handle_unwrap(env, argv[0], MG_KIND_FACT_LOG)) == NULL)
    return NULL;
  return mg_uint64_value(env, log->tx_count);
}

napi_value mg_fact_log_next_batch(napi_env env, napi_callback_info info) {
  return mg_batch_next(env, info, MG_KIND_FACT_LOG, mg_op_fact_log_next_batch);
}

napi_value mg_fact_log_close(napi_env env, napi_callback_info info) {
  return mg_handle_close_call(env, info, MG_KIND_FACT_LOG);
}
