/* The :where clauses beyond patterns: expression clauses (language.md §8.5, §8.5.1),
 * negation (language.md §8.7), disjunction (language.md §8.6), pseudo-attributes (language.md §8.9,
 * language.md §7.4, language.md D16) and the time-travel edges they meet. Expected
 * answers are the spec's; row order is never significant. */
#include "support.h"

#define RES(vars, rows) "{\"variables\":" vars ",\"results\":" rows "}"

/* Data of language.md §8.5.1. */
static MiniGrafDb *b9_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:m :i 7] [:m :f 2.5] [:m :s \"abc\"] [:m :k :kw]])");
    return db;
}

TEST(b9_arithmetic_binds_results) {
    MiniGrafDb *db = b9_db();
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [(/ ?i 2) ?r]])", RES("[\"?r\"]", "[[3]]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [(- 0 ?i) ?r]])",
                RES("[\"?r\"]", "[[-7]]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [:m :f ?f] [(* ?i ?f) ?r]])",
                RES("[\"?r\"]", "[[17.5]]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [(+ ?i 1) ?r]])", RES("[\"?r\"]", "[[8]]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :f ?f] [(/ ?f 2) ?r]])",
                RES("[\"?r\"]", "[[1.25]]"));
    minigraf_close(db);
}

TEST(b9_failures_drop_the_row) {
    MiniGrafDb *db = b9_db();
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [(/ ?i 0) ?r]])", RES("[\"?r\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :f ?f] [(/ ?f 0.0) ?r]])", RES("[\"?r\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :s ?s] [(< ?s 10)]])", RES("[\"?s\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :s ?s] [(+ ?s 1) ?r]])", RES("[\"?r\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :i ?s] [(starts-with? ?s \"a\")]])",
                RES("[\"?s\"]", "[]"));
    /* an unknown predicate nested inside an operator only drops the row */
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :s ?s] [(= (nosuch? ?s) true)]])",
                RES("[\"?s\"]", "[]"));
    minigraf_close(db);
}

TEST(b9_comparisons_mix_integers_and_floats) {
    MiniGrafDb *db = b9_db();
    EXPECT_EXEC(db, "(query [:find ?b :where [:m :i ?i] [(= ?i 7.0) ?b]])",
                RES("[\"?b\"]", "[[false]]"));
    EXPECT_EXEC(db, "(query [:find ?b :where [:m :i ?i] [(< ?i 7.5) ?b]])",
                RES("[\"?b\"]", "[[true]]"));
    EXPECT_EXEC(db, "(query [:find ?b :where [:m :i ?i] [(>= ?i 7.0) ?b]])",
                RES("[\"?b\"]", "[[true]]"));
    EXPECT_EXEC(db, "(query [:find ?b :where [:m :i ?i] [(!= ?i 7) ?b]])",
                RES("[\"?b\"]", "[[false]]"));
    EXPECT_EXEC(db, "(query [:find ?i :where [:m :i ?i] [:m :f ?f] [(> ?i ?f)]])",
                RES("[\"?i\"]", "[[7]]"));
    minigraf_close(db);
}

