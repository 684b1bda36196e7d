/*
 * first_batch.c — a cursor opened together with its first batch of rows,
 * so that a query of a few rows costs one addon call and no handle object.
 *
 * dbQuery, txQuery and stmtQuery take (..., maxRows, flags) and return
 *   [handle?, columns?, buffer, texts?, failure?]
 *   handle   the cursor's handle, or absent when the rows are all its rows:
 *            the native cursor is freed then, and no JS object is made,
 *            wrapped, closed and finalized for it
 *   columns  the :find headers in one string, each after the one before
 *            and a NUL (a header never holds one: query text cannot); JS
 *            splits it when they are asked for. Absent when flags has
 *            MG_ROWS_NO_COLUMNS: the caller has them from an earlier run of
 *            the same text or statement (a header is a function of the
 *            text alone)
 *   buffer   the first at most maxRows rows as a packed batch's ArrayBuffer
 *   texts    and its texts (packed.c), put here instead of in an array of
 *            their own; buffer is null when there are no rows
 *   failure  the error met reading them (a library error, an exception of a
 *            progress handler or host function), or absent (a value JS
 *            cannot hold is met by index.js as it decodes the rows)
 * An absent element is a hole (undefined in JS): each element set through
 * Node-API costs ~60 ns. index.js throws `failure` when the reader gets
 * past the rows before it: from the call that would have met it without
 * the read-ahead. Without the read-ahead a query of ten rows took an addon
 * call to open, one for the headers, one per batch and one to close, and a
 * handle whose finalizer ran at the next GC: more than twice what the run
 * costs in C.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

/* The :find headers joined by NULs, as one JS string. */
static napi_value column_text(napi_env env, MiniGrafCursor *c) {
    char small[256], *text = small;
    size_t len = 0, cap = sizeof small;
    int n = minigraf_cursor_column_count(c);
    napi_value value = NULL;
    for (int col = 0; col < n; col++) {
        const char *name = minigraf_cursor_column_name(c, col);
        size_t name_len = name ? strlen(name) : 0;
        if (len + name_len + 1 > cap) {
            char *grown = malloc(cap = 2 * (len + name_len + 1));
            if (grown == NULL)
                goto oom;
            memcpy(grown, text, len);
            if (text != small)
                free(text);
            text = grown;
        }
        if (col > 0)
            text[len++] = '\0';
        memcpy(text + len, name ? name : "", name_len);
        len += name_len;
    }
    if (napi_create_string_utf8(env, text, len, &value) != napi_ok)
        value = NULL;
    if (text != small)
        free(text);
    return value;
oom:
    if (text != small)
        free(text);
    napi_throw_error(env, NULL, "minigraf: out of memory");
    return NULL;
}

/* The pending exception as a value to throw later. */
static napi_value take_exception(napi_env env) {
    napi_value exception = NULL;
    if (napi_get_and_clear_last_exception(env, &exception) != napi_ok)
        return NULL;
    return exception;
}

/* The failure of a fill that returned false: the exception a JS callback
 * threw during it, else the library's error. */
static napi_value fill_failure(napi_env env, const mg_error *err) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    return pending ? take_exception(env) : mg_error_value(env, err);
}

enum { PART_HANDLE, PART_COLUMNS, PART_BUFFER, PART_TEXTS, PART_FAILURE, PART_COUNT };

/* The rows and failure parts from `rows`, which fill left as `filled`
 * says. False with an exception pending when not even the failure could
 * be made. */
static bool rows_and_failure(napi_env env, mg_rows *rows, bool filled, const mg_error *err,
                             int flags, napi_value parts[PART_COUNT]) {
    napi_value failure = NULL;
    if (!filled && (failure = fill_failure(env, err)) == NULL)
        return false;
    if (!mg_rows_pack_parts(env, rows, flags, &parts[PART_BUFFER], &parts[PART_TEXTS])) {
        if (failure == NULL && (failure = take_exception(env)) == NULL)
            return false;
        rows->end = false; /* the cursor goes on after the rows that failed */
        parts[PART_TEXTS] = NULL;
        if (napi_get_null(env, &parts[PART_BUFFER]) != napi_ok)
            return false;
    }
    parts[PART_FAILURE] = failure; /* NULL: none, left a hole */
    return true;
}

/* parts[PART_COLUMNS] unless the caller has the headers (NULL then). */
static bool columns_part(napi_env env, MiniGrafCursor *c, int flags, napi_value parts[PART_COUNT]) {
    parts[PART_COLUMNS] = NULL;
    return (flags & MG_ROWS_NO_COLUMNS) != 0 || (parts[PART_COLUMNS] = column_text(env, c)) != NULL;
}

napi_value mg_cursor_first_batch(napi_env env, MiniGrafCursor *c, size_t max_rows, int flags) {
    mg_instance *inst = mg_instance_get(env);
    napi_value parts[PART_COUNT], result = NULL;
    mg_error err = {0};
    mg_rows *rows = mg_rows_borrow(inst);
    bool ok;

    if (rows == NULL) {
        minigraf_cursor_free(c);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    parts[PART_HANDLE] = NULL;
    ok = columns_part(env, c, flags, parts);
    if (ok) {
        bool filled = mg_rows_fill(c, max_rows, rows, &err);
        ok = rows_and_failure(env, rows, filled, &err, flags, parts);
        if (ok && filled && rows->end) {
            minigraf_cursor_free(c); /* its rows are all in the buffer */
            c = NULL;
        }
    }
    mg_error_clear(&err);
    mg_rows_give_back(inst, rows);
    if (!ok) {
        minigraf_cursor_free(c);
        mg_throw_last_status(env);
        return NULL;
    }
    if (c != NULL && (parts[PART_HANDLE] = mg_handle_new(env, MG_KIND_CURSOR, c)) == NULL)
        return NULL; /* mg_handle_new freed `c` */
    if (napi_create_array_with_length(env, PART_COUNT, &result) != napi_ok)
        goto status;
    for (uint32_t i = 0; i < PART_COUNT; i++)
        if (parts[i] != NULL && napi_set_element(env, result, i, parts[i]) != napi_ok)
            goto status;
    return result;
status:
    mg_throw_last_status(env);
    return NULL;
}

/* The (..., maxRows, flags) arguments at argv[0] and argv[1]. */
bool mg_first_batch_args(napi_env env, napi_value argv[2], size_t *max_rows, int *flags) {
    return mg_max_rows_arg(env, argv[0], max_rows) && mg_flags_arg(env, argv[1], flags);
}
