/* Unit tests for the semi-naive driver (language.md §9.3, §9.4, §9.6) and the
 * derived relations it keeps. Rule bodies are evaluated by a small
 * nested-loop evaluator written here (patterns, invocations, `not`) over
 * an in-test fact list, standing in for the query executor. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "datalog/parse.h"
#include "exec/derived.h"
#include "rules/closure.h"
#include "rules/seminaive.h"

#define N(a) (sizeof(a) / sizeof *(a))
#define MAX_RULES 8
#define MAX_VARS 8

/* ---- the in-test database ------------------------------------------------------- */

typedef struct tfact {
    const char *e, *a, *v; /* keywords; v "true" is the boolean */
} tfact;

static value kw(const char *k) {
    return value_keyword(k, strlen(k));
}

static value fact_value(const tfact *f) {
    return strcmp(f->v, "true") == 0 ? value_boolean(true) : kw(f->v);
}

/* ---- the in-test body evaluator ---------------------------------------------------- */

typedef struct binding {
    const char *name;
    size_t len;
    value v;
} binding;

typedef struct tctx {
    const tfact *facts;
    size_t fact_count;
    seminaive *sn;
    const ast_rule *rule;
    size_t delta_pos;
    const relation_view *delta;
    binding env[MAX_VARS];
    size_t n;
    bool found;  /* for `not` probes */
    bool in_not; /* invocations inside `not` are no delta positions */
    int calls;   /* how often the driver called the evaluator */
} tctx;

typedef int (*at_end_fn)(tctx *t, err *e);

static const binding *lookup(const tctx *t, const term *x) {
    for (size_t i = 0; i < t->n; i++)
        if (t->env[i].len == x->name_len && memcmp(t->env[i].name, x->name, x->name_len) == 0)
            return &t->env[i];
    return NULL;
}

/* Unifies a term with a value: true and maybe one new binding. */
static bool unify(tctx *t, const term *x, const value *v) {
    if (x->kind == TERM_WILDCARD)
        return true;
    if (x->kind == TERM_CONST)
        return value_equal_entity(&x->constant, v);
    const binding *b = lookup(t, x);
    if (b)
        return value_equal_entity(&b->v, v);
    t->env[t->n++] = (binding){x->name, x->name_len, *v};
    return true;
}

/* The value a term has now, if any. */
static bool term_value(const tctx *t, const term *x, value *out) {
    if (x->kind == TERM_CONST) {
        *out = x->constant;
        return true;
    }
    const binding *b = x->kind == TERM_VAR ? lookup(t, x) : NULL;
    if (b)
        *out = b->v;
    return b != NULL;
}

static int solve(tctx *t, const ast_body *b, size_t i, size_t pos, at_end_fn end, err *e);

static int try_row(tctx *t, const ast_body *b, size_t i, size_t pos, const term *te,
                   const value *ev, const term *tv, const value *vv, at_end_fn end, err *e) {
    size_t mark = t->n;
    int rc = 0;
    if (unify(t, te, ev) && (!tv || unify(t, tv, vv)))
        rc = solve(t, b, i + 1, pos, end, e);
    t->n = mark;
    return rc;
}

static int solve_pattern(tctx *t, const ast_body *b, size_t i, size_t pos, const char *attr,
                         size_t attr_len, const term *te, const term *tv, at_end_fn end, err *e) {
    for (size_t f = 0; f < t->fact_count; f++) {
        const tfact *fa = &t->facts[f];
        if (strlen(fa->a) != attr_len || memcmp(fa->a, attr, attr_len) != 0)
            continue;
        value ev = kw(fa->e), vv = fact_value(fa);
        int rc = try_row(t, b, i, pos, te, &ev, tv, &vv, end, e);
        if (rc)
            return rc;
    }
    return 0;
}

static int solve_view(tctx *t, const ast_body *b, size_t i, size_t pos, const relation_view *w,
                      const term *te, const term *tv, at_end_fn end, err *e) {
    value ev, vv;
    uuid128 u;
    bool by_entity = term_value(t, te, &ev) && value_as_entity(&ev, &u);
    bool by_value = !by_entity && tv && term_value(t, tv, &vv);
    uint32_t row = by_entity  ? relation_seek_entity(w, &u)
                   : by_value ? relation_seek_value(w, &vv)
                              : (w->lo < w->hi ? w->lo : RELATION_END);
    while (row != RELATION_END) {
        relation_row r = relation_get(w, row);
        value ent = value_ref(r.entity);
        int rc = try_row(t, b, i, pos, te, &ent, tv, &r.v, end, e);
        if (rc)
            return rc;
        row = by_entity  ? relation_next_entity(w, row)
              : by_value ? relation_next_value(w, row, &vv)
                         : (row + 1 < w->hi ? row + 1 : RELATION_END);
    }
    return 0;
}