TEST(b9_strings_keywords_and_type_tests) {
    MiniGrafDb *db = b9_db();
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :s ?s] [(< ?s \"abd\")]])",
                RES("[\"?s\"]", "[[\"abc\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :s ?s] [(matches? ?s \"^a.c$\")]])",
                RES("[\"?s\"]", "[[\"abc\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [:m :s ?s] [(matches? ?s \"^b\")]])",
                RES("[\"?s\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?b :where [:m :k ?k] [(= ?k :kw) ?b]])",
                RES("[\"?b\"]", "[[true]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where [:m :s ?x] [(string? ?x)]])",
                RES("[\"?x\"]", "[[\"abc\"]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where [:m :i ?x] [(string? ?x)]])", RES("[\"?x\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?x :where [:m :f ?x] [(float? ?x)]])",
                RES("[\"?x\"]", "[[2.5]]"));
    EXPECT_EXEC(
        db, "(query [:find ?s :where [:m :s ?s] [(contains? ?s \"b\")] [(ends-with? ?s \"c\")]])",
        RES("[\"?s\"]", "[[\"abc\"]]"));
    minigraf_close(db);
}

TEST(b9_unknown_root_predicate_is_qry_007) {
    MiniGrafDb *db = b9_db();
    EXPECT_ERROR(db, "(query [:find ?x :where [:m :s ?x] [(nosuch? ?x)]])", "QRY-007");
    CHECK(strstr(minigraf_last_error(db), "unknown predicate: 'nosuch?'") != NULL);
    /* before any row: also over an empty answer */
    EXPECT_ERROR(db, "(query [:find ?x :where [:none :s ?x] [(nosuch? ?x)]])", "QRY-007");
    EXPECT_ERROR(db, "(query [:find ?x :where [:m :s ?x] (or [(nosuch? ?x)] [(string? ?x)])])",
                 "QRY-007");
    /* inside not, a failure only means "not matched" */
    EXPECT_EXEC(db, "(query [:find ?x :where [:m :s ?x] (not [(nosuch? ?x)])])",
                RES("[\"?x\"]", "[[\"abc\"]]"));
    minigraf_close(db);
}

TEST(unary_minus_is_a_host_predicate_call) {
    /* language.md §8.5.1: there is no unary minus; (- ?i) calls a predicate "-" */
    MiniGrafDb *db = b9_db();
    EXPECT_ERROR(db, "(query [:find ?i :where [:m :i ?i] [(- ?i)]])", "QRY-007");
    CHECK(strstr(minigraf_last_error(db), "unknown predicate: '-'") != NULL);
    /* nested inside another operator it only drops the row */
    EXPECT_EXEC(db, "(query [:find ?i :where [:m :i ?i] [(= (- ?i) 1)]])", RES("[\"?i\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?r :where [:m :i ?i] [(- 0 ?i) ?r]])",
                RES("[\"?r\"]", "[[-7]]"));
    minigraf_close(db);
}

TEST(truthiness_of_filter_values) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 0] [:b :n 3] [:c :n -1]])");
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :n ?n] [(+ ?n 0)]])",
                RES("[\"?n\"]", "[[-1],[3]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :n ?n] [(* ?n 0.5)]])",
                RES("[\"?n\"]", "[[-1],[3]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :n ?n] [(* ?n -0.0)]])", RES("[\"?n\"]", "[]"));
    minigraf_close(db);
}

TEST(binding_onto_a_bound_variable_is_an_e1_filter) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:a :n 2] [:a :m 4] [:b :n 3] [:b :m 5] [:c :n 1] [:c :m 2.0]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :n ?n] [?e :m ?m] [(* ?n 2) ?m]])",
                RES("[\"?e\"]", "[[\"ddac7794-6537-5d40-a911-e7998b77f717\"]]"));
    minigraf_close(db);
}

TEST(expression_placed_after_its_inputs_whatever_the_source_order) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30] "
                        "[:bob :person/name \"Bob\"] [:bob :person/age 25]])");
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?e :person/age ?a] [(> ?a 26)] [?e :person/name ?n]])",
                RES("[\"?n\"]", "[[\"Alice\"]]"));
    EXPECT_EXEC(db,
                "(query [:find ?n ?b :where [?e :person/name ?n] [?e :person/age ?a] [(+ ?a 1) ?b] "
                "[(< ?b 30)]])",
                RES("[\"?n\",\"?b\"]", "[[\"Bob\",26]]"));
    minigraf_close(db);
}

TEST(unicode_strings_compare_by_bytes) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :s \"é\"] [:b :s \"z\"] [:c :s \"日本\"]])");
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :s ?s] [(> ?s \"z\")]])",
                RES("[\"?s\"]", "[[\"é\"],[\"日本\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :s ?s] [(starts-with? ?s \"日\")]])",
                RES("[\"?s\"]", "[[\"日本\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :s ?s] [(matches? ?s \"^.$\")]])",
                RES("[\"?s\"]", "[[\"é\"],[\"z\"]]"));
    minigraf_close(db);
}

/* Data of language.md §8.7. */
static MiniGrafDb *b4_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:svc-a :service/name \"A\"] [:svc-a :depends-on :lib-old] "
                        "[:svc-b :service/name \"B\"] [:svc-b :depends-on :lib-new] "
                        "[:svc-c :service/name \"C\"] [:lib-old :lib/deprecated true]])");
    return db;
}

