#include "rules/seminaive.h"

#include <stdlib.h>
#include <string.h>

#include "base/mg_assert.h"
#include "rules/closure.h"

#define NO_REL UINT32_MAX

typedef struct sn_rel {
    uint32_t pred;
    relation rel;
    uint32_t visible;  /* rows bodies see: [0, visible) */
    uint32_t delta_lo; /* the previous round's new rows: [delta_lo, visible) */
} sn_rel;

struct seminaive {
    const stratify_program *prog;
    const ast_rule *const *rules;
    const stratify_plan *plan;
    seminaive_limits lim;
    sn_rel *rels; /* in plan->preds order, so by stratum */
    size_t rel_count;
    uint32_t *rel_of_pred; /* per predicate of prog: index in rels or NO_REL */
    /* Per plan rule r: the relation read by each positive invocation
     * position, pos_rel[pos_start[r] .. pos_start[r + 1]). */
    size_t *pos_start;
    uint32_t *pos_rel;
    sn_rel *target; /* head relation of the rule being evaluated */
    int64_t round_emits, total_facts, rounds;
    bool ran;
};

void seminaive_limits_default(seminaive_limits *l) {
    l->max_iterations = 1000;
    l->max_derived_facts = 1000000;
    l->max_results = 1000000;
}

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
}

/* ---- set-up --------------------------------------------------------------------- */

typedef struct pos_ctx {
    seminaive *sn;
    size_t count;
    bool fill;
} pos_ctx;

static void visit_position(void *ctx, const ast_clause *invoke, bool negated) {
    pos_ctx *pc = ctx;
    if (negated)
        return;
    if (pc->fill) {
        const seminaive *sn = pc->sn;
        uint32_t pred = stratify_find(sn->prog, invoke->as.invoke.name, invoke->as.invoke.name_len);
        sn->pos_rel[pc->count] = pred == STRATIFY_NONE ? NO_REL : sn->rel_of_pred[pred];
    }
    pc->count++;
}

/* Two walks over the plan's rules: one to size pos_rel, one to fill it. */
static bool index_positions(seminaive *sn) {
    size_t n = sn->plan->rule_count;
    sn->pos_start = calloc(n + 1, sizeof *sn->pos_start);
    if (!sn->pos_start)
        return false;
    pos_ctx pc = {sn, 0, false};
    for (size_t r = 0; r < n; r++) {
        sn->pos_start[r] = pc.count;
        stratify_walk_invocations(&sn->rules[sn->plan->rules[r]]->body, visit_position, &pc);
    }
    sn->pos_start[n] = pc.count;
    sn->pos_rel = calloc(pc.count + 1, sizeof *sn->pos_rel);
    if (!sn->pos_rel)
        return false;
    pc = (pos_ctx){sn, 0, true};
    for (size_t r = 0; r < n; r++)
        stratify_walk_invocations(&sn->rules[sn->plan->rules[r]]->body, visit_position, &pc);
    return true;
}

static bool make_relations(seminaive *sn, meter *m) {
    const stratify_plan *plan = sn->plan;
    sn->rels = calloc(plan->pred_count + 1, sizeof *sn->rels);
    sn->rel_of_pred = malloc((sn->prog->pred_count + 1) * sizeof *sn->rel_of_pred);
    if (!sn->rels || !sn->rel_of_pred)
        return false;
    for (size_t i = 0; i < sn->prog->pred_count; i++)
        sn->rel_of_pred[i] = NO_REL;
    for (size_t i = 0; i < plan->pred_count; i++) {
        sn->rels[i].pred = plan->preds[i];
        relation_init(&sn->rels[i].rel, m);
        sn->rel_of_pred[plan->preds[i]] = (uint32_t)i;
    }
    sn->rel_count = plan->pred_count;
    return true;
}

int seminaive_new(const stratify_program *prog, const ast_rule *const *rules,
                  const stratify_plan *plan, const seminaive_limits *limits, meter *m,
                  seminaive **out, err *e) {
    seminaive *sn = calloc(1, sizeof *sn);
    if (!sn)
        return oom(e);
    sn->prog = prog;
    sn->rules = rules;
    sn->plan = plan;
    if (limits)
        sn->lim = *limits;
    else
        seminaive_limits_default(&sn->lim);
    if (!make_relations(sn, m) || !index_positions(sn)) {
        seminaive_free(sn);
        return oom(e);
    }
    *out = sn;
    return 0;
}

