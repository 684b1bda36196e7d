/* Introspection: minigraf_explain, minigraf_stats, minigraf_rules
 * (minigraf.h, "Introspection (since 0.2.0)"). */
#include "support.h"

#define API_012 5012
#define API_017 5017
#define API_018 5018
#define PRS_077 1077

/* The integer after "key": in a JSON object, or -1. */
static long long json_int(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = json ? strstr(json, pattern) : NULL;
    return at ? strtoll(at + strlen(pattern), NULL, 10) : -1;
}

static MiniGrafDb *people(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]"
                    " [:bob :person/name \"Bob\"] [:bob :person/age 25] [:carol :person/age 41]])");
    return db;
}

TEST(explain_lists_steps_in_plan_order_with_index_and_estimate) {
    MiniGrafDb *db = people();
    /* The name constant selects one record: it runs first, through AVET,
     * then the age pattern seeks the entity's age through AEVT. */
    char *plan = minigraf_explain(
        db, "(query [:find ?a :where [?e :person/age ?a] [?e :person/name \"Alice\"]])");
    CHECK_STR_EQ(plan,
                 "{\"steps\":["
                 "{\"step\":1,\"kind\":\"pattern\",\"clause\":\"[?e :person/name \\\"Alice\\\"]\","
                 "\"join\":\"nested-loop\",\"index\":\"AVET\",\"estimated_rows\":1},"
                 "{\"step\":2,\"kind\":\"pattern\",\"clause\":\"[?e :person/age ?a]\","
                 "\"join\":\"nested-loop\",\"index\":\"AEVT\",\"estimated_rows\":3}]}");
    CHECK(minigraf_last_error(db) == NULL);
    minigraf_string_free(plan);
    minigraf_close(db);
}

TEST(explain_names_expression_not_and_or_steps) {
    MiniGrafDb *db = people();
    char *plan = minigraf_explain(db, "(query [:find ?e :where [?e :person/age ?a] [(> ?a 26)]"
                                      " (not [?e :person/name \"Bob\"])])");
    REQUIRE(plan != NULL);
    CHECK(strstr(plan,
                 "\"kind\":\"expression\",\"clause\":\"[(> ?a 26)]\",\"join\":null,\"index\":null,"
                 "\"estimated_rows\":null") != NULL);
    CHECK(strstr(plan, "\"kind\":\"not\"") != NULL);
    CHECK(json_int(plan, "step") == 1);
    minigraf_string_free(plan);
    minigraf_close(db);
}