TEST(b4_not_removes_matching_rows) {
    MiniGrafDb *db = b4_db();
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?s :service/name ?n] (not [?s :depends-on :lib-new])])",
                RES("[\"?n\"]", "[[\"A\"],[\"C\"]]"));
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?s :service/name ?n] "
                "(not-join [?s] [?s :depends-on ?l] [?l :lib/deprecated true])])",
                RES("[\"?n\"]", "[[\"B\"],[\"C\"]]"));
    minigraf_close(db);
}

TEST(b4_not_body_local_variables_are_existential) {
    MiniGrafDb *db = b4_db();
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?s :service/name ?n] (not [?s :depends-on ?l] [?l "
                ":lib/deprecated true])])",
                RES("[\"?n\"]", "[[\"B\"],[\"C\"]]"));
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?s :service/name ?n] (not [?l :lib/deprecated true])])",
                RES("[\"?n\"]", "[]"));
    EXPECT_ERROR(db, "(query [:find ?n :where [?s :service/name ?n] (not (not [?s :x 1]))])",
                 "PRS-051");
    minigraf_close(db);
}

TEST(not_join_variable_bound_after_it_in_source_order) {
    MiniGrafDb *db = b4_db();
    EXPECT_EXEC(
        db,
        "(query [:find ?n :where (not-join [?s] [?s :depends-on :lib-new]) [?s :service/name ?n]])",
        RES("[\"?n\"]", "[[\"A\"],[\"C\"]]"));
    minigraf_close(db);
}

TEST(not_probe_with_expression_in_body) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :group 7] [:a :age 5] [:b :group 7] [:b :age 50] [:c "
                        ":group 7] [:d :group 8]])");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])])",
                RES("[\"?e\"]", "[[\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"],[\"b46ef719-32f4-5970-"
                                "9f83-d69c79b7670f\"]]"));
    minigraf_close(db);
}

TEST(not_probes_with_entity_equivalence) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(
        db, "(transact [[:alice :friend :bob] [:bob :banned true] [:alice :friend :carol]])");
    EXPECT_EXEC(db, "(query [:find ?f :where [:alice :friend ?f] (not [?f :banned true])])",
                RES("[\"?f\"]", "[[\":carol\"]]"));
    minigraf_close(db);
}

/* Data of language.md §8.6. */
static MiniGrafDb *b5_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:e1 :color :red] [:e2 :color :blue] [:e3 :color :green]])");
    return db;
}

TEST(b5_or_and_or_join) {
    MiniGrafDb *db = b5_db();
    EXPECT_EXEC(db,
                "(query [:find ?c :where [?e :color ?c] (or [?e :color :red] [?e :color :blue])])",
                RES("[\"?c\"]", "[[\":blue\"],[\":red\"]]"));
    EXPECT_EXEC(db,
                "(query [:find ?c :where [?e :color ?c] "
                "(or-join [?e] [?e :color :red] (and [?e :color ?x] [(= ?x :green)]))])",
                RES("[\"?c\"]", "[[\":green\"],[\":red\"]]"));
    EXPECT_ERROR(db, "(query [:find ?e :where [?e :color ?c] (or [?e :a ?x] [?e :b ?y])])",
                 "PRS-057");
    EXPECT_ERROR(db, "(query [:find ?c :where (or-join [?e] [?e :color :red]) [?e :color ?c]])",
                 "INT-018");
    minigraf_close(db);
}

