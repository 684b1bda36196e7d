/* The full query language and rules into the AST (language.md §8-§11, §9.1), and the
 * parse-time checks of language.md §8.10.2 and §11.1. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "datalog/parse.h"
#include "regex/regex.h"

static arena test_arena;

static const command *parse_ok(const char *text) {
    err e = {0};
    command *c = NULL;
    if (datalog_parse(text, strlen(text), &test_arena, &c, &e) != 0) {
        fprintf(stderr, "  unexpected error for %.80s: %s\n", text, e.message);
        c = NULL;
    }
    err_clear(&e);
    return c;
}

static const ast_query *query_ok(const char *text) {
    const command *c = parse_ok(text);
    return c && c->kind == CMD_QUERY ? &c->as.query : NULL;
}

static int parse_fails(const char *text, const char *want) {
    arena a;
    arena_init(&a);
    err e = {0};
    command *c;
    datalog_parse(text, strlen(text), &a, &c, &e);
    int ok = e.message && strncmp(e.message, want, strlen(want)) == 0;
    if (!ok)
        fprintf(stderr, "  input %.90s\n    got:  %s\n    want: %s\n", text,
                e.message ? e.message : "(ok)", want);
    err_clear(&e);
    arena_free(&a);
    return ok;
}

static bool name_is(const char *p, size_t n, const char *s) {
    return n == strlen(s) && memcmp(p, s, n) == 0;
}

static void test_find_specs(void) {
    const ast_query *q = query_ok(
        "(query [:find ?d (count ?e) (sum ?s :over (:partition-by ?d :order-by ?s :desc)) "
        "(rank :over (:order-by ?s)) (avg ?s) :where [?e :d ?d] [?e :s ?s]])");
    CHECK(q && q->spec_count == 5 && q->find_count == 1);
    if (!q)
        return;
    CHECK(q->specs[0].kind == FIND_VAR && name_is(q->find[0].name, q->find[0].name_len, "?d"));
    CHECK(q->specs[1].kind == FIND_AGGREGATE &&
          name_is(q->specs[1].fn, q->specs[1].fn_len, "count") &&
          name_is(q->specs[1].var.name, q->specs[1].var.name_len, "?e"));
    const ast_find *w = &q->specs[2];
    CHECK(w->kind == FIND_WINDOW && w->has_var && w->has_partition && w->desc &&
          name_is(w->partition_by.name, w->partition_by.name_len, "?d") &&
          name_is(w->order_by.name, w->order_by.name_len, "?s"));
    CHECK(q->specs[3].kind == FIND_WINDOW && !q->specs[3].has_var && !q->specs[3].desc);
    CHECK(q->specs[4].kind == FIND_AGGREGATE); /* [v3] avg is a plain aggregate */
    CHECK(query_ok("(query [:find (lag ?s :over (:order-by ?s)) (udf ?s :over (:asc :order-by ?s)) "
                   ":where [?e :s ?s]])"));
    CHECK(query_ok("(query [:find (my-agg ?s) :where [?e :s ?s]])"));
}

static void test_find_errors(void) {
    CHECK(parse_fails(
        "(query [:find (count ?x ?y) :where [?x :a ?y]])",
        "[PRS-024] Aggregate expression must have exactly 2 elements (func ?var), got 3"));
    CHECK(parse_fails("(query [:find (rank) :where [?x :a ?y]])", "[PRS-024]"));
    CHECK(parse_fails("(query [:find (\"f\" ?x) :where [?x :a ?y]])", "[PRS-025]"));
    CHECK(parse_fails("(query [:find (count 1) :where [?x :a ?y]])", "[PRS-026]"));
    CHECK(
        parse_fails("(query [:find (rank ?x) :where [?x :a ?y]])",
                    "[PRS-027] 'rank' is a window function and requires an ':over (...)' clause"));
    CHECK(parse_fails("(query [:find (row-number ?x) :where [?x :a ?y]])", "[PRS-027]"));
    CHECK(
        parse_fails("(query [:find (1 ?x :over (:order-by ?x)) :where [?x :a ?y]])", "[PRS-029]"));
    CHECK(parse_fails(
        "(query [:find (sum-distinct ?x :over (:order-by ?x)) :where [?x :a ?y]])",
        "[PRS-031] 'sum-distinct' is not window-compatible and cannot be used with ':over'"));
    CHECK(parse_fails("(query [:find (sum :over (:order-by ?x)) :where [?x :a ?y]])", "[PRS-032]"));
    CHECK(parse_fails("(query [:find (sum ?x ?y :over (:order-by ?x)) :where [?x :a ?y]])",
                      "[PRS-033]"));
    CHECK(parse_fails("(query [:find (rank ?x :over (:order-by ?x)) :where [?x :a ?y]])",
                      "[PRS-034]"));
    CHECK(parse_fails("(query [:find (sum ?x :over [:order-by ?x]) :where [?x :a ?y]])",
                      "[PRS-035]"));
    CHECK(parse_fails("(query [:find (sum ?x :over) :where [?x :a ?y]])", "[PRS-035]"));
    CHECK(parse_fails("(query [:find (sum ?x :over (:order-by ?x) 1) :where [?x :a ?y]])",
                      "[PRS-036] Unexpected element after the ':over' clause, got Integer(1)"));
    CHECK(parse_fails(
        "(query [:find (sum ?x :over (:partition-by 3 :order-by ?x)) :where [?x :a ?y]])",
        "[PRS-037]"));
    CHECK(parse_fails("(query [:find (sum ?x :over (:order-by)) :where [?x :a ?y]])", "[PRS-038]"));
    CHECK(parse_fails("(query [:find (sum ?x :over (:partition-by ?y)) :where [?x :a ?y]])",
                      "[PRS-038] ':order-by' is required in the ':over' clause"));
    CHECK(parse_fails("(query [:find (sum ?x :over (:order-by ?x :rows)) :where [?x :a ?y]])",
                      "[PRS-039]"));
    CHECK(parse_fails("(query [:find (sum ?x :over (:order-by ?x 5)) :where [?x :a ?y]])",
                      "[PRS-040]"));
}

