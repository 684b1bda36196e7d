/* minigraf.h: typed rows — minigraf_cursor_step and the column accessors,
 * reading the cursor's current row (cursor_rows.h). */
#include "api.h"
#include "base/buf.h"
#include "handles.h"
#include "json_write.h"

/* Each call has a fast path for when nothing is amiss (a cursor in the
 * set of recent ones, handles.h; no error to clear; the value of the
 * type asked for), which calls nothing, and falls back on the checked
 * path, which also says what is amiss. */

static __attribute__((noinline)) int step_checked(MiniGrafCursor *c) {
    if (!handles_cursor_live(c))
        return c ? -ERR(API, 18) : -ERR(API, 17);
    if (c->last.code)
        err_clear(&c->last);
    int rc = cursor_rows_step(&c->rows, &c->last);
    return rc > 1 ? -rc : rc;
}

int minigraf_cursor_step(MiniGrafCursor *c) {
    if (!handles_recent_cursor(c) || c->last.code)
        return step_checked(c);
    cursor_rows *r = &c->rows;
    if (r->next == r->count) /* so too after a failure (cursor_rows.h) */
        return step_checked(c);
    r->current = r->values + r->next++ * r->columns;
    return 1;
}

int minigraf_cursor_column_count(MiniGrafCursor *c) {
    if (!handles_live(c, HANDLE_CURSOR))
        return 0;
    return (int)c->rows.columns;
}

/* A column index, checked: false (with the cursor's error set) if out of
 * range. */
static bool column_ok(MiniGrafCursor *c, int col) {
    if (col >= 0 && (size_t)col < c->rows.columns)
        return true;
    err_set(&c->last, ERR(API, 17), "column %d is out of range: the cursor has %zu column%s", col,
            c->rows.columns, c->rows.columns == 1 ? "" : "s");
    return false;
}

const char *minigraf_cursor_column_name(MiniGrafCursor *c, int col) {
    if (!handles_live(c, HANDLE_CURSOR) || !column_ok(c, col))
        return NULL;
    if (c->last.code)
        err_clear(&c->last);
    size_t len;
    return result_column_name(db_cursor_columns(c->rows.source), (size_t)col, &len);
}

/* Why column() found no value at `col` (a live cursor): API-017 set. Out
 * of the accessors' way, which run once per column of every row. */
static __attribute__((noinline, cold)) const value *no_column(MiniGrafCursor *c, int col) {
    if (!c->rows.current)
        err_set(&c->last, ERR(API, 17),
                "the cursor has no current row (minigraf_cursor_step did not return 1)");
    else
        column_ok(c, col);
    return NULL;
}

/* The value at `col` of the current row, or NULL (API-017 set). */
/* Inline in each accessor (one call fewer per column read). */
static inline __attribute__((always_inline)) const value *column(MiniGrafCursor *c, int col) {
    if (!handles_cursor_live(c))
        return NULL;
    const value *row = c->rows.current;
    if (!row || col < 0 || (size_t)col >= c->rows.columns)
        return no_column(c, col);
    if (c->last.code)
        err_clear(&c->last);
    return &row[col];
}

static int public_type(value_type t) {
    switch (t) {
    case VT_STRING: return MINIGRAF_TYPE_STRING;
    case VT_INTEGER: return MINIGRAF_TYPE_INTEGER;
    case VT_FLOAT: return MINIGRAF_TYPE_FLOAT;
    case VT_BOOLEAN: return MINIGRAF_TYPE_BOOLEAN;
    case VT_REF: return MINIGRAF_TYPE_REF;
    case VT_KEYWORD: return MINIGRAF_TYPE_KEYWORD;
    case VT_NULL: return MINIGRAF_TYPE_NULL;
    case VT_LIST: return MINIGRAF_TYPE_LIST;
    }
    return MINIGRAF_TYPE_NULL;
}

static const char *type_name(value_type t) {
    return t == VT_LIST ? "List" : value_type_name(t);
}

static __attribute__((noinline, cold)) const value *wrong_type(MiniGrafCursor *c, int col,
                                                               const value *v, const char *what) {
    err_set(&c->last, ERR(API, 17), "column %d holds a %s, not %s", col, type_name(v->type), what);
    return NULL;
}

/* The value at `col` if its type is `want` (or `also`), else NULL with
 * API-017 naming both. */
static inline __attribute__((always_inline)) const value *column_of(MiniGrafCursor *c, int col,
                                                                    value_type want,
                                                                    value_type also,
                                                                    const char *what) {
    const value *v = column(c, col);
    if (v && v->type != want && v->type != also)
        return wrong_type(c, col, v, what);
    return v;
}

/* The value at `col` of the current row if nothing is amiss and it is of
 * type `want`; NULL: take the checked path. */
static inline __attribute__((always_inline)) const value *column_fast(MiniGrafCursor *c, int col,
                                                                      value_type want) {
    if (!handles_recent_cursor(c))
        return NULL;
    const value *row = c->rows.current;
    /* a negative `col` converts to more than any column count */
    if (!row || (size_t)col >= c->rows.columns || c->last.code || row[col].type != want)
        return NULL;
    return &row[col];
}

