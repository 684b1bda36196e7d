/* Unit tests for the rule dependency graph, strata and query plans
 * (language.md §9.3, §9.5). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "datalog/parse.h"
#include "rules/stratify.h"

#define N(a) (sizeof(a) / sizeof *(a))
#define MAX_RULES 16

typedef struct program {
    arena a;
    const ast_rule *rules[MAX_RULES];
    size_t count;
    stratify_program *p;
    err e;
} program;

static const command *parse(arena *a, const char *text) {
    command *c = NULL;
    err e = {0};
    if (datalog_parse(text, strlen(text), a, &c, &e) != 0) {
        fprintf(stderr, "parse failed: %s: %s\n", text, e.message);
        err_clear(&e);
        exit(2);
    }
    return c;
}

/* Parses the rules and builds their program; returns stratify_build's code. */
static int build(program *pg, const char *const *texts, size_t n) {
    memset(pg, 0, sizeof *pg);
    arena_init(&pg->a);
    for (size_t i = 0; i < n; i++)
        pg->rules[pg->count++] = &parse(&pg->a, texts[i])->as.rule;
    return stratify_build(pg->rules, pg->count, &pg->p, &pg->e);
}

static void done(program *pg) {
    stratify_free(pg->p);
    err_clear(&pg->e);
    arena_free(&pg->a);
}

static uint32_t stratum(const program *pg, const char *name) {
    uint32_t i = stratify_find(pg->p, name, strlen(name));
    return i == STRATIFY_NONE ? STRATIFY_NONE : pg->p->preds[i].stratum;
}

static bool message_is(const program *pg, const char *want) {
    return pg->e.message && strcmp(pg->e.message, want) == 0;
}

