/*
 * rows.c — a cursor's rows through the typed step API (minigraf_cursor_step
 * and the column accessors), never JSON.
 *
 * JS signatures (index.js is the only caller):
 *   cursorColumns(handle) -> string[]           the :find headers
 *   cursorRows(handle, maxRows, flags) -> packed batch | null   (null: end)
 *   setValueClasses(keywordOf, entityOf, decodeList, Keyword, Entity)
 *
 * Fetching is two halves so that the async variant can step on the pool:
 * mg_rows_fill copies up to maxRows rows out of the cursor (any thread),
 * mg_rows_pack (packed.c) hands them to JS as columns (JS thread), where
 * index.js makes the rows. One addon call returns a whole batch, so the
 * per-call cost of Node-API is paid per batch, not per value.
 */
#include "addon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MG_MAX_SAFE 9007199254740991LL /* 2^53 - 1 */

void mg_rows_free(mg_rows *rows) {
    if (rows == NULL)
        return;
    free(rows->cells);
    free(rows->arena);
    free(rows);
}

/* What the environment's buffer keeps between fetches: a larger one (an
 * all() of many rows) is freed rather than held for the process's life. */
#define MG_ROWS_KEEP_BYTES (1u << 20)

/* One buffer per environment, not per cursor: a buffer per cursor lived
 * until the GC finalized the cursor, so a loop of small queries held
 * thousands of them, and glibc gave the heap's top back and faulted fresh
 * pages in again at every collection (a quarter of the time of a query
 * loop). */
mg_rows *mg_rows_borrow(mg_instance *inst) {
    if (inst->rows_lent ||
        (inst->rows == NULL && (inst->rows = calloc(1, sizeof *inst->rows)) == NULL))
        return calloc(1, sizeof(mg_rows));
    inst->rows_lent = true;
    return inst->rows;
}

void mg_rows_give_back(mg_instance *inst, mg_rows *rows) {
    if (rows != inst->rows) {
        mg_rows_free(rows);
        return;
    }
    inst->rows_lent = false;
    if (rows->cap_cells * sizeof *rows->cells + rows->arena_cap > MG_ROWS_KEEP_BYTES) {
        inst->rows = NULL;
        mg_rows_free(rows);
    }
}

/* Copies `len` bytes into the arena; false when out of memory. */
static bool arena_put(mg_rows *r, const void *bytes, size_t len, size_t *off) {
    if (r->arena_len + len > r->arena_cap) {
        size_t cap = r->arena_cap ? r->arena_cap : 4096;
        char *grown;
        while (cap < r->arena_len + len)
            cap *= 2;
        grown = realloc(r->arena, cap);
        if (grown == NULL)
            return false;
        r->arena = grown;
        r->arena_cap = cap;
    }
    if (len > 0)
        memcpy(r->arena + r->arena_len, bytes, len);
    *off = r->arena_len;
    r->arena_len += len;
    return true;
}

static bool reserve_cells(mg_rows *r, size_t n) {
    mg_cell *grown;
    size_t cap;
    if (n <= r->cap_cells)
        return true;
    cap = r->cap_cells ? r->cap_cells : 64;
    while (cap < n)
        cap *= 2;
    grown = realloc(r->cells, cap * sizeof *grown);
    if (grown == NULL)
        return false;
    r->cells = grown;
    r->cap_cells = cap;
    return true;
}

/* Copies column `col` of the current row into `cell`. */
static bool copy_cell(MiniGrafCursor *c, int col, mg_rows *r, mg_cell *cell) {
    const char *text;
    size_t len = 0;
    cell->type = minigraf_cursor_column_type(c, col);
    cell->len = 0;
    cell->v.i = 0;
    switch (cell->type) {
    case MINIGRAF_TYPE_INTEGER: cell->v.i = minigraf_cursor_column_int64(c, col); return true;
    case MINIGRAF_TYPE_FLOAT: cell->v.d = minigraf_cursor_column_double(c, col); return true;
    case MINIGRAF_TYPE_BOOLEAN: cell->v.i = minigraf_cursor_column_bool(c, col); return true;
    case MINIGRAF_TYPE_REF:
        return arena_put(r, minigraf_cursor_column_uuid(c, col), 16, &cell->v.off);
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD:
    case MINIGRAF_TYPE_LIST:
        text = minigraf_cursor_column_text(c, col, &len);
        if (text == NULL || len > UINT32_MAX)
            return false;
        cell->len = (uint32_t)len;
        return arena_put(r, text, len, &cell->v.off);
    default: cell->type = MINIGRAF_TYPE_NULL; return true;
    }
}

