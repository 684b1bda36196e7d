#include "rules/closure.h"

#include <stdlib.h>
#include <string.h>

#include "base/mg_assert.h"

/* ---- recognising the two rules ------------------------------------------------ */

static bool same_var(const term *a, const term *b) {
    return a->kind == TERM_VAR && b->kind == TERM_VAR && a->name_len == b->name_len &&
           memcmp(a->name, b->name, a->name_len) == 0;
}

static bool same_name(const char *a, size_t a_len, const char *b, size_t b_len) {
    return a_len == b_len && memcmp(a, b, a_len) == 0;
}

/* (p ?x ?y), two distinct variables. */
static bool binary_head(const ast_rule *r) {
    return r->argc == 2 && r->args[0].kind == TERM_VAR && r->args[1].kind == TERM_VAR &&
           !same_var(&r->args[0], &r->args[1]);
}

/* [e :a v] for the variables e and v and a keyword :a. */
static bool edge_pattern(const ast_clause *c, const term *e, const term *v) {
    return c->kind == CL_PATTERN && same_var(&c->as.pattern.e, e) &&
           same_var(&c->as.pattern.v, v) && c->as.pattern.a.kind == TERM_CONST &&
           c->as.pattern.a.constant.type == VT_KEYWORD;
}

/* (p ?x ?y) :- [?x :a ?y] */
static bool base_rule(const ast_rule *r) {
    return binary_head(r) && r->body.count == 1 &&
           edge_pattern(&r->body.items[0], &r->args[0], &r->args[1]);
}

/* (p ?x ?y) :- [?x :a ?m], (p ?m ?y), in either order, :a base's. */
static bool step_rule(const ast_rule *r, const ast_rule *base) {
    if (!binary_head(r) || r->body.count != 2 ||
        !same_name(r->name, r->name_len, base->name, base->name_len))
        return false;
    size_t at = r->body.items[0].kind == CL_INVOKE ? 0 : 1;
    const ast_clause *call = &r->body.items[at], *edge = &r->body.items[1 - at];
    if (call->kind != CL_INVOKE || call->as.invoke.argc != 2 ||
        !same_name(call->as.invoke.name, call->as.invoke.name_len, r->name, r->name_len))
        return false;
    const term *x = &r->args[0], *y = &r->args[1], *m = &call->as.invoke.args[0];
    return m->kind == TERM_VAR && !same_var(m, x) && !same_var(m, y) &&
           same_var(&call->as.invoke.args[1], y) && edge_pattern(edge, x, m) &&
           value_identical(&edge->as.pattern.a.constant,
                           &base->body.items[0].as.pattern.a.constant);
}

bool closure_match(const ast_rule *a, const ast_rule *b, const value **attr) {
    if (!base_rule(a)) {
        const ast_rule *t = a;
        a = b;
        b = t;
    }
    if (!base_rule(a) || !step_rule(b, a))
        return false;
    *attr = &a->body.items[0].as.pattern.a.constant;
    return true;
}

/* ---- the edges by the entity their value names ---------------------------------- */

void closure_edges_free(closure_edges *c) {
    free(c->start);
    free(c->source);
    meter_release(c->m, c->charged);
    memset(c, 0, sizeof *c);
}

/* The sources of the edges [0, edges) whose value is E2-equal to entity
 * i, appended to c->source from *k. */
static void add_sources(closure_edges *c, const relation *r, uint32_t edges, uint32_t i,
                        uint32_t *k) {
    relation_view w = {r, 0, edges};
    value target = value_ref(*relation_entity_uuid(r, i));
    for (uint32_t row = relation_seek_value(&w, &target); row != RELATION_END;
         row = relation_next_value(&w, row, &target)) {
        uint32_t source, v;
        relation_row_ids(r, row, &source, &v);
        MG_ASSERT(*k < edges); /* a value names one entity at most */
        c->source[(*k)++] = source;
    }
}

int closure_edges_build(closure_edges *c, const relation *r, uint32_t edges, meter *m, err *e) {
    memset(c, 0, sizeof *c);
    uint32_t n = relation_entity_count(r);
    size_t bytes = ((size_t)n + 1 + edges) * sizeof(uint32_t);
    int rc = meter_charge(m, bytes, "rule evaluation", e);
    if (rc != 0)
        return rc;
    c->m = m;
    c->charged = bytes;
    c->start = malloc(((size_t)n + 1) * sizeof *c->start);
    c->source = malloc(((size_t)edges + 1) * sizeof *c->source);
    if (!c->start || !c->source) {
        closure_edges_free(c);
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    }
    c->entity_count = n;
    uint32_t k = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        c->start[i] = k;
        add_sources(c, r, edges, i, &k);
        rc = meter_tick(m, 1, e);
    }
    c->start[n] = k;
    if (rc != 0)
        closure_edges_free(c);
    return rc;
}
