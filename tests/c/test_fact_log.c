/* The fact log: minigraf_fact_log() and its batches, filters and errors
 * (minigraf.h "Fact log"). Records are summarised as
 * <attribute>=<value>@<tx_count>, "-" marking a retraction (log_support.h). */
#include "log_support.h"

#define E1 "00000000-0000-0000-0000-000000000001"
#define E2 "00000000-0000-0000-0000-000000000002"
#define E3 "00000000-0000-0000-0000-000000000003"

/* tx1: e1 name/age, e2 name; tx2: retract e1 age; tx3: e1 age 31, e3 tag;
 * tx4: empty. */
static MiniGrafDb *people_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[#uuid \"" E1 "\" :person/name \"Ann\"]"
                        " [#uuid \"" E1 "\" :person/age 30]"
                        " [#uuid \"" E2 "\" :person/name \"Bob\"]])");
    EXPECT_RETRACT(db, "(retract [[#uuid \"" E1 "\" :person/age 30]])");
    EXPECT_TRANSACT(db, "(transact [[#uuid \"" E1 "\" :person/age 31]"
                        " [#uuid \"" E3 "\" :tag/label :x]])");
    EXPECT_TRANSACT(db, "(transact [])");
    return db;
}

#define ALL_TX_ORDER                                                            \
    ":person/name=Ann@1 :person/age=30@1 :person/name=Bob@1 :person/age=30@2- " \
    ":person/age=31@3 :tag/label=:x@3"

TEST(empty_database_streams_nothing) {
    MiniGrafDb *db = open_memory_db();
    const char *filters[] = {NULL,
                             "{}",
                             "null",
                             "{\"order\":\"storage\"}",
                             "{\"entities\":[\"" E1 "\"],\"order\":\"storage\"}",
                             "{\"tx_from\":1,\"tx_to\":5}"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        MiniGrafFactLog *log = minigraf_fact_log(db, filters[i]);
        REQUIRE(log != NULL);
        CHECK_STR_EQ(minigraf_last_error(db), NULL);
        CHECK(minigraf_fact_log_next_batch(log, 10) == NULL);
        CHECK_STR_EQ(minigraf_fact_log_last_error(log), NULL);
        CHECK_INT_EQ(minigraf_fact_log_last_error_code(log), 0);
        minigraf_fact_log_free(log);
    }
    minigraf_close(db);
}

TEST(record_holds_every_field_in_typed_form) {
    MiniGrafDb *db = open_memory_db();
    uint64_t ms = EXPECT_TRANSACT(db, "(transact [[#uuid \"" E1 "\" :person/age 30]])");
    char want[512];
    snprintf(want, sizeof want,
             "[{\"entity\":\"" E1 "\",\"attribute\":\":person/age\","
             "\"value\":{\"type\":\"integer\",\"value\":30},\"tx_count\":1,\"tx_id\":%" PRIu64
             ",\"valid_from\":%" PRIu64 ",\"valid_to\":9223372036854775807,\"asserted\":true}]",
             ms, ms);
    char *got = DRAIN_LOG(minigraf_fact_log(db, NULL), 10);
    CHECK_STR_EQ(got, want);
    free(got);
    minigraf_close(db);
}

TEST(values_render_in_typed_form) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:v :s \"x\\ty\"] [:v :i -9223372036854775808] [:v :f -0.0]"
                        " [:v :b false] [:v :r #uuid \"" E2 "\"] [:v :k :kw/z] [:v :n nil]])");
    char *got = DRAIN_LOG(minigraf_fact_log(db, NULL), 100);
    REQUIRE(got != NULL);
    CHECK(strstr(got, "{\"type\":\"string\",\"value\":\"x\\ty\"}") != NULL);
    CHECK(strstr(got, "{\"type\":\"integer\",\"value\":-9223372036854775808}") != NULL);
    CHECK(strstr(got, "{\"type\":\"float\",\"value\":-0.0}") != NULL);
    CHECK(strstr(got, "{\"type\":\"boolean\",\"value\":false}") != NULL);
    CHECK(strstr(got, "{\"type\":\"ref\",\"value\":\"" E2 "\"}") != NULL);
    CHECK(strstr(got, "{\"type\":\"keyword\",\"value\":\":kw/z\"}") != NULL);
    CHECK(strstr(got, "{\"type\":\"null\",\"value\":null}") != NULL);
    free(got);
    minigraf_close(db);
}