static __attribute__((noinline)) int type_checked(MiniGrafCursor *c, int col) {
    const value *v = column(c, col);
    return v ? public_type(v->type) : -1;
}

/* A binding asks each column's type before reading it: the fast path
 * spares it the thread-local handle memo (a call in a shared library). */
int minigraf_cursor_column_type(MiniGrafCursor *c, int col) {
    if (!handles_recent_cursor(c))
        return type_checked(c, col);
    const value *row = c->rows.current;
    /* a negative `col` converts to more than any column count */
    if (!row || (size_t)col >= c->rows.columns || c->last.code)
        return type_checked(c, col);
    return public_type(row[col].type);
}

static __attribute__((noinline)) int64_t int64_checked(MiniGrafCursor *c, int col) {
    const value *v = column_of(c, col, VT_INTEGER, VT_INTEGER, "an Integer");
    return v ? v->as.i : 0;
}

int64_t minigraf_cursor_column_int64(MiniGrafCursor *c, int col) {
    const value *v = column_fast(c, col, VT_INTEGER);
    return v ? v->as.i : int64_checked(c, col);
}

static __attribute__((noinline)) double double_checked(MiniGrafCursor *c, int col) {
    const value *v = column_of(c, col, VT_FLOAT, VT_INTEGER, "a Float (or an Integer)");
    if (!v)
        return 0.0;
    return v->type == VT_FLOAT ? v->as.f : (double)v->as.i;
}

double minigraf_cursor_column_double(MiniGrafCursor *c, int col) {
    const value *v = column_fast(c, col, VT_FLOAT);
    return v ? v->as.f : double_checked(c, col);
}

static __attribute__((noinline)) int bool_checked(MiniGrafCursor *c, int col) {
    const value *v = column_of(c, col, VT_BOOLEAN, VT_BOOLEAN, "a Boolean");
    return v ? v->as.b : 0;
}

int minigraf_cursor_column_bool(MiniGrafCursor *c, int col) {
    const value *v = column_fast(c, col, VT_BOOLEAN);
    return v ? v->as.b : bool_checked(c, col);
}

/* A list's items as the JSON array of their typed forms, kept with the
 * row's texts (valid until the next step). */
static const char *list_text(MiniGrafCursor *c, const value *v, size_t *len) {
    buf out;
    buf_init(&out);
    buf_putc(&out, '[');
    for (size_t i = 0; i < v->as.list.count; i++) {
        if (i)
            buf_putc(&out, ',');
        json_write_value(&out, &v->as.list.items[i], 1);
    }
    buf_putc(&out, ']');
    char *text = out.oom ? NULL : arena_strndup(&c->rows.texts, out.data, out.len);
    *len = text ? out.len : 0;
    buf_free(&out);
    if (!text)
        err_set(&c->last, ERR(INT, 0), "out of memory");
    return text;
}

static const char *text_of(MiniGrafCursor *c, const value *v, size_t *len) {
    size_t n = 0;
    const char *text = NULL;
    if (v && v->type == VT_LIST)
        text = list_text(c, v, &n);
    else if (v) {
        text = v->as.str.ptr;
        n = v->as.str.len;
    }
    if (len)
        *len = n;
    return text;
}

/* A String's or Keyword's bytes (the fast paths of the two below). */
static const char *text_bytes(const value *v, size_t *len) {
    if (len)
        *len = v->as.str.len;
    return v->as.str.ptr;
}

static __attribute__((noinline)) const char *text_checked(MiniGrafCursor *c, int col, size_t *len) {
    const value *v = column(c, col);
    if (v && v->type != VT_STRING && v->type != VT_KEYWORD && v->type != VT_LIST) {
        err_set(&c->last, ERR(API, 17), "column %d holds a %s, not a String, Keyword or List", col,
                type_name(v->type));
        v = NULL;
    }
    return text_of(c, v, len);
}

const char *minigraf_cursor_column_text(MiniGrafCursor *c, int col, size_t *len) {
    const value *v = column_fast(c, col, VT_STRING);
    return v ? text_bytes(v, len) : text_checked(c, col, len);
}

static __attribute__((noinline)) const char *keyword_checked(MiniGrafCursor *c, int col,
                                                             size_t *len) {
    return text_of(c, column_of(c, col, VT_KEYWORD, VT_KEYWORD, "a Keyword"), len);
}

const char *minigraf_cursor_column_keyword(MiniGrafCursor *c, int col, size_t *len) {
    const value *v = column_fast(c, col, VT_KEYWORD);
    return v ? text_bytes(v, len) : keyword_checked(c, col, len);
}

static __attribute__((noinline)) const unsigned char *uuid_checked(MiniGrafCursor *c, int col) {
    const value *v = column_of(c, col, VT_REF, VT_REF, "a Ref");
    return v ? v->as.ref.bytes : NULL;
}

const unsigned char *minigraf_cursor_column_uuid(MiniGrafCursor *c, int col) {
    const value *v = column_fast(c, col, VT_REF);
    return v ? v->as.ref.bytes : uuid_checked(c, col);
}
