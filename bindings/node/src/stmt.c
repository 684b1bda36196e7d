/*
 * stmt.c — prepared queries: minigraf_prepare and the typed binds.
 *
 * JS signatures (index.js is the only caller):
 *   dbPrepare(db, text) -> statement handle
 *   stmtBind(stmt, binds: [name, kind, value, name, kind, value, ...])
 *   stmtBindJson(stmt, json: string) -> undefined   (minigraf_stmt_bind_json)
 *   stmtClear(stmt) -> undefined
 *   stmtQuery(stmt, maxRows, flags) -> [cursor handle?, columns?, buffer,
 *                       texts?, failure?]   (first_batch.c)
 *   stmtExecute(stmt) -> {variables, results}
 *   stmtRows(stmt, maxRows, flags) -> packed batch | null  (a run's first
 *                       maxRows rows, 0: all; null: none; no cursor object;
 *                       with MG_ROWS_OBJECTS the :find headers at [2])
 *   stmtClose(stmt) -> undefined                 (idempotent)
 * index.js decides each value's kind (MG_BIND_*, the same numbers as its
 * BIND table) from its JS type and class, so the addon calls the one typed
 * minigraf_stmt_bind_* that fits.
 */
#include "addon.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MG_BIND_NULL,
    MG_BIND_STRING,
    MG_BIND_INT64,
    MG_BIND_DOUBLE,
    MG_BIND_BOOL,
    MG_BIND_KEYWORD,
    MG_BIND_ENTITY,
    MG_BIND_TX_COUNT,
    MG_BIND_TIMESTAMP,
    MG_BIND_ANY_VALID_TIME
};

static napi_value stmt_error(napi_env env, mg_handle *s) {
    return mg_throw_code(env, minigraf_stmt_last_error_code(s->native),
                         minigraf_stmt_last_error(s->native));
}

napi_value mg_db_prepare(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    mg_handle *db;
    MiniGrafStmt *s;
    char *text;
    if (!mg_args(env, info, 2, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        (text = mg_string_arg(env, argv[1], "text")) == NULL)
        return NULL;
    s = minigraf_prepare(db->native, text);
    free(text);
    if (s == NULL)
        return mg_throw_code(env, minigraf_last_error_code(db->native),
                             minigraf_last_error(db->native));
    return mg_handle_new(env, MG_KIND_STMT, s);
}

/* A Number or BigInt integer argument as int64 (RangeError otherwise). */
static bool int64_arg(napi_env env, napi_value v, int64_t *out) {
    napi_valuetype type;
    napi_typeof(env, v, &type);
    if (type == napi_bigint) {
        bool lossless = false;
        napi_get_value_bigint_int64(env, v, out, &lossless);
        if (lossless)
            return true;
    } else if (type == napi_number) {
        double d = 0;
        napi_get_value_double(env, v, &d);
        if (d == floor(d) && fabs(d) <= 9007199254740991.0) {
            *out = (int64_t)d;
            return true;
        }
    }
    napi_throw_range_error(env, NULL, "a bound integer must fit a signed 64-bit integer");
    return false;
}

/* An Entity: in entity position the Entity kind, elsewhere (a value, a
 * rule argument, an expression) Val(ref), the second try. The first
 * error is the one kept. */
static int entity_bind(MiniGrafStmt *s, const char *name, const char *uuid) {
    int rc = minigraf_stmt_bind_entity(s, name, uuid);
    if (rc != MINIGRAF_E_API_015)
        return rc;
    if (minigraf_stmt_bind_ref(s, name, uuid) == 0)
        return 0;
    return minigraf_stmt_bind_entity(s, name, uuid); /* restores its error */
}

/* Binds one value of `kind`; returns the library's code, or -1 with an
 * exception pending. */
static int bind_one(napi_env env, MiniGrafStmt *s, const char *name, int kind, napi_value v) {
    int64_t i = 0;
    double d = 0;
    bool b = false;
    uint64_t u = 0;
    size_t len = 0;
    char *text = NULL;
    int rc;
    switch (kind) {
    case MG_BIND_NULL: return minigraf_stmt_bind_null(s, name);
    case MG_BIND_INT64: return int64_arg(env, v, &i) ? minigraf_stmt_bind_int64(s, name, i) : -1;
    case MG_BIND_TIMESTAMP:
        return int64_arg(env, v, &i) ? minigraf_stmt_bind_timestamp_ms(s, name, i) : -1;
    case MG_BIND_DOUBLE:
        napi_get_value_double(env, v, &d);
        return minigraf_stmt_bind_double(s, name, d);
    case MG_BIND_BOOL: napi_get_value_bool(env, v, &b); return minigraf_stmt_bind_bool(s, name, b);
    case MG_BIND_TX_COUNT:
        return mg_uint64_arg(env, v, "a TxCount", &u) ? minigraf_stmt_bind_tx_count(s, name, u)
                                                      : -1;
    case MG_BIND_ANY_VALID_TIME: return minigraf_stmt_bind_any_valid_time(s, name);
    default: break;
    }
    /* The text kinds: a string with its length (it may hold NUL). */
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok ||
        (text = malloc(len + 1)) == NULL) {
        napi_throw_type_error(env, NULL, "a bound text value must be a string");
        return -1;
    }
    napi_get_value_string_utf8(env, v, text, len + 1, &len);
    if (!mg_text_faithful(env, v, text, len, "a bound text value")) {
        free(text);
        return -1;
    }
    if (kind == MG_BIND_STRING)
        rc = minigraf_stmt_bind_string(s, name, text, len);
    else if (kind == MG_BIND_KEYWORD)
        rc = minigraf_stmt_bind_keyword(s, name, text);
    else
        rc = entity_bind(s, name, text);
    free(text);
    return rc;
}

