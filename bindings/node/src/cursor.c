/*
 * cursor.c — the synchronous functions on a cursor handle.
 *
 * JS signatures (index.js is the only caller):
 *   cursorVariables(handle) -> string[]
 *   cursorNextBatch(handle, maxRows: number) -> row[] | null   (null: end)
 *   cursorClose(handle) -> undefined                           (idempotent)
 * A cursor stays readable after its database is closed (minigraf.h).
 */
#include "addon.h"

napi_value mg_cursor_variables(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  mg_handle *cursor;
  mg_error err = {0};
  char *json;

  if (!mg_args(env, info, 1, argv) ||
      (cursor = mg_handle_open(env, argv[0], MG_KIND_CURSOR)) == NULL)
    return NULL;
  json = mg_op_cursor_vars(cursor, &err);
  if (json == NULL) {
    mg_throw(env, &err);
    mg_error_clear(&err);
    return NULL;
  }
  return mg_result_value(env, json);
}

napi_value mg_cursor_next_batch(napi_env env, napi_callback_info info) {
  return mg_batch_next(env, info, MG_KIND_CURSOR, mg_op_next_batch);
}

napi_value mg_cursor_close(napi_env env, napi_callback_info info) {
  return mg_handle_close_call(env, info, MG_KIND_CURSOR);
}
