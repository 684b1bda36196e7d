/* The query executor for conjunctions of patterns (spec 8.3, 8.4, 8.12).
 *
 * Patterns are joined by nested loops in the planner's order, each step
 * reading candidates from the entity or attribute index. To keep answers
 * independent of that order, every clause keeps its own value for each of
 * its variables (vals[var][clause]):
 *  - a variable repeated inside one pattern must agree under E1;
 *  - a variable shared by two clauses must agree under E2 pairwise (E2 is
 *    not transitive for distinct keyword spellings of one UUID, so each
 *    pair is checked, not just against one representative);
 *  - the output is the value of the first clause in source order that
 *    holds the variable (decision D12).
 * Rows are emitted per solution without de-duplication (decision D1). */
#include "exec/query.h"

#include <stdlib.h>

#include "exec/match.h"
#include "exec/query_prog.h"
#include "exec/visibility.h"

typedef struct join {
    const store *s;
    const query_prog *p;
    visibility vis;
    size_t *order;  /* clause per step */
    size_t *pos_of; /* step per clause */
    value *vals;    /* [var * clause_count + clause] */
    value *row;
    result_set *out;
    err *e;
} join;

static value *val_at(const join *j, size_t var, size_t clause) {
    return &j->vals[var * j->p->clause_count + clause];
}

/* A value for `var` from a clause evaluated before `step`, or NULL. */
static const value *bound_value(const join *j, int var, size_t step) {
    if (var < 0)
        return NULL;
    const query_var *qv = &j->p->vars[var];
    for (size_t i = 0; i < qv->clause_count; i++)
        if (j->pos_of[qv->clauses[i]] < step)
            return val_at(j, (size_t)var, qv->clauses[i]);
    return NULL;
}

typedef struct candidates {
    const uint32_t *items;
    size_t count;
    bool all; /* every record: no usable index */
} candidates;

static candidates entity_candidates(const join *j, const plan_clause *c, size_t step, bool *usable) {
    candidates out = {NULL, 0, false};
    const term *t = &c->pattern->e;
    const value *known = t->kind == TERM_CONST ? &t->constant : bound_value(j, c->var[0], step);
    uuid128 id;
    *usable = known != NULL || t->kind == TERM_NEVER;
    if (known && value_as_entity(known, &id))
        out.items = store_records_by_entity(j->s, &id, &out.count);
    return out;
}

/* A Ref in attribute position can still match a keyword attribute (E2 /
 * E4: the Ref names the keyword's UUID), so a Ref scans; other non-keyword
 * values match no attribute at all. */
static candidates attribute_candidates(const join *j, const plan_clause *c, size_t step,
                                       bool *usable) {
    candidates out = {NULL, 0, false};
    const term *t = &c->pattern->a;
    const value *known = t->kind == TERM_CONST ? &t->constant : bound_value(j, c->var[1], step);
    *usable = t->kind == TERM_NEVER || (known && known->type != VT_REF);
    if (known && known->type == VT_KEYWORD)
        out.items = store_records_by_attribute(j->s, known->as.str.ptr, known->as.str.len, &out.count);
    return out;
}

static candidates step_candidates(const join *j, size_t step) {
    const plan_clause *c = &j->p->clauses[j->order[step]];
    bool by_entity, by_attr;
    candidates ent = entity_candidates(j, c, step, &by_entity);
    candidates att = attribute_candidates(j, c, step, &by_attr);
    if (c->pattern->v.kind == TERM_NEVER)
        return (candidates){NULL, 0, false};
    if (by_entity && (!by_attr || ent.count <= att.count))
        return ent;
    if (by_attr)
        return att;
    return (candidates){NULL, store_fact_count(j->s), true};
}

/* Checks a record's values against the clause's terms and the values the
 * clause's variables already hold in earlier steps; stores them on success. */
