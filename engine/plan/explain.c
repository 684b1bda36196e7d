/* plan_explain: the ordered top-level conjunction, step by step. */
#include "plan/explain.h"

#include "plan/estimate.h"

enum { EXPLAIN_COUNT_CAP = 1 << 20 };

int plan_explain(const ast_query *q, store_reader *r, arena *a, plan_step_info **steps,
                 size_t *count, err *e)
{
    plan_hint hint = {0};
    hint.counts = arena_alloc(a, sizeof *hint.counts);
    if (!hint.counts)
        return err_set(e, ERR(INT, 0), "out of memory");
    hint.counts->used = 0;
    plan_query pq;
    int rc = plan_compile_query(q, r, &hint, a, &pq, e);
    if (rc != 0)
        return rc;
    const plan_conj *c = pq.top;
    plan_step_info *out = arena_alloc(a, (c->item_count + 1) * sizeof *out);
    if (!out)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < c->item_count; i++) {
        const plan_item *it = &c->items[c->order[i]];
        plan_step_info *s = &out[i];
        *s = (plan_step_info){.clause = it->clause, .kind = it->kind, .estimate = SIZE_MAX};
        s->has_access = it->kind == PK_PATTERN || it->kind == PK_INVOKE ||
                        (it->kind == PK_PSEUDO && it->correlate < 0);
        if (s->has_access) {
            s->join = it->access.join;
            s->index = it->access.index;
            s->seeks = it->access.known[0] || it->access.known[1] || it->access.known[2];
        }
        if (it->kind == PK_PATTERN)
            s->estimate = plan_estimate_constants(r, hint.counts, it, EXPLAIN_COUNT_CAP);
    }
    *steps = out;
    *count = c->item_count;
    return 0;
}
