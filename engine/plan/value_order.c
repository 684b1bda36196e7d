/* Which pattern can give a query's rows in its first key's order (see
 * value_order.h). */
#include "plan/value_order.h"

#include <string.h>

static bool plain_find(const ast_query *q) {
    for (size_t i = 0; i < q->spec_count; i++)
        if (q->specs[i].kind != FIND_VAR)
            return false;
    return true;
}

bool plan_value_order_find(const ast_query *q, const plan_conj *top, plan_value_order *out) {
    if (!q->order_count || !q->has_limit || !plain_find(q) || top->item_count == 0)
        return false;
    const term *key = &q->order_by[0].var;
    const plan_item *it = &top->items[top->order[0]];
    if (it->kind != PK_PATTERN || it->access.join != PLAN_JOIN_NESTED_LOOP)
        return false;
    const ast_pattern *pat = it->pc.pattern;
    int var = it->pc.var[2];
    if (pat->a.kind != TERM_CONST || pat->a.constant.type != VT_KEYWORD ||
        pat->e.kind == TERM_CONST || pat->e.kind == TERM_SLOT || var < 0 || it->pc.var[0] == var)
        return false;
    const plan_var *v = &top->vars[var];
    if (v->len != key->name_len || memcmp(v->name, key->name, v->len) != 0 ||
        v->slots[0] != it->slot[2])
        return false;
    *out = (plan_value_order){it, var, q->order_by[0].desc};
    return true;
}
