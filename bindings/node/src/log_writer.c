/*
 * log_writer.c — the functions on a log writer handle.
 *
 * JS signatures (index.js is the only caller):
 *   logWriterCreate(path: string, optionsJson: string | null) -> handle
 *   logWriterAppend(handle, recordJson: string) -> undefined
 *   logWriterAppendBatch(handle, recordsJson: string) -> undefined
 *       moves the fact log's next batch into the writer without decoding
 *       it (db.export); false at the end of the log
 *   logWriterAdvanceTxCount(handle, txCount: number | bigint) -> undefined
 *   logWriterTxCount(handle) -> number | bigint
 *   logWriterFinish(handle) -> undefined
 *   logWriterClose(handle) -> undefined    (idempotent; abandons an
 *                                           unfinished writer, which
 *                                           deletes its file)
 * The record JSON is written by index.js (BigInt-aware). Failures throw
 * MinigrafError; a wrong handle throws TypeError.
 */
#include "addon.h"

#include <stdlib.h>

static napi_value throw_err(napi_env env, mg_error *err) {
    mg_throw(env, err);
    mg_error_clear(err);
    return NULL;
}

napi_value mg_log_writer_create(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    char *path = NULL, *options = NULL, *error_text = NULL;
    MiniGrafLogWriter *w;

    if (!mg_args(env, info, 2, argv) || (path = mg_string_arg(env, argv[0], "path")) == NULL)
        return NULL;
    if (!mg_optional_string_arg(env, argv[1], "options", &options)) {
        free(path);
        return NULL;
    }
    w = minigraf_log_writer_create(path, options, &error_text);
    free(path);
    free(options);
    if (w == NULL) {
        mg_error err = {0};
        mg_error_set(&err, 0, error_text); /* the code comes from the text */
        minigraf_string_free(error_text);
        return throw_err(env, &err);
    }
    return mg_handle_new(env, MG_KIND_LOG_WRITER, w);
}

/* append / append_batch: one JSON text argument. */
static napi_value append_json(napi_env env, napi_callback_info info, bool batch) {
    napi_value argv[2];
    mg_handle *w;
    mg_error err = {0};
    char *json;
    bool ok;

    if (!mg_args(env, info, 2, argv) ||
        (w = mg_handle_open(env, argv[0], MG_KIND_LOG_WRITER)) == NULL ||
        (json = mg_string_arg(env, argv[1], batch ? "records" : "record")) == NULL)
        return NULL;
    ok = batch ? mg_op_writer_append_batch(w, json, &err) : mg_op_writer_append(w, json, &err);
    free(json);
    return ok ? NULL : throw_err(env, &err);
}

napi_value mg_log_writer_append(napi_env env, napi_callback_info info) {
    return append_json(env, info, false);
}

napi_value mg_log_writer_append_batch(napi_env env, napi_callback_info info) {
    return append_json(env, info, true);
}

napi_value mg_log_writer_advance_tx_count(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    mg_handle *w;
    mg_error err = {0};
    uint64_t tx_count;

    if (!mg_args(env, info, 2, argv) ||
        (w = mg_handle_open(env, argv[0], MG_KIND_LOG_WRITER)) == NULL ||
        !mg_uint64_arg(env, argv[1], "txCount", &tx_count))
        return NULL;
    return mg_op_writer_advance_tx_count(w, tx_count, &err) ? NULL : throw_err(env, &err);
}

napi_value mg_log_writer_tx_count(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *w;
    mg_error err = {0};
    uint64_t count = 0;

    if (!mg_args(env, info, 1, argv) ||
        (w = mg_handle_open(env, argv[0], MG_KIND_LOG_WRITER)) == NULL)
        return NULL;
    if (!mg_op_writer_tx_count(w, &count, &err))
        return throw_err(env, &err);
    return mg_uint64_value(env, count);
}

napi_value mg_log_writer_finish(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *w;
    mg_error err = {0};

    if (!mg_args(env, info, 1, argv) ||
        (w = mg_handle_open(env, argv[0], MG_KIND_LOG_WRITER)) == NULL)
        return NULL;
    return mg_op_writer_finish(w, &err) ? NULL : throw_err(env, &err);
}

napi_value mg_log_writer_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_LOG_WRITER);
}
