/* Patterns and joins: scenario language.md §8.4, constants, wildcards, keyword/ref
 * duality and the representation rule language.md D12 (language.md §6.3, §8.3, §8.4, §8.12). */
#include <stdarg.h>
#include <stdbool.h>

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

/* ---- hash joins whose rows are few: the records stream through them ---- */

/* Entity i of the follow data: a UUID whose keyword spelling names it too. */
#define FOLLOW_UUID "550e8400-e29b-41d4-a716-%012x"

/* The entity entity i follows: a permutation of 0..n-1 (5 is prime to n). */
static int followed(int i, int n) {
    return (i * 5 + 1) % n;
}

/* n entities, each with :name "n<i>", :group i % groups and :follows the
 * entity followed(i): a keyword naming it for even i, its Ref for odd i
 * (both join the entity under E2); the first `aged` also have :age 100 - i. */
static MiniGrafDb *follow_db(int n, int groups, int aged) {
    MiniGrafDb *db = open_memory_db();
    size_t cap = (size_t)n * 256 + 64, len = 0;
    char *tx = malloc(cap);
    len += (size_t)snprintf(tx + len, cap - len, "(transact [");
    for (int i = 0; i < n; i++) {
        int j = followed(i, n);
        len += (size_t)snprintf(tx + len, cap - len,
                                "[#uuid \"" FOLLOW_UUID "\" :name \"n%d\"] [#uuid \"" FOLLOW_UUID
                                "\" :group %d] ",
                                i, i, i, i % groups);
        len += (size_t)snprintf(tx + len, cap - len,
                                i % 2 ? "[#uuid \"" FOLLOW_UUID "\" :follows #uuid \"" FOLLOW_UUID
                                        "\"] "
                                      : "[#uuid \"" FOLLOW_UUID "\" :follows :" FOLLOW_UUID "] ",
                                i, j);
        if (i < aged)
            len += (size_t)snprintf(tx + len, cap - len, "[#uuid \"" FOLLOW_UUID "\" :age %d] ", i,
                                    100 - i);
    }
    snprintf(tx + len, cap - len, "])");
    EXPECT_TRANSACT(db, tx);
    free(tx);
    return db;
}

/* A growing JSON text. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The answer of [:find ?e ?n :where [?e :follows ?f] [?f :group g] [?f :name ?n]]
 * over follow_db(n, groups, ..). */
static char *followers_of_group(int n, int groups, int g) {
    text t = {0};
    text_add(&t, "{\"variables\":[\"?e\",\"?n\"],\"results\":[");
    const char *sep = "";
    for (int i = 0; i < n; i++) {
        int j = followed(i, n);
        if (j % groups == g) {
            text_add(&t, "%s[\"" FOLLOW_UUID "\",\"n%d\"]", sep, i, j);
            sep = ",";
        }
    }
    text_add(&t, "]}");
    return t.s;
}

static void expect_followers_of_group(MiniGrafDb *db, int n, int groups, int g) {
    char query[160];
    snprintf(query, sizeof query,
             "(query [:find ?e ?n :where [?e :follows ?f] [?f :group %d] [?f :name ?n]])", g);
    char *want = followers_of_group(n, groups, g);
    EXPECT_EXEC(db, query, want);
    free(want);
}

/* 16 rows of [?f :group 1] [?f :name ?n] against 64 :follows records: the
 * records stream through the rows, keywords and Refs alike. */
TEST(hash_join_streams_many_records_through_few_rows) {
    MiniGrafDb *db = follow_db(64, 4, 0);
    expect_followers_of_group(db, 64, 4, 1);
    expect_followers_of_group(db, 64, 4, 3);
    minigraf_close(db);
}

/* 200 rows (every entity is in group 0) against 200 records: past half
 * the records, the rows read so far are joined through the table first,
 * then the rest of the rows (several batches). */
TEST(hash_join_with_as_many_rows_as_records_reads_the_table) {
    MiniGrafDb *db = follow_db(200, 1, 0);
    expect_followers_of_group(db, 200, 1, 0);
    minigraf_close(db);
}

TEST(hash_join_stream_with_no_rows_is_empty) {
    MiniGrafDb *db = follow_db(64, 4, 0);
    EXPECT_EXEC(db, "(query [:find ?e ?n :where [?e :follows ?f] [?f :group 9] [?f :name ?n]])",
                "{\"variables\":[\"?e\",\"?n\"],\"results\":[]}");
    minigraf_close(db);
}

/* A pseudo pattern correlated with the streamed pattern reads the
 * record each row was joined with (language.md D16): entity 0 follows
 * entity 1 from the first transaction, entity 2 from the second. */
TEST(hash_join_stream_keeps_records_for_pseudo_patterns) {
    MiniGrafDb *db = follow_db(64, 4, 0);
    unsigned long long tx = (unsigned long long)tx_count(db);
    EXPECT_TRANSACT(db, "(transact [[#uuid \"550e8400-e29b-41d4-a716-000000000002\" :follows "
                        ":550e8400-e29b-41d4-a716-000000000001]])");
    char want[256];
    snprintf(want, sizeof want,
             "{\"variables\":[\"?e\",\"?t\"],\"results\":[[\"550e8400-e29b-41d4-a716-"
             "000000000000\",%llu],[\"550e8400-e29b-41d4-a716-000000000002\",%llu]]}",
             tx, tx + 1);
    EXPECT_EXEC(db,
                "(query [:find ?e ?t :any-valid-time :where [?f :name \"n1\"] [?f :group 1] "
                "[?e :follows ?f] [?e :db/tx-count ?t]])",
                want);
    minigraf_close(db);
}