static void test_sections(void) {
    const ast_query *q = query_ok(
        "(query [:find ?x (count ?y) :with ?e ?z :where [?e :a ?x] [?e :b ?y] [?e :c ?z] "
        ":max-derived-facts 10 :max-results 20 :order-by [?x :desc] :limit 5 :offset 7])");
    CHECK(q && q->with_count == 2 && q->has_max_derived_facts && q->max_derived_facts == 10 &&
          q->has_max_results && q->max_results == 20 && q->order_count == 1 &&
          q->order_by[0].desc && q->has_limit && q->limit == 5 && q->has_offset && q->offset == 7);
    q = query_ok("(query [:find ?x ?y :where [?x :a ?y] :order-by [?x ?y :asc] :limit 0])");
    CHECK(q && q->order_count == 2 && !q->order_by[0].desc && !q->order_by[1].desc &&
          q->limit == 0);
    q = query_ok("(query [:find ?x :as-of $t :valid-at $v :where [$e :a ?x]])");
    CHECK(q && q->as_of == AS_OF_SLOT && name_is(q->as_of_slot.name, q->as_of_slot.name_len, "t") &&
          q->valid == VALID_SLOT && q->where[0].e.kind == TERM_SLOT);
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :max-results 1 :max-results 2])",
                      "[PRS-077] duplicate :max-results"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :max-derived-facts \"9\"])",
                      "[PRS-077] :max-derived-facts must be a positive integer"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :max-derived-facts -1])",
                      "[PRS-077] :max-derived-facts must be >= 1"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :limit -1])",
                      "[PRS-079] :limit must be a non-negative integer"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :offset])",
                      "[PRS-079] :offset requires a non-negative integer"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :limit 1 :limit 2])",
                      "[PRS-079] duplicate :limit"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :order-by ?x])",
                      "[PRS-079] :order-by requires a non-empty vector"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :order-by []])", "[PRS-079]"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :order-by [:desc ?x]])",
                      "[PRS-079] :order-by expects a variable"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a ?y] :order-by [?y]])",
                      "[PRS-079] :order-by variable ?y is not a plain :find variable"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :order-by [?x] :order-by [?x]])",
                      "[PRS-079] duplicate :order-by"));
    CHECK(parse_fails("(query [:find (count ?x) :with 1 :where [?x :a 1]])",
                      "[PRS-077] ':with' clause accepts only variables, got Integer(1)"));
    CHECK(parse_fails("(query [:find (count ?x) :with :where [?x :a 1]])",
                      "[PRS-077] ':with' requires at least one variable"));
}