/* (p X Y) reads the delta at the delta position, else p's relation, else
 * the stored :p facts (a predicate without rules, language.md §9.2 item 2). */
static int solve_invoke(tctx *t, const ast_body *b, size_t i, size_t pos, bool counted,
                        at_end_fn end, err *e) {
    const ast_clause *cl = &b->items[i];
    const term *te = &cl->as.invoke.args[0];
    const term *tv = cl->as.invoke.argc > 1 ? &cl->as.invoke.args[1] : NULL;
    size_t next = counted ? pos + 1 : pos;
    relation_view w;
    if (counted && pos == t->delta_pos)
        return solve_view(t, b, i, next, t->delta, te, tv, end, e);
    if (seminaive_full(t->sn, cl->as.invoke.name, cl->as.invoke.name_len, &w))
        return solve_view(t, b, i, next, &w, te, tv, end, e);
    char attr[64];
    snprintf(attr, sizeof attr, ":%.*s", (int)cl->as.invoke.name_len, cl->as.invoke.name);
    return solve_pattern(t, b, i, next, attr, strlen(attr), te, tv, end, e);
}

static int mark_found(tctx *t, err *e) {
    (void)e;
    t->found = true;
    return 0;
}

static int solve_not(tctx *t, const ast_body *b, size_t i, size_t pos, at_end_fn end, err *e) {
    bool outer = t->found;
    t->found = false;
    t->in_not = true;
    int rc = solve(t, &b->items[i].as.not_.body, 0, pos, mark_found, e);
    t->in_not = false;
    bool hit = t->found;
    t->found = outer;
    if (rc || hit)
        return rc;
    return solve(t, b, i + 1, pos, end, e);
}

/* `pos` counts the positive invocations met so far. */
static int solve(tctx *t, const ast_body *b, size_t i, size_t pos, at_end_fn end, err *e) {
    if (i == b->count)
        return end(t, e);
    const ast_clause *cl = &b->items[i];
    bool positive = !t->in_not;
    switch (cl->kind) {
    case CL_PATTERN:
        return solve_pattern(t, b, i, pos, cl->as.pattern.a.constant.as.str.ptr,
                             cl->as.pattern.a.constant.as.str.len, &cl->as.pattern.e,
                             &cl->as.pattern.v, end, e);
    case CL_INVOKE: return solve_invoke(t, b, i, pos, positive, end, e);
    case CL_NOT: return solve_not(t, b, i, pos, end, e);
    default: return err_set(e, ERR(INT, 0), "test evaluator: unsupported clause");
    }
}

static int emit_head(tctx *t, err *e) {
    value ev, vv = value_boolean(true);
    uuid128 u;
    if (!term_value(t, &t->rule->args[0], &ev) || !value_as_entity(&ev, &u))
        return err_set(e, ERR(INT, 0), "test evaluator: head entity");
    if (t->rule->argc > 1 && !term_value(t, &t->rule->args[1], &vv))
        return err_set(e, ERR(INT, 0), "test evaluator: head value");
    return seminaive_emit(t->sn, &u, &vv, e);
}

static int eval_body(void *ctx, seminaive *sn, const ast_rule *rule, size_t delta_pos,
                     const relation_view *delta, err *e) {
    tctx *t = ctx;
    t->sn = sn;
    t->rule = rule;
    t->delta_pos = delta_pos;
    t->delta = delta;
    t->n = 0;
    t->calls++;
    return solve(t, &rule->body, 0, 0, emit_head, e);
}

/* ---- running a program -------------------------------------------------------------- */

typedef struct run {
    arena a;
    const ast_rule *rules[MAX_RULES];
    stratify_program *prog;
    stratify_plan plan;
    seminaive *sn;
    tctx t;
    meter m;
    err e;
    int rc;
} run;

static const command *parse(arena *a, const char *text) {
    command *c = NULL;
    err e = {0};
    if (datalog_parse(text, strlen(text), a, &c, &e) != 0) {
        fprintf(stderr, "parse failed: %s: %s\n", text, e.message);
        exit(2);
    }
    return c;
}

/* Evaluates what `query` needs of `rules` over `facts`; rc in r->rc. */
static void run_rules(run *r, const char *const *rules, size_t n, const char *query,
                      const tfact *facts, size_t fact_count, const seminaive_limits *lim,
                      size_t meter_limit) {
    memset(r, 0, sizeof *r);
    arena_init(&r->a);
    meter_init(&r->m, meter_limit);
    for (size_t i = 0; i < n; i++)
        r->rules[i] = &parse(&r->a, rules[i])->as.rule;
    const command *q = parse(&r->a, query);
    r->t.facts = facts;
    r->t.fact_count = fact_count;
    r->rc = stratify_build(r->rules, n, &r->prog, &r->e);
    if (!r->rc)
        r->rc = stratify_plan_query(r->prog, &q->as.query.body, &r->plan, &r->e);
    if (!r->rc)
        r->rc = seminaive_new(r->prog, r->rules, &r->plan, lim, &r->m, &r->sn, &r->e);
    if (!r->rc)
        r->rc = seminaive_run(r->sn, eval_body, &r->t, &r->e);
}