TEST(or_results_are_deduplicated) {
    MiniGrafDb *db = b5_db();
    /* both branches hold for :e1: one row, not two */
    EXPECT_EXEC(db,
                "(query [:find ?e :where (or [?e :color :red] [?e :color :red]) [?e :color :red]])",
                RES("[\"?e\"]", "[[\"eb723470-492e-5f57-a568-d7a4362287c8\"]]"));
    EXPECT_EXEC(
        db, "(query [:find ?c :where (or [?e :color ?c] (and [?e :color ?c] [(!= ?c :blue)]))])",
        RES("[\"?c\"]", "[[\":blue\"],[\":green\"],[\":red\"]]"));
    EXPECT_EXEC(db, "(query [:find ?c :where (or [?e :color ?c] [?e :color ?c])])",
                RES("[\"?c\"]", "[[\":blue\"],[\":green\"],[\":red\"]]"));
    minigraf_close(db);
}

/* language.md §8.6 reference deviations: the normative behaviour. */
TEST(or_joins_keyword_values_with_entity_equivalence) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :friend :bob] [:alice :friend :carol] [:bob :tag :x] "
                        "[:carol :tag :z]])");
    EXPECT_EXEC(db, "(query [:find ?f :where [:alice :friend ?f] (or [?f :tag :x] [?f :tag :y])])",
                RES("[\"?f\"]", "[[\":bob\"]]"));
    minigraf_close(db);
}

TEST(or_of_expressions_sees_the_outer_bindings) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :v -5] [:b :v 50] [:c :v 500]])");
    EXPECT_EXEC(db, "(query [:find ?a :where [?e :v ?a] (or [(< ?a 0)] [(> ?a 100)])])",
                RES("[\"?a\"]", "[[-5],[500]]"));
    minigraf_close(db);
}

TEST(or_without_shared_variables_is_a_cross_product) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:b :n 2] [:x :tag \"t\"] [:y :label \"l\"]])");
    EXPECT_EXEC(db, "(query [:find ?n ?t :where [?e :n ?n] (or [?o :tag ?t] [?o :label ?t])])",
                RES("[\"?n\",\"?t\"]", "[[1,\"l\"],[1,\"t\"],[2,\"l\"],[2,\"t\"]]"));
    minigraf_close(db);
}

TEST(expression_after_or_sees_its_variables) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :p 1] [:b :q 20]])");
    EXPECT_EXEC(db, "(query [:find ?v :where (or [?e :p ?v] [?e :q ?v]) [(> ?v 10)]])",
                RES("[\"?v\"]", "[[20]]"));
    minigraf_close(db);
}

TEST(not_inside_an_or_branch) {
    MiniGrafDb *db = b5_db();
    EXPECT_EXEC(db,
                "(query [:find ?c :where [?e :color ?c] (or-join [?e] [?e :color :red] (and [?e "
                ":color ?x] (not [?e :color :blue])))])",
                RES("[\"?c\"]", "[[\":green\"],[\":red\"]]"));
    minigraf_close(db);
}

/* language.md §7.4 pseudo-attributes. */
TEST(b2_tx_count_pseudo_attribute) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    EXPECT_RETRACT(db, "(retract [[:k :v 1]])");
    EXPECT_TRANSACT(db, "(transact [[:k :v 2]])");
    EXPECT_EXEC(db, "(query [:find ?t :any-valid-time :where [:k :v ?v] [:k :db/tx-count ?t]])",
                RES("[\"?t\"]", "[[3]]"));
    EXPECT_ERROR(db, "(query [:find ?t :where [:k :v ?v] [:k :db/tx-count ?t]])", "QRY-013");
    CHECK(strstr(minigraf_last_error(db), "require :any-valid-time") != NULL);
    EXPECT_ERROR(db, "(query [:find ?v :where [:k :v ?v] (not [:k :db/tx-id 5])])", "QRY-013");
    EXPECT_ERROR(
        db, "(query [:find ?v :where [:k :v ?v] (or [:k :db/valid-from ?x] [:k :db/valid-to ?x])])",
        "QRY-013");
    minigraf_close(db);
}

static MiniGrafDb *b3_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol "
                        ":emp/status :active]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-06-30\"} [[:carol :emp/status :alumni]])");
    return db;
}

