/* Evaluating the rules a query needs (see rule_eval.h). */
#include "exec/rule_eval.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "host/host_fns.h"
#include "plan/conj.h"
#include "plan/magic.h"

/* ---- which queries use rules ------------------------------------------------ */

static void count_invocation(void *ctx, const ast_clause *invoke, bool negated) {
    (void)invoke;
    (void)negated;
    ++*(size_t *)ctx;
}

bool rule_eval_needed(const ast_query *q) {
    size_t n = 0;
    stratify_walk_invocations(&q->body, count_invocation, &n);
    return n > 0;
}

/* ---- the join-order hint ------------------------------------------------------ */

static size_t derived_rows(const void *ctx, const plan_item *it, bool *instead) {
    const where_ctx *x = ctx;
    const derived_facts *d = x->derived;
    if (!d || it->kind == PK_PSEUDO)
        return 0;
    if (x->delta_clause && it->clause == x->delta_clause) {
        *instead = true;
        return relation_view_size(&x->delta);
    }
    const term *a = &it->pc.pattern->a;
    if (a->kind == TERM_CONST) {
        long r = derived_find(d, &a->constant, it->kind == PK_INVOKE);
        if (r < 0)
            return 0;
        relation_view w = derived_view(d, (size_t)r);
        return relation_view_size(&w);
    }
    size_t rows = 0;
    for (size_t i = 0; i < d->count; i++) {
        relation_view w = derived_view(d, i);
        rows += d->hidden[i] ? 0 : relation_view_size(&w);
    }
    return rows;
}

plan_hint rule_eval_hint(const where_ctx *x) {
    return x->derived ? (plan_hint){derived_rows, x, NULL, x->host}
                      : (plan_hint){NULL, NULL, NULL, x->host};
}

/* ---- one rule body ------------------------------------------------------------ */

typedef struct find_pos {
    size_t want, seen;
    const ast_clause *found;
} find_pos;

static void visit_pos(void *ctx, const ast_clause *invoke, bool negated) {
    find_pos *fp = ctx;
    if (negated)
        return;
    if (fp->seen++ == fp->want)
        fp->found = invoke;
}

/* The invocation at positive position `pos` (seminaive.h numbering). */
static const ast_clause *delta_clause(const ast_rule *rule, size_t pos) {
    if (pos == SEMINAIVE_NO_DELTA)
        return NULL;
    find_pos fp = {pos, 0, NULL};
    stratify_walk_invocations(&rule->body, visit_pos, &fp);
    return fp.found;
}

/* Rules with not / not-join / or / or-join skip a solution whose head
 * cannot be built instead of failing the query (language.md §9.2 item 1, §9.1). */
static bool is_mixed(const ast_rule *rule) {
    for (size_t i = 0; i < rule->body.count; i++)
        if (rule->body.items[i].kind != CL_PATTERN && rule->body.items[i].kind != CL_EXPR &&
            rule->body.items[i].kind != CL_INVOKE)
            return true;
    return false;
}

typedef struct head_run {
    seminaive *sn;
    const ast_rule *rule;
    const frame *f;
    const int *var; /* per head argument: its body variable, or -1 */
    bool mixed;
} head_run;

/* A head argument's value: its constant or the body's binding (D12's
 * representative, so a keyword stays a keyword, language.md §9.2). */
static bool head_arg(const head_run *h, size_t i, value *out) {
    const term *t = &h->rule->args[i];
    if (t->kind == TERM_CONST) {
        *out = t->constant;
        return true;
    }
    const value *v = h->var[i] >= 0 ? frame_var_value(h->f, h->var[i], h->f->p->item_count + 1)
                                    : NULL;
    if (v)
        *out = *v;
    return v != NULL;
}

static int head_unbound(const head_run *h, size_t i, err *e) {
    const term *t = &h->rule->args[i];
    return h->mixed ? 0
                    : err_set(e, ERR(INT, 18), "Unbound variable in rule head: %.*s",
                              (int)t->name_len, t->name);
}

