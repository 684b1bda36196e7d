#include "exec/visibility.h"

void visibility_init(visibility *v, const ast_query *q, int64_t now_ms) {
    v->as_of = q->as_of;
    v->as_of_value = q->as_of_value;
    v->any_valid_time = q->valid == VALID_ANY;
    v->valid_point = q->valid == VALID_AT ? q->valid_at : now_ms;
}