napi_value mg_stmt_bind(napi_env env, napi_callback_info info) {
    napi_value argv[2], name_v, kind_v, value;
    mg_handle *s;
    uint32_t n = 0;
    if (!mg_args(env, info, 2, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL)
        return NULL;
    MG_CHECK(env, napi_get_array_length(env, argv[1], &n));
    for (uint32_t at = 0; at + 3 <= n; at += 3) {
        int32_t kind = 0;
        char *name;
        int rc;
        MG_CHECK(env, napi_get_element(env, argv[1], at, &name_v));
        MG_CHECK(env, napi_get_element(env, argv[1], at + 1, &kind_v));
        MG_CHECK(env, napi_get_element(env, argv[1], at + 2, &value));
        MG_CHECK(env, napi_get_value_int32(env, kind_v, &kind));
        if ((name = mg_string_arg(env, name_v, "a bind name")) == NULL)
            return NULL;
        rc = bind_one(env, s->native, name, kind, value);
        free(name);
        if (rc < 0)
            return NULL;
        if (rc > 0)
            return stmt_error(env, s);
    }
    return NULL;
}

/* stmtBindJson(stmt, json): minigraf_stmt_bind_json, all or nothing. */
napi_value mg_stmt_bind_json(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    mg_handle *s;
    char *json;
    int rc;
    if (!mg_args(env, info, 2, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL ||
        (json = mg_string_arg(env, argv[1], "binds")) == NULL)
        return NULL;
    rc = minigraf_stmt_bind_json(s->native, json);
    free(json);
    return rc != 0 ? stmt_error(env, s) : NULL;
}

napi_value mg_stmt_clear(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *s;
    if (!mg_args(env, info, 1, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL)
        return NULL;
    if (minigraf_stmt_clear_bindings(s->native) != 0)
        return stmt_error(env, s);
    return NULL;
}

napi_value mg_stmt_query(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    mg_handle *s;
    MiniGrafCursor *c;
    size_t max_rows;
    int flags;
    bool pending = false;
    if (!mg_args(env, info, 3, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL ||
        !mg_first_batch_args(env, argv + 1, &max_rows, &flags))
        return NULL;
    c = minigraf_stmt_query(s->native);
    if (c == NULL) {
        napi_is_exception_pending(env, &pending); /* a progress handler threw */
        return pending ? NULL : stmt_error(env, s);
    }
    return mg_cursor_first_batch(env, c, max_rows, flags);
}

napi_value mg_stmt_execute(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *s;
    char *json;
    bool pending = false;
    if (!mg_args(env, info, 1, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL)
        return NULL;
    json = minigraf_stmt_execute(s->native);
    if (json == NULL) {
        napi_is_exception_pending(env, &pending);
        return pending ? NULL : stmt_error(env, s);
    }
    return mg_result_value(env, json);
}

/* A whole run in one addon call: the cursor lives only inside it, so a
 * prepared all() / get() pays for one Node-API call and no handle object. */
napi_value mg_stmt_rows(napi_env env, napi_callback_info info) {
    napi_value argv[3], result = NULL;
    mg_instance *inst = mg_instance_get(env);
    mg_handle *s;
    MiniGrafCursor *c;
    mg_rows *rows;
    mg_error err = {0};
    size_t max_rows;
    int flags;
    bool pending = false;
    if (!mg_args(env, info, 3, argv) || (s = mg_handle_open(env, argv[0], MG_KIND_STMT)) == NULL ||
        !mg_max_rows_arg(env, argv[1], &max_rows) || !mg_flags_arg(env, argv[2], &flags))
        return NULL;
    if ((c = minigraf_stmt_query(s->native)) == NULL) {
        napi_is_exception_pending(env, &pending); /* a progress handler threw */
        return pending ? NULL : stmt_error(env, s);
    }
    if ((rows = mg_rows_borrow(inst)) == NULL)
        napi_throw_error(env, NULL, "minigraf: out of memory");
    else if (!mg_rows_fill(c, max_rows == 0 ? SIZE_MAX : max_rows, rows, &err))
        mg_throw(env, &err);
    else if ((result = mg_rows_pack(env, rows, flags)) != NULL && (flags & MG_ROWS_OBJECTS) &&
             rows->nrows > 0) {
        napi_value names = mg_column_names(env, c); /* the keys, as packed[2] */
        if (names == NULL || napi_set_element(env, result, 2, names) != napi_ok)
            result = NULL;
    }
    mg_error_clear(&err);
    if (rows != NULL)
        mg_rows_give_back(inst, rows);
    minigraf_cursor_free(c);
    return result;
}

napi_value mg_stmt_close(napi_env env, napi_callback_info info) {
    return mg_handle_close_call(env, info, MG_KIND_STMT);
}