static int emit_head(const head_run *h, err *e) {
    value ev, vv = value_boolean(true);
    uuid128 entity;
    if (!head_arg(h, 0, &ev))
        return head_unbound(h, 0, e);
    if (!value_as_entity(&ev, &entity))
        return h->mixed
                   ? 0
                   : err_set(
                         e, ERR(INT, 1),
                         "Failed to convert entity: a %s is not an entity (head of rule '%.*s')",
                         value_type_name(ev.type), (int)h->rule->name_len, h->rule->name);
    if (h->rule->argc > 1 && !head_arg(h, 1, &vv))
        return head_unbound(h, 1, e);
    int rc = value_resolve(&vv, e); /* relations keep decoded values */
    return rc != 0 ? rc : seminaive_emit(h->sn, &entity, &vv, e);
}

/* Builds bp's operators over its plan, once per plan. */
static int build_pipeline(rule_eval *re, body_plan *bp, err *e) {
    int rc = op_sub_init(re->x, &bp->pipe, bp->conj, e);
    if (rc != 0)
        return rc;
    bp->reusable = op_sub_reusable(re->x, bp->conj);
    for (size_t i = 0; i < 2; i++) {
        const term *t = i < bp->rule->argc ? &bp->rule->args[i] : NULL;
        bp->head_var[i] = t && t->kind == TERM_VAR ? plan_find_var(bp->conj, t->name, t->name_len)
                                                   : -1;
    }
    return 0;
}

/* Runs bp's operators from their first row, emitting each solution's head. */
static int drain_body(rule_eval *re, body_plan *bp, seminaive *sn, err *e) {
    head_run h = {.sn = sn, .rule = bp->rule, .var = bp->head_var, .mixed = bp->mixed};
    re->x->body_run++;
    batch *b;
    int rc = op_open(bp->pipe.root, e);
    while (rc == 0 && (rc = op_next(bp->pipe.root, BATCH_ROWS, &b, e)) == 1) {
        rc = 0;
        for (size_t i = 0; rc == 0 && i < b->count; i++) {
            frame row = batch_row(b, i);
            h.f = &row;
            rc = emit_head(&h, e);
        }
    }
    return rc;
}

/* ---- compiled bodies, reused across rounds and queries ------------------------ */

/* A body's plan depends on the rule, its delta position and, through the
 * join-order hint, on the sizes of the delta and the derived relations;
 * the stored-attribute counts are fixed for the query. Planning again
 * every round cost more than the rounds themselves on small fixpoints
 * (recursive_ancestors), so a plan is kept until one of those sizes
 * changes its order of magnitude (0, 1-9, 10-99, ...): within one the
 * cost-based order would rarely differ, and any order gives the same
 * answers (plan/conj.h). The plans of a few such size vectors are kept
 * per body and delta position, for the later rounds and the later
 * queries (rule_cache.h) that see the same sizes again. */
#define PLANS_PER_BODY 8
static uint8_t size_class(size_t n) {
    uint8_t c = 0;
    for (; n > 0; n /= 10)
        c++;
    return c;
}

/* The size classes of what the hint reads (derived_rows): the delta's,
 * then each derived relation's. */
static void current_sizes(const where_ctx *x, uint8_t *out) {
    out[0] = size_class(relation_view_size(&x->delta));
    for (size_t i = 0; i < x->derived->count; i++) {
        relation_view w = derived_view(x->derived, i);
        out[i + 1] = size_class(relation_view_size(&w));
    }
}

typedef struct size_vector {
    uint8_t at[256];
    size_t count;
    bool known; /* count fits `at` (else every plan is planned again) */
} size_vector;

static void size_vector_of(const where_ctx *x, size_vector *v) {
    v->count = x->derived->count + 1;
    v->known = v->count <= sizeof v->at;
    if (v->known)
        current_sizes(x, v->at);
}