static void run_free(run *r) {
    seminaive_free(r->sn);
    stratify_plan_free(&r->plan);
    stratify_free(r->prog);
    err_clear(&r->e);
    arena_free(&r->a);
}

static uint32_t size_of(const run *r, const char *pred) {
    relation_view w;
    return seminaive_full(r->sn, pred, strlen(pred), &w) ? relation_view_size(&w) : 0;
}

/* Is [e :pred v] derived? `v` a keyword or "true". */
static bool derived(const run *r, const char *pred, const char *e, const char *v) {
    relation_view w;
    if (!seminaive_full(r->sn, pred, strlen(pred), &w))
        return false;
    value want = strcmp(v, "true") == 0 ? value_boolean(true) : kw(v);
    uuid128 u = uuid_of_keyword(e, strlen(e));
    for (uint32_t row = relation_seek_entity(&w, &u); row != RELATION_END;
         row = relation_next_entity(&w, row)) {
        relation_row got = relation_get(&w, row);
        if (value_equal_entity(&got.v, &want))
            return true;
    }
    return false;
}

static bool message_is(const run *r, const char *want) {
    return r->e.message && strcmp(r->e.message, want) == 0;
}

/* ---- the cases ------------------------------------------------------------------------- */

static const char *const reach_rules[] = {
    "(rule [(reach ?x ?y) [?x :edge ?y]])",
    "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])",
};

static void transitive_closure_of_a_chain(void) {
    /* language.md §9.4 */
    const tfact f[] = {{":a", ":edge", ":b"}, {":b", ":edge", ":c"}, {":c", ":edge", ":d"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "reach") == 6);
    CHECK(derived(&r, "reach", ":a", ":b") && derived(&r, "reach", ":a", ":c") &&
          derived(&r, "reach", ":a", ":d") && derived(&r, "reach", ":b", ":d"));
    CHECK(!derived(&r, "reach", ":d", ":a"));
    /* lengths 1, 2, 3, then the empty round */
    CHECK(seminaive_rounds(r.sn) == 4);
    CHECK(r.m.used > 0);
    run_free(&r);
    CHECK(r.m.used == 0);
}

static void cyclic_data_terminates(void) {
    const tfact f[] = {{":a", ":edge", ":b"}, {":b", ":edge", ":c"}, {":c", ":edge", ":a"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "reach") == 9); /* every pair, self-loops included */
    CHECK(derived(&r, "reach", ":a", ":a") && derived(&r, "reach", ":c", ":b"));
    run_free(&r);
}

/* rules/closure.h: which rule pairs are linear closures over a stored
 * attribute, evaluated on ids after round 0. */
static bool closure_of(const char *first, const char *second) {
    arena a;
    arena_init(&a);
    const value *attr = NULL;
    bool got = closure_match(&parse(&a, first)->as.rule, &parse(&a, second)->as.rule, &attr);
    if (got)
        CHECK(attr->type == VT_KEYWORD && attr->as.str.len == 5 &&
              memcmp(attr->as.str.ptr, ":edge", 5) == 0);
    arena_free(&a);
    return got;
}

static void linear_closures_are_recognised(void) {
    const char *base = "(rule [(r ?x ?y) [?x :edge ?y]])";
    CHECK(closure_of(base, "(rule [(r ?x ?y) [?x :edge ?z] (r ?z ?y)])"));
    CHECK(closure_of("(rule [(r ?a ?b) (r ?m ?b) [?a :edge ?m]])", base));
    /* left-linear, another attribute, a constant, a repeated variable,
     * a third clause, an argument more: the general rounds */
    CHECK(!closure_of(base, "(rule [(r ?x ?y) (r ?x ?z) [?z :edge ?y]])"));
    CHECK(!closure_of(base, "(rule [(r ?x ?y) [?x :link ?z] (r ?z ?y)])"));
    CHECK(!closure_of(base, "(rule [(r ?x ?y) [?x :edge :c] (r :c ?y)])"));
    CHECK(!closure_of(base, "(rule [(r ?x ?y) [?x :edge ?y] (r ?y ?y)])"));
    CHECK(!closure_of(base, "(rule [(r ?x ?y) [?x :edge ?z] (r ?z ?y) [?y :edge _]])"));
    CHECK(!closure_of(base, "(rule [(r ?x ?y) [?x :edge ?z] (s ?z ?y)])"));
    CHECK(!closure_of("(rule [(r ?x ?x) [?x :edge ?x]])",
                      "(rule [(r ?x ?y) [?x :edge ?z] (r ?z ?y)])"));
    CHECK(!closure_of("(rule [(r ?x ?y) [?y :edge ?x]])",
                      "(rule [(r ?x ?y) [?x :edge ?z] (r ?z ?y)])"));
    CHECK(!closure_of(base, base));
}

