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
  napi_value argv[2], result;
  mg_handle *cursor;
  mg_error err = {0};
  size_t max_rows;
  char *json;

  if (!mg_args(env, info, 2, argv) ||
      (cursor = mg_handle_open(env, argv[0], MG_KIND_CURSOR)) == NULL ||
      !mg_max_rows_arg(env, argv[1], &max_rows))
    return NULL;
  json = mg_op_next_batch(cursor, max_rows, &err);
  if (json != NULL) return mg_result_value(env, json);
  if (err.code != 0) {
    mg_throw(env, &err);
    mg_error_clear(&err);
    return NULL;
  }
  MG_CHECK(env, napi_get_null(env, &result));
  return result;
}

napi_value mg_cursor_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  mg_handle *cursor;
  if (!mg_args(env, info, 1, argv) ||
      (cursor = mg_handle_unwrap(env, argv[0], MG_KIND_CURSOR)) == NULL)
    return NULL;
  mg_handle_close(cursor);
  return NULL;
}
