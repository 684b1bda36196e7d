/* Window columns (language.md §11) over the materialised work rows: each
 * window reads its inputs from the rows' slots and writes its column in
 * place (window.c), the rows keeping their order (language.md §11.2 step 6). */
#include "exec/finish_internal.h"

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

static int compute_column(finish_plan *p, const finish_col *col, size_t c, finish_rows *rows,
                          err *e) {
    window_rows r = {rows->rows, col->partition, col->order, col->arg, (long)c};
    if (col->win != WINDOW_HOST)
        return window_compute(col->win, col->spec->desc, rows->count, &r, p->m, e);
    host_window h = {p, host_fn_callbacks(col->host), NULL, false};
    window_running run = {host_start, host_add, host_stop, &h};
    return window_compute_running(&run, col->spec->desc, rows->count, &r, p->m, e);
}

int finish_windows(finish_plan *p, finish_rows *rows, err *e) {
    int rc = 0;
    for (size_t c = 0; !rc && rows->count && c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_WINDOW)
            rc = compute_column(p, &p->cols[c], c, rows, e);
    return rc;
}