static void linear_closures_evaluate_bodies_in_round_0_only(void) {
    /* a diamond into a cycle: a -> b, c -> d -> b */
    const tfact f[] = {{":a", ":edge", ":b"},
                       {":a", ":edge", ":c"},
                       {":b", ":edge", ":d"},
                       {":c", ":edge", ":d"},
                       {":d", ":edge", ":b"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach ?x ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(r.t.calls == 2); /* both bodies in round 0, then ids */
    /* a: b c d; b: d b; c: d b; d: b d */
    CHECK(size_of(&r, "reach") == 9);
    CHECK(derived(&r, "reach", ":a", ":d") && derived(&r, "reach", ":b", ":b") &&
          derived(&r, "reach", ":c", ":b") && !derived(&r, "reach", ":d", ":c"));
    CHECK(seminaive_rounds(r.sn) == 3); /* lengths 1, 2, then nothing new */
    run_free(&r);
    /* a third rule: the general rounds, a body call per delta */
    const char *const three[] = {reach_rules[0], reach_rules[1],
                                 "(rule [(reach ?x ?y) [?x :link ?y]])"};
    run_rules(&r, three, 3, "(query [:find ?y :where (reach ?x ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0 && r.t.calls == 3 + 2 && size_of(&r, "reach") == 9);
    run_free(&r);
}

static void non_linear_recursion_reads_each_delta_position(void) {
    const char *const rules[] = {
        "(rule [(path ?x ?y) [?x :edge ?y]])",
        "(rule [(path ?x ?y) (path ?x ?z) (path ?z ?y)])",
    };
    tfact f[8];
    static const char *nodes[] = {":n0", ":n1", ":n2", ":n3", ":n4", ":n5", ":n6", ":n7", ":n8"};
    for (size_t i = 0; i < 8; i++)
        f[i] = (tfact){nodes[i], ":edge", nodes[i + 1]};
    run r;
    run_rules(&r, rules, 2, "(query [:find ?y :where (path :n0 ?y)])", f, 8, NULL, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "path") == 36); /* 9 nodes: 8+7+...+1 */
    CHECK(derived(&r, "path", ":n0", ":n8") && derived(&r, "path", ":n3", ":n7"));
    /* doubling: lengths 1, 2, 4, 8, then the empty round */
    CHECK(seminaive_rounds(r.sn) == 5);
    run_free(&r);
}

static void same_generation(void) {
    /* [?p :parent ?c]: p is c's parent. r has children a, b; a has c, d;
     * b has e; e has f. */
    const tfact f[] = {
        {":r", ":parent", ":a"}, {":r", ":parent", ":b"}, {":a", ":parent", ":c"},
        {":a", ":parent", ":d"}, {":b", ":parent", ":e"}, {":e", ":parent", ":f"},
    };
    const char *const rules[] = {
        "(rule [(sg ?x ?y) [?p :parent ?x] [?p :parent ?y]])",
        "(rule [(sg ?x ?y) [?a :parent ?x] (sg ?a ?b) [?b :parent ?y]])",
    };
    run r;
    run_rules(&r, rules, 2, "(query [:find ?y :where (sg :c ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(derived(&r, "sg", ":a", ":b") && derived(&r, "sg", ":c", ":d"));
    CHECK(derived(&r, "sg", ":c", ":e") && derived(&r, "sg", ":e", ":d"));
    CHECK(!derived(&r, "sg", ":c", ":f") && !derived(&r, "sg", ":a", ":c"));
    /* generation 1: a b (4 pairs); 2: c d e (9 pairs); 3: f (1 pair) */
    CHECK(size_of(&r, "sg") == 14);
    run_free(&r);
}

static void mutual_recursion(void) {
    const tfact f[] = {
        {":n0", ":start", "true"}, {":n0", ":next", ":n1"}, {":n1", ":next", ":n2"},
        {":n2", ":next", ":n3"},   {":n3", ":next", ":n4"},
    };
    const char *const rules[] = {
        "(rule [(even ?x) [?x :start true]])",
        "(rule [(odd ?y) (even ?x) [?x :next ?y]])",
        "(rule [(even ?y) (odd ?x) [?x :next ?y]])",
    };
    run r;
    run_rules(&r, rules, 3, "(query [:find ?x :where (odd ?x)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "even") == 3 && size_of(&r, "odd") == 2);
    CHECK(derived(&r, "even", ":n4", "true") && derived(&r, "odd", ":n3", "true"));
    CHECK(!derived(&r, "odd", ":n2", "true"));
    run_free(&r);
}

static void negation_reads_a_complete_lower_stratum(void) {
    /* language.md §9.5, with the blocked check as a rule of its own */
    const tfact f[] = {
        {":a", ":edge", ":b"},
        {":b", ":edge", ":c"},
        {":c", ":edge", ":d"},
        {":d", ":blocked", "true"},
    };
    const char *const rules[] = {
        reach_rules[0],
        reach_rules[1],
        "(rule [(accessible ?x ?y) (reach ?x ?y) (not [?y :blocked true])])",
        "(rule [(unreached ?y) [?y :blocked true] (not (reach :b ?y))])",
        "(rule [(unreached ?y) [?x :edge ?y] (not (reach :b ?y))])",
    };
    run r;
    run_rules(&r, rules, N(rules), "(query [:find ?y :where (accessible :a ?y) (unreached ?y)])", f,
              N(f), NULL, 0);
    CHECK(r.rc == 0);
    CHECK(derived(&r, "accessible", ":a", ":b") && derived(&r, "accessible", ":a", ":c"));
    CHECK(!derived(&r, "accessible", ":a", ":d"));
    CHECK(size_of(&r, "unreached") == 1 && derived(&r, "unreached", ":b", "true"));
    run_free(&r);
}

static void only_needed_predicates_are_evaluated(void) {
    const tfact f[] = {{":a", ":edge", ":b"}};
    const char *const rules[] = {reach_rules[0], reach_rules[1], "(rule [(other ?x) [?x :k 1]])"};
    run r;
    run_rules(&r, rules, N(rules), "(query [:find ?y :where (reach :a ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    relation_view w;
    CHECK(!seminaive_full(r.sn, "other", 5, &w));
    CHECK(size_of(&r, "reach") == 1);
    run_free(&r);
}

static void chain(tfact *f, char names[][8], size_t edges) {
    for (size_t i = 0; i <= edges; i++)
        snprintf(names[i], 8, ":n%u", (unsigned)(i % 100000)); /* fits 8 bytes */
    for (size_t i = 0; i < edges; i++)
        f[i] = (tfact){names[i], ":edge", names[i + 1]};
}

static void iteration_cap_counts_rounds_that_add_facts(void) {
    tfact f[6];
    char names[7][8];
    chain(f, names, 6);
    seminaive_limits lim;
    seminaive_limits_default(&lim);
    lim.max_iterations = 6; /* 6 adding rounds are exactly enough */
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :n0 ?y)])", f, 6, &lim, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "reach") == 21);
    run_free(&r);
    lim.max_iterations = 5;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :n0 ?y)])", f, 6, &lim, 0);
    CHECK(r.rc == ERR(INT, 20));
    CHECK(message_is(&r, "[INT-020] Max iterations (5) exceeded. Possible infinite recursion or "
                         "cycle in rules."));
    run_free(&r);
}