static bool planned_for(const body_plan *bp, const size_vector *v) {
    return bp->conj && v->known && bp->size_count == v->count &&
           memcmp(bp->sizes, v->at, v->count) == 0;
}

static uint64_t plan_hash(const ast_rule *rule, size_t delta_pos) {
    return hash_mix((uint64_t)(uintptr_t)rule ^ (uint64_t)delta_pos << 48);
}

typedef struct plan_key {
    const rule_cache *c;
    const ast_rule *rule;
    size_t delta_pos;
} plan_key;

static bool plan_eq(const void *ctx, uint32_t id) {
    const plan_key *k = ctx;
    const body_plan *bp = k->c->plans[id];
    return bp->rule == k->rule && bp->delta_pos == k->delta_pos;
}

/* The first plan of `rule` at `delta_pos`, or NULL (a lookup, not a scan
 * of every plan: a query over N rules evaluates about N bodies). */
static body_plan *first_plan(const rule_cache *c, const ast_rule *rule, size_t delta_pos) {
    plan_key k = {c, rule, delta_pos};
    uint32_t id = htab_find(&c->plan_index, plan_hash(rule, delta_pos), plan_eq, &k);
    return id == HTAB_NONE ? NULL : c->plans[id];
}

/* A new plan, after `last` of the same rule and position (NULL: none). */
static body_plan *new_plan(rule_cache *c, const ast_rule *rule, size_t delta_pos, body_plan *last) {
    if (!array_reserve(&c->plans, &c->plan_cap, c->plan_count + 1, sizeof *c->plans, 8) ||
        (!last && htab_reserve(&c->plan_index, 1) != 0))
        return NULL;
    body_plan *bp = malloc(sizeof *bp); /* set in full below */
    if (!bp)
        return NULL;
    *bp = (body_plan){.rule = rule,
                      .delta_pos = delta_pos,
                      .delta_clause = delta_clause(rule, delta_pos),
                      .mixed = is_mixed(rule)};
    arena_init(&bp->mem);
    if (last)
        last->same_next = bp;
    else
        htab_insert(&c->plan_index, plan_hash(rule, delta_pos), (uint32_t)c->plan_count);
    c->plans[c->plan_count++] = bp;
    return bp;
}

/* The plan of `rule` at `delta_pos` made for sizes v, or one to plan for
 * them: a new one while fewer than PLANS_PER_BODY are kept, else the
 * first kept. The operators of the body's other plans that may not
 * serve another query (op_sub_reusable) are freed, and the others' tables
 * (op_sub_rest), so one pipeline per body and delta position holds its
 * tables, as one did before plans were kept. NULL: out of memory. */
static body_plan *choose_plan(rule_cache *c, const ast_rule *rule, size_t delta_pos,
                              const size_vector *v) {
    body_plan *found = NULL, *first = first_plan(c, rule, delta_pos), *last = NULL;
    size_t kept = 0;
    for (body_plan *bp = first; bp; bp = bp->same_next) {
        kept++;
        last = bp;
        if (!found && planned_for(bp, v))
            found = bp;
        else if (!bp->reusable)
            body_plan_drop_operators(bp);
        else
            op_sub_rest(&bp->pipe);
    }
    if (found)
        return found;
    return kept < PLANS_PER_BODY ? new_plan(c, rule, delta_pos, last) : first;
}

/* (Re)plans bp's body for the current sizes. */
static int compile_plan(rule_eval *re, body_plan *bp, err *e) {
    where_ctx *x = re->x;
    body_plan_drop_operators(bp);
    arena_free(&bp->mem);
    bp->conj = NULL;
    bp->size_count = x->derived->count + 1;
    /* Sizes past a size_vector's are never compared (planned_for): with
     * thousands of relations, reading them all at every plan made a rule
     * chain quadratic. */
    bool fingerprinted = bp->size_count <= sizeof((size_vector *)0)->at;
    bp->sizes = arena_alloc(&bp->mem, fingerprinted ? bp->size_count : 1);
    if (!bp->sizes)
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    if (fingerprinted)
        current_sizes(x, bp->sizes);
    plan_hint hint = rule_eval_hint(x);
    hint.counts = &re->c->counts;
    return plan_compile_body(&bp->rule->body, re->any_valid_time, x->r, &hint, &bp->mem, &bp->conj,
                             e);
}