static void test_binding_checks(void) {
    CHECK(parse_fails("(query [:find ?d :with ?e :where [?e :dept ?d]])",
                      "[PRS-021] ':with' clause requires at least one aggregate in :find"));
    CHECK(parse_fails("(query [:find (count ?e) :with ?z :where [?e :dept ?d]])",
                      "[PRS-022] ':with' variable ?z not bound in :where"));
    CHECK(parse_fails("(query [:find (count ?z) :where [?e :dept ?d]])",
                      "[PRS-023] Aggregate variable ?z not bound in :where"));
    CHECK(parse_fails("(query [:find ?e (rank :over (:order-by ?z)) :where [?e :dept ?d]])",
                      "[PRS-080] variable ?z in :find is not bound"));
    CHECK(parse_fails("(query [:find ?z :where [?e :dept ?d] (not [?e :b ?z])])", "[PRS-080]"));
    /* expression variables: bound by an earlier clause, in source order */
    CHECK(parse_fails("(query [:find ?x :where [(> ?y 1)] [:m :i ?y]])",
                      "[INT-018] variable ?y in expression clause is not bound by any earlier "
                      "clause (at line 1, column 25)"));
    CHECK(query_ok("(query [:find ?z :where [:m :i ?y] [(+ ?y 1) ?z] [(> ?z 1)]])"));
    CHECK(parse_fails("(query [:find ?y :where [(+ ?y 1) ?y] [:m :i ?y]])", "[INT-018]"));
    CHECK(parse_fails("(query [:find ?y :where [:m :i ?y] (not [(> ?q 1)])])",
                      "[INT-018] variable ?q"));
    CHECK(query_ok("(query [:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])])"));
    /* or: identical new-variable sets */
    CHECK(parse_fails(
        "(query [:find ?e :where [?e :color ?c] (or [?e :a ?x] [?e :b ?y])])",
        "[PRS-057] all branches of (or ...) must introduce the same set of new variables"));
    CHECK(query_ok(
        "(query [:find ?e ?x :where [?e :c ?c] (or [?e :a ?x] (and [?e :b ?x] [(> ?x 1)]))])"));
    CHECK(query_ok("(query [:find ?x :where (or [?e :a ?x] [?e :b ?x]) [(> ?x 1)]])"));
    CHECK(parse_fails("(query [:find ?e :where [?e :c ?c] (or [?e :a ?x] (not [?e :b 1]))])",
                      "[PRS-057]"));
    /* or-join: join variables bound earlier */
    CHECK(parse_fails(
        "(query [:find ?c :where (or-join [?e] [?e :color :red]) [?e :color ?c]])",
        "[INT-018] join variable ?e in (or-join ...) is not bound by any earlier clause"));
    CHECK(query_ok("(query [:find ?c :where [?e :color ?c] (or-join [?e ?_w] [?e :color :red] "
                   "(and [?e :color ?x] [(= ?x :green)]))])"));
    /* not-join: join variables bound anywhere outside */
    CHECK(query_ok("(query [:find ?n :where (not-join [?s] [?s :dep ?l]) [?s :name ?n]])"));
    CHECK(parse_fails(
        "(query [:find ?n :where [?s :name ?n] (not-join [?q] [?q :dep ?l])])",
        "[INT-018] join variable ?q in (not-join ...) is not bound by any outer clause"));
    CHECK(query_ok(
        "(query [:find ?e :where [?e :group 7] (not-join [?e] [?e :age ?a] [(< ?a 50)])])"));
}

static void test_where_clauses(void) {
    const ast_query *q = query_ok(
        "(query [:find ?e :where [?e :a ?v] [(<= ?v (* 2 $max)) ?ok] [(adult? ?v)] (not [?e :b 1]) "
        "(not-join [?e] [?e :c ?z]) (or [?e :d 1] (and [?e :d 2] [?e :f 3])) (or-join [?e] [?e :g "
        "?h]) "
        "(reach ?e :x)])");
    CHECK(q && q->body.count == 8 && q->where_count == 1);
    if (!q)
        return;
    const ast_clause *c = q->body.items;
    CHECK(c[0].kind == CL_PATTERN);
    CHECK(c[1].kind == CL_EXPR && c[1].as.expr.has_out && c[1].as.expr.expr.op == OP_LE &&
          c[1].as.expr.expr.args[1].kind == EXPR_CALL && c[1].as.expr.expr.args[1].op == OP_MUL &&
          c[1].as.expr.expr.args[1].args[1].arg.kind == TERM_SLOT);
    CHECK(c[2].kind == CL_EXPR && c[2].as.expr.expr.op == OP_HOST && !c[2].as.expr.has_out);
    CHECK(c[3].kind == CL_NOT && c[3].as.not_.body.count == 1);
    CHECK(c[4].kind == CL_NOT_JOIN && c[4].as.not_.var_count == 1);
    CHECK(c[5].kind == CL_OR && c[5].as.or_.branch_count == 2 &&
          c[5].as.or_.branches[1].count == 2);
    CHECK(c[6].kind == CL_OR_JOIN && c[6].as.or_.var_count == 1);
    CHECK(c[7].kind == CL_INVOKE && c[7].as.invoke.argc == 2 &&
          c[7].as.invoke.args[1].kind == TERM_CONST);
    CHECK(c[3].line == 1 && c[3].column > 1);
    q = query_ok("(query [:find ?s :where [:m :s ?s] [(matches? ?s \"^a.c$\")]])");
    CHECK(q && q->body.items[1].as.expr.expr.regex &&
          regex_match(q->body.items[1].as.expr.expr.regex, "abc", 3) == 1 &&
          regex_match(q->body.items[1].as.expr.expr.regex, "abcd", 4) == 0);
    CHECK(query_ok("(query [:find ?x :where [?x :a ?y] (or (not [?x :b 1]) [?x :c 2])])"));
    CHECK(query_ok(
        "(query [:find ?x :where [?x :a ?y] (and ?x)])")); /* (and ...) outside or: an invocation */
}

