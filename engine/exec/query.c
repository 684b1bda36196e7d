/* The query executor for conjunctions of patterns (spec 8.3, 8.4, 8.12).
 *
 * Patterns are joined by nested loops in the planner's order, each step
 * streaming its candidates from the index the store picks for the
 * positions known at that step (store_scan_open). To keep answers
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
#include <string.h>

#include "exec/match.h"
#include "exec/query_prog.h"
#include "exec/visibility.h"

typedef struct join {
    store_reader *r;
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

/* The value a position is known to hold at `step`: its constant or the
 * value an earlier clause bound; NULL otherwise. */
static const value *known_value(const join *j, const plan_clause *c, int pos, size_t step) {
    const term *t = match_pattern_term(c->pattern, pos);
    return t->kind == TERM_CONST ? &t->constant : bound_value(j, c->var[pos], step);
}

/* Lookup results: 1 bound, 0 nothing can match, or an error. */
static int bind_entity(join *j, const value *known, store_bound *b) {
    uuid128 id;
    if (!value_as_entity(known, &id))
        return 0;
    int rc = store_reader_entity_id(j->r, &id, &b->ids.e, j->e);
    b->has_e = rc == 1;
    return rc;
}

/* A Ref in attribute position can still match a keyword attribute (E2 /
 * E4: the Ref names the keyword's UUID), so a Ref scans; other non-keyword
 * values match no attribute at all. */
static int bind_attribute(join *j, const value *known, store_bound *b) {
    if (known->type == VT_REF)
        return 1;
    if (known->type != VT_KEYWORD)
        return 0;
    int rc = store_reader_text_id(j->r, known->as.str.ptr, known->as.str.len, &b->ids.a, j->e);
    b->has_a = rc == 1;
    return rc;
}

/* Only types whose matching is exact (E1 = E2 = E3, spec 6.4) seek by
 * value: keywords and refs also match each other, floats within epsilon. */
static int bind_value(join *j, const value *known, store_bound *b) {
    if (known->type != VT_STRING && known->type != VT_INTEGER && known->type != VT_BOOLEAN)
        return 1;
    int rc = store_reader_value_key(j->r, known, b->ids.v, j->e);
    b->has_v = rc == 1;
    return rc;
}

/* What the index can fix for this step: 1 with *b, 0 when no record can
 * match, or an error. */
static int step_bound(join *j, size_t step, store_bound *b) {
    const plan_clause *c = &j->p->clauses[j->order[step]];
    memset(b, 0, sizeof *b);
    for (int pos = 0; pos < 3; pos++)
        if (match_pattern_term(c->pattern, pos)->kind == TERM_NEVER)
            return 0;
    const value *known[3];
    for (int pos = 0; pos < 3; pos++)
        known[pos] = known_value(j, c, pos, step);
    int rc = known[0] ? bind_entity(j, known[0], b) : 1;
    if (rc == 1 && known[1])
        rc = bind_attribute(j, known[1], b);
    if (rc == 1 && known[2])
        rc = bind_value(j, known[2], b);
    return rc;
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

static int join_step(join *j, size_t step);

/* One candidate record of `step`: visible, matching, then the next step. */
static int try_record(join *j, size_t step, const store_rec *rec) {
    bool visible;
    int rc = visibility_check(&j->vis, rec, &visible, j->e);
    if (rc != 0 || !visible)
        return rc;
    value vals[3];
    match_record_values(&rec->f, vals);
    if (!bind_record(j, step, vals))
        return 0;
    return join_step(j, step + 1);
}

static int join_step(join *j, size_t step) {
    if (step == j->p->clause_count)
        return emit_row(j);
    store_bound b;
    int rc = step_bound(j, step, &b);
    if (rc != 1)
        return rc;
    store_scan *sc;
    rc = store_scan_open(j->r, &b, &sc, j->e);
    if (rc != 0)
        return rc;
    store_rec rec;
    while ((rc = store_scan_next(sc, &rec, j->e)) == 1)
        if ((rc = try_record(j, step, &rec)) != 0)
            break;
    store_scan_close(sc);
    return rc;
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
    visibility_init(&j->vis, j->r, q, now_ms);
    int rc = join_alloc(j);
    if (rc == 0)
        rc = plan_order_patterns(j->r, j->p->clauses, j->p->clause_count, j->p->var_count,
                                 j->order, j->e);
    if (rc != 0)
        return rc;
    for (size_t k = 0; k < j->p->clause_count; k++)
        j->pos_of[j->order[k]] = k;
    return join_step(j, 0);
}

int query_execute(store *s, const ast_query *q, int64_t now_ms, result_set **out, err *e) {
    query_prog p;
    int rc = query_compile(q, &p, e);
    if (rc != 0)
        return rc;
    join j = {.p = &p, .e = e};
    rc = store_reader_open(s, &j.r, e);
    if (rc != 0) {
        query_prog_free(&p);
        return rc;
    }
    rc = make_result(q, &j.out, e);
    if (rc == 0)
        rc = run_join(&j, q, now_ms);
    join_free(&j);
    store_reader_close(j.r);
    query_prog_free(&p);
    if (rc != 0) {
        result_free(j.out);
        return rc;
    }
    *out = j.out;
    return 0;
}
