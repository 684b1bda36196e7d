/* minigraf.h: cursors over a query's answer. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/buf.h"
#include "db_calls.h"
#include "handles.h"
#include "json_write.h"

MiniGrafCursor *api_cursor_new(db_cursor *rows, err *e) {
    MiniGrafCursor *c = malloc(sizeof *c); /* not calloc: glibc's calloc skips its thread cache */
    if (c) {
        *c = (MiniGrafCursor){.format = MINIGRAF_FORMAT_JSON};
        cursor_rows_init(&c->rows, rows);
        if (handles_add(c, HANDLE_CURSOR))
            return c;
        cursor_rows_free(&c->rows);
    }
    free(c);
    db_cursor_free(rows);
    err_set(e, ERR(INT, 0), "out of memory");
    return NULL;
}

MiniGrafCursor *minigraf_query(MiniGrafDb *h, const char *text) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    MiniGrafCursor *c = NULL;
    db_cursor *rows = NULL;
    size_t len = 0;
    if (api_check_text_len(text, "text", &len, &e) == 0 &&
        db_cursor_open(h->engine, text, len, &rows, &e) == 0)
        c = api_cursor_new(rows, &e);
    if (e.code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    api_db_leave(h);
    return c;
}

/* Starts a call on a cursor: false (and nothing touched) for a bad handle. */
static bool cursor_begin(MiniGrafCursor *c) {
    if (!handles_live(c, HANDLE_CURSOR))
        return false;
    err_clear(&c->last);
    return true;
}

static char *out_of_memory(MiniGrafCursor *c) {
    err_set(&c->last, ERR(INT, 0), "out of memory");
    return NULL;
}

char *minigraf_cursor_vars(MiniGrafCursor *c) {
    if (!cursor_begin(c))
        return NULL;
    buf out;
    buf_init(&out);
    json_write_columns(&out, db_cursor_columns(c->rows.source));
    char *json = buf_detach(&out);
    return json ? json : out_of_memory(c);
}

/* A 0.1 status function: 0 or -1, the code on the cursor. */
int minigraf_cursor_set_format(MiniGrafCursor *c, int format) {
    if (!cursor_begin(c))
        return -1;
    if (format != MINIGRAF_FORMAT_JSON && format != MINIGRAF_FORMAT_TYPED) {
        err_set(&c->last, ERR(API, 17), "unknown cursor format %d", format);
        return -1;
    }
    c->format = format;
    return 0;
}

typedef struct batch {
    buf out;
    size_t columns;
    int typed;
    size_t rows;
} batch;

static void batch_rows(void *ctx, value *rows, size_t n) {
    batch *b = ctx;
    json_write_row_block(&b->out, rows, n, b->columns, b->typed, b->rows ? ',' : '[');
    b->rows += n;
}

/* Rows come from the query as it runs (or from memory when the answer was
 * computed whole; or, after minigraf_cursor_step, from the rows it read
 * ahead); a failure part-way drops the batch, and every later call returns
 * NULL with the same error. */
char *minigraf_cursor_next_batch(MiniGrafCursor *c, size_t max_rows) {
    if (!handles_live(c, HANDLE_CURSOR))
        return NULL;
    err_clear(&c->last);
    if (cursor_rows_done(&c->rows)) /* the call after the last rows */
        return NULL;
    batch b = {.columns = c->rows.columns, .typed = c->format == MINIGRAF_FORMAT_TYPED};
    buf_init(&b.out);
    if (c->batch_bytes)
        buf_grow(&b.out, c->batch_bytes); /* batches are alike: no doubling, no copies */
    int rc;
    cursor_rows_read(&c->rows, max_rows == 0 ? 1 : max_rows, batch_rows, &b, &rc, &c->last);
    if (rc != 0 || b.rows == 0) {
        buf_free(&b.out);
        return NULL;
    }
    buf_putc(&b.out, ']');
    c->batch_bytes = b.out.len;
    char *json = buf_detach(&b.out);
    return json ? json : out_of_memory(c);
}

const char *minigraf_cursor_last_error(const MiniGrafCursor *c) {
    if (!c)
        return NULL;
    int rc = handles_check(c, HANDLE_CURSOR);
    return rc ? handles_dead_message(rc) : c->last.message;
}

int minigraf_cursor_last_error_code(const MiniGrafCursor *c) {
    int rc = handles_check(c, HANDLE_CURSOR);
    return rc ? rc : c->last.code;
}

void minigraf_cursor_free(MiniGrafCursor *c) {
    if (!c || !handles_remove(c, HANDLE_CURSOR))
        return;
    db_cursor_free(c->rows.source);
    cursor_rows_free(&c->rows);
    err_clear(&c->last);
    free(c);
}
