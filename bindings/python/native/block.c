/*
 * block.c — a cursor's rows read without the GIL: up to a block of rows
 * stepped over and copied into cells, for cursor.c to turn into tuples
 * once it holds the GIL again.
 *
 * The library's cursor is freed as soon as its end (or error) is met, in
 * the same GIL-free stretch; what is still needed of it, the column names
 * and the error's text, is copied into the block first. So a small answer
 * costs one GIL release in all: the query runs, its rows are read and its
 * cursor freed before Python objects are made (mgpy_block_open right after
 * minigraf_query), and the Python cursor's deallocation has nothing left
 * to free in the library.
 *
 * A finished block can be opened again on a new answer of the same
 * prepared query (its cursor taken up again, stmt.c): its buffers and
 * column names are kept, so a small answer then costs no malloc or free,
 * and no look-up of the columns, at all.
 */
#include <string.h>

#include "mgpy.h"

/* The ncols column names, each ended by NUL, in one allocation. */
static int copy_names(mgpy_block *b) {
    size_t size = 0, len;
    int col;
    char *at;

    for (col = 0; col < b->ncols; col++) {
        const char *name = minigraf_cursor_column_name(b->handle, col);
        size += (name ? strlen(name) : 0) + 1;
    }
    b->names = malloc(size ? size : 1);
    if (!b->names) {
        return -1;
    }
    for (at = b->names, col = 0; col < b->ncols; col++) {
        const char *name = minigraf_cursor_column_name(b->handle, col);
        len = name ? strlen(name) : 0;
        memcpy(at, name ? name : "", len);
        at[len] = '\0';
        at += len + 1;
    }
    return 0;
}

/* Keeps how stepping ended (rc 0: the end, < 0: an error) and frees the
 * library's cursor. */
static void finish(mgpy_block *b, int rc) {
    const char *message = rc < 0 ? minigraf_cursor_last_error(b->handle) : NULL;

    b->done = 1;
    b->error_code = rc < 0 ? -rc : 0;
    if (message) {
        size_t len = strlen(message);
        b->error_text = malloc(len + 1);
        if (b->error_text) {
            memcpy(b->error_text, message, len + 1);
        }
    }
    minigraf_cursor_free(b->handle);
    b->handle = NULL;
}

/* Room for `rows` rows of the block's columns. */
static int make_room(mgpy_block *b, size_t rows) {
    size_t cells = rows * (size_t)(b->ncols > 0 ? b->ncols : 1);
    mgpy_cell *grown;

    if (cells <= b->cap_cells) {
        return 0;
    }
    grown = realloc(b->cells, cells * sizeof *b->cells);
    if (!grown) {
        return -1;
    }
    b->cells = grown;
    b->cap_cells = cells;
    return 0;
}

int mgpy_block_fill(mgpy_block *b, size_t want) {
    int rc = 1, col;
    mgpy_cell *row;

    b->rows = 0;
    b->arena.len = 0;
    if (b->done || !b->handle) {
        return 0;
    }
    if (make_room(b, want) < 0) {
        return -1;
    }
    while (b->rows < want && (rc = minigraf_cursor_step(b->handle)) == 1) {
        row = b->cells + b->rows * (size_t)b->ncols;
        for (col = 0; col < b->ncols; col++) {
            if (mgpy_cell_read(b->handle, col, row + col, &b->arena) < 0) {
                b->rows = 0;
                return -1;
            }
        }
        b->rows++;
    }
    if (rc <= 0) {
        finish(b, rc);
    }
    return 0;
}

int mgpy_block_open(mgpy_block *b, MiniGrafCursor *handle, size_t want) {
    free(b->error_text);
    b->error_text = NULL;
    b->error_code = b->done = 0;
    b->rows = b->arena.len = 0;
    b->handle = handle;
    if (!handle) {
        return 0;
    }
    if (!b->names) { /* a new block: the answer's columns */
        b->ncols = minigraf_cursor_column_count(handle);
        if (copy_names(b) < 0) {
            return -1;
        }
    }
    return mgpy_block_fill(b, want);
}

void mgpy_block_free(mgpy_block *b) {
    minigraf_cursor_free(b->handle);
    free(b->cells);
    free(b->arena.data);
    free(b->names);
    free(b->error_text);
    memset(b, 0, sizeof *b);
}
