/*
 * tx.c — explicit write transactions, and export.
 *
 * JS signatures (index.js is the only caller):
 *   dbBeginWrite(db) -> tx handle
 *   txExecute(tx, text) -> object      (staged writes: {ok: true})
 *   txQuery(tx, text, maxRows, flags) -> [cursor handle | null, columns, rows,
 *                       failure] (first_batch.c; committed data + staged statements)
 *   txCommit(tx), txRollback(tx) -> undefined
 *   txClose(tx) -> undefined           (rolls back if still open; idempotent)
 *   dbExport(db, path, optionsJson | null) -> undefined
 */
#include "addon.h"

#include <stdlib.h>

static napi_value tx_error(napi_env env, mg_handle *tx) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending)
        return NULL;
    return mg_throw_code(env, minigraf_tx_last_error_code(tx->native),
                         minigraf_tx_last_error(tx->native));
}

napi_value mg_db_begin_write(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *db;
    MiniGrafTx *tx;
    if (!mg_args(env, info, 1, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL)
        return NULL;
    tx = minigraf_begin_write(db->native);
    if (tx == NULL)
        return mg_throw_code(env, minigraf_last_error_code(db->native),
                             minigraf_last_error(db->native));
    return mg_handle_new(env, MG_KIND_TX, tx);
}

/* The (tx, text) arguments; NULL with an exception pending. */
static mg_handle *tx_text_args(napi_env env, napi_callback_info info, char **text) {
    napi_value argv[2];
    mg_handle *tx;
    if (!mg_args(env, info, 2, argv) || (tx = mg_handle_open(env, argv[0], MG_KIND_TX)) == NULL ||
        (*text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    return tx;
}

napi_value mg_tx_execute(napi_env env, napi_callback_info info) {
    char *text = NULL, *json;
    mg_handle *tx = tx_text_args(env, info, &text);
    if (tx == NULL)
        return NULL;
    json = minigraf_tx_execute(tx->native, text);
    free(text);
    return json == NULL ? tx_error(env, tx) : mg_result_value(env, json);
}

napi_value mg_tx_query(napi_env env, napi_callback_info info) {
    napi_value argv[4];
    char *text;
    mg_handle *tx;
    MiniGrafCursor *c;
    size_t max_rows;
    int flags;
    if (!mg_args(env, info, 4, argv) || (tx = mg_handle_open(env, argv[0], MG_KIND_TX)) == NULL ||
        !mg_first_batch_args(env, argv + 2, &max_rows, &flags) ||
        (text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    c = minigraf_tx_query(tx->native, text);
    free(text);
    return c == NULL ? tx_error(env, tx) : mg_cursor_first_batch(env, c, max_rows, flags);
}

static napi_value tx_end(napi_env env, napi_callback_info info, bool commit) {
    napi_value argv[1];
    mg_handle *tx;
    int rc;
    if (!mg_args(env, info, 1, argv) || (tx = mg_handle_open(env, argv[0], MG_KIND_TX)) == NULL)
        return NULL;
    rc = commit ? minigraf_tx_commit(tx->native) : minigraf_tx_rollback(tx->native);
    return rc != 0 ? tx_error(env, tx) : NULL;
}

napi_value mg_tx_commit(napi_env env, napi_callback_info info) {
    return tx_end(env, info, true);
}

napi_value mg_tx_rollback(napi_env env, napi_callback_info info) {
    return tx_end(env, info, false);
}

napi_value mg_tx_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_TX);
}

napi_value mg_db_export(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    mg_handle *db;
    char *path, *options = NULL;
    int rc;
    if (!mg_args(env, info, 3, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        (path = mg_string_arg(env, argv[1], "path")) == NULL)
        return NULL;
    if (!mg_optional_string_arg(env, argv[2], "options", &options)) {
        free(path);
        return NULL;
    }
    rc = minigraf_export(db->native, path, options);
    free(path);
    free(options);
    if (rc != 0)
        return mg_throw_code(env, rc, minigraf_last_error(db->native));
    return NULL;
}