TEST(b3_valid_from_and_valid_to_correlate_with_their_record) {
    MiniGrafDb *db = b3_db();
    EXPECT_EXEC(
        db,
        "(query [:find ?s ?vf ?vt :any-valid-time "
        ":where [:carol :emp/status ?s] [:carol :db/valid-from ?vf] [:carol :db/valid-to ?vt]])",
        RES("[\"?s\",\"?vf\",\"?vt\"]", "[[\":active\",1672531200000,1688083200000],[\":alumni\","
                                        "1688083200000,9223372036854775807]]"));
    EXPECT_EXEC(db,
                "(query [:find ?vf ?vt :any-valid-time "
                ":where [:carol :emp/status :active] [:carol :db/valid-from ?vf] [:carol "
                ":db/valid-to ?vt]])",
                RES("[\"?vf\",\"?vt\"]", "[[1672531200000,1688083200000]]"));
    minigraf_close(db);
}

TEST(b3_window_edges) {
    MiniGrafDb *db = b3_db();
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-03-01\" :where [:carol :emp/status ?s]])",
                RES("[\"?s\"]", "[[\":active\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-06-30\" :where [:carol :emp/status ?s]])",
                RES("[\"?s\"]", "[[\":alumni\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-01-01\" :where [:carol :emp/status ?s]])",
                RES("[\"?s\"]", "[[\":active\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2022-12-31\" :where [:carol :emp/status ?s]])",
                RES("[\"?s\"]", "[]"));
    EXPECT_EXEC(
        db, "(query [:find ?s :as-of 1 :valid-at \"2024-01-01\" :where [:carol :emp/status ?s]])",
        RES("[\"?s\"]", "[]"));
    EXPECT_EXEC(
        db, "(query [:find ?s :as-of 2 :valid-at \"2024-01-01\" :where [:carol :emp/status ?s]])",
        RES("[\"?s\"]", "[[\":alumni\"]]"));
    minigraf_close(db);
}

TEST(uncorrelated_pseudo_pattern_ranges_over_every_record_of_the_entity) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1] [:x :b 2]])");
    EXPECT_TRANSACT(db, "(transact [[:y :a 3]])");
    EXPECT_EXEC(db, "(query [:find ?t :any-valid-time :where [:x :db/tx-count ?t]])",
                RES("[\"?t\"]", "[[1],[1]]"));
    EXPECT_EXEC(db, "(query [:find ?e ?t :any-valid-time :where [?e :db/tx-count ?t] [(> ?t 1)]])",
                RES("[\"?e\",\"?t\"]", "[[\"94efea6e-69b6-59f6-92f4-6041aed7bb80\",2]]"));
    minigraf_close(db);
}

TEST(pseudo_pattern_correlates_with_the_nearest_earlier_pattern) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1]])");
    EXPECT_TRANSACT(db, "(transact [[:x :b 2]])");
    EXPECT_EXEC(
        db, "(query [:find ?t :any-valid-time :where [:x :a _] [:x :b _] [:x :db/tx-count ?t]])",
        RES("[\"?t\"]", "[[2]]"));
    EXPECT_EXEC(
        db, "(query [:find ?t :any-valid-time :where [:x :b _] [:x :a _] [:x :db/tx-count ?t]])",
        RES("[\"?t\"]", "[[1]]"));
    EXPECT_EXEC(db, "(query [:find ?t :any-valid-time :where [?e :a _] [?e :db/tx-count ?t]])",
                RES("[\"?t\"]", "[[1]]"));
    EXPECT_EXEC(db, "(query [:find ?e :any-valid-time :where [?e :b _] [?e :db/tx-count 2]])",
                RES("[\"?e\"]", "[[\"3d45f237-ffb3-5223-91c3-6261d2abf379\"]]"));
    minigraf_close(db);
}

