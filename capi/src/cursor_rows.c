/* The rows of a cursor (cursor_rows.h): a read-ahead buffer in front of
 * the engine's db_cursor_read_blocks. */
#include "cursor_rows.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* Rows step reads ahead: AHEAD_FIRST at first (a cursor read for one row
 * copies few), doubling up to AHEAD_MAX; once its rows have held texts,
 * the engine is asked AHEAD_CHUNK rows at a time, and reading ahead
 * stops once the rows' texts take AHEAD_TEXT_BYTES, so that long texts
 * are not held by the hundred. Until then rows are asked for all at once
 * (the engine's call, its lock and interrupt scope, costs a few hundred
 * instructions: ~7 a row of numbers and Refs at 64 rows a call), so the
 * first texts of a cursor may come up to AHEAD_MAX rows in one call. */
#define AHEAD_FIRST 16
#define AHEAD_MAX 256
#define AHEAD_CHUNK 64
#define AHEAD_TEXT_BYTES (256 * 1024)
/* A batch asks the engine for up to BLOCK_ROWS rows at a time. */
#define BLOCK_ROWS 64

void cursor_rows_init(cursor_rows *r, db_cursor *source) {
    *r = (cursor_rows){.source = source, .want = AHEAD_FIRST};
    r->columns = result_column_count(db_cursor_columns(source));
    arena_init(&r->texts);
}

void cursor_rows_free(cursor_rows *r) {
    free(r->values);
    free(r->block);
    arena_free(&r->texts);
    err_clear(&r->pending);
    err_clear(&r->failure);
    r->values = NULL;
    r->block = NULL;
}

static const value *row_at(const cursor_rows *r, size_t i) {
    return r->values + i * r->columns;
}

/* `dst` becomes a copy of `src` (the code survives a failed copy). */
static void err_copy(err *dst, const err *src) {
    err_clear(dst);
    dst->code = src->code;
    dst->message = src->message ? strdup(src->message) : NULL;
}

/* The rows end with `cause`'s error (taken): every later read reports it
 * again, from the copy kept in r->failure. */
static int fail(cursor_rows *r, err *cause, err *e) {
    err_copy(&r->failure, cause);
    err_move(e, cause);
    r->current = NULL;
    r->count = r->next = 0;
    return r->failure.code;
}

static int failed_again(cursor_rows *r, err *e) {
    err_copy(e, &r->failure);
    return r->failure.code;
}

/* The rows read ahead and not handed out yet, up to `max`, as one block. */
static size_t take_ahead(cursor_rows *r, size_t max, db_rows_fn fn, void *ctx) {
    size_t n = r->count - r->next < max ? r->count - r->next : max;
    if (n)
        fn(ctx, r->values + r->next * r->columns, n);
    r->next += n;
    return n;
}

/* Up to `max` rows from the engine in one call, BLOCK_ROWS at a time
 * into r->block (not r->values, which holds the row step handed out). */
static size_t read_blocks(cursor_rows *r, size_t max, db_rows_fn fn, void *ctx, int *rc, err *e) {
    size_t columns = r->columns ? r->columns : 1;
    if (!r->block && !(r->block = malloc(BLOCK_ROWS * columns * sizeof *r->block))) {
        *rc = err_set(e, ERR(INT, 0), "out of memory");
        return 0;
    }
    err got = {0};
    size_t n = db_cursor_read_blocks(r->source, r->block, BLOCK_ROWS, max, fn, ctx, rc, &got);
    if (*rc != 0)
        *rc = fail(r, &got, e);
    else if (n < max)
        r->ended = true;
    return n;
}

size_t cursor_rows_read(cursor_rows *r, size_t max, db_rows_fn fn, void *ctx, int *rc, err *e) {
    *rc = 0;
    if (r->failure.code) {
        *rc = failed_again(r, e);
        return 0;
    }
    size_t n = take_ahead(r, max, fn, ctx);
    if (n == max || r->ended)
        return n;
    if (r->pending.code) {
        *rc = fail(r, &r->pending, e);
        return n;
    }
    return n + read_blocks(r, max - n, fn, ctx, rc, e);
}

/* ---- reading ahead for step ------------------------------------------------ */

/* Copies a value's texts and list items into `a` (`dst` may be `src`):
 * false when out of memory. Rows come decoded from the engine; a stored
 * one is decoded here (its source is alive during the callback). */
