/* Rule registration through minigraf.h (language.md §9.1, §9.5, §17 API-014).
 * Evaluating rules in queries: tests/c/test_rules_eval.c. */
#include "support.h"

#define OK "{\"ok\":true}"

TEST(registering_a_rule_returns_ok) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(accessible ?x ?y) (reach ?x ?y) (not [?y :blocked true])])", OK);
    CHECK_INT_EQ(tx_count(db), 0); /* rules are not transactions */
    minigraf_close(db);
}

TEST(registering_the_same_rule_twice_is_harmless) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y)\n   [?x :edge ?y]])", OK);
    minigraf_close(db);
}

TEST(every_body_clause_kind_registers) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)]])", OK);
    EXPECT_EXEC(db, "(rule [(named ?p ?n) [?p :name ?n] [(matches? ?n \"^A\")]])", OK);
    EXPECT_EXEC(db, "(rule [(warm ?c) [?c :kind _] (or [?c :color :red] [?c :color :orange])])",
                OK);
    EXPECT_EXEC(db, "(rule [(lone ?p) [?p :name _] (not-join [?p] [?p :friend ?f])])", OK);
    EXPECT_EXEC(
        db, "(rule [(odd ?p) [?p :k _] (or-join [?p] (adult ?p) (and [?p :x ?y] (named ?p ?y)))])",
        OK);
    EXPECT_EXEC(db, "(rule [(flag :the-flag) [?x :k 1]])", OK);
    EXPECT_EXEC(db, "(rule [(const ?x :yes) [?x :k 1]])", OK);
    minigraf_close(db);
}

TEST(malformed_rules_fail_with_their_parse_codes) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "(rule)", "PRS-077");
    EXPECT_ERROR(db, "(rule (p ?x))", "PRS-077");
    EXPECT_ERROR(db, "(rule [])", "PRS-077");
    EXPECT_ERROR(db, "(rule [[?x :a ?y]])", "PRS-077");
    EXPECT_ERROR(db, "(rule [() [?x :a ?y]])", "PRS-077");
    EXPECT_ERROR(db, "(rule [(\"p\" ?x) [?x :a ?y]])", "PRS-077");
    EXPECT_ERROR(db, "(rule [(p ?x)])", "PRS-077");
    EXPECT_ERROR(db, "(rule [(p ?x) :a])", "PRS-077");
    EXPECT_ERROR(db, "(rule [(p ?x ?y ?z) [?x :a ?y] [?y :b ?z]])", "PRS-077");
    EXPECT_ERROR(db, "(rule [(p ?x ?y) [?x :a 1]])", "INT-018"); /* language.md D15 */
    minigraf_close(db);
}

TEST(unstratifiable_rule_is_rejected_and_not_kept) {
    /* language.md §9.5 */
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(p ?x) [?x :edge _] (not (q ?x))])", OK);
    EXPECT_ERROR(db, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", "INT-054");
    CHECK_STR_EQ(minigraf_last_error(db), "[INT-054] unstratifiable: predicate 'q' is involved "
                                          "in a negative cycle through 'p'");
    /* The rejected rule is gone: a positive q is fine, and so is the same
     * rejected rule's predicate under a body that does not close the cycle. */
    EXPECT_EXEC(db, "(rule [(q ?x) [?x :edge _]])", OK);
    EXPECT_ERROR(db, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", "INT-054");
    EXPECT_ERROR(db, "(rule [(p ?x) [?x :edge _] (not (p ?x))])", "INT-054");
    minigraf_close(db);
}

TEST(negative_cycle_closed_by_a_positive_rule_is_rejected) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(p ?x) [?x :k 1] (not (q ?x))])", OK);
    EXPECT_EXEC(db, "(rule [(q ?x) (r ?x)])", OK);
    EXPECT_ERROR(db, "(rule [(r ?x) (p ?x)])", "INT-054");
    CHECK_STR_EQ(minigraf_last_error(db), "[INT-054] unstratifiable: predicate 'p' is involved "
                                          "in a negative cycle through 'q'");
    EXPECT_EXEC(db, "(rule [(r ?x) [?x :k 2]])", OK);
    minigraf_close(db);
}

TEST(negation_inside_an_or_branch_counts_for_stratification) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(p ?x) [?x :k 1] (or [?x :a 1] (and [?x :b 1] (not (q ?x))))])", OK);
    EXPECT_ERROR(db, "(rule [(q ?x) [?x :k 1] (p ?x)])", "INT-054");
    minigraf_close(db);
}

TEST(positive_mutual_recursion_is_stratifiable) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(even ?x) [?x :start true]])", OK);
    EXPECT_EXEC(db, "(rule [(odd ?y) (even ?x) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(even ?y) (odd ?x) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(neither ?x) [?x :next _] (not (even ?x)) (not (odd ?x))])", OK);
    minigraf_close(db);
}

TEST(a_registered_rule_is_evaluated_by_queries) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])",
                "{\"variables\":[\"?y\"],\"results\":[[\":b\"]]}");
    EXPECT_EXEC(db, "(query [:find ?y :where [:a :edge ?y]])",
                "{\"variables\":[\"?y\"],\"results\":[[\":b\"]]}");
    minigraf_close(db);
}

TEST(registering_a_rule_on_a_read_only_database_is_api_014) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b]])");
    minigraf_close(db);
    char *error = NULL;
    db = minigraf_open_with_options(t.path, "{\"read_only\":true}", &error);
    REQUIRE(db != NULL);
    EXPECT_ERROR(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", "API-014");
    EXPECT_ERROR(db, "(rule [(p ?x)])", "PRS-077"); /* parsing comes first */
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(rules_are_not_persisted) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, "(rule [(p ?x) [?x :edge _] (not (q ?x))])", OK);
    EXPECT_ERROR(db, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", "INT-054");
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    /* p is gone with the session, so q's negation of p closes no cycle */
    EXPECT_EXEC(db, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", OK);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(rules_belong_to_one_database) {
    MiniGrafDb *a = open_memory_db(), *b = open_memory_db();
    EXPECT_EXEC(a, "(rule [(p ?x) [?x :edge _] (not (q ?x))])", OK);
    EXPECT_EXEC(b, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", OK);
    minigraf_close(a);
    minigraf_close(b);
}

CHECK_MAIN(TEST_ENTRY(registering_a_rule_returns_ok),
           TEST_ENTRY(registering_the_same_rule_twice_is_harmless),
           TEST_ENTRY(every_body_clause_kind_registers),
           TEST_ENTRY(malformed_rules_fail_with_their_parse_codes),
           TEST_ENTRY(unstratifiable_rule_is_rejected_and_not_kept),
           TEST_ENTRY(negative_cycle_closed_by_a_positive_rule_is_rejected),
           TEST_ENTRY(negation_inside_an_or_branch_counts_for_stratification),
           TEST_ENTRY(positive_mutual_recursion_is_stratifiable),
           TEST_ENTRY(a_registered_rule_is_evaluated_by_queries),
           TEST_ENTRY(registering_a_rule_on_a_read_only_database_is_api_014),
           TEST_ENTRY(rules_are_not_persisted), TEST_ENTRY(rules_belong_to_one_database))