static void default_iteration_cap_allows_a_chain_of_1000(void) {
    enum { EDGES = 1000 };
    tfact *f = calloc(EDGES + 1, sizeof *f);
    char (*names)[8] = calloc(EDGES + 2, sizeof *names);
    chain(f, names, EDGES);
    /* what :n0 reaches, one node per round */
    const char *const rules[] = {
        "(rule [(reach ?y) [:n0 :edge ?y]])",
        "(rule [(reach ?y) (reach ?z) [?z :edge ?y]])",
    };
    run r;
    run_rules(&r, rules, 2, "(query [:find ?y :where (reach ?y)])", f, EDGES, NULL, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "reach") == EDGES);
    CHECK(derived(&r, "reach", ":n1000", "true"));
    run_free(&r);
    f[EDGES] = (tfact){names[EDGES], ":edge", ":beyond"};
    run_rules(&r, rules, 2, "(query [:find ?y :where (reach ?y)])", f, EDGES + 1, NULL, 0);
    CHECK(r.rc == ERR(INT, 20));
    run_free(&r);
    free(f);
    free(names);
}

static void max_derived_facts_counts_rederivations_per_round(void) {
    /* Both rules derive the one fact [:a :r :b] in round 0: two
     * derivations of one fact. */
    const tfact f[] = {{":a", ":edge", ":b"}, {":a", ":link", ":b"}};
    const char *const rules[] = {
        "(rule [(r ?x ?y) [?x :edge ?y]])",
        "(rule [(r ?x ?y) [?x :link ?y]])",
    };
    seminaive_limits lim;
    seminaive_limits_default(&lim);
    lim.max_derived_facts = 1;
    run r;
    run_rules(&r, rules, 2, "(query [:find ?y :where (r :a ?y)])", f, N(f), &lim, 0);
    CHECK(r.rc == ERR(INT, 20));
    CHECK(message_is(&r, "[INT-020] Max derived facts per iteration (1) exceeded. Rule may be "
                         "generating too many facts."));
    run_free(&r);
    lim.max_derived_facts = 2;
    run_rules(&r, rules, 2, "(query [:find ?y :where (r :a ?y)])", f, N(f), &lim, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "r") == 1);
    run_free(&r);
}