TEST(tx_order_is_commit_order_then_statement_order) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, NULL, ALL_TX_ORDER);
    EXPECT_LOG(db, "{\"order\":\"tx\"}", ALL_TX_ORDER);
    minigraf_close(db);
}

/* Storage order is the entity index: each entity's records together, and
 * within one (entity, attribute, value) the versions by tx_count. */
TEST(storage_order_groups_records_by_entity) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"order\":\"storage\",\"entities\":[\"" E1 "\"]}",
               ":person/name=Ann@1 :person/age=30@1 :person/age=30@2- :person/age=31@3");
    EXPECT_LOG(db, "{\"order\":\"storage\",\"entities\":[\"" E3 "\",\"" E2 "\"]}",
               ":person/name=Bob@1 :tag/label=:x@3");
    char *all = log_summary_at(__FILE__, __LINE__, db, "{\"order\":\"storage\"}");
    CHECK(strstr(all, ":person/name=Ann@1 :person/age=30@1 :person/age=30@2- :person/age=31@3") !=
          NULL);
    CHECK_INT_EQ(strlen(all), strlen(ALL_TX_ORDER));
    free(all);
    minigraf_close(db);
}

TEST(storage_order_sorts_integer_values_then_versions) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:e :x 3]])");
    EXPECT_TRANSACT(db, "(transact [[:e :x 1]])");
    EXPECT_RETRACT(db, "(retract [[:e :x 3]])");
    EXPECT_TRANSACT(db, "(transact [[:e :x -5]])");
    EXPECT_LOG(db, "{\"order\":\"storage\"}", ":x=-5@4 :x=1@2 :x=3@1 :x=3@3-");
    EXPECT_LOG(db, NULL, ":x=3@1 :x=1@2 :x=3@3- :x=-5@4");
    minigraf_close(db);
}

TEST(batches_of_any_size_give_the_same_stream) {
    MiniGrafDb *db = people_db();
    char *whole = DRAIN_LOG(minigraf_fact_log(db, NULL), 1000);
    size_t sizes[] = {0, 1, 2, 5, 6, 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *got = DRAIN_LOG(minigraf_fact_log(db, NULL), sizes[i]);
        CHECK_STR_EQ(got, whole);
        free(got);
        got = DRAIN_LOG(minigraf_fact_log(db, "{\"order\":\"storage\"}"), sizes[i]);
        char *storage = DRAIN_LOG(minigraf_fact_log(db, "{\"order\":\"storage\"}"), 1000);
        CHECK_STR_EQ(got, storage);
        free(got);
        free(storage);
    }
    free(whole);
    minigraf_close(db);
}

TEST(batch_holds_at_most_max_records_and_end_is_sticky) {
    MiniGrafDb *db = people_db();
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    REQUIRE(log != NULL);
    char *b = minigraf_fact_log_next_batch(log, 0); /* 0 counts as 1 */
    REQUIRE(b != NULL);
    char *s = summarize(b);
    CHECK_STR_EQ(s, ":person/name=Ann@1");
    free(s);
    minigraf_string_free(b);
    b = minigraf_fact_log_next_batch(log, 4);
    s = summarize(b);
    CHECK_STR_EQ(s, ":person/age=30@1 :person/name=Bob@1 :person/age=30@2- :person/age=31@3");
    free(s);
    minigraf_string_free(b);
    b = minigraf_fact_log_next_batch(log, 4);
    s = summarize(b);
    CHECK_STR_EQ(s, ":tag/label=:x@3");
    free(s);
    minigraf_string_free(b);
    for (int i = 0; i < 3; i++) {
        CHECK(minigraf_fact_log_next_batch(log, 4) == NULL);
        CHECK_STR_EQ(minigraf_fact_log_last_error(log), NULL);
    }
    minigraf_fact_log_free(log);
    minigraf_close(db);
}