/* Plans bp for sizes v unless it was, and builds its operators when they
 * are not. */
static int ready_plan(rule_eval *re, body_plan *bp, const size_vector *v, err *e) {
    int rc = planned_for(bp, v) ? 0 : compile_plan(re, bp, e);
    return rc == 0 && !bp->pipe.root ? build_pipeline(re, bp, e) : rc;
}

/* ---- one round of one body ------------------------------------------------------ */

static int eval_body(void *ctx, seminaive *sn, const ast_rule *rule, size_t delta_pos,
                     const relation_view *delta, err *e) {
    rule_eval *re = ctx;
    where_ctx *x = re->x;
    x->delta = delta ? *delta : (relation_view){0};
    size_vector v;
    size_vector_of(x, &v);
    body_plan *bp = choose_plan(re->c, rule, delta_pos, &v);
    if (!bp)
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    x->delta_clause = bp->delta_clause;
    int rc = ready_plan(re, bp, &v, e);
    if (rc == 0)
        rc = drain_body(re, bp, sn, e);
    x->delta_clause = NULL;
    return rc;
}

/* ---- the query's rules -------------------------------------------------------- */

static void limits_of(const query_rules *o, const ast_query *q, seminaive_limits *l) {
    seminaive_limits_default(l);
    if (o->max_derived_facts > 0)
        l->max_derived_facts = o->max_derived_facts;
    if (o->max_results > 0)
        l->max_results = o->max_results;
    if (q->has_max_derived_facts)
        l->max_derived_facts = q->max_derived_facts;
    if (q->has_max_results)
        l->max_results = q->max_results;
}

/* Demand predicates that depend on no guarded one are evaluated to their
 * fixpoint first; see rule_eval_run for the language.md §9.6 cap. */
static int demand_first(stratify_program *p, err *e) {
    bool *demand = calloc(p->pred_count + 1, sizeof *demand);
    if (!demand)
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    for (size_t i = 0; i < p->pred_count; i++)
        demand[i] = magic_is_magic_name(p->preds[i].name, p->preds[i].name_len);
    int rc = stratify_demand_first(p, demand, e);
    free(demand);
    return rc;
}

/* The magic rewrite of the snapshot's rules for c's query (language.md §9.7), or
 * none (c->rewritten NULL). */
static int magic_program(rule_eval *re, rule_cache *c, err *e) {
    size_t n;
    const ast_rule *const *rules;
    int rc = magic_rewrite(re->snapshot->rules, re->snapshot->count, c->q, &c->mem, &rules, &n, e);
    if (rc != 1)
        return rc;
    /* The rewrite adds positive edges only, so it cannot fail to
     * stratify; if it ever did, the rules still run as written. */
    if (stratify_build(rules, n, &c->rewritten, e) != 0) {
        err_clear(e);
        return 0;
    }
    c->magic_rules = rules;
    return demand_first(c->rewritten, e);
}

/* The query's strata over prog: kept with c, which serves one query text,
 * so a repeated query does not walk its rules' graph again. Planned again
 * only when prog is not the one planned for (the rules as written after
 * the rewrite exceeded a limit). */
static int query_strata(rule_eval *re, const ast_query *q, const stratify_program *prog, err *e) {
    rule_cache *c = re->c;
    if (c->plan_of != prog) {
        stratify_plan_free(&c->strata);
        memset(&c->strata, 0, sizeof c->strata);
        c->plan_of = NULL;
        int rc = stratify_plan_query(prog, &q->body, &c->strata, e);
        if (rc != 0)
            return rc;
        c->plan_of = prog;
    }
    re->plan = &c->strata;
    return 0;
}