TEST(valid_at_pseudo_attribute) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01\"} [[:x :name \"X\"]])");
    EXPECT_EXEC(
        db, "(query [:find ?v :valid-at \"2023-06-01\" :where [:x :name _] [:x :db/valid-at ?v]])",
        RES("[\"?v\"]", "[[1685577600000]]"));
    EXPECT_EXEC(db, "(query [:find ?v :any-valid-time :where [:x :name _] [:x :db/valid-at ?v]])",
                RES("[\"?v\"]", "[[null]]"));
    const char *json = minigraf_execute(
        db, "(query [:find ?v :where [:x :name _] [:x :db/valid-at ?v]])");
    CHECK(json != NULL && strstr(json, "\"results\":[[1") != NULL);
    minigraf_string_free((char *)json);
    minigraf_close(db);
}

TEST(retraction_in_the_same_transaction_as_an_assertion_is_invisible) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:a :n 2]])");
    EXPECT_RETRACT(db, "(retract [[:a :n 1]])");
    EXPECT_EXEC(db, "(query [:find ?n :where [:a :n ?n] [(> ?n 0)]])", RES("[\"?n\"]", "[[2]]"));
    EXPECT_EXEC(db, "(query [:find ?n :as-of 1 :where [:a :n ?n] (not [:a :n 2])])",
                RES("[\"?n\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?n :as-of 2 :where [:a :n ?n] (not [:a :n 1])])",
                RES("[\"?n\"]", "[[2]]"));
    minigraf_close(db);
}

TEST(variable_attribute_patterns_use_a_hash_join) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :p 1] [:b :q 2] [:c :p 3]])");
    EXPECT_EXEC(db, "(query [:find ?x ?y :where [:a ?attr ?x] [?o ?attr ?y]])",
                RES("[\"?x\",\"?y\"]", "[[1,1],[1,3]]"));
    EXPECT_EXEC(db, "(query [:find ?x ?y :where [:a :p ?x] [?o :q ?y]])",
                RES("[\"?x\",\"?y\"]", "[[1,2]]"));
    minigraf_close(db);
}

/* A query's constants looked up in one snapshot (an entity and an
 * attribute not there yet) are looked up again in the next: readers keep
 * their lookups for the next query only while the snapshot is the same. */
TEST(constants_absent_before_a_transaction_are_found_after_it) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    for (int round = 0; round < 3; round++) {
        EXPECT_EXEC(db, "(query [:find ?v :where [:b :n ?v]])", RES("[\"?v\"]", "[]"));
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :m ?v]])", RES("[\"?v\"]", "[]"));
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])", RES("[\"?v\"]", "[[1]]"));
    }
    EXPECT_TRANSACT(db, "(transact [[:b :n 2] [:a :m 3]])");
    for (int round = 0; round < 3; round++) {
        EXPECT_EXEC(db, "(query [:find ?v :where [:b :n ?v]])", RES("[\"?v\"]", "[[2]]"));
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :m ?v]])", RES("[\"?v\"]", "[[3]]"));
    }
    minigraf_close(db);
}

/* Members u1 (plain), u2 (blocked), u3 (blocked admin), u4 (admin). */
static MiniGrafDb *members_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:u1 :name \"u1\"] [:u1 :role :member]"
                    " [:u2 :name \"u2\"] [:u2 :role :member] [:u2 :blocked true]"
                    " [:u3 :name \"u3\"] [:u3 :role :member] [:u3 :blocked true] [:u3 :admin true]"
                    " [:u4 :name \"u4\"] [:u4 :role :member] [:u4 :admin true]])");
    return db;
}

#define U1_U3_U4 "[[\"u1\"],[\"u3\"],[\"u4\"]]"
#define MEMBERS(where) "(query [:find ?n :where [?u :role :member] [?u :name ?n] " where "])"

/* An and-branch holding only a not (or not-join) over a variable bound
 * outside the or keeps the rows the not lets through, in either branch
 * position, beside positive branches. */
