/* Errors: NULL and dead handles, invalid UTF-8, code names and the
 * "[CODE] message" form (minigraf.h conventions, language.md §17). */
#include <stdbool.h>

#include "support.h"

#define API_017 5017
#define API_018 5018

/* The message of the last failure on `db` starts with "[<name of code>] ". */
static void expect_message_matches_code_at(int line, MiniGrafDb *db) {
    const char *name = minigraf_error_code_name(minigraf_last_error_code(db));
    const char *msg = minigraf_last_error(db);
    char prefix[32];
    if (name == NULL || msg == NULL) {
        check_fail_str(__FILE__, line, "error code name / message", msg, "[CODE] ...");
        return;
    }
    snprintf(prefix, sizeof prefix, "[%s] ", name);
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || strlen(msg) <= strlen(prefix))
        check_fail_str(__FILE__, line, "message starts with [CODE]", msg, prefix);
}

TEST(null_database_handle_fails_every_call_with_api_017) {
    uint64_t n = 7;
    CHECK(minigraf_execute(NULL, "(transact [])") == NULL);
    CHECK(minigraf_query(NULL, "(query [:find ?e :where [?e :a 1]])") == NULL);
    CHECK(minigraf_current_tx_count(NULL, &n) != 0);
    CHECK_INT_EQ(n, 7);
    CHECK(minigraf_checkpoint(NULL) != 0);
    CHECK_INT_EQ(minigraf_last_error_code(NULL), API_017);
    (void)minigraf_last_error(NULL); /* must not crash */
    minigraf_close(NULL);            /* no-op */
}

TEST(null_text_and_out_arguments_fail_with_api_017) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_execute(db, NULL) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_017);
    expect_message_matches_code_at(__LINE__, db);
    CHECK(minigraf_query(db, NULL) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_017);
    CHECK(minigraf_current_tx_count(db, NULL) != 0);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_017);
    CHECK(minigraf_open(NULL) == NULL);
    minigraf_close(db);
}

TEST(null_cursor_handle_fails_every_call_with_api_017) {
    CHECK(minigraf_cursor_vars(NULL) == NULL);
    CHECK(minigraf_cursor_next_batch(NULL, 10) == NULL);
    CHECK(minigraf_cursor_set_format(NULL, MINIGRAF_FORMAT_JSON) != 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(NULL), API_017);
    (void)minigraf_cursor_last_error(NULL);
    minigraf_cursor_free(NULL);
    minigraf_string_free(NULL);
}

TEST(invalid_utf8_text_fails_with_api_017) {
    const char *bad[] = {
        "(transact [[:a :s \"\xff\"]])",             /* never valid */
        "(transact [[:a :s \"\xc0\xaf\"]])",         /* overlong '/' */
        "(transact [[:a :s \"\xed\xa0\x80\"]])",     /* UTF-16 surrogate */
        "(transact [[:a :s \"\xe2\x82\"]])",         /* truncated sequence */
        "(transact [[:a :s \"\xf4\x90\x80\x80\"]])", /* above U+10FFFF */
    };
    MiniGrafDb *db = open_memory_db();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_ERROR(db, bad[i], "API-017");
        CHECK(minigraf_query(db, bad[i]) == NULL);
        CHECK_INT_EQ(minigraf_last_error_code(db), API_017);
    }
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(invalid_utf8_path_or_options_fail_with_api_017) {
    char *error = NULL;
    CHECK(minigraf_open_with_options("/tmp/bad\xff.graph", NULL, &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] ", 10) == 0);
    minigraf_string_free(error);
    error = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"read_only\":\"\xff\"}", &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] ", 10) == 0);
    minigraf_string_free(error);
}

TEST(double_cursor_free_is_detected_and_ignored) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?v :where [?e :a ?v]])");
    REQUIRE(c != NULL);
    minigraf_cursor_free(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(freed_cursor_use_reports_api_018) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?v :where [?e :n ?v]])");
    REQUIRE(c != NULL);
    minigraf_cursor_free(c);
    CHECK(minigraf_cursor_next_batch(c, 1) == NULL);
    CHECK(minigraf_cursor_vars(c) == NULL);
    CHECK(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED) != 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), API_018);
    minigraf_close(db);
}