void seminaive_free(seminaive *sn) {
    if (!sn)
        return;
    for (size_t i = 0; i < sn->rel_count; i++)
        relation_free(&sn->rels[i].rel);
    free(sn->rels);
    free(sn->rel_of_pred);
    free(sn->pos_start);
    free(sn->pos_rel);
    free(sn);
}

bool seminaive_serves(const seminaive *sn, const stratify_program *prog,
                      const ast_rule *const *rules, const stratify_plan *plan) {
    return sn && sn->prog == prog && sn->rules == rules && sn->plan == plan;
}

void seminaive_reset(seminaive *sn, const seminaive_limits *limits, meter *m) {
    for (size_t i = 0; i < sn->rel_count; i++) {
        relation_clear(&sn->rels[i].rel, m);
        sn->rels[i].visible = sn->rels[i].delta_lo = 0;
    }
    if (limits)
        sn->lim = *limits;
    else
        seminaive_limits_default(&sn->lim);
    sn->target = NULL;
    sn->round_emits = sn->total_facts = sn->rounds = 0;
    sn->ran = false;
}

/* ---- reading and emitting ------------------------------------------------------ */

bool seminaive_full(const seminaive *sn, const char *name, size_t len, relation_view *out) {
    uint32_t pred = stratify_find(sn->prog, name, len);
    uint32_t r = pred == STRATIFY_NONE ? NO_REL : sn->rel_of_pred[pred];
    if (r == NO_REL)
        return false;
    *out = (relation_view){&sn->rels[r].rel, 0, sn->rels[r].visible};
    return true;
}

size_t seminaive_relation_count(const seminaive *sn) {
    return sn->rel_count;
}

void seminaive_relation(const seminaive *sn, size_t i, const char **name, size_t *len,
                        relation_view *out) {
    const sn_rel *r = &sn->rels[i];
    *name = sn->prog->preds[r->pred].name;
    *len = sn->prog->preds[r->pred].name_len;
    *out = (relation_view){&r->rel, 0, r->visible};
}

int64_t seminaive_fact_count(const seminaive *sn) {
    return sn->total_facts;
}

static int too_many_emits(const seminaive *sn, err *e) {
    return err_set(e, ERR(INT, 20),
                   "Max derived facts per iteration (%lld) exceeded. Rule may be generating too "
                   "many facts.",
                   (long long)sn->lim.max_derived_facts);
}

static int too_many_facts(const seminaive *sn, err *e) {
    return err_set(e, ERR(INT, 20),
                   "Max results (%lld) exceeded. Rules derived more facts than allowed.",
                   (long long)sn->lim.max_results);
}

int seminaive_emit(seminaive *sn, const uuid128 *entity, const value *v, err *e) {
    MG_ASSERT(sn->target != NULL);
    if (++sn->round_emits > sn->lim.max_derived_facts)
        return too_many_emits(sn, e);
    bool added;
    int rc = relation_add(&sn->target->rel, entity, v, &added, e);
    if (rc != 0 || !added)
        return rc;
    return ++sn->total_facts > sn->lim.max_results ? too_many_facts(sn, e) : 0;
}

int64_t seminaive_rounds(const seminaive *sn) {
    return sn->rounds;
}

/* ---- rounds ---------------------------------------------------------------------------- */

typedef struct stratum_run {
    seminaive *sn;
    uint32_t stratum;
    size_t rel_lo, rel_hi; /* the stratum's relations: rels[rel_lo .. rel_hi) */
    rule_body_eval_fn fn;
    void *ctx;
} stratum_run;

static uint32_t rule_stratum(const seminaive *sn, size_t plan_rule) {
    return sn->prog->preds[sn->prog->rule_head[sn->plan->rules[plan_rule]]].stratum;
}

static int eval_rule(stratum_run *st, size_t plan_rule, size_t pos, const relation_view *delta,
                     err *e) {
    seminaive *sn = st->sn;
    const ast_rule *rule = sn->rules[sn->plan->rules[plan_rule]];
    if (rule->argc == 0)
        return err_set(e, ERR(INT, 28),
                       "Rule head must have at least 2 elements: (predicate ?arg1)");
    sn->target = &sn->rels[sn->rel_of_pred[sn->prog->rule_head[sn->plan->rules[plan_rule]]]];
    int rc = st->fn(st->ctx, sn, rule, pos, delta, e);
    sn->target = NULL;
    return rc;
}