/* In a query that evaluates rules, the streamed pattern reads the facts
 * a rule derives for its attribute after the stored records (language.md
 * §9.2): entity 1 follows entity 0 through :likes (and entities 0 and 1,
 * the rows, follow someone through it). */
TEST(hash_join_stream_reads_derived_facts_too) {
    MiniGrafDb *db = open_memory_db();
    char tx[2048];
    size_t len = (size_t)snprintf(
        tx, sizeof tx,
        "(transact [[#uuid \"550e8400-e29b-41d4-a716-000000000000\" :group 1] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000000\" :name \"A\"] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000001\" :group 1] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000001\" :name \"B\"] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000001\" :likes "
        ":550e8400-e29b-41d4-a716-000000000000] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000002\" :follows "
        ":550e8400-e29b-41d4-a716-000000000000] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000003\" :follows "
        "#uuid \"550e8400-e29b-41d4-a716-000000000001\"] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000004\" :group 2] "
        "[#uuid \"550e8400-e29b-41d4-a716-000000000000\" :likes "
        ":550e8400-e29b-41d4-a716-000000000004] ");
    for (int i = 5; i < 15; i++) /* records no row joins: the rows are few */
        len += (size_t)snprintf(tx + len, sizeof tx - len,
                                "[#uuid \"" FOLLOW_UUID "\" :follows "
                                ":550e8400-e29b-41d4-a716-000000000004] ",
                                i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    EXPECT_EXEC(db, "(rule [(follows ?x ?y) [?x :likes ?y]])", "{\"ok\":true}");
    EXPECT_EXEC(db,
                "(query [:find ?e ?n :where [?e :follows ?f] [?f :group 1] [?f :name ?n] "
                "(follows ?f ?z)])",
                "{\"variables\":[\"?e\",\"?n\"],\"results\":["
                "[\"550e8400-e29b-41d4-a716-000000000001\",\"A\"],"
                "[\"550e8400-e29b-41d4-a716-000000000002\",\"A\"],"
                "[\"550e8400-e29b-41d4-a716-000000000003\",\"B\"]]}");
    minigraf_close(db);
}

/* A :limit stops the stream early; the cursor closed then frees the rows
 * and the scan left open. */
TEST(hash_join_stream_stops_at_limit) {
    MiniGrafDb *db = follow_db(64, 4, 0);
    MiniGrafCursor *c = minigraf_query(
        db, "(query [:find ?e ?n :where [?e :follows ?f] [?f :group 1] [?f :name ?n] :limit 3])");
    CHECK(c != NULL);
    char *all = drain_cursor(c, 2);
    CHECK(all != NULL);
    int rows = 0;
    for (const char *p = all ? all : ""; *p; p++)
        rows += *p == '[' && p != all;
    CHECK(rows == 3);
    free(all);
    minigraf_cursor_free(c);
    c = minigraf_query(db, "(query [:find ?e ?n :where [?e :follows ?f] [?f :group 1] "
                           "[?f :name ?n]])");
    char *one = minigraf_cursor_next_batch(c, 1);
    CHECK(one != NULL && strlen(one) > 2);
    minigraf_string_free(one);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* A first step read in value order (an :order-by with a :limit) keeps its
 * order through a hash join with few rows: the records do not stream. */
TEST(hash_join_after_value_ordered_step_keeps_the_order) {
    MiniGrafDb *db = follow_db(64, 4, 10);
    text t = {0};
    text_add(&t, "{\"variables\":[\"?a\",\"?e\"],\"results\":[");
    for (int f = 9; f >= 7; f--)
        for (int i = 0; i < 64; i++)
            if (followed(i, 64) == f)
                text_add(&t, "%s[%d,\"" FOLLOW_UUID "\"]", f == 9 ? "" : ",", 100 - f, i);
    text_add(&t, "]}");
    EXPECT_EXACT(db,
                 "(query [:find ?a ?e :where [?f :age ?a] [?e :follows ?f] :order-by [?a] "
                 ":limit 3])",
                 t.s);
    free(t.s);
    minigraf_close(db);
}

/* Inside a not body a hash join (its value known only as an entity the
 * body found first) is opened per outer row: it reads its table once
 * instead of streaming the records every time. */
TEST(hash_join_inside_not_reads_the_table) {
    MiniGrafDb *db = follow_db(64, 4, 0);
    text t = {0};
    text_add(&t, "{\"variables\":[\"?n\"],\"results\":[");
    const char *sep = "";
    for (int f = 0; f < 64; f++) {
        if (f % 4 != 1)
            continue;
        bool followed_by_group_2 = false;
        for (int i = 0; i < 64; i++)
            followed_by_group_2 |= followed(i, 64) == f && i % 4 == 2;
        if (!followed_by_group_2) {
            text_add(&t, "%s[\"n%d\"]", sep, f);
            sep = ",";
        }
    }
    text_add(&t, "]}");
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?f :group 1] [?f :name ?n] "
                "(not-join [?n] [?g :name ?n] [?e :follows ?g] [?e :group 2])])",
                t.s);
    free(t.s);
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
           TEST_ENTRY(join_variable_across_value_positions_uses_equality),
           TEST_ENTRY(hash_join_streams_many_records_through_few_rows),
           TEST_ENTRY(hash_join_with_as_many_rows_as_records_reads_the_table),
           TEST_ENTRY(hash_join_stream_with_no_rows_is_empty),
           TEST_ENTRY(hash_join_stream_keeps_records_for_pseudo_patterns),
           TEST_ENTRY(hash_join_stream_reads_derived_facts_too),
           TEST_ENTRY(hash_join_stream_stops_at_limit),
           TEST_ENTRY(hash_join_after_value_ordered_step_keeps_the_order),
           TEST_ENTRY(hash_join_inside_not_reads_the_table))