/* The handle registry grows past its first table with handles live in it
 * (they stay live) and tells kinds apart. */
TEST(many_live_cursors_stay_live_and_freed_ones_are_dead) {
    enum { CURSORS = 300 };
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    MiniGrafCursor *c[CURSORS];
    for (int i = 0; i < CURSORS; i++) {
        c[i] = minigraf_query(db, "(query [:find ?v :where [?e :n ?v]])");
        REQUIRE(c[i] != NULL);
    }
    for (int i = 0; i < CURSORS; i += 2)
        minigraf_cursor_free(c[i]);
    bool live = true, dead = true;
    for (int i = 0; i < CURSORS; i++) {
        char *rows = minigraf_cursor_next_batch(c[i], 10);
        if (i % 2) {
            live = live && rows && strcmp(rows, "[[1]]") == 0;
            minigraf_string_free(rows);
        } else {
            dead = dead && !rows && minigraf_cursor_last_error_code(c[i]) == API_018;
        }
    }
    CHECK(live);
    CHECK(dead);
    CHECK_INT_EQ(minigraf_cursor_last_error_code((MiniGrafCursor *)(void *)db), API_018);
    for (int i = 1; i < CURSORS; i += 2)
        minigraf_cursor_free(c[i]);
    minigraf_close(db);
}

TEST(closed_database_use_reports_api_018) {
    MiniGrafDb *db = open_memory_db();
    uint64_t n = 0;
    minigraf_close(db);
    CHECK(minigraf_execute(db, "(transact [])") == NULL);
    CHECK(minigraf_query(db, "(query [:find ?v :where [?e :n ?v]])") == NULL);
    CHECK(minigraf_current_tx_count(db, &n) != 0);
    CHECK(minigraf_checkpoint(db) != 0);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_018);
    minigraf_close(db); /* second close: detected, no crash */
}

TEST(every_error_message_starts_with_its_code) {
    const char *failing[] = {
        "",
        "(transact [[:alice :person@name \"A\"]])",
        "(transact [[:alice :person/name \"Alice\"]]",
        "()",
        "(insert [[:a :b 1]])",
        "(transact)",
        "(transact [[\"alice\" :name \"A\"]])",
        "(transact [[:a \"name\" 1]])",
        "(query [:find ?x])",
        "(query [:find ?v :as-of -1 :where [:k :v ?v]])",
        "(transact [[:a :n 99999999999999999999]])",
    };
    MiniGrafDb *db = open_memory_db();
    for (size_t i = 0; i < sizeof failing / sizeof failing[0]; i++) {
        char *got = minigraf_execute(db, failing[i]);
        if (got != NULL)
            check_fail_str(__FILE__, __LINE__, failing[i], got, "an error");
        minigraf_string_free(got);
        expect_message_matches_code_at(__LINE__, db);
    }
    minigraf_close(db);
}

