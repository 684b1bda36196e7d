/*
 * database.c — the synchronous functions on a database handle.
 *
 * JS signatures (index.js is the only caller):
 *   dbOpen(path: string | null, optionsJson: string | null) -> handle
 *   dbClose(handle) -> undefined                 (idempotent)
 *   dbExecute(handle, text: string) -> object    (decoded result JSON)
 *   dbTxCount(handle) -> number | bigint
 *   dbCheckpoint(handle) -> undefined
 *   dbQuery(handle, text: string, maxRows, flags) -> [cursor handle | null,
 *                       columns, rows, failure]   (first_batch.c)
 * Failures throw MinigrafError; a wrong handle throws TypeError.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

napi_value mg_result_value(napi_env env, char *json) {
    napi_value value = NULL;
    bool ok = mg_json_to_js(env, json, strlen(json), &value);
    minigraf_string_free(json);
    return ok ? value : NULL;
}

napi_value mg_db_open(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    char *path = NULL, *options = NULL, *error_text = NULL;
    MiniGrafDb *db;

    if (!mg_args(env, info, 2, argv) || !mg_optional_string_arg(env, argv[0], "path", &path))
        return NULL;
    if (!mg_optional_string_arg(env, argv[1], "options", &options)) {
        free(path);
        return NULL;
    }
    db = minigraf_open_with_options(path, options, &error_text);
    free(path);
    free(options);
    if (db == NULL) {
        mg_error err = {0};
        mg_error_set(&err, 0, error_text); /* the code comes from the text */
        minigraf_string_free(error_text);
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    return mg_handle_new(env, MG_KIND_DB, db);
}

napi_value mg_db_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_DB);
}

napi_value mg_db_execute(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    mg_handle *db;
    mg_error err = {0};
    char *text, *json;

    if (!mg_args(env, info, 2, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        (text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    json = mg_op_execute(db, text, &err);
    free(text);
    if (json == NULL) {
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    return mg_result_value(env, json);
}

napi_value mg_db_tx_count(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *db;
    mg_error err = {0};
    uint64_t count = 0;

    if (!mg_args(env, info, 1, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL)
        return NULL;
    if (!mg_op_tx_count(db, &count, &err)) {
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    return mg_uint64_value(env, count);
}

napi_value mg_db_checkpoint(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *db;
    mg_error err = {0};

    if (!mg_args(env, info, 1, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL)
        return NULL;
    if (!mg_op_checkpoint(db, &err)) {
        mg_throw(env, &err);
        mg_error_clear(&err);
    }
    return NULL;
}

napi_value mg_db_query(napi_env env, napi_callback_info info) {
    napi_value argv[4];
    mg_handle *db;
    mg_error err = {0};
    MiniGrafCursor *cursor;
    size_t max_rows;
    int flags;
    char *text;

    if (!mg_args(env, info, 4, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        !mg_first_batch_args(env, argv + 2, &max_rows, &flags) ||
        (text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    cursor = mg_op_query(db, text, &err);
    free(text);
    if (cursor == NULL) {
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    return mg_cursor_first_batch(env, cursor, max_rows, flags);
}
