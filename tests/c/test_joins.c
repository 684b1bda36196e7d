/* Patterns and joins: scenario language.md §8.4, constants, wildcards, keyword/ref
 * duality and the representation rule language.md D12 (language.md §6.3, §8.3, §8.4, §8.12). */
#include "support.h"

#define ALICE "e340ebba-e050-5d3b-8c2e-5388ce184a79"
#define BOB "2340101d-cda1-5ebe-a64b-0d27506374ef"
#define A_ID "ddac7794-6537-5d40-a911-e7998b77f717"

/* Data of language.md §4.2 / §8.4. */
static MiniGrafDb *people_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30] "
                    "[:alice :friend :bob] [:bob :person/name \"Bob\"] [:bob :person/age 25]])");
    return db;
}

TEST(join_on_entity_pairs_name_and_age) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db,
                "(query [:find ?name ?age :where [?e :person/name ?name] [?e :person/age ?age]])",
                "{\"variables\":[\"?name\",\"?age\"],\"results\":[[\"Alice\",30],[\"Bob\",25]]}");
    minigraf_close(db);
}

TEST(entity_variable_renders_as_uuid) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :person/name \"Alice\"]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"]]}");
    minigraf_close(db);
}

TEST(keyword_value_renders_as_keyword) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?f :where [:alice :friend ?f]])",
                "{\"variables\":[\"?f\"],\"results\":[[\":bob\"]]}");
    minigraf_close(db);
}

TEST(keyword_value_joins_as_entity_reference) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?n :where [:alice :friend ?f] [?f :person/name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    minigraf_close(db);
}

TEST(uuid_constant_matches_stored_keyword_value) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :friend #uuid \"" BOB "\"]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"]]}");
    minigraf_close(db);
}

TEST(keyword_constant_matches_stored_ref_value) {
    MiniGrafDb *db = people_db();
    EXPECT_TRANSACT(db, "(transact [[:carol :friend #uuid \"" BOB "\"]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :friend :bob]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"],"
                "[\"bb8e4db4-5f3b-579f-accb-f19c3f3c3031\"]]}");
    minigraf_close(db);
}

/* A keyword bound by one clause seeks the next clause's value twice (the
 * keyword, then the ref it names): both stored forms must join. */
TEST(bound_keyword_value_joins_stored_keyword_and_ref_values) {
    MiniGrafDb *db = people_db();
    EXPECT_TRANSACT(db, "(transact [[:carol :friend #uuid \"" BOB "\"] [:dave :friend :erin]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [:alice :friend ?f] [?e :friend ?f]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"],"
                "[\"bb8e4db4-5f3b-579f-accb-f19c3f3c3031\"]]}");
    minigraf_close(db);
}

/* A value known only as an entity (a Ref) hash-joins the attribute: the
 * table must pair it with stored keywords naming it and with stored refs. */
TEST(entity_bound_value_joins_stored_keyword_and_ref_values) {
    MiniGrafDb *db = people_db();
    EXPECT_TRANSACT(db, "(transact [[:carol :friend #uuid \"" BOB "\"] [:dave :friend :erin]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?f :person/name \"Bob\"] [?e :friend ?f]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"],"
                "[\"bb8e4db4-5f3b-579f-accb-f19c3f3c3031\"]]}");
    minigraf_close(db);
}

TEST(uuid_and_keyword_entities_are_the_same_entity) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?n :where [#uuid \"" ALICE "\" :person/name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    EXPECT_TRANSACT(db, "(transact [[#uuid \"550e8400-e29b-41d4-a716-446655440000\" :n 1]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:550e8400-e29b-41d4-a716-446655440000 :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(db);
}

TEST(first_binding_clause_in_source_order_decides_representation) {
    /* language.md §8.12.3, D12 */
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?f :where [:alice :friend ?f] [?f :person/name ?n]])",
                "{\"variables\":[\"?f\"],\"results\":[[\":bob\"]]}");
    EXPECT_EXEC(db, "(query [:find ?f :where [?f :person/name \"Bob\"] [:alice :friend ?f]])",
                "{\"variables\":[\"?f\"],\"results\":[[\"" BOB "\"]]}");
    minigraf_close(db);
}

TEST(integer_constant_does_not_match_float) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :person/age 30.0]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    EXPECT_TRANSACT(db, "(transact [[:z :score 2.5]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :score 2]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(float_constant_matches_within_machine_epsilon) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :x 0.3] [:b :x 0.4]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :x 0.30000000000000004]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" A_ID "\"]]}");
    minigraf_close(db);
}