static void test_where_errors(void) {
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] ()])",
                      "[PRS-050] Empty list in :where clause"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not (not [?e :x 1]))])",
                      "[PRS-051] (not ...) cannot appear inside another (not ...)"));
    CHECK(parse_fails(
        "(query [:find ?e :where [?e :a 1] (not-join [?e] (not-join [?e] [?e :x 1]))])",
        "[PRS-051] (not-join ...) cannot appear inside another (not ...) or (not-join ...)"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not (or [?e :x 1]))])",
                      "[PRS-077] (or)/(or-join) cannot appear inside (not)/(not-join)"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not)])",
                      "[PRS-052] (not) requires at least one clause"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or)])",
                      "[PRS-053] (or) requires at least one branch"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or-join [?e])])", "[PRS-054]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or-join)])", "[PRS-054]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or-join ?e [?e :b 1])])", "[PRS-055]"));
    CHECK(
        parse_fails("(query [:find ?e :where [?e :a 1] (or-join [:e] [?e :b 1])])",
                    "[PRS-056] (or-join) join variables must be logic variables, got Keyword(:e)"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or [?e :b 1] (and))])",
                      "[PRS-058] (and) requires at least one clause"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not-join [?e])])", "[PRS-059]"));
    CHECK(parse_fails(
        "(query [:find ?e :where [?e :a 1] (not-join ?e [?e :b 1])])",
        "[PRS-059] (not-join) first argument must be a vector of join variables, got Symbol(?e)"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not-join [1] [?e :b 1])])",
                      "[PRS-059] (not-join) join variables"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] 42])", "[PRS-060]"));
    CHECK(parse_fails(
        "(query [:find ?e :where [?e :a 1] (\"p\" ?e)])",
        "[PRS-077] Rule invocation must start with predicate name (symbol), got String(\"p\")"));
    CHECK(parse_fails("(query [:find ?e :where [:db/tx-id :a ?e]])",
                      "[PRS-077] pseudo-attribute :db/tx-id is not valid in entity position"));
}

static void test_expression_errors(void) {
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [() ?w]])",
                      "[PRS-062] Empty expression list"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(> ?v ())]])", "[PRS-062]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(1 ?v)]])",
                      "[PRS-063] expression head must be a symbol, got Integer(1)"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(string? ?v 1)]])",
                      "[PRS-064] string? takes exactly 1 argument, got 2"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(adult?)]])",
                      "[PRS-064] adult? takes exactly 1 argument, got 0"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(f ?v 1 2)]])", "[PRS-064]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(< ?v)]])",
                      "[PRS-065] < takes exactly 2 arguments, got 1"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(+ ?v 1 2) ?w]])", "[PRS-065]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(matches? ?v ?p)]])",
                      "[PRS-066] matches? pattern must be a string literal, got Symbol(?p)"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(matches? ?v $p)]])", "[PRS-066]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(pow ?v 2)]])",
                      "[PRS-067] unknown expression operator: pow"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(+ ?v 1) ?w ?z]])", "[PRS-068]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(+ ?v 1) _]])",
                      "[PRS-069] Expression output must be a variable, got Symbol(_)"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(= ?v [1])]])",
                      "[PRS-070] unsupported expression argument: Vector"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(= ?v #uuid "
                      "\"550e8400-e29b-41d4-a716-446655440000\")]])",
                      "[PRS-070]"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(= ?v foo)]])",
                      "[PRS-070] unsupported expression argument: Symbol(foo)"));
    CHECK(parse_fails("(query [:find ?v :where [?e :a ?v] [(= ?v _)]])", "[PRS-070]"));
    CHECK(parse_fails("(query [:find ?x :where [:m :s ?x] [(matches? ?x \"[\")]])",
                      "[PRS-078] invalid regex pattern \"[\": unclosed character class"));
    CHECK(parse_fails(
        "(query [:find ?x :where [:m :s ?x] [(matches? ?x \"(a)\\\\1\")]])",
        "[PRS-078] invalid regex pattern \"(a)\\1\": backreferences are not supported"));
    CHECK(parse_fails("(query [:find ?x :where [:m :s ?x] [(matches? ?x \"a(?=b)\")]])",
                      "[PRS-078]"));
}

