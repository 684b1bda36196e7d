/* Window columns (language.md §11) over the materialised work rows: per window, the
 * partition, order and argument values are gathered into arrays (window.c
 * works on arrays), computed, and written back into the rows, which keep
 * their order (language.md §11.2 step 6). */
#include <stdlib.h>

#include "exec/finish_internal.h"

/* The gathered inputs and the output of one window column at a time;
 * `partition` and `arg` only when some window has them. */
typedef struct window_arrays {
    value *partition, *order, *arg, *out;
    size_t bytes;
} window_arrays;

static value slot_value(const value *row, long slot) {
    return slot < 0 ? value_null() : row[slot];
}

static void arrays_free(window_arrays *w, meter *m) {
    free(w->partition);
    free(w->order);
    free(w->arg);
    free(w->out);
    meter_release(m, w->bytes);
}

static int arrays_alloc(const finish_plan *p, window_arrays *w, size_t n, err *e) {
    bool partition = false, arg = false;
    for (size_t c = 0; c < p->col_count; c++) {
        partition |= p->cols[c].spec->kind == FIND_WINDOW && p->cols[c].spec->has_partition;
        arg |= p->cols[c].spec->kind == FIND_WINDOW && window_takes_arg(p->cols[c].win);
    }
    size_t one = (n ? n : 1) * sizeof(value), arrays = 2 + partition + arg;
    int rc = meter_charge(p->m, arrays * one, "window", e);
    if (rc)
        return rc;
    w->bytes = arrays * one;
    w->partition = partition ? malloc(one) : NULL;
    w->order = malloc(one);
    w->arg = arg ? malloc(one) : NULL;
    w->out = malloc(one);
    if ((partition && !w->partition) || !w->order || (arg && !w->arg) || !w->out)
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

/* ---- a host aggregate as a window (language.md §11.2): one accumulator per
 * partition, stepped with every row (Null included), finished after each
 * step with the rows so far; each result's text is copied into the plan's
 * arena (charged), as the host's memory is only lent until its next call. */

typedef struct host_window {
    finish_plan *p;
    const host_callbacks *cb;
    void *acc;
    bool live;
} host_window;

static int host_start(void *ctx, err *e) {
    host_window *h = ctx;
    int rc = h->cb->init(h->cb->ctx, &h->acc, e);
    h->live = rc == 0;
    return rc;
}

static int host_add(void *ctx, const value *arg, int64_t rows, value *out, err *e) {
    host_window *h = ctx;
    value v = *arg, result;
    int rc = value_resolve(&v, e);
    if (!rc)
        rc = h->cb->step(h->cb->ctx, h->acc, &v, e);
    if (!rc)
        rc = h->cb->finish(h->cb->ctx, h->acc, rows, &result, e);
    return rc ? rc : finish_copy_value(h->p, out, &result, "window", e);
}

static void host_stop(void *ctx) {
    host_window *h = ctx;
    if (h->live && h->cb->release)
        h->cb->release(h->cb->ctx, h->acc);
    h->live = false;
}

static int compute(finish_plan *p, const finish_col *col, size_t n, window_arrays *w, err *e) {
    const value *partition = col->spec->has_partition ? w->partition : NULL;
    if (col->win != WINDOW_HOST)
        return window_compute(col->win, col->spec->desc, n, partition, w->order, w->arg, w->out,
                              p->m, e);
    host_window h = {p, host_fn_callbacks(col->host), NULL, false};
    window_running run = {host_start, host_add, host_stop, &h};
    return window_compute_running(&run, col->spec->desc, n, partition, w->order, w->arg, w->out,
                                  p->m, e);
}

static int compute_column(finish_plan *p, size_t c, finish_rows *rows, window_arrays *w, err *e) {
    const finish_col *col = &p->cols[c];
    for (size_t i = 0; i < rows->count; i++) {
        w->order[i] = slot_value(rows->rows[i], col->order);
        if (w->partition)
            w->partition[i] = slot_value(rows->rows[i], col->partition);
        if (w->arg)
            w->arg[i] = slot_value(rows->rows[i], col->arg);
    }
    int rc = compute(p, col, rows->count, w, e);
    for (size_t i = 0; !rc && i < rows->count; i++)
        rows->rows[i][c] = w->out[i];
    return rc;
}

int finish_windows(finish_plan *p, finish_rows *rows, err *e) {
    if (p->win_count == 0 || rows->count == 0)
        return 0;
    window_arrays w = {0};
    int rc = arrays_alloc(p, &w, rows->count, e);
    for (size_t c = 0; !rc && c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_WINDOW)
            rc = compute_column(p, c, rows, &w, e);
    arrays_free(&w, p->m);
    return rc;
}