static void positive_recursion_stays_in_one_stratum(void) {
    const char *r[] = {
        "(rule [(reach ?x ?y) [?x :edge ?y]])",
        "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    CHECK(stratum(&pg, "reach") == 0);
    CHECK(pg.p->stratum_count == 1);
    CHECK(pg.p->preds[stratify_find(pg.p, "reach", 5)].rule_count == 2);
    done(&pg);
}

static void negation_puts_the_negating_predicate_above(void) {
    /* language.md §9.5 */
    const char *r[] = {
        "(rule [(reach ?x ?y) [?x :edge ?y]])",
        "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])",
        "(rule [(blocked ?x) [?x :blocked true]])",
        "(rule [(accessible ?x ?y) (reach ?x ?y) (not (blocked ?y))])",
        "(rule [(top ?x) (accessible ?x ?y)])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    CHECK(stratum(&pg, "reach") == 0);
    CHECK(stratum(&pg, "blocked") == 0);
    CHECK(stratum(&pg, "accessible") == 1);
    CHECK(stratum(&pg, "top") == 1); /* positive edges only need >= */
    CHECK(pg.p->stratum_count == 2);
    done(&pg);
}

static void strata_are_the_least_assignment(void) {
    const char *r[] = {
        "(rule [(a ?x) [?x :k 1] (not (b ?x))])",
        "(rule [(b ?x) [?x :k 1] (not (c ?x))])",
        "(rule [(c ?x) [?x :k 1]])",
        "(rule [(d ?x) (a ?x) (c ?x)])",
        "(rule [(e ?x) [?x :k 1] (not-join [?x] (c ?x))])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    CHECK(stratum(&pg, "c") == 0);
    CHECK(stratum(&pg, "b") == 1);
    CHECK(stratum(&pg, "a") == 2);
    CHECK(stratum(&pg, "d") == 2);
    CHECK(stratum(&pg, "e") == 1);
    CHECK(pg.p->stratum_count == 3);
    done(&pg);
}

static void invoked_predicate_without_rules_is_stratum_0(void) {
    const char *r[] = {"(rule [(p ?x) [?x :k 1] (not (friend ?x ?y))])"};
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    CHECK(stratum(&pg, "friend") == 0);
    CHECK(pg.p->preds[stratify_find(pg.p, "friend", 6)].rule_count == 0);
    CHECK(stratum(&pg, "p") == 1);
    done(&pg);
}

static void negative_cycle_is_int_054_naming_the_last_rule(void) {
    /* language.md §9.5 */
    const char *r[] = {
        "(rule [(p ?x) [?x :edge _] (not (q ?x))])",
        "(rule [(q ?x) [?x :edge _] (not (p ?x))])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == ERR(INT, 54));
    CHECK(pg.p == NULL);
    CHECK(message_is(&pg, "[INT-054] unstratifiable: predicate 'q' is involved in a negative "
                          "cycle through 'p'"));
    done(&pg);
}

static void self_negation_is_unstratifiable(void) {
    const char *r[] = {"(rule [(p ?x) [?x :k 1] (not (p ?x))])"};
    program pg;
    CHECK(build(&pg, r, N(r)) == ERR(INT, 54));
    CHECK(message_is(&pg, "[INT-054] unstratifiable: predicate 'p' is involved in a negative "
                          "cycle through 'p'"));
    done(&pg);
}

static void negative_cycle_through_positive_edges_is_found(void) {
    /* p -not-> q -> r -> p: the cycle closes with a positive edge. */
    const char *r[] = {
        "(rule [(p ?x) [?x :k 1] (not (q ?x))])",
        "(rule [(q ?x) (r ?x)])",
        "(rule [(r ?x) (p ?x)])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == ERR(INT, 54));
    CHECK(message_is(&pg, "[INT-054] unstratifiable: predicate 'p' is involved in a negative "
                          "cycle through 'q'"));
    done(&pg);
}

static void not_nested_in_or_branch_is_a_negative_edge(void) {
    const char *r[] = {
        "(rule [(p ?x) [?x :k 1] (or [?x :a 1] (and [?x :b 1] (not (q ?x))))])",
        "(rule [(q ?x) (p ?x)])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == ERR(INT, 54));
    done(&pg);
}

static void invocation_in_or_branch_is_a_positive_edge(void) {
    const char *r[] = {
        "(rule [(p ?x) [?x :k 1] (or (q ?x) [?x :b 1])])",
        "(rule [(q ?x) [?x :k 1] (or-join [?x] (p ?x) [?x :c 1])])",
        "(rule [(s ?x) [?x :k 1] (not (p ?x))])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0); /* p and q recurse positively */
    CHECK(stratum(&pg, "p") == 0);
    CHECK(stratum(&pg, "q") == 0);
    CHECK(stratum(&pg, "s") == 1);
    done(&pg);
}

typedef struct walk_seen {
    char letters[8];
    size_t n;
} walk_seen;

/* Records each invocation's first letter, upper-cased when negated. */
static void record_invocation(void *ctx, const ast_clause *cl, bool negated) {
    walk_seen *w = ctx;
    char ch = cl->as.invoke.name[0];
    if (w->n + 1 < sizeof w->letters)
        w->letters[w->n++] = negated ? (char)(ch - 'a' + 'A') : ch;
}

static void walk_reports_positive_positions_in_source_order(void) {
    arena a;
    arena_init(&a);
    const command *c = parse(&a, "(rule [(p ?x ?y) (e ?x ?z) (not (n ?z)) "
                                 "(or (f ?z ?y) (and [?z :k ?y] (g ?y)))])");
    walk_seen w = {{0}, 0};
    stratify_walk_invocations(&c->as.rule.body, record_invocation, &w);
    CHECK(strcmp(w.letters, "eNfg") == 0);
    arena_free(&a);
}

static bool plan_preds_are(const program *pg, const stratify_plan *plan, const char *const *want,
                           size_t n) {
    if (plan->pred_count != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        const stratify_pred *p = &pg->p->preds[plan->preds[i]];
        if (p->name_len != strlen(want[i]) || memcmp(p->name, want[i], p->name_len) != 0)
            return false;
    }
    return true;
}

static void plan_takes_needed_predicates_by_stratum(void) {
    const char *r[] = {
        "(rule [(reach ?x ?y) [?x :edge ?y]])",
        "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])",
        "(rule [(blocked ?x) [?x :blocked true]])",
        "(rule [(accessible ?x ?y) (reach ?x ?y) (not (blocked ?y))])",
        "(rule [(unrelated ?x) [?x :k 1]])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    arena qa;
    arena_init(&qa);
    const command *q = parse(&qa, "(query [:find ?y :where (accessible :a ?y) (friend :a ?y)])");
    stratify_plan plan;
    err e = {0};
    CHECK(stratify_plan_query(pg.p, &q->as.query.body, &plan, &e) == 0);
    const char *want[] = {"reach", "blocked", "accessible"};
    CHECK(plan_preds_are(&pg, &plan, want, N(want)));
    CHECK(plan.rule_count == 4);
    CHECK(plan.rule_count == 4 && plan.rules[0] == 0 && plan.rules[1] == 1 && plan.rules[2] == 2 &&
          plan.rules[3] == 3);
    stratify_plan_free(&plan);

    const command *q2 = parse(&qa, "(query [:find ?x :where [?x :k 1] (not (blocked ?x))])");
    CHECK(stratify_plan_query(pg.p, &q2->as.query.body, &plan, &e) == 0);
    const char *want2[] = {"blocked"};
    CHECK(plan_preds_are(&pg, &plan, want2, N(want2)));
    stratify_plan_free(&plan);

    const command *q3 = parse(&qa, "(query [:find ?x :where [?x :k 1]])");
    CHECK(stratify_plan_query(pg.p, &q3->as.query.body, &plan, &e) == 0);
    CHECK(plan.pred_count == 0 && plan.rule_count == 0);
    stratify_plan_free(&plan);
    arena_free(&qa);
    done(&pg);
}

static void empty_program_has_no_strata(void) {
    program pg;
    CHECK(build(&pg, NULL, 0) == 0);
    CHECK(pg.p->pred_count == 0 && pg.p->stratum_count == 0);
    done(&pg);
}

/* The magic rewrite's demand predicates (marked) that need no guarded
 * fact go below everything, a component per stratum; the rest keep their
 * relative strata above them. */
static void demand_first_lowers_demand_that_needs_no_guarded_fact(void) {
    const char *r[] = {
        "(rule [(seed ?x) [?x :start true]])",
        "(rule [(dm ?x) (seed ?x)])",
        "(rule [(dm ?x) (dm ?y) [?y :edge ?x]])",
        "(rule [(g ?x ?y) (dm ?x) [?x :edge ?y]])",
        "(rule [(g ?x ?y) (dm ?x) [?x :edge ?z] (g ?z ?y)])",
        "(rule [(dq ?x) (g ?y ?x)])",
        "(rule [(h ?x ?y) (dq ?x) [?x :k ?y]])",
        "(rule [(n ?x) [?x :k 1] (not (g ?x ?x))])",
    };
    program pg;
    CHECK(build(&pg, r, N(r)) == 0);
    bool demand[16] = {false};
    const char *marked[] = {"seed", "dm", "dq"};
    for (size_t i = 0; i < N(marked); i++)
        demand[stratify_find(pg.p, marked[i], strlen(marked[i]))] = true;
    CHECK(stratify_demand_first(pg.p, demand, &pg.e) == 0);
    CHECK(stratum(&pg, "seed") == 0);
    CHECK(stratum(&pg, "dm") == 1); /* a component above the one it reads */
    CHECK(stratum(&pg, "g") == 2);
    CHECK(stratum(&pg, "dq") == 2); /* needs g: stays with it */
    CHECK(stratum(&pg, "h") == 2);
    CHECK(stratum(&pg, "n") == 3); /* still above what it negates */
    CHECK(pg.p->stratum_count == 4);
    done(&pg);
}

int main(void) {
    positive_recursion_stays_in_one_stratum();
    negation_puts_the_negating_predicate_above();
    strata_are_the_least_assignment();
    invoked_predicate_without_rules_is_stratum_0();
    negative_cycle_is_int_054_naming_the_last_rule();
    self_negation_is_unstratifiable();
    negative_cycle_through_positive_edges_is_found();
    not_nested_in_or_branch_is_a_negative_edge();
    invocation_in_or_branch_is_a_positive_edge();
    walk_reports_positive_positions_in_source_order();
    plan_takes_needed_predicates_by_stratum();
    empty_program_has_no_strata();
    demand_first_lowers_demand_that_needs_no_guarded_fact();
    return CHECK_DONE();
}