/* The cache's semi-naive state when it was made for these rules, emptied,
 * else a new one. */
static int ready_seminaive(rule_eval *re, const stratify_program *prog,
                           const ast_rule *const *rules, const seminaive_limits *lim, err *e) {
    rule_cache *c = re->c;
    if (seminaive_serves(c->sn, prog, rules, re->plan)) {
        seminaive_reset(c->sn, lim, re->x->m);
        re->sn = c->sn;
        c->sn = NULL;
        return 0;
    }
    seminaive_free(c->sn);
    c->sn = NULL;
    return seminaive_new(prog, rules, re->plan, lim, re->x->m, &re->sn, e);
}

static int evaluate(rule_eval *re, const ast_query *q, const ast_rule *const *rules,
                    const stratify_program *prog, err *e) {
    seminaive_limits lim;
    limits_of(re->opts, q, &lim);
    int rc = query_strata(re, q, prog, e);
    if (rc == 0)
        rc = ready_seminaive(re, prog, rules, &lim, e);
    if (rc == 0) {
        rc = derived_init(&re->derived, re->sn, e);
        if (rc != 0)
            derived_free(&re->derived);
    }
    re->has_derived = rc == 0;
    if (rc == 0) {
        re->x->derived = re->query->derived = &re->derived;
        /* Bodies hash and compare the same keywords over and over (E2
         * needs their UUID, a SHA-1). The scope closes before this call
         * returns, on this thread. */
        uuid_cache kw;
        uuid_cache_begin(&kw);
        size_t limit = re->x->m ? re->x->m->limit : 0;
        hj_cache_begin(&re->c->tables, re->x, limit);
        re->x->tables = &re->c->tables;
        rc = seminaive_run(re->sn, eval_body, re, e);
        re->x->tables = NULL;
        hj_cache_end(&re->c->tables, limit);
        uuid_cache_end(&kw);
        re->opts->derived = seminaive_fact_count(re->sn);
    }
    return rc;
}

/* Frees what evaluate built, keeping the snapshot and the plans. */
static void forget_evaluation(rule_eval *re) {
    re->x->derived = re->query->derived = NULL;
    rule_cache_drop_operators(re->c);
    if (re->has_derived)
        derived_free(&re->derived);
    re->has_derived = false;
    seminaive_free(re->sn);
    re->sn = NULL;
    re->plan = NULL;
}

/* The magic rewrite, decided once per kept state. */
static int ready_program(rule_eval *re, err *e) {
    rule_cache *c = re->c;
    int rc = c->magic && !c->rewrite_done ? magic_program(re, c, e) : 0;
    c->rewrite_done = rc == 0;
    return rc;
}

/* ---- the cache's context and meter (rule_cache.h) ---------------------------- */

/* The bodies run in the cache's context, a copy of the query's, and
 * charge the cache's meter, which starts where the query's is plus what
 * the kept operators hold, with its limit and its cancel. */
static void bind_context(rule_eval *re) {
    rule_cache *c = re->c;
    const where_ctx *x = re->query;
    uint64_t runs = c->ctx.body_run; /* a hash join reads its table again in a new run */
    c->ctx = *x;
    c->ctx.body_run = runs;
    c->ctx.m = &c->m;
    meter_init(&c->m, x->m ? x->m->limit : 0);
    re->query_used = x->m ? x->m->used : 0;
    c->m.used = c->m.peak = re->query_used + c->baseline;
    if (x->m) {
        c->m.stop = x->m->stop;
        c->m.work_left = x->m->work_left;
    }
    re->x = &c->ctx;
}

/* After the evaluation, the query's meter counts what it still holds
 * (the relations, the operators) until rule_eval_end, its peak and the
 * work done. */
