#include "exec/visibility.h"

#include <stdlib.h>

int visibility_init(visibility *v, const store *s, const ast_query *q, int64_t now_ms, err *e) {
    v->s = s;
    v->as_of = q->as_of;
    v->as_of_value = q->as_of_value;
    v->any_valid_time = q->valid == VALID_ANY;
    v->valid_point = q->valid == VALID_AT ? q->valid_at : now_ms;
    size_t n = store_fact_count(s);
    v->memo = calloc(n ? n : 1, 1);
    if (!v->memo)
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

void visibility_free(visibility *v) {
    free(v->memo);
    v->memo = NULL;
}

static bool passes_tx_cut(const visibility *v, const fact *f) {
    switch (v->as_of) {
    case AS_OF_COUNTER: return v->as_of_value >= 0 && f->tx_count <= (uint64_t)v->as_of_value;
    case AS_OF_TIME: return f->tx_id <= v->as_of_value;
    case AS_OF_NONE: return true;
    case AS_OF_SLOT: return false; /* rejected before execution */
    }
    return true;
}

/* The group's decider: its last record that passes the cut. */
static uint32_t group_decider(const visibility *v, size_t record) {
    size_t n;
    const uint32_t *recs = store_same_triple(v->s, record, &n);
    if (v->as_of == AS_OF_NONE)
        return recs[n - 1];
    if (v->as_of == AS_OF_COUNTER) {
        /* tx_count grows with commit order: binary search the last fit. */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (passes_tx_cut(v, store_fact(v->s, recs[mid])))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo > 0 ? recs[lo - 1] : UINT32_MAX;
    }
    /* tx_id need not grow across processes (the wall clock may step back). */
    for (size_t i = n; i-- > 0;)
        if (passes_tx_cut(v, store_fact(v->s, recs[i])))
            return recs[i];
    return UINT32_MAX;
}

static bool compute_visible(const visibility *v, size_t record) {
    const fact *f = store_fact(v->s, record);
    if (!f->asserted || !passes_tx_cut(v, f))
        return false;
    if (group_decider(v, record) != record)
        return false;
    if (v->any_valid_time)
        return true;
    return f->valid_from <= v->valid_point && v->valid_point < f->valid_to;
}

bool visibility_visible(visibility *v, size_t record) {
    if (v->memo[record] == 0)
        v->memo[record] = compute_visible(v, record) ? 1 : 2;
    return v->memo[record] == 1;
}