static void max_derived_facts_is_per_round(void) {
    /* a 4-chain derives 4, 3, 2, 1 facts in its rounds: 10 in all */
    tfact f[4];
    char names[5][8];
    chain(f, names, 4);
    seminaive_limits lim;
    seminaive_limits_default(&lim);
    lim.max_derived_facts = 4;
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :n0 ?y)])", f, 4, &lim, 0);
    CHECK(r.rc == 0);
    CHECK(size_of(&r, "reach") == 10);
    run_free(&r);
}

static void max_results_caps_distinct_derived_facts(void) {
    const tfact f[] = {{":a", ":edge", ":b"}, {":b", ":edge", ":c"}, {":c", ":edge", ":d"}};
    seminaive_limits lim;
    seminaive_limits_default(&lim);
    lim.max_results = 6;
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), &lim, 0);
    CHECK(r.rc == 0);
    run_free(&r);
    lim.max_results = 5;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), &lim, 0);
    CHECK(r.rc == ERR(INT, 20));
    CHECK(r.e.message && strstr(r.e.message, "Max results (5) exceeded") != NULL);
    run_free(&r);
}

static void relations_are_charged_to_the_meter(void) {
    const tfact f[] = {{":a", ":edge", ":b"}, {":b", ":edge", ":c"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), NULL, 64);
    CHECK(r.rc == ERR(QRY, 12));
    CHECK(r.e.message && strstr(r.e.message, "rule evaluation") != NULL);
    run_free(&r);
    CHECK(r.m.used == 0);
}

static void head_without_arguments_fails_when_evaluated(void) {
    const tfact f[] = {{":a", ":k", ":b"}};
    const char *const rules[] = {"(rule [(p) [?x :k ?y]])"};
    run r;
    run_rules(&r, rules, 1, "(query [:find ?x :where (p ?x)])", f, N(f), NULL, 0);
    CHECK(r.rc == ERR(INT, 28));
    CHECK(message_is(&r, "[INT-028] Rule head must have at least 2 elements: (predicate ?arg1)"));
    run_free(&r);
}

static void relation_is_an_e3_set_indexed_by_e2_value(void) {
    relation rel;
    relation_init(&rel, NULL);
    err e = {0};
    uuid128 a = uuid_of_keyword(":a", 2), b = uuid_of_keyword(":b", 2);
    value kb = kw(":b"), rb = value_ref(b), one = value_integer(1), onef = value_float(1.0);
    bool added;
    CHECK(relation_add(&rel, &a, &kb, &added, &e) == 0 && added);
    CHECK(relation_add(&rel, &a, &kb, &added, &e) == 0 && !added);
    CHECK(relation_add(&rel, &a, &rb, &added, &e) == 0 && added); /* E3: Ref != Keyword */
    CHECK(relation_add(&rel, &a, &one, &added, &e) == 0 && added);
    CHECK(relation_add(&rel, &a, &onef, &added, &e) == 0 && added);
    CHECK(relation_add(&rel, &b, &one, &added, &e) == 0 && added);
    CHECK(rel.count == 5);
    relation_view w = relation_all(&rel);
    int n = 0;
    for (uint32_t row = relation_seek_value(&w, &rb); row != RELATION_END;
         row = relation_next_value(&w, row, &rb))
        n++;
    CHECK(n == 2); /* E2: the keyword and the ref */
    n = 0;
    for (uint32_t row = relation_seek_entity(&w, &a); row != RELATION_END;
         row = relation_next_entity(&w, row))
        n++;
    CHECK(n == 4);
    relation_view tail = {&rel, 3, 5}; /* 1.0 of a, 1 of b */
    n = 0;
    for (uint32_t row = relation_seek_value(&tail, &one); row != RELATION_END;
         row = relation_next_value(&tail, row, &one))
        n++;
    CHECK(n == 1);
    relation_free(&rel);
}

static int count_by_value(const relation_view *w, const value *v) {
    int n = 0;
    for (uint32_t row = relation_seek_value(w, v); row != RELATION_END;
         row = relation_next_value(w, row, v))
        n++;
    return n;
}