TEST(filter_attributes) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"attributes\":[\":person/age\"]}",
               ":person/age=30@1 :person/age=30@2- :person/age=31@3");
    EXPECT_LOG(db, "{\"attributes\":[\":tag/label\",\":person/name\"]}",
               ":person/name=Ann@1 :person/name=Bob@1 :tag/label=:x@3");
    EXPECT_LOG(db, "{\"attributes\":[\":no/such\"]}", "");
    EXPECT_LOG(db, "{\"attributes\":[]}", "");
    EXPECT_LOG(db, "{\"attributes\":[\":person/age\"],\"order\":\"storage\"}",
               ":person/age=30@1 :person/age=30@2- :person/age=31@3");
    minigraf_close(db);
}

TEST(filter_attribute_prefixes) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"attribute_prefixes\":[\":person/\"]}",
               ":person/name=Ann@1 :person/age=30@1 :person/name=Bob@1 :person/age=30@2- "
               ":person/age=31@3");
    EXPECT_LOG(db, "{\"attribute_prefixes\":[\":tag\",\":person/n\"]}",
               ":person/name=Ann@1 :person/name=Bob@1 :tag/label=:x@3");
    EXPECT_LOG(db, "{\"attribute_prefixes\":[\"\"]}", ALL_TX_ORDER);
    EXPECT_LOG(db, "{\"attribute_prefixes\":[\":zzz\"]}", "");
    minigraf_close(db);
}

TEST(attributes_and_prefixes_match_either_list) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"attributes\":[\":tag/label\"],\"attribute_prefixes\":[\":person/n\"]}",
               ":person/name=Ann@1 :person/name=Bob@1 :tag/label=:x@3");
    EXPECT_LOG(db, "{\"attributes\":[],\"attribute_prefixes\":[\":tag/\"]}", ":tag/label=:x@3");
    minigraf_close(db);
}

TEST(filter_entities_in_both_orders) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"entities\":[\"" E2 "\",\"" E3 "\"]}", ":person/name=Bob@1 :tag/label=:x@3");
    EXPECT_LOG(db, "{\"entities\":[\"" E1 "\"]}",
               ":person/name=Ann@1 :person/age=30@1 :person/age=30@2- :person/age=31@3");
    /* any UUID spelling names the entity; repeats and unknowns are harmless */
    EXPECT_LOG(db,
               "{\"entities\":[\"00000000000000000000000000000002\",\"" E2
               "\",\"99999999-0000-0000-0000-000000000000\"],\"order\":\"storage\"}",
               ":person/name=Bob@1");
    EXPECT_LOG(db, "{\"entities\":[\"99999999-0000-0000-0000-000000000000\"]}", "");
    EXPECT_LOG(db, "{\"entities\":[]}", "");
    minigraf_close(db);
}

TEST(filter_keyword_entities_by_their_uuid) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :n 1] [:bob :n 2]])");
    char *all = DRAIN_LOG(minigraf_fact_log(db, NULL), 10);
    REQUIRE(all != NULL);
    char uuid[64], filter[128];
    field_after(all, "\"entity\":\"", "\"", uuid, sizeof uuid);
    snprintf(filter, sizeof filter, "{\"entities\":[\"%s\"]}", uuid);
    EXPECT_LOG(db, filter, ":n=1@1");
    free(all);
    minigraf_close(db);
}

TEST(filter_tx_range_in_both_orders) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"tx_from\":2}", ":person/age=30@2- :person/age=31@3 :tag/label=:x@3");
    EXPECT_LOG(db, "{\"tx_to\":1}", ":person/name=Ann@1 :person/age=30@1 :person/name=Bob@1");
    EXPECT_LOG(db, "{\"tx_from\":2,\"tx_to\":2}", ":person/age=30@2-");
    EXPECT_LOG(db, "{\"tx_from\":3,\"tx_to\":2}", "");
    EXPECT_LOG(db, "{\"tx_from\":4}", "");
    EXPECT_LOG(db, "{\"tx_from\":0,\"tx_to\":18446744073709551615}", ALL_TX_ORDER);
    EXPECT_LOG(db, "{\"tx_from\":2,\"tx_to\":2,\"order\":\"storage\"}", ":person/age=30@2-");
    EXPECT_LOG(db, "{\"tx_from\":3,\"order\":\"storage\",\"entities\":[\"" E1 "\"]}",
               ":person/age=31@3");
    minigraf_close(db);
}

