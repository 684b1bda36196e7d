#include "exec/visibility.h"

#include <string.h>

void visibility_init(visibility *v, const ast_query *q, int64_t now_ms) {
    v->as_of = q->as_of;
    v->as_of_value = q->as_of_value;
    v->any_valid_time = q->valid == VALID_ANY;
    v->valid_point = q->valid == VALID_AT ? q->valid_at : now_ms;
}

bool visibility_same_group(const fact_ids *a, const fact_ids *b) {
    return a->e == b->e && a->a == b->a && memcmp(a->v, b->v, FACT_V_SIZE) == 0;
}

bool visibility_passes_cut(const visibility *v, const fact_ids *f) {
    switch (v->as_of) {
    case AS_OF_COUNTER: return v->as_of_value >= 0 && f->tx_count <= (uint64_t)v->as_of_value;
    case AS_OF_TIME: return f->tx_id <= v->as_of_value;
    case AS_OF_NONE: return true;
    case AS_OF_SLOT: return false; /* rejected before execution */
    }
    return true;
}

bool visibility_shows(const visibility *v, const fact_ids *last) {
    if (!last->asserted)
        return false;
    return v->any_valid_time || (last->valid_from <= v->valid_point && v->valid_point < last->valid_to);
}