/* A value seek finds every E2-equal value, also where E2 is not
 * transitive (two keyword spellings of one UUID); seeks in a view see only
 * its rows, old or new. */
static void relation_value_seeks_are_exact_in_every_view(void) {
    relation rel;
    relation_init(&rel, NULL);
    err e = {0};
    uuid128 a = uuid_of_keyword(":a", 2), b = uuid_of_keyword(":b", 2);
    uuid128 foo = uuid_of_keyword(":foo", 4);
    char spelled[40];
    spelled[0] = ':';
    uuid_format(&foo, spelled + 1);
    value kfoo = kw(":foo"), rfoo = value_ref(foo), kspelled = kw(spelled);
    bool added;
    CHECK(relation_add(&rel, &a, &kfoo, &added, &e) == 0 && added);     /* row 0 */
    CHECK(relation_add(&rel, &a, &kspelled, &added, &e) == 0 && added); /* row 1 */
    CHECK(relation_add(&rel, &b, &rfoo, &added, &e) == 0 && added);     /* row 2 */
    CHECK(relation_add(&rel, &b, &kfoo, &added, &e) == 0 && added);     /* row 3 */
    CHECK(relation_contains(&rel, &b, &kfoo) && !relation_contains(&rel, &b, &kspelled));
    relation_view all = relation_all(&rel);
    CHECK(count_by_value(&all, &rfoo) == 4);
    CHECK(count_by_value(&all, &kfoo) == 3);     /* not the other spelling */
    CHECK(count_by_value(&all, &kspelled) == 2); /* itself and the ref */
    relation_view old = {&rel, 0, 2}, recent = {&rel, 2, 4};
    CHECK(count_by_value(&old, &rfoo) == 2 && count_by_value(&recent, &rfoo) == 2);
    CHECK(count_by_value(&recent, &kspelled) == 1);
    int n = 0;
    for (uint32_t row = relation_seek_entity(&recent, &a); row != RELATION_END;
         row = relation_next_entity(&recent, row))
        n++;
    CHECK(n == 0);
    for (uint32_t row = relation_seek_entity(&old, &a); row != RELATION_END;
         row = relation_next_entity(&old, row))
        n++;
    CHECK(n == 2);
    relation_row got = relation_get(&all, 1);
    CHECK(uuid_equal(&got.entity, &a) && value_identical(&got.v, &kspelled));
    relation_free(&rel);
}

/* Enough pairs to grow the pair set many times; each stays found once. */
static void relation_pairs_survive_growth(void) {
    relation rel;
    relation_init(&rel, NULL);
    err e = {0};
    bool added, ok = true;
    enum { ENTITIES = 64, VALUES = 40 };
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ENTITIES; i++) {
            char name[16];
            int len = snprintf(name, sizeof name, ":e%d", i);
            uuid128 u = uuid_of_keyword(name, (size_t)len);
            for (int k = 0; k < VALUES; k++) {
                value v = value_integer(k);
                ok = ok && relation_add(&rel, &u, &v, &added, &e) == 0 && added == (pass == 0) &&
                     relation_contains(&rel, &u, &v);
            }
            value absent = value_integer(VALUES);
            ok = ok && !relation_contains(&rel, &u, &absent);
        }
    CHECK(ok);
    CHECK(rel.count == ENTITIES * VALUES);
    relation_free(&rel);
}

/* derived_find answers by the attribute's text, also when one buffer
 * holds another text later (its memo keys a copy, not the pointer), for
 * texts too long to remember, and hides magic relations from patterns
 * only. */