/* The tx_from seek lands on the first record of the transaction, however
 * many records the log holds before it. */
TEST(tx_from_seeks_in_a_long_log) {
    MiniGrafDb *db = open_memory_db();
    char tx[64];
    for (int i = 1; i <= 300; i++) {
        snprintf(tx, sizeof tx, "(transact [[:e :n %d] [:e :m %d]])", i, i);
        EXPECT_TRANSACT(db, tx);
    }
    EXPECT_LOG(db, "{\"tx_from\":1,\"tx_to\":1}", ":n=1@1 :m=1@1");
    EXPECT_LOG(db, "{\"tx_from\":150,\"tx_to\":151}",
               ":n=150@150 :m=150@150 :n=151@151 :m=151@151");
    EXPECT_LOG(db, "{\"tx_from\":300}", ":n=300@300 :m=300@300");
    EXPECT_LOG(db, "{\"tx_from\":299,\"attributes\":[\":m\"]}", ":m=299@299 :m=300@300");
    minigraf_close(db);
}

/* tx1 [2023-01-01, 2023-06-30), tx2 [2024-01-01, forever), tx3 [now, forever). */
static MiniGrafDb *windows_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"}"
                        " [[:c :status :active]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2024-01-01\"} [[:c :status :inactive]])");
    EXPECT_TRANSACT(db, "(transact [[:c :x 1]])");
    return db;
}

TEST(filter_window_overlap_with_exclusive_ends) {
    MiniGrafDb *db = windows_db();
    EXPECT_LOG(db, "{\"window\":{}}", ":status=:active@1 :status=:inactive@2 :x=1@3");
    /* from = 2023-06-30: tx1 ends exactly there */
    EXPECT_LOG(db, "{\"window\":{\"from\":1688083200000}}", ":status=:inactive@2 :x=1@3");
    EXPECT_LOG(db, "{\"window\":{\"from\":1688083199999}}",
               ":status=:active@1 :status=:inactive@2 :x=1@3");
    /* to = 2023-01-01: tx1 starts exactly there */
    EXPECT_LOG(db, "{\"window\":{\"to\":1672531200000}}", "");
    EXPECT_LOG(db, "{\"window\":{\"to\":1672531200001}}", ":status=:active@1");
    /* [2023-06-01, 2024-01-01) */
    EXPECT_LOG(db, "{\"window\":{\"from\":1685577600000,\"to\":1704067200000}}",
               ":status=:active@1");
    EXPECT_LOG(db, "{\"window\":{\"from\":1704067200000,\"to\":1704067200000}}", "");
    EXPECT_LOG(db,
               "{\"window\":{\"from\":1685577600000,\"to\":1704067200000},"
               "\"order\":\"storage\"}",
               ":status=:active@1");
    minigraf_close(db);
}

TEST(filters_combine) {
    MiniGrafDb *db = people_db();
    EXPECT_LOG(db, "{\"entities\":[\"" E1 "\"],\"attributes\":[\":person/age\"],\"tx_from\":2}",
               ":person/age=30@2- :person/age=31@3");
    EXPECT_LOG(db,
               "{\"entities\":[\"" E1 "\"],\"attributes\":[\":person/age\"],\"tx_to\":1,"
               "\"order\":\"storage\"}",
               ":person/age=30@1");
    EXPECT_LOG(db, "{\"entities\":[\"" E2 "\"],\"attribute_prefixes\":[\":tag\"]}", "");
    minigraf_close(db);
}