bool mg_rows_fill(MiniGrafCursor *cursor, size_t max_rows, mg_rows *out, mg_error *err) {
    int rc = 1;
    size_t ncols = (size_t)minigraf_cursor_column_count(cursor);
    out->ncols = ncols;
    out->nrows = 0;
    out->arena_len = 0;
    out->end = false;
    if (max_rows == 0)
        max_rows = 1;
    while (out->nrows < max_rows && (rc = minigraf_cursor_step(cursor)) == 1) {
        mg_cell *row;
        if (!reserve_cells(out, (out->nrows + 1) * ncols))
            goto oom;
        row = out->cells + out->nrows * ncols;
        for (size_t col = 0; col < ncols; col++)
            if (!copy_cell(cursor, (int)col, out, &row[col]))
                goto oom;
        out->nrows++;
    }
    if (rc < 0) {
        mg_error_set(err, minigraf_cursor_last_error_code(cursor),
                     minigraf_cursor_last_error(cursor));
        return false;
    }
    out->end = rc == 0;
    return true;
oom:
    mg_error_set(err, MG_API_017, "[API-017] out of memory reading a row");
    return false;
}

/* Where each byte's two hex digits go in the 8-4-4-4-12 text. */
static const unsigned char uuid_digit_at[16] = {0,  2,  4,  6,  9,  11, 14, 16,
                                                19, 21, 24, 26, 28, 30, 32, 34};

