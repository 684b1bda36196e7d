/*
 * cursor.c — closing a cursor handle. Its rows are read through the typed
 * step API in rows.c (cursorColumns, cursorRows) and async.c
 * (cursorRowsAsync).
 *
 * JS signature (index.js is the only caller):
 *   cursorClose(handle) -> undefined   (idempotent)
 * A cursor stays readable after its database is closed (minigraf.h).
 */
#include "addon.h"

napi_value mg_cursor_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_CURSOR);
}
