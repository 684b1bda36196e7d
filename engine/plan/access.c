/* The access of each pattern step once the order is fixed (plan/conj.h):
 * which positions are known when it runs and its join (exec/op_build.c
 * builds the operator the plan names). The index a seek reads is the
 * store's choice (store_index_for), from the positions exec/op_scan.c
 * fixes at run time; plan/explain.c only describes it. */
#include "plan/conj.h"

static bool position_known(const plan_conj *c, const plan_item *it, int pos, size_t step) {
    if (plan_pattern_term(it->pc.pattern, pos)->kind == TERM_CONST)
        return true;
    return it->pc.var[pos] >= 0 && plan_var_set(c, it->pc.var[pos], step);
}

/* Is the value position known only through an entity position filled
 * earlier (always a Ref at run time)? A Ref value cannot seek: stored
 * keywords naming it match too (E4), so it would rescan the attribute per
 * row. The slot tested is the first filled one, the one the scan reads. */
static bool value_known_as_entity(const plan_conj *c, const plan_item *it, size_t step) {
    if (it->pc.var[2] < 0 || plan_pattern_term(it->pc.pattern, 2)->kind == TERM_CONST)
        return false;
    const plan_var *v = &c->vars[it->pc.var[2]];
    for (size_t i = 0; i < v->slot_count; i++) {
        int s = v->slots[i];
        if (!plan_slot_set(c, s, step))
            continue;
        const plan_slot *sl = &c->slots[s];
        if (sl->kind != SLOT_PATTERN || sl->item < 0)
            return false;
        const plan_item *from = &c->items[sl->item];
        return (from->kind == PK_PATTERN || from->kind == PK_PSEUDO) && from->slot[0] == s;
    }
    return false;
}

static plan_join choose_join(const plan_conj *c, const plan_item *it, size_t step) {
    const plan_access *a = &it->access;
    if (step <= 1 || a->known[0])
        return PLAN_JOIN_NESTED_LOOP;
    if (!a->known[2])
        return PLAN_JOIN_HASH;
    bool attr_const = plan_pattern_term(it->pc.pattern, 1)->kind == TERM_CONST;
    return it->kind == PK_PATTERN && attr_const && value_known_as_entity(c, it, step)
               ? PLAN_JOIN_HASH
               : PLAN_JOIN_NESTED_LOOP;
}

static bool reads_records(const plan_item *it) {
    return it->kind == PK_PATTERN || it->kind == PK_INVOKE ||
           (it->kind == PK_PSEUDO && it->correlate < 0);
}

void plan_set_access(plan_conj *c) {
    for (size_t i = 0; i < c->item_count; i++) {
        plan_item *it = &c->items[i];
        if (!reads_records(it))
            continue;
        size_t step = c->step_of[i];
        for (int pos = 0; pos < 3; pos++)
            it->access.known[pos] = position_known(c, it, pos, step);
        it->access.join = choose_join(c, it, step);
    }
}