TEST(lexical_and_command_errors_have_spec_codes) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "", "PRS-001");
    EXPECT_ERROR(db, "   ; only a comment", "PRS-001");
    EXPECT_ERROR(db, "(transact [[:alice :person@name \"A\"]])", "PRS-002");
    EXPECT_ERROR(db, ")", "PRS-003");
    EXPECT_ERROR(db, "(transact [[:alice :person/name \"Alice\"]]", "PRS-005");
    EXPECT_ERROR(db, "(transact [[:alice :person/name \"Alice\"]", "PRS-004");
    EXPECT_ERROR(db, "()", "PRS-012");
    EXPECT_ERROR(db, "[:a]", "PRS-012");
    EXPECT_ERROR(db, "(42 :a)", "PRS-010");
    EXPECT_ERROR(db, "(insert [[:a :b 1]])", "PRS-011");
    EXPECT_ERROR(db, "(:query [:find ?x :where [?x :a 1]])", "PRS-011");
    EXPECT_ERROR(db, "(transact)", "PRS-041");
    EXPECT_ERROR(db, "(transact \"facts\")", "PRS-042");
    EXPECT_ERROR(db, "(retract)", "PRS-043");
    EXPECT_ERROR(db, "(transact [:alice])", "PRS-045");
    EXPECT_ERROR(db, "(transact [[:alice :person/name]])", "PRS-046");
    EXPECT_ERROR(db, "(transact [[:a :b 1 2]])", "PRS-047");
    EXPECT_ERROR(db, "(transact [[#uuid \"nope\" :a 1]])", "PRS-072");
    EXPECT_ERROR(db, "(transact [[#ref \"550e8400-e29b-41d4-a716-446655440000\" :a 1]])",
                 "PRS-073");
    EXPECT_ERROR(db, "(query)", "PRS-013");
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(parse_error_messages_quote_the_spec_then_the_position) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_execute(db, "(insert [[:a :b 1]])") == NULL);
    CHECK_STR_EQ(minigraf_last_error(db), "[PRS-011] Unknown command: insert");
    CHECK(minigraf_execute(db, "(transact [[:alice :person@name \"A\"]])") == NULL);
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[PRS-002] Unexpected character: @ (at line 1, column 27)");
    CHECK(minigraf_execute(db, "(transact [[:a :b 1]]") == NULL);
    CHECK_STR_EQ(minigraf_last_error(db), "[PRS-005] Unclosed list (opened at line 1, column 1)");
    minigraf_close(db);
}

TEST(write_conversion_errors_have_spec_codes_and_write_nothing) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "(transact [[\"alice\" :name \"A\"]])", "INT-001");
    EXPECT_ERROR(db, "(transact [[42 :name \"A\"]])", "INT-001");
    EXPECT_ERROR(db, "(transact [[:ok :name \"A\"] [:a \"name\" 1]])", "API-003");
    EXPECT_ERROR(db, "(retract [[:a \"name\" 1]])", "API-003");
    EXPECT_ERROR(db, "(transact [[:a :b ?x]])", "INT-002");
    EXPECT_ERROR(db, "(transact [[:a :b [1 2]]])", "INT-002");
    CHECK_INT_EQ(tx_count(db), 0);
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(trailing_input_after_one_command_is_rejected) {
    MiniGrafDb *db = open_memory_db();
    char *got = minigraf_execute(db, "(transact [[:e :a 1]]) (transact [[:e :a 2]])");
    CHECK(got == NULL);
    minigraf_string_free(got);
    expect_message_matches_code_at(__LINE__, db);
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(query_without_where_is_an_execution_error) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_execute(db, "(query [:find ?x])") == NULL);
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strstr(msg, "query has no :where clause") != NULL);
    CHECK(minigraf_execute(db, "(query [])") == NULL);
    minigraf_close(db);
}

TEST(rule_evaluation_errors_are_coded) {
    /* Invocations run now (tests/c/test_rules_eval.c); their errors keep
     * the spec's codes: INT-028 arity (language.md §8.8), INT-020 limits (language.md §9.6). */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", "{\"ok\":true}");
    EXPECT_ERROR(db, "(query [:find ?x ?y ?z :where (reach ?x ?y ?z)])", "INT-028");
    EXPECT_ERROR(db, "(query [:find ?x ?y :where (reach ?x ?y) :max-derived-facts 1])", "INT-020");
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y) :max-derived-facts 10 :max-results 10])",
                "{\"variables\":[\"?y\"],\"results\":[[\":b\"]]}");
    minigraf_close(db);
}

TEST(bind_slots_in_plain_execution_fail_with_api_010) {
    const char *with_slots[] = {
        "(query [:find ?n :where [?e :person/age $age] [?e :person/name ?n]])",
        "(query [:find ?n :as-of $t :where [$e :person/name ?n]])",
        "(query [:find ?n :valid-at $t :where [?e :person/name ?n]])",
        "(query [:find ?v :where [?e :age ?v] [(>= ?v $min)]])",
    };
    MiniGrafDb *db = open_memory_db();
    for (size_t i = 0; i < sizeof with_slots / sizeof with_slots[0]; i++)
        EXPECT_ERROR(db, with_slots[i], "API-010");
    minigraf_close(db);
}

