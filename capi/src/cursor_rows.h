/* The rows of a MiniGrafCursor, the one source both of its readers take
 * rows from: JSON batches (minigraf_cursor_next_batch) and typed rows
 * (minigraf_cursor_step). They share one position.
 *
 * The engine's rows (db_cursor_read_rows) are borrowed for one callback: a
 * streaming row points into the query's snapshot, which a write on
 * another thread may release between two calls. A batch renders its rows
 * inside the callback, a block of them at a time; step instead copies a few rows ahead into memory
 * of its own (values, and texts in an arena), so that the row it hands
 * out stays valid until the next step whatever happens to the database,
 * and so that the engine's lock and call are paid once per group of rows,
 * not per row. A batch first takes the rows step read ahead. */
#ifndef MG_CAPI_CURSOR_ROWS_H
#define MG_CAPI_CURSOR_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "db/db.h"
#include "model/value.h"

typedef struct cursor_rows {
    db_cursor *source;
    size_t columns;
    value *values;        /* `cap` rows of `columns` values, read ahead */
    value *block;         /* a batch's rows, a block at a time (allocated at the first) */
    size_t cap, count;    /* rows the array holds room for / holds */
    size_t next;          /* the next row to hand out */
    size_t want;          /* rows the next read-ahead asks for */
    arena texts;          /* the rows' strings, keywords and list items */
    const value *current; /* the row of the last step, or NULL */
    err pending;          /* an error met while reading ahead, after `count` rows */
    err failure;          /* the error that ended the rows (code 0: none; else next == count) */
    bool ended;           /* 0 rows and no error: the end */
    bool texts_seen;      /* a row read ahead held texts, list items or stored values */
} cursor_rows;

void cursor_rows_init(cursor_rows *r, db_cursor *source);
void cursor_rows_free(cursor_rows *r);

/* Hands out up to `max` rows to `fn`, in blocks, the rows read ahead first: returns
 * how many, with *rc 0 (fewer than `max` only at the end), or with *rc an
 * error code and `e` set (then the rows only fail, with that error again). */
size_t cursor_rows_read(cursor_rows *r, size_t max, db_rows_fn fn, void *ctx, int *rc, err *e);

/* True when every row was handed out and the engine said so (no error
 * waits): a read would hand out none. */
static inline bool cursor_rows_done(const cursor_rows *r) {
    return r->ended && r->next == r->count && !r->pending.code && !r->failure.code;
}

/* cursor_rows_step when the rows read ahead are used up, or failed. */
int cursor_rows_step_ahead(cursor_rows *r, err *e);

/* Moves to the next row (r->current): 1, 0 at the end (current NULL), or
 * an error code with `e` set. Inline: most steps only move along the rows
 * read ahead. */
static inline int cursor_rows_step(cursor_rows *r, err *e) {
    if (r->next == r->count) /* a failure leaves none ahead */
        return cursor_rows_step_ahead(r, e);
    r->current = r->values + r->next++ * r->columns;
    return 1;
}

#endif