static void test_rules(void) {
    const command *c = parse_ok("(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])");
    CHECK(c && c->kind == CMD_RULE && name_is(c->as.rule.name, c->as.rule.name_len, "reach") &&
          c->as.rule.argc == 2 && c->as.rule.body.count == 2);
    CHECK(parse_ok("(rule [(p ?x) [?x :base true] (not (q ?x))])"));
    CHECK(parse_ok("(rule [(p ?x) [?y :base ?x] (not-join [?x] [?x :q 1])])"));
    CHECK(parse_ok("(rule [(p) [:a :b 1]])"));
    CHECK(parse_ok("(rule [(flag :a) [(> 2 1)]])"));
    CHECK(parse_fails("(rule)", "[PRS-077] Rule must have a body"));
    CHECK(parse_fails("(rule (p ?x))", "[PRS-077] Rule body must be a vector"));
    CHECK(parse_fails("(rule [])", "[PRS-077] Rule body cannot be empty"));
    CHECK(parse_fails("(rule [[?x :a ?y]])",
                      "[PRS-077] Rule head must be a list: (predicate ?args)"));
    CHECK(parse_fails("(rule [() [?x :a ?y]])", "[PRS-077] Rule head cannot be empty"));
    CHECK(parse_fails("(rule [(:p ?x) [?x :a ?y]])",
                      "[PRS-077] Rule head must start with a symbol (predicate name)"));
    CHECK(parse_fails("(rule [(p ?x)])",
                      "[PRS-077] Rule must have at least one pattern or rule invocation in body"));
    CHECK(parse_fails("(rule [(p ?x) :a])",
                      "[PRS-077] Rule body clause must be a vector (pattern) or list"));
    CHECK(parse_fails("(rule [(p ?x ?y ?z) [?x :a ?y] [?y :b ?z]])",
                      "[PRS-077] rule head must have 1 or 2 arguments, got 3"));
    CHECK(parse_fails("(rule [(p ?x ?y) [?x :a 1]])",
                      "[INT-018] rule head variable ?y is not bound by the rule body"));
    CHECK(parse_fails("(rule [(p ?x) [?x :a 1]] [(q ?x) [?x :b 1]])",
                      "[PRS-076] Unexpected trailing argument(s) in (rule ...)"));
    CHECK(parse_fails("(rule [(p ?x) [(> ?x 1)] [?x :a 1]])",
                      "[INT-018] variable ?x in expression clause"));
}

static void test_depth_is_bounded(void) {
    char text[4096];
    size_t n = 0;
    n += (size_t)snprintf(text, sizeof text, "(query [:find ?v :where [?e :a ?v] [");
    for (int i = 0; i < 120; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "(+ 1 ");
    text[n++] = '1';
    for (int i = 0; i < 120; i++)
        text[n++] = ')';
    n += (size_t)snprintf(text + n, sizeof text - n, " ?w]])");
    CHECK(parse_fails(text, "[PRS-076] Exceeded maximum recursion depth of 100"));
}

/* Many variables: the checks switch from linear lookup to a hash table. */
static void test_many_variables(void) {
    size_t cap = 400000, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text, cap, "(query [:find ?v0 (count ?v4999) :with ?v17 :where");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(text + n, cap - n, " [?e :a%d ?v%d]", i, i);
    n += (size_t)snprintf(text + n, cap - n, " (or [?v1 :b ?w] [?v2 :c ?w]) [(> ?w ?v4998)]");
    snprintf(text + n, cap - n, " (not-join [?v3] [?v3 :d 1])])");
    CHECK(query_ok(text) != NULL);
    snprintf(text + n, cap - n, " (not-join [?zz] [?zz :d 1])])");
    CHECK(parse_fails(text, "[INT-018] join variable ?zz in (not-join ...)"));
    free(text);
}

int main(void) {
    arena_init(&test_arena);
    test_many_variables();
    test_find_specs();
    test_find_errors();
    test_sections();
    test_binding_checks();
    test_where_clauses();
    test_where_errors();
    test_expression_errors();
    test_rules();
    test_depth_is_bounded();
    arena_free(&test_arena);
    return CHECK_DONE();
}