TEST(log_sees_the_database_as_it_opened) {
    MiniGrafDb *db = people_db();
    MiniGrafFactLog *tx_log = minigraf_fact_log(db, NULL);
    MiniGrafFactLog *storage_log = minigraf_fact_log(db, "{\"order\":\"storage\"}");
    MiniGrafFactLog *partial = minigraf_fact_log(db, NULL);
    char *first = minigraf_fact_log_next_batch(partial, 2);
    EXPECT_TRANSACT(db, "(transact [[#uuid \"" E1 "\" :person/age 99] [:new :a 1]])");
    EXPECT_RETRACT(db, "(retract [[#uuid \"" E2 "\" :person/name \"Bob\"]])");
    char *rest = DRAIN_LOG(partial, 2);
    char *a = summarize(first), *b = summarize(rest);
    CHECK_STR_EQ(a, ":person/name=Ann@1 :person/age=30@1");
    CHECK_STR_EQ(b, ":person/name=Bob@1 :person/age=30@2- :person/age=31@3 :tag/label=:x@3");
    free(a);
    free(b);
    free(rest);
    minigraf_string_free(first);
    char *t = DRAIN_LOG(tx_log, 3), *s = DRAIN_LOG(storage_log, 1);
    a = summarize(t);
    b = summarize(s);
    CHECK_STR_EQ(a, ALL_TX_ORDER);
    CHECK(strstr(b, "99") == NULL && strstr(b, "@5") == NULL && strstr(b, "@6") == NULL);
    CHECK_INT_EQ(strlen(b), strlen(ALL_TX_ORDER));
    free(a);
    free(b);
    free(t);
    free(s);
    EXPECT_LOG(db, "{\"tx_from\":5}", ":person/age=99@5 :a=1@5 :person/name=Bob@6-");
    minigraf_close(db);
}

TEST(file_log_survives_checkpoint_and_reopen) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:b :n 2]])");
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    char *first = minigraf_fact_log_next_batch(log, 1);
    EXPECT_TRANSACT(db, "(transact [[:c :n 3]])");
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    char *rest = DRAIN_LOG(log, 1);
    char *a = summarize(first), *b = summarize(rest);
    CHECK_STR_EQ(a, ":n=1@1");
    CHECK_STR_EQ(b, ":n=2@1");
    free(a);
    free(b);
    free(rest);
    minigraf_string_free(first);
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_LOG(db, NULL, ":n=1@1 :n=2@1 :n=3@2");
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(log_of_a_closed_database_fails_with_api_018) {
    MiniGrafDb *db = people_db();
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    char *b = minigraf_fact_log_next_batch(log, 1);
    CHECK(b != NULL);
    minigraf_string_free(b);
    minigraf_close(db);
    CHECK(minigraf_fact_log_next_batch(log, 1) == NULL);
    CHECK_INT_EQ(minigraf_fact_log_last_error_code(log), API_018);
    CHECK(strncmp(minigraf_fact_log_last_error(log), "[API-018] ", 10) == 0);
    minigraf_fact_log_free(log);
}

TEST(null_and_dead_handles) {
    CHECK(minigraf_fact_log(NULL, NULL) == NULL);
    CHECK(minigraf_fact_log_next_batch(NULL, 1) == NULL);
    CHECK_STR_EQ(minigraf_fact_log_last_error(NULL), NULL); /* as the 0.1 API */
    CHECK_INT_EQ(minigraf_fact_log_last_error_code(NULL), API_017);
    minigraf_fact_log_free(NULL);

    MiniGrafDb *db = people_db();
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    REQUIRE(log != NULL);
    minigraf_fact_log_free(log);
    CHECK(minigraf_fact_log_next_batch(log, 1) == NULL);
    CHECK_STR_EQ(minigraf_fact_log_last_error(log), "[API-018] handle was already closed or freed");
    CHECK_INT_EQ(minigraf_fact_log_last_error_code(log), API_018);
    minigraf_fact_log_free(log); /* a second free is harmless */
    minigraf_close(db);
    CHECK(minigraf_fact_log(db, NULL) == NULL); /* a closed database */
}