static void lend_to_query(rule_eval *re) {
    meter *qm = re->query->m;
    const meter *m = &re->c->m;
    if (!qm)
        return;
    size_t texts = qm->used > re->query_used ? qm->used - re->query_used : 0;
    re->lent = m->used > re->query_used ? m->used - re->query_used : 0;
    qm->used += re->lent;
    if (m->peak + texts > qm->peak)
        qm->peak = m->peak + texts;
    qm->work_left = m->work_left;
}

/* At the end: the query's meter lets go, and the operators kept for the
 * next query are what the cache's meter still holds. */
static void settle_meters(rule_eval *re) {
    meter_release(re->query->m, re->lent);
    re->lent = 0;
    const meter *m = &re->c->m;
    re->c->baseline = m->used > re->query_used ? m->used - re->query_used : 0;
}

static int run(rule_eval *re, const ast_query *q, err *e) {
    where_ctx *x = re->x;
    rule_cache_snapshot snap = {store_reader_tx_count(x->r), store_reader_generation(x->r)};
    int rc = rule_cache_take(re->opts->registry, re->snapshot, q, re->opts->magic, snap, &re->c, e);
    if (rc == 0) {
        bind_context(re);
        rc = ready_program(re, e);
    }
    if (rc != 0 || !re->c->rewritten)
        return rc == 0 ? evaluate(re, q, re->snapshot->rules, re->snapshot->strata, e) : rc;
    rc = evaluate(re, q, re->c->magic_rules, re->c->rewritten, e);
    if (rc == 0 || e->code != ERR(INT, 20))
        return rc;
    /* The language.md §9.6 limits belong to the rules as written. The demand-driven
     * rules count their derivations per round differently, and their
     * rounds relate to the program's only one way: every fact they derive
     * has a derivation as written no taller than theirs (drop the magic
     * atoms from it), and the whole closure is one stratum as written
     * (magic.h: positive rules only), evaluated here as one stratum too
     * (demand_first moves only demand that needs no closure fact below
     * it). So when they stay within the cap, every fact the query can
     * read (magic.h: no pattern observes the relations) is derived within
     * the cap as written; facts the call does not demand are not
     * evaluated, as before. When they exceed a limit (say a demand chain
     * longer than the cap, in a stratum of its own), that decides
     * nothing: the rules run again as written, and those decide. */
    err_clear(e);
    forget_evaluation(re);
    return evaluate(re, q, re->snapshot->rules, re->snapshot->strata, e);
}

int rule_eval_run(rule_eval *re, query_rules *opts, where_ctx *x, const ast_query *q, err *e) {
    memset(re, 0, sizeof *re);
    re->opts = opts;
    re->x = re->query = x;
    re->any_valid_time = q->valid == VALID_ANY;
    re->snapshot = rules_acquire(opts->registry);
    if (!re->snapshot)
        return err_set(e, ERR(INT, 0), "out of memory");
    int rc = run(re, q, e);
    re->keep = rc == 0;
    /* A body that resolved host predicates (the :where has not yet)
     * holds them for this query only. */
    re->keep_operators = re->keep && !host_scope_calls(x->host);
    if (re->c)
        lend_to_query(re);
    return rc;
}

void rule_eval_end(rule_eval *re) {
    if (re->query)
        re->query->derived = NULL;
    if (re->x)
        re->x->derived = NULL;
    /* before the relations they read */
    if (re->c && re->keep_operators)
        rule_cache_drop_unreusable(re->c);
    else if (re->c)
        rule_cache_drop_operators(re->c);
    if (re->has_derived)
        derived_free(&re->derived);
    if (re->c && re->keep && re->sn) { /* emptied now: its charge is given back */
        seminaive_reset(re->sn, NULL, re->x->m);
        re->c->sn = re->sn;
    } else {
        seminaive_free(re->sn);
    }
    if (re->c)
        settle_meters(re);
    if (re->snapshot) {
        rule_cache_give_back(re->opts->registry, re->snapshot, re->c, re->keep);
        rules_release(re->opts->registry, re->snapshot);
    }
    memset(re, 0, sizeof *re);
}
