/* A stand-in for the :find side (exec/finish.h) until exec/finish.c
 * lands: plain-variable projection only, one row per solution (a bag,
 * decision D1). Aggregates, windows, :with, :order-by, :limit and :offset
 * are rejected before execution (exec/supported.c). Replace this file,
 * do not extend it. */
#include <stdlib.h>

#include "exec/finish.h"

static int plain_columns(const ast_query *q, const solution_stream *in, result_set *r, long *col, err *e) {
    for (size_t i = 0; i < q->find_count; i++) {
        const term *t = &q->find[i];
        if (result_set_column(r, i, t->name, t->name_len) != 0)
            return err_set(e, ERR(INT, 0), "out of memory");
        col[i] = solution_var_index(in, t->name, t->name_len);
        if (col[i] < 0)
            return err_set(e, ERR(PRS, 80), "variable %.*s in :find is not bound by :where", (int)t->name_len,
                           t->name);
    }
    return 0;
}

static int plain_rows(const ast_query *q, solution_stream *in, result_set *r, const long *col, err *e) {
    value *row = calloc(q->find_count + 1, sizeof *row);
    if (!row)
        return err_set(e, ERR(INT, 0), "out of memory");
    const value *sol;
    const bool *bound;
    int rc;
    while ((rc = in->next(in, &sol, &bound, e)) == 1) {
        for (size_t i = 0; i < q->find_count; i++)
            row[i] = sol[col[i]];
        if (result_append_row(r, row) != 0) {
            rc = err_set(e, ERR(INT, 0), "out of memory");
            break;
        }
    }
    free(row);
    return rc;
}

int finish_query(const ast_query *q, solution_stream *in, meter *m, result_set **out, err *e) {
    (void)m;
    result_set *r = result_new(q->find_count);
    long *col = calloc(q->find_count + 1, sizeof *col);
    int rc = r && col ? plain_columns(q, in, r, col, e) : err_set(e, ERR(INT, 0), "out of memory");
    if (rc == 0)
        rc = plain_rows(q, in, r, col, e);
    in->close(in);
    free(col);
    if (rc != 0) {
        result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
