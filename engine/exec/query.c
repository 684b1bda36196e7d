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
 * Solutions are emitted without de-duplication (decision D1) into a
 * join_stream, which hands them to the :find side (exec/finish.h).
 *
 * join_stream is a stop-gap adapter: the recursive nested loop cannot be
 * suspended, so it buffers every solution (charged to the meter as "join")
 * and then serves them through the solution_stream interface. The
 * pull-based :where operators replace it. */
#include "exec/query.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "exec/finish.h"
#include "exec/match.h"
#include "exec/meter.h"
#include "exec/query_prog.h"
#include "exec/visibility.h"

/* ---- join_stream: buffered solutions as a solution_stream ---------------- */

typedef struct join_stream {
    solution_stream base;
    solution_var *vars;
    bool *bound;    /* all true: every variable of a pattern query is bound */
    value *rows;    /* var_count values per solution */
    size_t count, cap, next;
    arena text;     /* copies of string payloads */
    meter *m;
    size_t charged;
} join_stream;

static int join_stream_next(solution_stream *s, const value **row, const bool **bound, err *e) {
    (void)e;
    join_stream *js = (join_stream *)s;
    if (js->next == js->count)
        return 0;
    *row = js->rows + js->next++ * s->var_count;
    *bound = js->bound;
    return 1;
}

static void join_stream_close(solution_stream *s) {
    join_stream *js = (join_stream *)s;
    free(js->vars);
    free(js->bound);
    free(js->rows);
    arena_free(&js->text);
    meter_release(js->m, js->charged);
    js->vars = NULL;
    js->bound = NULL;
    js->rows = NULL;
    js->charged = 0;
}

static int join_stream_init(join_stream *js, const query_prog *p, meter *m, err *e) {
    memset(js, 0, sizeof *js);
    arena_init(&js->text);
    js->m = m;
    js->base.var_count = p->var_count;
    js->base.next = join_stream_next;
    js->base.close = join_stream_close;
    js->vars = calloc(p->var_count + 1, sizeof *js->vars);
    js->bound = calloc(p->var_count + 1, sizeof *js->bound);
    if (!js->vars || !js->bound)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t v = 0; v < p->var_count; v++) {
        js->vars[v] = (solution_var){p->vars[v].name, p->vars[v].len};
        js->bound[v] = true;
    }
    js->base.vars = js->vars;
    return 0;
}

static int join_stream_reserve(join_stream *js, err *e) {
    size_t width = js->base.var_count ? js->base.var_count : 1;
    if (js->count < js->cap)
        return 0;
    size_t cap = js->cap ? js->cap * 2 : 64;
    size_t grow = (cap - js->cap) * width * sizeof(value);
    int rc = meter_charge(js->m, grow, "join", e);
    if (rc)
        return rc;
    value *rows = realloc(js->rows, cap * width * sizeof(value));
    if (!rows) {
        meter_release(js->m, grow);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    js->rows = rows;
    js->cap = cap;
    js->charged += grow;
    return 0;
}

/* Copies one solution (string payloads into the stream's arena). */
static int join_stream_push(join_stream *js, const value *row, err *e) {
    int rc = join_stream_reserve(js, e);
    value *dst = js->rows + js->count * js->base.var_count;
    for (size_t v = 0; !rc && v < js->base.var_count; v++) {
        dst[v] = row[v];
        if ((row[v].type != VT_STRING && row[v].type != VT_KEYWORD) || row[v].as.str.len == 0)
            continue;
        rc = meter_charge(js->m, row[v].as.str.len, "join", e);
        char *text = rc ? NULL : arena_strndup(&js->text, row[v].as.str.ptr, row[v].as.str.len);
        if (!rc && !text)
            rc = err_set(e, ERR(INT, 0), "out of memory");
        js->charged += rc ? 0 : row[v].as.str.len;
        dst[v].as.str.ptr = text;
    }
    if (!rc)
        js->count++;
    return rc;
}

/* ---- the nested-loop join ------------------------------------------------ */

typedef struct join {
    store_reader *r;
    const query_prog *p;
    visibility vis;
    size_t *order;  /* clause per step */
    size_t *pos_of; /* step per clause */
    value *vals;    /* [var * clause_count + clause] */
    value *row;
    join_stream *out;
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

/* Each variable carries its first clause's value in source order (D12). */
static int emit_row(join *j) {
    const query_prog *p = j->p;
    for (size_t v = 0; v < p->var_count; v++)
        j->row[v] = *val_at(j, v, p->vars[v].clauses[0]);
    return join_stream_push(j->out, j->row, j->e);
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

static int join_alloc(join *j) {
    const query_prog *p = j->p;
    size_t n = p->clause_count;
    j->order = calloc(n, sizeof *j->order);
    j->pos_of = calloc(n, sizeof *j->pos_of);
    j->vals = calloc(p->var_count * n + 1, sizeof *j->vals);
    j->row = calloc(p->var_count + 1, sizeof *j->row);
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
    return query_execute_limited(s, q, now_ms, 0, out, e);
}

int query_execute_limited(store *s, const ast_query *q, int64_t now_ms, size_t memory_limit,
                          result_set **out, err *e) {
    query_prog p;
    int rc = query_compile(q, &p, e);
    if (rc != 0)
        return rc;
    meter m;
    meter_init(&m, memory_limit);
    join_stream js;
    join j = {.p = &p, .e = e, .out = &js};
    rc = join_stream_init(&js, &p, &m, e);
    if (rc == 0)
        rc = store_reader_open(s, &j.r, e);
    if (rc == 0) {
        rc = run_join(&j, q, now_ms);
        join_free(&j);
        store_reader_close(j.r);
    }
    if (rc == 0)
        rc = finish_query(q, &js.base, &m, out, e); /* closes js */
    else
        js.base.close(&js.base);
    query_prog_free(&p);
    return rc;
}
