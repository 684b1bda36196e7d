/* Reading a db_cursor one row at a time (db_cursor_read_blocks with blocks
 * of one row), for tests that look at rows one by one. */
#ifndef MG_TEST_CURSOR_EACH_H
#define MG_TEST_CURSOR_EACH_H

#include <stdlib.h>

#include "db/db.h"

typedef void (*each_row_fn)(void *ctx, const value *row);

typedef struct each_row {
    each_row_fn fn;
    void *ctx;
} each_row;

static void each_row_keep(void *ctx, value *rows, size_t n) {
    each_row *each = ctx;
    (void)n; /* always 1 */
    each->fn(each->ctx, rows);
}

/* Up to `max_rows` rows, each to `fn`, in one call: returns how many, with
 * *rc as db_cursor_read_blocks's. */
static inline size_t cursor_read_each(db_cursor *c, size_t max_rows, each_row_fn fn, void *ctx,
                                      int *rc, err *e) {
    value *row = malloc((result_column_count(db_cursor_columns(c)) + 1) * sizeof *row);
    each_row each = {fn, ctx};
    *rc = 0;
    size_t n = row ? db_cursor_read_blocks(c, row, 1, max_rows, each_row_keep, &each, rc, e) : 0;
    free(row);
    return n;
}

#endif
