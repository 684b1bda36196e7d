/* plan_explain: the ordered top-level conjunction, step by step. */
#include "plan/explain.h"

#include "plan/estimate.h"

enum { EXPLAIN_COUNT_CAP = 1 << 20 };

/* A known value seeks (with the attribute, AVET) when matching it is
 * exact: a constant string, integer, boolean or keyword (E4: a keyword is
 * two seeks), or a variable's value, whose type is known only at run
 * time. */
static bool value_seeks(const plan_item *it) {
    const term *v = plan_pattern_term(it->pc.pattern, 2);
    if (v->kind != TERM_CONST)
        return it->access.known[2];
    value_type t = v->constant.type;
    return t == VT_STRING || t == VT_INTEGER || t == VT_BOOLEAN || t == VT_KEYWORD;
}

/* The index a step reads is decided at run time, by store_scan_open from
 * the positions exec/op_scan.c fixes; nothing in the plan depends on it.
 * Explain alone states it in advance, by the same rules: the positions
 * the seek fixes are those known when the step runs, except that a pseudo
 * pattern seeks by entity only, a Ref attribute narrows nothing (E4) and a
 * hash join reads the pattern with its constant attribute only. */

int plan_step_index(const plan_item *it) {
    const plan_access *a = &it->access;
    const term *attr = plan_pattern_term(it->pc.pattern, 1);
    bool hash = a->join == PLAN_JOIN_HASH, pseudo = it->kind == PK_PSEUDO;
    bool at = !pseudo && (hash ? attr->kind == TERM_CONST : a->known[1]) &&
              !(attr->kind == TERM_CONST && attr->constant.type != VT_KEYWORD);
    if (a->known[0] && !hash)
        return at ? TREE_AEVT : TREE_EAVT; /* the same records, store_scan.c */
    if (at)
        return !hash && value_seeks(it) ? TREE_AVET : TREE_AEVT;
    return TREE_EAVT;
}

int plan_explain(const ast_query *q, store_reader *r, arena *a, plan_step_info **steps,
                 size_t *count, err *e) {
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
            s->index = plan_step_index(it);
            s->seeks = it->access.known[0] || it->access.known[1] || it->access.known[2];
        }
        if (it->kind == PK_PATTERN)
            s->estimate = plan_estimate_constants(r, hint.counts, it, EXPLAIN_COUNT_CAP);
    }
    *steps = out;
    *count = c->item_count;
    return 0;
}