TEST(bad_filter_json_is_api_017) {
    MiniGrafDb *db = people_db();
    const char *bad[] = {"{",
                         "[]",
                         "1",
                         "\"tx\"",
                         "{\"order\":\"tx\"} x",
                         "{\"order\":\"tx\",}",
                         "{'order':'tx'}",
                         "{\"bogus\":1}",
                         "{\"attributes\":\":a\"}",
                         "{\"attributes\":[1]}",
                         "{\"attributes\":[\"person/name\"]}",
                         "{\"attribute_prefixes\":[null]}",
                         "{\"entities\":[\"not-a-uuid\"]}",
                         "{\"entities\":\"" E1 "\"}",
                         "{\"tx_from\":-1}",
                         "{\"tx_from\":1.5}",
                         "{\"tx_to\":\"3\"}",
                         "{\"tx_to\":18446744073709551616}",
                         "{\"tx_from\":null}",
                         "{\"window\":[]}",
                         "{\"window\":{\"from\":\"2023-01-01\"}}",
                         "{\"window\":{\"since\":1}}",
                         "{\"window\":{\"to\":1e3}}",
                         "{\"order\":\"time\"}",
                         "{\"order\":1}",
                         "{\"order\":\"tx\",\"order\":\"tx\"}",
                         "{\"tx_from\":01}",
                         "{\"attributes\":[\"\\ud800\"]}",
                         "{\"attributes\":[\"\xff\"]}",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(minigraf_fact_log(db, bad[i]) == NULL);
        if (minigraf_last_error_code(db) != API_017)
            check_fail_str(__FILE__, __LINE__, bad[i], minigraf_last_error(db), "[API-017] ...");
        CHECK(strncmp(minigraf_last_error(db), "[API-017] ", 10) == 0);
    }
    MiniGrafFactLog *log = minigraf_fact_log(db, " { \"order\" : \"storage\" } ");
    CHECK(log != NULL);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), 0);
    minigraf_fact_log_free(log);
    minigraf_close(db);
}

TEST(filter_strings_may_use_escapes) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:e :caf\xc3\xa9/n 1] [:e :\xce\xbb 2]])");
    EXPECT_LOG(db, "{\"attributes\":[\":caf\\u00e9/n\"]}", ":caf\xc3\xa9/n=1@1");
    EXPECT_LOG(db, "{\"attributes\":[\":\\u03BB\"]}", ":\xce\xbb=2@1");
    minigraf_close(db);
}

CHECK_MAIN(
    TEST_ENTRY(empty_database_streams_nothing), TEST_ENTRY(record_holds_every_field_in_typed_form),
    TEST_ENTRY(values_render_in_typed_form),
    TEST_ENTRY(tx_order_is_commit_order_then_statement_order),
    TEST_ENTRY(storage_order_groups_records_by_entity),
    TEST_ENTRY(storage_order_sorts_integer_values_then_versions),
    TEST_ENTRY(batches_of_any_size_give_the_same_stream),
    TEST_ENTRY(batch_holds_at_most_max_records_and_end_is_sticky), TEST_ENTRY(filter_attributes),
    TEST_ENTRY(filter_attribute_prefixes), TEST_ENTRY(attributes_and_prefixes_match_either_list),
    TEST_ENTRY(filter_entities_in_both_orders), TEST_ENTRY(filter_keyword_entities_by_their_uuid),
    TEST_ENTRY(filter_tx_range_in_both_orders), TEST_ENTRY(tx_from_seeks_in_a_long_log),
    TEST_ENTRY(filter_window_overlap_with_exclusive_ends), TEST_ENTRY(filters_combine),
    TEST_ENTRY(log_sees_the_database_as_it_opened),
    TEST_ENTRY(file_log_survives_checkpoint_and_reopen),
    TEST_ENTRY(log_of_a_closed_database_fails_with_api_018), TEST_ENTRY(null_and_dead_handles),
    TEST_ENTRY(bad_filter_json_is_api_017), TEST_ENTRY(filter_strings_may_use_escapes))
