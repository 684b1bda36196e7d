/*
 * batch.c — what cursors and fact logs share: reading a handle's items in
 * batches on the JS thread.
 *
 * JS signature of the functions built on it (cursor.c, fact_log.c):
 *   ...NextBatch(handle, maxItems: number) -> item[] | null   (null: end)
 * The Promise variants are in async.c and run the same mg_next_batch_op.
 */
#include "addon.h"

napi_value mg_batch_next(napi_env env, napi_callback_info info, mg_kind kind,
                         mg_next_batch_op next_batch) {
    napi_value argv[2], result;
    mg_handle *h;
    mg_error err = {0};
    size_t max_items;
    char *json;

    if (!mg_args(env, info, 2, argv) || (h = mg_handle_open(env, argv[0], kind)) == NULL ||
        !mg_max_rows_arg(env, argv[1], &max_items))
        return NULL;
    json = next_batch(h, max_items, &err);
    if (json != NULL)
        return mg_result_value(env, json);
    if (err.code != 0) {
        mg_throw(env, &err);
        mg_error_clear(&err);
        return NULL;
    }
    MG_CHECK(env, napi_get_null(env, &result));
    return result;
}