TEST(error_code_name_maps_numbers_to_spec_names) {
    CHECK_STR_EQ(minigraf_error_code_name(1001), "PRS-001");
    CHECK_STR_EQ(minigraf_error_code_name(1011), "PRS-011");
    CHECK_STR_EQ(minigraf_error_code_name(2007), "QRY-007");
    CHECK_STR_EQ(minigraf_error_code_name(3026), "STG-026");
    CHECK_STR_EQ(minigraf_error_code_name(4003), "WAL-003");
    CHECK_STR_EQ(minigraf_error_code_name(5017), "API-017");
    CHECK_STR_EQ(minigraf_error_code_name(5018), "API-018");
    CHECK_STR_EQ(minigraf_error_code_name(6000), "INT-000");
    CHECK_STR_EQ(minigraf_error_code_name(6001), "INT-001");
    CHECK_INT_EQ(MINIGRAF_ERROR_FAMILY(5017), MINIGRAF_FAMILY_API);
}

TEST(error_code_name_is_null_for_non_codes) {
    CHECK_STR_EQ(minigraf_error_code_name(MINIGRAF_OK), NULL);
    CHECK_STR_EQ(minigraf_error_code_name(-1), NULL);
    CHECK_STR_EQ(minigraf_error_code_name(999), NULL);
    CHECK_STR_EQ(minigraf_error_code_name(7001), NULL);
    CHECK_STR_EQ(minigraf_error_code_name(1000000), NULL);
}

TEST(last_error_is_null_after_a_successful_call) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_execute(db, "(frobnicate)") == NULL);
    CHECK(minigraf_last_error(db) != NULL);
    CHECK(minigraf_last_error_code(db) != 0);
    char *ok = EXEC(db, "(transact [])");
    minigraf_string_free(ok);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), 0);
    CHECK(minigraf_execute(db, "(frobnicate)") == NULL);
    uint64_t n = 0;
    CHECK_INT_EQ(minigraf_current_tx_count(db, &n), 0);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    minigraf_close(db);
}

TEST(failed_command_consumes_no_transaction_number) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    EXPECT_ERROR(db, "(transact [[:a :n 2] [\"bad\" :n 3]])", "INT-001");
    EXPECT_ERROR(db, "(transact [[:a :n 2]", "PRS-004");
    CHECK_INT_EQ(tx_count(db), 1);
    EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(null_database_handle_fails_every_call_with_api_017),
           TEST_ENTRY(null_text_and_out_arguments_fail_with_api_017),
           TEST_ENTRY(null_cursor_handle_fails_every_call_with_api_017),
           TEST_ENTRY(invalid_utf8_text_fails_with_api_017),
           TEST_ENTRY(invalid_utf8_path_or_options_fail_with_api_017),
           TEST_ENTRY(double_cursor_free_is_detected_and_ignored),
           TEST_ENTRY(freed_cursor_use_reports_api_018),
           TEST_ENTRY(many_live_cursors_stay_live_and_freed_ones_are_dead),
           TEST_ENTRY(closed_database_use_reports_api_018),
           TEST_ENTRY(every_error_message_starts_with_its_code),
           TEST_ENTRY(lexical_and_command_errors_have_spec_codes),
           TEST_ENTRY(parse_error_messages_quote_the_spec_then_the_position),
           TEST_ENTRY(write_conversion_errors_have_spec_codes_and_write_nothing),
           TEST_ENTRY(trailing_input_after_one_command_is_rejected),
           TEST_ENTRY(query_without_where_is_an_execution_error),
           TEST_ENTRY(rule_evaluation_errors_are_coded),
           TEST_ENTRY(bind_slots_in_plain_execution_fail_with_api_010),
           TEST_ENTRY(error_code_name_maps_numbers_to_spec_names),
           TEST_ENTRY(error_code_name_is_null_for_non_codes),
           TEST_ENTRY(last_error_is_null_after_a_successful_call),
           TEST_ENTRY(failed_command_consumes_no_transaction_number))