void mg_uuid_text(const unsigned char *u, char out[37]) {
    /* A table of every byte's two digits: an entity column writes one UUID
     * per row, and a digit at a time with the dash tests cost ~270
     * instructions a UUID. */
    static const char pairs[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                                "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                                "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                                "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                                "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                                "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                                "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    for (int i = 0; i < 16; i++)
        memcpy(out + uuid_digit_at[i], pairs + 2 * u[i], 2);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[36] = '\0';
}

/* maker(arg) for a maker index.js registered (keywordOf, entityOf). */
static napi_value construct(napi_env env, napi_ref maker_ref, napi_value arg) {
    napi_value maker, global, result;
    if (maker_ref == NULL) {
        napi_throw_error(env, NULL, "minigraf: value classes are not registered");
        return NULL;
    }
    MG_CHECK(env, napi_get_reference_value(env, maker_ref, &maker));
    MG_CHECK(env, napi_get_global(env, &global));
    MG_CHECK(env, napi_call_function(env, global, maker, 1, &arg, &result));
    return result;
}

static napi_value integer_value(napi_env env, int64_t i, int flags) {
    napi_value v;
    if (flags & MG_ROWS_BIGINT) {
        MG_CHECK(env, napi_create_bigint_int64(env, i, &v));
    } else if (i > MG_MAX_SAFE || i < -MG_MAX_SAFE) {
        char message[160];
        snprintf(message, sizeof message,
                 "the integer %lld is beyond Number.MAX_SAFE_INTEGER; read it "
                 "with safeIntegers(true) to get a BigInt",
                 (long long)i);
        napi_throw_range_error(env, "ERR_MINIGRAF_UNSAFE_INTEGER", message);
        return NULL;
    } else {
        MG_CHECK(env, napi_create_double(env, (double)i, &v));
    }
    return v;
}

/* A collect-set LIST: its typed JSON items, decoded by index.js. */
static napi_value list_value(napi_env env, const char *text, size_t len, int flags) {
    mg_instance *inst = mg_instance_get(env);
    napi_value fn, argv[2], global, result;
    if (inst->list_decoder == NULL) {
        napi_throw_error(env, NULL, "minigraf: value classes are not registered");
        return NULL;
    }
    MG_CHECK(env, napi_get_reference_value(env, inst->list_decoder, &fn));
    MG_CHECK(env, napi_create_string_utf8(env, text, len, &argv[0]));
    MG_CHECK(env, napi_get_boolean(env, (flags & MG_ROWS_BIGINT) != 0, &argv[1]));
    MG_CHECK(env, napi_get_global(env, &global));
    MG_CHECK(env, napi_call_function(env, global, fn, 2, argv, &result));
    return result;
}

napi_value mg_value_to_js(napi_env env, int type, int64_t i, double d, const char *text, size_t len,
                          const unsigned char *uuid, int flags) {
    napi_value v;
    char uuid_text[37];
    switch (type) {
    case MINIGRAF_TYPE_STRING: MG_CHECK(env, napi_create_string_utf8(env, text, len, &v)); return v;
    case MINIGRAF_TYPE_INTEGER: return integer_value(env, i, flags);
    case MINIGRAF_TYPE_FLOAT: MG_CHECK(env, napi_create_double(env, d, &v)); return v;
    case MINIGRAF_TYPE_BOOLEAN: MG_CHECK(env, napi_get_boolean(env, i != 0, &v)); return v;
    case MINIGRAF_TYPE_KEYWORD:
        MG_CHECK(env, napi_create_string_utf8(env, text, len, &v));
        return construct(env, mg_instance_get(env)->keyword_of, v);
    case MINIGRAF_TYPE_REF:
        mg_uuid_text(uuid, uuid_text);
        MG_CHECK(env, napi_create_string_utf8(env, uuid_text, 36, &v));
        return construct(env, mg_instance_get(env)->entity_of, v);
    case MINIGRAF_TYPE_LIST: return list_value(env, text, len, flags);
    default: MG_CHECK(env, napi_get_null(env, &v)); return v;
    }
}

/* ---- exported --------------------------------------------------------------- */

napi_value mg_column_names(napi_env env, MiniGrafCursor *cursor) {
    napi_value result, name;
    int n = minigraf_cursor_column_count(cursor);
    MG_CHECK(env, napi_create_array_with_length(env, (size_t)n, &result));
    for (int col = 0; col < n; col++) {
        const char *text = minigraf_cursor_column_name(cursor, col);
        MG_CHECK(env, napi_create_string_utf8(env, text ? text : "", NAPI_AUTO_LENGTH, &name));
        MG_CHECK(env, napi_set_element(env, result, (uint32_t)col, name));
    }
    return result;
}

napi_value mg_cursor_columns(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *h;
    if (!mg_args(env, info, 1, argv) || (h = mg_handle_open(env, argv[0], MG_KIND_CURSOR)) == NULL)
        return NULL;
    return mg_column_names(env, h->native);
}

bool mg_flags_arg(napi_env env, napi_value value, int *out) {
    int32_t flags = 0;
    if (napi_get_value_int32(env, value, &flags) != napi_ok) {
        napi_throw_type_error(env, NULL, "flags must be a number");
        return false;
    }
    *out = flags & (MG_ROWS_BIGINT | MG_ROWS_OBJECTS | MG_ROWS_NO_COLUMNS);
    return true;
}

napi_value mg_cursor_rows(napi_env env, napi_callback_info info) {
    napi_value argv[3], result;
    mg_instance *inst = mg_instance_get(env);
    mg_rows *rows;
    mg_handle *h;
    mg_error err = {0};
    size_t max_rows;
    int flags;
    bool ok;

    if (!mg_args(env, info, 3, argv) ||
        (h = mg_handle_open(env, argv[0], MG_KIND_CURSOR)) == NULL ||
        !mg_max_rows_arg(env, argv[1], &max_rows) || !mg_flags_arg(env, argv[2], &flags))
        return NULL;
    if ((rows = mg_rows_borrow(inst)) == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    ok = mg_rows_fill(h->native, max_rows, rows, &err);
    pthread_mutex_unlock(&h->lock);
    result = ok ? mg_rows_pack(env, rows, flags) : mg_throw(env, &err);
    mg_error_clear(&err);
    mg_rows_give_back(inst, rows);
    return result;
}

/* setValueClasses(keywordOf, entityOf, decodeList, Keyword, Entity) */
napi_value mg_set_value_classes(napi_env env, napi_callback_info info) {
    napi_value argv[5];
    mg_instance *inst = mg_instance_get(env);
    napi_ref *slots[5] = {&inst->keyword_of, &inst->entity_of, &inst->list_decoder,
                          &inst->keyword_class, &inst->entity_class};
    if (!mg_args(env, info, 5, argv))
        return NULL;
    for (int i = 0; i < 5; i++) {
        napi_valuetype type;
        MG_CHECK(env, napi_typeof(env, argv[i], &type));
        if (type != napi_function) {
            napi_throw_type_error(env, NULL, "setValueClasses expects functions");
            return NULL;
        }
    }
    for (int i = 0; i < 5; i++) {
        if (*slots[i] != NULL)
            napi_delete_reference(env, *slots[i]);
        *slots[i] = NULL;
        MG_CHECK(env, napi_create_reference(env, argv[i], 1, slots[i]));
    }
    return NULL;
}