static void derived_lookups_follow_the_text(void) {
    const tfact f[] = {{":a", ":edge", ":b"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach :a ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0);
    derived_facts d;
    CHECK(derived_init(&d, r.sn, &r.e) == 0);
    char buf[40];
    for (int pass = 0; pass < 2; pass++) {
        strcpy(buf, ":reach");
        value a = value_keyword(buf, strlen(buf));
        CHECK(derived_find(&d, &a, false) == 0 && derived_find(&d, &a, true) == 0);
        strcpy(buf, ":edges");
        a = value_keyword(buf, strlen(buf));
        CHECK(derived_find(&d, &a, false) == -1);
        strcpy(buf, ":reach");
        CHECK(derived_find(&d, &a, false) == 0);
    }
    strcpy(buf, ":reach-with-a-name-longer-than-kept");
    value a = value_keyword(buf, strlen(buf));
    CHECK(derived_find(&d, &a, true) == -1);
    value s = value_string(":reach", 6);
    CHECK(derived_find(&d, &s, true) == -1);
    derived_free(&d);
    run_free(&r);
}

static void a_reset_evaluation_derives_the_same_facts_again(void) {
    /* seminaive_reset: the next query's evaluation of the same rules
     * starts from empty relations (their small tables kept), with its
     * own limits and meter. */
    const tfact f[] = {{":a", ":edge", ":b"}, {":b", ":edge", ":c"}, {":c", ":edge", ":d"}};
    run r;
    run_rules(&r, reach_rules, 2, "(query [:find ?y :where (reach ?x ?y)])", f, N(f), NULL, 0);
    CHECK(r.rc == 0 && size_of(&r, "reach") == 6 && seminaive_fact_count(r.sn) == 6);
    CHECK(r.m.used > 0);
    CHECK(seminaive_serves(r.sn, r.prog, (const ast_rule *const *)r.rules, &r.plan));
    CHECK(!seminaive_serves(r.sn, r.prog, (const ast_rule *const *)r.rules + 1, &r.plan));
    meter m2;
    meter_init(&m2, 0);
    seminaive_reset(r.sn, NULL, &m2);
    CHECK(r.m.used == 0); /* the first meter got its charge back */
    CHECK(size_of(&r, "reach") == 0 && seminaive_fact_count(r.sn) == 0 && m2.used == 0);
    CHECK(seminaive_run(r.sn, eval_body, &r.t, &r.e) == 0);
    CHECK(size_of(&r, "reach") == 6 && derived(&r, "reach", ":a", ":d") &&
          derived(&r, "reach", ":c", ":d") && !derived(&r, "reach", ":d", ":a"));
    CHECK(m2.used > 0 && r.m.used == 0);
    /* the limits are the reset's: one derived fact allowed */
    seminaive_limits one = {1000, 1000, 1};
    seminaive_reset(r.sn, &one, &m2);
    CHECK(m2.used == 0);
    CHECK(seminaive_run(r.sn, eval_body, &r.t, &r.e) == ERR(INT, 20));
    seminaive_free(r.sn);
    r.sn = NULL;
    CHECK(m2.used == 0);
    run_free(&r);
}

static void a_cleared_relation_keeps_only_small_tables(void) {
    meter m;
    meter_init(&m, 0);
    relation rel;
    relation_init(&rel, &m);
    err e = {0};
    bool added;
    uuid128 a = uuid_of_keyword(":a", 2);
    value kb = kw(":b");
    CHECK(relation_add(&rel, &a, &kb, &added, &e) == 0 && added);
    size_t small = m.used;
    CHECK(small > 0 && small <= RELATION_KEEP_BYTES);
    meter m2;
    meter_init(&m2, 0);
    relation_clear(&rel, &m2);
    CHECK(m.used == 0 && m2.used == 0 && rel.count == 0 && rel.rows != NULL);
    relation_view w = relation_all(&rel);
    CHECK(relation_seek_entity(&w, &a) == RELATION_END && !relation_contains(&rel, &a, &kb));
    CHECK(relation_add(&rel, &a, &kb, &added, &e) == 0 && added && rel.count == 1);
    CHECK(m2.used == small); /* charged anew: the tables it holds */
    w = relation_all(&rel);
    CHECK(relation_seek_value(&w, &kb) == 0 && relation_contains(&rel, &a, &kb));
    /* grown past the bound: freed whole */
    for (int i = 0; i < 4000; i++) {
        value v = value_integer(i);
        CHECK(relation_add(&rel, &a, &v, &added, &e) == 0 && added);
    }
    CHECK(m2.used > RELATION_KEEP_BYTES);
    relation_clear(&rel, &m);
    CHECK(m2.used == 0 && m.used == 0 && rel.rows == NULL && rel.cap == 0);
    CHECK(relation_add(&rel, &a, &kb, &added, &e) == 0 && added && m.used == small);
    relation_free(&rel);
    CHECK(m.used == 0);
}

int main(void) {
    a_reset_evaluation_derives_the_same_facts_again();
    a_cleared_relation_keeps_only_small_tables();
    derived_lookups_follow_the_text();
    transitive_closure_of_a_chain();
    cyclic_data_terminates();
    linear_closures_are_recognised();
    linear_closures_evaluate_bodies_in_round_0_only();
    non_linear_recursion_reads_each_delta_position();
    same_generation();
    mutual_recursion();
    negation_reads_a_complete_lower_stratum();
    only_needed_predicates_are_evaluated();
    iteration_cap_counts_rounds_that_add_facts();
    default_iteration_cap_allows_a_chain_of_1000();
    max_derived_facts_counts_rederivations_per_round();
    max_derived_facts_is_per_round();
    max_results_caps_distinct_derived_facts();
    relations_are_charged_to_the_meter();
    head_without_arguments_fails_when_evaluated();
    relation_is_an_e3_set_indexed_by_e2_value();
    relation_value_seeks_are_exact_in_every_view();
    relation_pairs_survive_growth();
    return CHECK_DONE();
}