static bool copy_value(arena *a, value *dst, const value *src) {
    *dst = *src;
    if (dst->stored && value_resolve(dst, NULL) != 0)
        return false;
    if (dst->type == VT_STRING || dst->type == VT_KEYWORD) {
        char *text = arena_strndup(a, dst->as.str.ptr, dst->as.str.len);
        if (!text)
            return false;
        dst->as.str.ptr = text;
    } else if (dst->type == VT_LIST && dst->as.list.count > 0) {
        size_t n = dst->as.list.count;
        value *items = arena_alloc(a, n * sizeof *items);
        if (!items)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!copy_value(a, &items[i], &src->as.list.items[i]))
                return false;
        dst->as.list.items = items;
    }
    return true;
}

typedef struct keeper {
    cursor_rows *r;
    bool oom;
} keeper;

/* Whether a value of each type holds a payload (texts, list items);
 * VT_LIST is the last type (model/value.h). */
static const unsigned char payload_type[VT_LIST + 1] = {
    [VT_STRING] = 1, [VT_KEYWORD] = 1, [VT_LIST] = 1};

/* Whether a value needs more than its struct copied. */
static bool has_payload(const value *v) {
    return v->stored || payload_type[v->type];
}

/* Whether any of v[0..n) does: one test for the block, not one a value
 * (most blocks of rows hold numbers and Refs only), with a table rather
 * than a shift (four instructions a value, not five). */
static bool any_payload(const value *v, size_t n) {
    unsigned char seen = 0;
#pragma GCC unroll 4 /* the loop's own count */
    for (size_t i = 0; i < n; i++)
        seen |= payload_type[v[i].type] | v[i].stored;
    return seen;
}

/* The engine wrote `n` rows in place, after the r->count rows held:
 * their texts and list items are copied out of the engine's memory (in
 * place; numbers, booleans and refs need nothing) and the rows counted,
 * up to a row that runs out of memory. */
static void keep_rows(void *ctx, value *rows, size_t n) {
    keeper *k = ctx;
    cursor_rows *r = k->r;
    size_t cells = n * r->columns, i = any_payload(rows, cells) ? 0 : cells;
    r->texts_seen = r->texts_seen || i < cells;
    for (; i < cells; i++)
        if (has_payload(&rows[i]) && !copy_value(&r->texts, &rows[i], &rows[i])) {
            k->oom = true;
            break;
        }
    r->count += k->oom ? i / r->columns : n; /* the rows copied whole */
}

/* The items are whole rows; `want` doubles, and so does the capacity. */
static bool reserve(cursor_rows *r) {
    size_t columns = r->columns ? r->columns : 1;
    return array_reserve(&r->values, &r->cap, r->want, columns * sizeof *r->values, r->want);
}

/* Reads the next rows ahead (the previous ones are done with): 1 when
 * there is at least one, 0 at the end, or an error code. An error after
 * some rows waits until they are handed out. */
static int read_ahead(cursor_rows *r, err *e) {
    r->count = r->next = 0;
    r->current = NULL;
    arena_rewind(&r->texts);
    if (r->pending.code)
        return fail(r, &r->pending, e);
    if (r->ended)
        return 0;
    if (!reserve(r))
        return err_set(e, ERR(INT, 0), "out of memory");
    keeper k = {r, false};
    while (r->count < r->want && !r->ended && r->texts.bytes_used < AHEAD_TEXT_BYTES) {
        size_t ask = r->want - r->count, chunk = r->texts_seen ? AHEAD_CHUNK : ask;
        ask = ask < chunk ? ask : chunk;
        err got = {0};
        int rc;
        value *at = r->values + r->count * r->columns;
        size_t n = db_cursor_read_rows(r->source, at, ask, keep_rows, &k, &rc, &got);
        if (rc == 0 && k.oom)
            rc = err_set(&got, ERR(INT, 0), "out of memory");
        if (rc != 0) {
            if (r->count == 0)
                return fail(r, &got, e);
            err_move(&r->pending, &got);
            break;
        }
        r->ended = n < ask;
    }
    if (r->want < AHEAD_MAX)
        r->want *= 2;
    return r->count > 0;
}

int cursor_rows_step_ahead(cursor_rows *r, err *e) {
    if (r->failure.code)
        return failed_again(r, e);
    if (r->next == r->count) {
        int rc = read_ahead(r, e);
        if (rc != 1)
            return rc;
    }
    r->current = row_at(r, r->next++);
    return 1;
}
