/*
 * fact_log.c — the synchronous functions on a fact log handle.
 *
 * JS signatures (index.js is the only caller):
 *   dbFactLog(db, filterJson: string | null) -> fact log handle
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
    napi_value argv[2];
    mg_handle *db;
    mg_error err = {0};
    MiniGrafFactLog *log;
    char *filter = NULL;

    if (!mg_args(env, info, 2, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        !mg_optional_string_arg(env, argv[1], "filter", &filter))
        return NULL;
    log = mg_op_fact_log(db, filter, &err);
    free(filter);
    if (log == NULL) {
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    return mg_handle_new(env, MG_KIND_FACT_LOG, log);
}

napi_value mg_fact_log_next_batch(napi_env env, napi_callback_info info) {
    return mg_batch_next(env, info, MG_KIND_FACT_LOG, mg_op_fact_log_next_batch);
}

napi_value mg_fact_log_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_FACT_LOG);
}