static bool bind_record(join *j, size_t step, const value rec[3]) {
    size_t clause = j->order[step];
    const plan_clause *c = &j->p->clauses[clause];
    for (int pos = 0; pos < 3; pos++) {
        if (!match_term(match_pattern_term(c->pattern, pos), &rec[pos]))
            return false;
        int v = c->var[pos];
        if (v < 0)
            continue;
        for (int prev = 0; prev < pos; prev++)
            if (c->var[prev] == v && !value_equal_strict(&rec[prev], &rec[pos]))
                return false;
        const query_var *qv = &j->p->vars[v];
        for (size_t i = 0; i < qv->clause_count; i++) {
            size_t other = qv->clauses[i];
            if (j->pos_of[other] < step && !value_equal_entity(val_at(j, (size_t)v, other), &rec[pos]))
                return false;
        }
    }
    for (int pos = 0; pos < 3; pos++)
        if (c->var[pos] >= 0)
            *val_at(j, (size_t)c->var[pos], clause) = rec[pos];
    return true;
}

static int emit_row(join *j) {
    const query_prog *p = j->p;
    for (size_t i = 0; i < p->find_count; i++) {
        const query_var *qv = &p->vars[p->find[i]];
        j->row[i] = *val_at(j, p->find[i], qv->clauses[0]);
    }
    if (result_append_row(j->out, j->row) != 0)
        return err_set(j->e, ERR(INT, 0), "out of memory");
    return 0;
}

static int join_step(join *j, size_t step) {
    if (step == j->p->clause_count)
        return emit_row(j);
    candidates cand = step_candidates(j, step);
    for (size_t i = 0; i < cand.count; i++) {
        size_t record = cand.all ? i : cand.items[i];
        if (!visibility_visible(&j->vis, record))
            continue;
        value rec[3];
        match_record_values(store_fact(j->s, record), rec);
        if (!bind_record(j, step, rec))
            continue;
        int rc = join_step(j, step + 1);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int make_result(const ast_query *q, result_set **out, err *e) {
    result_set *r = result_new(q->find_count);
    if (!r)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < q->find_count; i++) {
        if (result_set_column(r, i, q->find[i].name, q->find[i].name_len) != 0) {
            result_free(r);
            return err_set(e, ERR(INT, 0), "out of memory");
        }
    }
    *out = r;
    return 0;
}

static int join_alloc(join *j) {
    const query_prog *p = j->p;
    size_t n = p->clause_count;
    j->order = calloc(n, sizeof *j->order);
    j->pos_of = calloc(n, sizeof *j->pos_of);
    j->vals = calloc(p->var_count * n + 1, sizeof *j->vals);
    j->row = calloc(p->find_count + 1, sizeof *j->row);
    if (!j->order || !j->pos_of || !j->vals || !j->row)
        return err_set(j->e, ERR(INT, 0), "out of memory");
    return 0;
}

static void join_free(join *j) {
    free(j->order);
    free(j->pos_of);
    free(j->vals);
    free(j->row);
    visibility_free(&j->vis);
}

static int run_join(join *j, const ast_query *q, int64_t now_ms) {
    int rc = join_alloc(j);
    if (rc == 0)
        rc = visibility_init(&j->vis, j->s, q, now_ms, j->e);
    if (rc == 0)
        rc = plan_order_patterns(j->s, j->p->clauses, j->p->clause_count, j->p->var_count,
                                 j->order, j->e);
    if (rc != 0)
        return rc;
    for (size_t k = 0; k < j->p->clause_count; k++)
        j->pos_of[j->order[k]] = k;
    return join_step(j, 0);
}

int query_execute(const store *s, const ast_query *q, int64_t now_ms, result_set **out, err *e) {
    query_prog p;
    int rc = query_compile(q, &p, e);
    if (rc != 0)
        return rc;
    join j = {.s = s, .p = &p, .e = e};
    rc = make_result(q, &j.out, e);
    if (rc == 0)
        rc = run_join(&j, q, now_ms);
    join_free(&j);
    query_prog_free(&p);
    if (rc != 0) {
        result_free(j.out);
        return rc;
    }
    *out = j.out;
    return 0;
}