static bool in_stratum(const stratum_run *st, uint32_t rel) {
    return rel != NO_REL && rel >= st->rel_lo && rel < st->rel_hi;
}

/* Round k > 0 of one rule: once per position reading a relation of this
 * stratum that grew in the previous round. */
static int eval_rule_deltas(stratum_run *st, size_t plan_rule, err *e) {
    seminaive *sn = st->sn;
    for (size_t p = sn->pos_start[plan_rule]; p < sn->pos_start[plan_rule + 1]; p++) {
        uint32_t r = sn->pos_rel[p];
        if (!in_stratum(st, r) || sn->rels[r].delta_lo == sn->rels[r].visible)
            continue;
        relation_view delta = {&sn->rels[r].rel, sn->rels[r].delta_lo, sn->rels[r].visible};
        int rc = eval_rule(st, plan_rule, p - sn->pos_start[plan_rule], &delta, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* A rule with an empty body is a fact (only the magic rewrite's seeds,
 * plan/magic.h: the parser refuses empty bodies). */
static bool is_fact(const seminaive *sn, size_t plan_rule) {
    return sn->rules[sn->plan->rules[plan_rule]]->body.count == 0;
}

static void begin_round(seminaive *sn) {
    sn->round_emits = 0;
    sn->rounds++;
}

static int run_round(stratum_run *st, bool first, err *e) {
    seminaive *sn = st->sn;
    begin_round(sn);
    for (size_t r = 0; r < sn->plan->rule_count; r++) {
        if (rule_stratum(sn, r) != st->stratum || is_fact(sn, r))
            continue;
        int rc = first ? eval_rule(st, r, SEMINAIVE_NO_DELTA, NULL, e) : eval_rule_deltas(st, r, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The stratum's facts hold before its first round: they are its initial
 * state, not derivations of a round, so they cost no round of the language.md §9.6
 * cap (a seed that took round 0 would make a demand chain as long as the
 * program's own closure one round too long). */
static int seed_facts(stratum_run *st, err *e) {
    seminaive *sn = st->sn;
    sn->round_emits = 0;
    for (size_t r = 0; r < sn->plan->rule_count; r++) {
        if (rule_stratum(sn, r) != st->stratum || !is_fact(sn, r))
            continue;
        int rc = eval_rule(st, r, SEMINAIVE_NO_DELTA, NULL, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Makes the round's new rows visible as the next delta; true if any. */
static bool close_round(stratum_run *st) {
    bool grew = false;
    for (size_t i = st->rel_lo; i < st->rel_hi; i++) {
        sn_rel *r = &st->sn->rels[i];
        r->delta_lo = r->visible;
        r->visible = r->rel.count;
        grew |= r->delta_lo != r->visible;
    }
    return grew;
}

/* ---- linear transitive closures (rules/closure.h) ------------------------------ */

/* Whether the stratum is one closure_match closure over a stored
 * attribute: one relation, its two rules and nothing else; which plan
 * rules are its base (one pattern) and its step. */
static bool is_closure(const stratum_run *st, size_t *base, size_t *step) {
    const seminaive *sn = st->sn;
    size_t two[2], n = 0;
    if (st->rel_hi - st->rel_lo != 1)
        return false;
    for (size_t r = 0; r < sn->plan->rule_count; r++) {
        if (rule_stratum(sn, r) != st->stratum)
            continue;
        if (n == 2 || is_fact(sn, r))
            return false;
        two[n++] = r;
    }
    const value *attr;
    if (n != 2 || !closure_match(sn->rules[sn->plan->rules[two[0]]],
                                 sn->rules[sn->plan->rules[two[1]]], &attr))
        return false;
    bool first_is_base = sn->rules[sn->plan->rules[two[0]]]->body.count == 1;
    *base = two[first_is_base ? 0 : 1];
    *step = two[first_is_base ? 1 : 0];
    /* a pattern on :p reads the relation of p too (derived.h) */
    const char *text = attr->as.str.ptr;
    size_t len = attr->as.str.len;
    if (len < 2 || text[0] != ':')
        return false;
    uint32_t pred = stratify_find(sn->prog, text + 1, len - 1);
    return pred == STRATIFY_NONE || sn->rel_of_pred[pred] == NO_REL;
}

/* Round k > 0 of a closure: the step rule's solutions with the delta,
 * each delta row (m, y) joined with the sources of m's edges. */
static int closure_round(stratum_run *st, const closure_edges *edges, err *e) {
    seminaive *sn = st->sn;
    sn_rel *p = &sn->rels[st->rel_lo];
    begin_round(sn);
    int rc = 0;
    for (uint32_t row = p->delta_lo; rc == 0 && row < p->visible; row++) {
        uint32_t mid, y;
        relation_row_ids(&p->rel, row, &mid, &y);
        MG_ASSERT(mid < edges->entity_count);
        uint32_t lo = edges->start[mid], hi = edges->start[mid + 1];
        for (uint32_t i = lo; rc == 0 && i < hi; i++) {
            bool added;
            if (++sn->round_emits > sn->lim.max_derived_facts)
                return too_many_emits(sn, e);
            rc = relation_add_ids(&p->rel, edges->source[i], y, &added, e);
            if (rc == 0 && added && ++sn->total_facts > sn->lim.max_results)
                return too_many_facts(sn, e);
        }
        if (rc == 0)
            rc = meter_tick(p->rel.m, 1 + hi - lo, e);
    }
    return rc;
}

/* Rounds 1.. of the stratum, after its round 0; `edges`: the closure's
 * edges when it is one, else NULL. */
static int run_later_rounds(stratum_run *st, const closure_edges *edges, err *e) {
    seminaive *sn = st->sn;
    int rc = 0;
    for (int64_t growing = 0; rc == 0 && close_round(st);) {
        if (++growing > sn->lim.max_iterations)
            return err_set(e, ERR(INT, 20),
                           "Max iterations (%lld) exceeded. Possible infinite recursion or cycle "
                           "in rules.",
                           (long long)sn->lim.max_iterations);
        rc = edges ? closure_round(st, edges, e) : run_round(st, false, e);
    }
    return rc;
}

/* A closure's round 0, the base rule first, so that rows [0, *edges) are
 * exactly the edges (the step rule adds what it joins with stored facts
 * of :p, which an invocation reads in round 0 only, as it reads only the
 * delta later). */
static int closure_round_0(stratum_run *st, size_t base, size_t step, uint32_t *edges, err *e) {
    begin_round(st->sn);
    int rc = eval_rule(st, base, SEMINAIVE_NO_DELTA, NULL, e);
    *edges = st->sn->rels[st->rel_lo].rel.count;
    return rc != 0 ? rc : eval_rule(st, step, SEMINAIVE_NO_DELTA, NULL, e);
}

static int run_closure(stratum_run *st, size_t base, size_t step, err *e) {
    const relation *p = &st->sn->rels[st->rel_lo].rel;
    uint32_t edges;
    int rc = closure_round_0(st, base, step, &edges, e);
    closure_edges c;
    if (rc == 0)
        rc = closure_edges_build(&c, p, edges, p->m, e);
    if (rc != 0)
        return rc;
    rc = run_later_rounds(st, &c, e);
    closure_edges_free(&c);
    return rc;
}

static int run_stratum(stratum_run *st, err *e) {
    seminaive *sn = st->sn;
    sn->rounds = 0;
    int rc = seed_facts(st, e);
    if (rc != 0)
        return rc;
    close_round(st); /* the seeds are visible to round 0, and in no delta */
    size_t base, step;
    if (is_closure(st, &base, &step))
        return run_closure(st, base, step, e);
    rc = run_round(st, true, e);
    return rc != 0 ? rc : run_later_rounds(st, NULL, e);
}

int seminaive_run(seminaive *sn, rule_body_eval_fn fn, void *ctx, err *e) {
    MG_ASSERT(!sn->ran);
    sn->ran = true;
    size_t lo = 0;
    while (lo < sn->rel_count) {
        uint32_t s = sn->prog->preds[sn->rels[lo].pred].stratum;
        size_t hi = lo;
        while (hi < sn->rel_count && sn->prog->preds[sn->rels[hi].pred].stratum == s)
            hi++;
        stratum_run st = {sn, s, lo, hi, fn, ctx};
        int rc = run_stratum(&st, e);
        if (rc != 0)
            return rc;
        lo = hi;
    }
    return 0;
}