TEST(not_as_the_only_clause_of_an_and_branch) {
    MiniGrafDb *db = members_db();
    EXPECT_EXEC(db, MEMBERS("(or (and (not [?u :blocked true])) [?u :admin true])"),
                RES("[\"?n\"]", U1_U3_U4));
    EXPECT_EXEC(db, MEMBERS("(or [?u :admin true] (and (not [?u :blocked true])))"),
                RES("[\"?n\"]", U1_U3_U4));
    EXPECT_EXEC(db, MEMBERS("(or (not [?u :blocked true]) [?u :admin true])"),
                RES("[\"?n\"]", U1_U3_U4));
    EXPECT_EXEC(db, MEMBERS("(or (and (not-join [?u] [?u :blocked true])) [?u :admin true])"),
                RES("[\"?n\"]", U1_U3_U4));
    EXPECT_EXEC(
        db, MEMBERS("(or-join [?u] (and (not [?u :blocked true])) (and (not [?u :admin true])))"),
        RES("[\"?n\"]", "[[\"u1\"],[\"u2\"],[\"u4\"]]"));
    EXPECT_EXEC(
        db, MEMBERS("(or (and (not [?u :blocked true]) (not [?u :admin true])) [?u :admin true])"),
        RES("[\"?n\"]", U1_U3_U4));
    minigraf_close(db);
}

/* The same in a rule body. */
TEST(not_as_the_only_clause_of_an_and_branch_in_a_rule) {
    MiniGrafDb *db = members_db();
    EXPECT_EXEC(db,
                "(rule [(visible ?u) [?u :role :member] (or (and (not [?u :blocked true])) [?u "
                ":admin true])])",
                "{\"ok\":true}");
    EXPECT_EXEC(db, "(query [:find ?n :where (visible ?u) [?u :name ?n]])",
                RES("[\"?n\"]", "[[\"u1\"],[\"u3\"],[\"u4\"]]"));
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(not_as_the_only_clause_of_an_and_branch),
           TEST_ENTRY(not_as_the_only_clause_of_an_and_branch_in_a_rule),
           TEST_ENTRY(b9_arithmetic_binds_results), TEST_ENTRY(b9_failures_drop_the_row),
           TEST_ENTRY(b9_comparisons_mix_integers_and_floats),
           TEST_ENTRY(b9_strings_keywords_and_type_tests),
           TEST_ENTRY(b9_unknown_root_predicate_is_qry_007),
           TEST_ENTRY(unary_minus_is_a_host_predicate_call),
           TEST_ENTRY(truthiness_of_filter_values),
           TEST_ENTRY(constants_absent_before_a_transaction_are_found_after_it),
           TEST_ENTRY(binding_onto_a_bound_variable_is_an_e1_filter),
           TEST_ENTRY(expression_placed_after_its_inputs_whatever_the_source_order),
           TEST_ENTRY(unicode_strings_compare_by_bytes), TEST_ENTRY(b4_not_removes_matching_rows),
           TEST_ENTRY(b4_not_body_local_variables_are_existential),
           TEST_ENTRY(not_join_variable_bound_after_it_in_source_order),
           TEST_ENTRY(not_probe_with_expression_in_body),
           TEST_ENTRY(not_probes_with_entity_equivalence), TEST_ENTRY(b5_or_and_or_join),
           TEST_ENTRY(or_results_are_deduplicated),
           TEST_ENTRY(or_joins_keyword_values_with_entity_equivalence),
           TEST_ENTRY(or_of_expressions_sees_the_outer_bindings),
           TEST_ENTRY(or_without_shared_variables_is_a_cross_product),
           TEST_ENTRY(expression_after_or_sees_its_variables), TEST_ENTRY(not_inside_an_or_branch),
           TEST_ENTRY(b2_tx_count_pseudo_attribute),
           TEST_ENTRY(b3_valid_from_and_valid_to_correlate_with_their_record),
           TEST_ENTRY(b3_window_edges),
           TEST_ENTRY(uncorrelated_pseudo_pattern_ranges_over_every_record_of_the_entity),
           TEST_ENTRY(pseudo_pattern_correlates_with_the_nearest_earlier_pattern),
           TEST_ENTRY(valid_at_pseudo_attribute),
           TEST_ENTRY(retraction_in_the_same_transaction_as_an_assertion_is_invisible),
           TEST_ENTRY(variable_attribute_patterns_use_a_hash_join))