TEST(string_constant_never_matches_an_entity) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :friend \"bob\"]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :friend \":bob\"]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(nil_and_boolean_constants_match_same_type) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :x nil] [:b :x false] [:c :x 0]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :x nil]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" A_ID "\"]]}");
    EXPECT_EXEC(
        db, "(query [:find ?e :where [?e :x false]])",
        "{\"variables\":[\"?e\"],\"results\":[[\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"]]}");
    minigraf_close(db);
}

TEST(missing_attribute_gives_empty_result) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?x :where [?e :no/such ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(anonymous_wildcard_matches_anything) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e _ \"Alice\"]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"]]}");
    EXPECT_EXEC(db, "(query [:find ?n :where [_ :person/name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"],[\"Bob\"]]}");
    minigraf_close(db);
}

TEST(wildcard_variables_never_join) {
    MiniGrafDb *db = people_db();
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :person/name ?_x] [?e :person/age ?_x]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" ALICE "\"],[\"" BOB "\"]]}");
    minigraf_close(db);
}

TEST(projection_keeps_duplicate_rows) {
    /* language.md §8.12.2, D1: bag semantics */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:p1 :name \"Alice\"] [:p2 :name \"Alice\"] [:p3 :name \"Bo\"]])");
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"],[\"Alice\"],[\"Bo\"]]}");
    minigraf_close(db);
}

TEST(multi_valued_attribute_shows_every_value) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :tag \"x\"] [:alice :tag \"y\"]])");
    EXPECT_EXEC(db, "(query [:find ?t :where [:alice :tag ?t]])",
                "{\"variables\":[\"?t\"],\"results\":[[\"x\"],[\"y\"]]}");
    minigraf_close(db);
}

TEST(unrelated_patterns_form_a_cross_product) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :x 1] [:b :x 2] [:c :y \"p\"] [:d :y \"q\"]])");
    EXPECT_EXEC(db, "(query [:find ?x ?y :where [_ :x ?x] [_ :y ?y]])",
                "{\"variables\":[\"?x\",\"?y\"],\"results\":"
                "[[1,\"p\"],[1,\"q\"],[2,\"p\"],[2,\"q\"]]}");
    minigraf_close(db);
}

TEST(three_pattern_chain_join) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :next :b] [:b :next :c] [:c :label \"end\"] "
                        "[:b :label \"mid\"]])");
    EXPECT_EXEC(db, "(query [:find ?l :where [:a :next ?x] [?x :next ?y] [?y :label ?l]])",
                "{\"variables\":[\"?l\"],\"results\":[[\"end\"]]}");
    minigraf_close(db);
}

TEST(repeated_variable_in_one_pattern_uses_strict_equality) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :self :a] [:b :self #uuid "
                        "\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"]])");
    EXPECT_EXEC(
        db, "(query [:find ?x :where [?x :self ?x]])",
        "{\"variables\":[\"?x\"],\"results\":[[\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"]]}");
    minigraf_close(db);
}

TEST(join_variable_across_value_positions_uses_equality) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :age 30] [:b :age 30] [:c :age 31] [:d :years 30]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [:d :years ?v] [?e :age ?v]])",
                "{\"variables\":[\"?e\"],\"results\":[[\"" A_ID "\"],"
                "[\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"]]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(join_on_entity_pairs_name_and_age),
           TEST_ENTRY(entity_variable_renders_as_uuid),
           TEST_ENTRY(keyword_value_renders_as_keyword),
           TEST_ENTRY(keyword_value_joins_as_entity_reference),
           TEST_ENTRY(uuid_constant_matches_stored_keyword_value),
           TEST_ENTRY(keyword_constant_matches_stored_ref_value),
           TEST_ENTRY(bound_keyword_value_joins_stored_keyword_and_ref_values),
           TEST_ENTRY(entity_bound_value_joins_stored_keyword_and_ref_values),
           TEST_ENTRY(uuid_and_keyword_entities_are_the_same_entity),
           TEST_ENTRY(first_binding_clause_in_source_order_decides_representation),
           TEST_ENTRY(integer_constant_does_not_match_float),
           TEST_ENTRY(float_constant_matches_within_machine_epsilon),
           TEST_ENTRY(string_constant_never_matches_an_entity),
           TEST_ENTRY(nil_and_boolean_constants_match_same_type),
           TEST_ENTRY(missing_attribute_gives_empty_result),
           TEST_ENTRY(anonymous_wildcard_matches_anything),
           TEST_ENTRY(wildcard_variables_never_join), TEST_ENTRY(projection_keeps_duplicate_rows),
           TEST_ENTRY(multi_valued_attribute_shows_every_value),
           TEST_ENTRY(unrelated_patterns_form_a_cross_product),
           TEST_ENTRY(three_pattern_chain_join),
           TEST_ENTRY(repeated_variable_in_one_pattern_uses_strict_equality),
           TEST_ENTRY(join_variable_across_value_positions_uses_equality))