TEST(explain_reports_query_errors) {
    MiniGrafDb *db = people();
    CHECK(minigraf_explain(db, "(transact [[:a :b 1]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_012);
    CHECK(minigraf_explain(db, "(query [:find ?x :where [?x :a]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), PRS_077);
    CHECK(minigraf_explain(db, NULL) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_017);
    CHECK(minigraf_explain(NULL, "(query [:find ?x :where [?x :a 1]])") == NULL);
    minigraf_close(db);
}

TEST(stats_of_an_in_memory_database) {
    MiniGrafDb *db = people();
    char *stats = minigraf_stats(db);
    REQUIRE(stats != NULL);
    CHECK(strncmp(stats, "{\"in_memory\":true,\"file_size\":0,", 32) == 0);
    CHECK_INT_EQ(json_int(stats, "facts"), 5);
    CHECK_INT_EQ(json_int(stats, "entities"), 3);
    CHECK_INT_EQ(json_int(stats, "tx_count"), 1);
    CHECK_INT_EQ(json_int(stats, "page_size"), 4096);
    CHECK_INT_EQ(json_int(stats, "wal_size"), 0);
    CHECK(strstr(stats, "\"cache_hit_rate\":") != NULL);
    minigraf_string_free(stats);
    minigraf_close(db);
}

TEST(stats_of_a_file_follow_the_wal_and_the_cache) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"wal_checkpoint_threshold\":0}", NULL);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:b :n 2]])");
    char *many = malloc(64 * 3000 + 32);
    REQUIRE(many != NULL);
    size_t len = (size_t)sprintf(many, "(transact [");
    for (int i = 0; i < 3000; i++)
        len += (size_t)sprintf(many + len, "[:e%d :m %d] ", i, i);
    strcpy(many + len, "])");
    char *before = minigraf_stats(db);
    CHECK(strstr(before, "\"in_memory\":false") != NULL);
    CHECK(json_int(before, "wal_size") > 0);
    CHECK_INT_EQ(json_int(before, "wal_facts"), 2);
    EXPECT_TRANSACT(db, many);
    free(many);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    char *after = minigraf_stats(db);
    CHECK_INT_EQ(json_int(after, "wal_size"), 0);
    CHECK_INT_EQ(json_int(after, "wal_facts"), 0);
    CHECK(json_int(after, "file_size") == json_int(after, "pages") * 4096);
    CHECK(json_int(after, "pages") > 0);
    minigraf_string_free(before);
    minigraf_string_free(after);
    minigraf_close(db);
    /* Reopened, queries read pages: the cache counts them (a scan of the
     * 3000 records, twice, then an entity's). */
    db = minigraf_open_with_options(t.path, NULL, NULL);
    REQUIRE(db != NULL);
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :m _]])",
                    "{\"variables\":[\"(count ?e)\"],\"results\":[[3000]]}");
    EXPECT_EXEC(db, "(query [:find ?m :where [:e5 :m ?m]])",
                "{\"variables\":[\"?m\"],\"results\":[[5]]}");
    char *stats = minigraf_stats(db);
    CHECK(json_int(stats, "cache_misses") > 0);
    CHECK(json_int(stats, "cache_hits") > 0);
    CHECK(json_int(stats, "cache_pages") > 0);
    CHECK_INT_EQ(json_int(stats, "cache_capacity"), 4096);
    minigraf_string_free(stats);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(rules_returns_registered_rules_in_order) {
    MiniGrafDb *db = open_memory_db();
    char *none = minigraf_rules(db);
    CHECK_STR_EQ(none, "[]");
    minigraf_string_free(none);
    EXPECT_EXEC(db, "(rule [(reach ?a ?b) [?a :edge ?b]])", "{\"ok\":true}");
    EXPECT_EXEC(db, "(rule [(reach ?a ?b)\n  [?a :edge ?c] (reach ?c ?b)])", "{\"ok\":true}");
    EXPECT_EXEC(db, "(rule [(reach ?a ?b) [?a :edge ?b]])", "{\"ok\":true}"); /* already there */
    char *rules = minigraf_rules(db);
    CHECK_STR_EQ(rules, "[\"(rule [(reach ?a ?b) [?a :edge ?b]])\","
                        "\"(rule [(reach ?a ?b) [?a :edge ?c] (reach ?c ?b)])\"]");
    minigraf_string_free(rules);
    minigraf_close(db);
}

TEST(rules_texts_register_the_same_rules_again) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)] (not [?p :banned true])])",
                "{\"ok\":true}");
    char *rules = minigraf_rules(db);
    REQUIRE(rules != NULL);
    MiniGrafDb *again = open_memory_db();
    /* The JSON string holds no escapes here: copy it out. */
    char text[256] = "";
    const char *start = strchr(rules, '"') + 1, *end = strrchr(rules, '"');
    REQUIRE(end > start && (size_t)(end - start) < sizeof text);
    memcpy(text, start, (size_t)(end - start));
    EXPECT_EXEC(again, text, "{\"ok\":true}");
    char *copied = minigraf_rules(again);
    CHECK_STR_EQ(copied, rules);
    minigraf_string_free(copied);
    minigraf_string_free(rules);
    minigraf_close(again);
    minigraf_close(db);
}

TEST(introspection_on_null_and_closed_handles) {
    CHECK(minigraf_stats(NULL) == NULL);
    CHECK(minigraf_rules(NULL) == NULL);
    MiniGrafDb *db = open_memory_db();
    minigraf_close(db);
    CHECK(minigraf_stats(db) == NULL);
    CHECK(minigraf_rules(db) == NULL);
    CHECK(minigraf_explain(db, "(query [:find ?x :where [?x :a 1]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_018);
}

CHECK_MAIN(TEST_ENTRY(explain_lists_steps_in_plan_order_with_index_and_estimate),
           TEST_ENTRY(explain_names_expression_not_and_or_steps),
           TEST_ENTRY(explain_reports_query_errors), TEST_ENTRY(stats_of_an_in_memory_database),
           TEST_ENTRY(stats_of_a_file_follow_the_wal_and_the_cache),
           TEST_ENTRY(rules_returns_registered_rules_in_order),
           TEST_ENTRY(rules_texts_register_the_same_rules_again),
           TEST_ENTRY(introspection_on_null_and_closed_handles))
