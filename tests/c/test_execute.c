/* minigraf_execute(): the result JSON of every command and the encoding of
 * every value type, exactly as language.md §14.1 writes them. */
#include <time.h>

#include "support.h"

/* Stores `value` as [:v :x <value>] in a fresh database and checks that
 * reading it back renders as `json`. */
static void expect_value_at(const char *file, int line, const char *value, const char *json) {
    MiniGrafDb *db = minigraf_open_in_memory();
    char tx[512], want[512];
    snprintf(tx, sizeof tx, "(transact [[:v :x %s]])", value);
    snprintf(want, sizeof want, "{\"variables\":[\"?x\"],\"results\":[[%s]]}", json);
    char *got = exec_at(file, line, db, tx);
    minigraf_string_free(got);
    if (got != NULL)
        expect_exec_at(file, line, db, "(query [:find ?x :where [:v :x ?x]])", want);
    minigraf_close(db);
}
#define EXPECT_VALUE(value, json) expect_value_at(__FILE__, __LINE__, (value), (json))

TEST(transact_returns_wall_clock_ms_not_the_counter) {
    MiniGrafDb *db = open_memory_db();
    /* The engine's clock never goes backwards within a process, so after a
     * system clock step it may stay ahead of time(NULL) for a while: the
     * bounds allow five minutes either way, still far from a counter. */
    uint64_t before = ((uint64_t)time(NULL) - 300) * 1000;
    uint64_t ms = EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"]])");
    uint64_t after = ((uint64_t)time(NULL) + 300) * 1000;
    CHECK(ms >= before && ms <= after);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(retract_returns_retracted_wall_clock_ms) {
    MiniGrafDb *db = open_memory_db();
    uint64_t t1 = EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    uint64_t t2 = EXPECT_RETRACT(db, "(retract [[:k :v 1]])");
    CHECK(t2 >= t1);
    minigraf_close(db);
}

TEST(empty_transact_is_legal_and_returns_transacted) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [])");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(query_result_lists_variables_before_results) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]])");
    char *got = EXEC(db, "(query [:find ?name ?age :where [?e :person/name ?name] "
                         "[?e :person/age ?age]])");
    CHECK_STR_EQ(got, "{\"variables\":[\"?name\",\"?age\"],\"results\":[[\"Alice\",30]]}");
    minigraf_string_free(got);
    minigraf_close(db);
}

TEST(query_without_matches_has_empty_results_array) {
    MiniGrafDb *db = open_memory_db();
    char *got = EXEC(db, "(query [:find ?x :where [?e :no/such ?x]])");
    CHECK_STR_EQ(got, "{\"variables\":[\"?x\"],\"results\":[]}");
    minigraf_string_free(got);
    minigraf_close(db);
}

TEST(same_variable_may_appear_twice_in_find) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n \"A\"]])");
    EXPECT_EXEC(db, "(query [:find ?n ?n :where [_ :n ?n]])",
                "{\"variables\":[\"?n\",\"?n\"],\"results\":[[\"A\",\"A\"]]}");
    minigraf_close(db);
}

TEST(find_without_specs_yields_one_empty_row_per_solution) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:b :n 2]])");
    EXPECT_EXEC(db, "(query [:find :where [?e :n ?v]])", "{\"variables\":[],\"results\":[[],[]]}");
    minigraf_close(db);
}

TEST(strings_encode_as_json_strings) {
    EXPECT_VALUE("\"Alice\"", "\"Alice\"");
    EXPECT_VALUE("\"\"", "\"\"");
    EXPECT_VALUE("\"a/b c\"", "\"a/b c\"");
}

TEST(strings_escape_quote_backslash_and_control_characters) {
    EXPECT_VALUE("\"say \\\"hi\\\"\"", "\"say \\\"hi\\\"\"");
    EXPECT_VALUE("\"back\\\\slash\"", "\"back\\\\slash\"");
    EXPECT_VALUE("\"line\\nbreak\\ttab\\rcr\"", "\"line\\nbreak\\ttab\\rcr\"");
    EXPECT_VALUE("\"raw\nnewline\"", "\"raw\\nnewline\"");
    EXPECT_VALUE("\"ctl\x01here\"", "\"ctl\\u0001here\"");
    EXPECT_VALUE("\"unit\x1fsep\"", "\"unit\\u001fsep\"");
}

TEST(strings_unknown_escape_yields_the_character) {
    EXPECT_VALUE("\"\\q\"", "\"q\"");
    EXPECT_VALUE("\"\\u0041\"", "\"u0041\"");
}

TEST(strings_keep_non_ascii_as_raw_utf8) {
    EXPECT_VALUE("\"caf\xc3\xa9\"", "\"caf\xc3\xa9\"");   /* é precomposed */
    EXPECT_VALUE("\"cafe\xcc\x81\"", "\"cafe\xcc\x81\""); /* e + U+0301 */
    EXPECT_VALUE("\"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\"",  /* Hebrew, RTL */
                 "\"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\"");
    EXPECT_VALUE("\"\xf0\x9f\x98\x80 \xf0\x9d\x84\x9e\"", /* U+1F600 U+1D11E */
                 "\"\xf0\x9f\x98\x80 \xf0\x9d\x84\x9e\"");
    EXPECT_VALUE("\"\xe4\xb8\xad\xe6\x96\x87\"", "\"\xe4\xb8\xad\xe6\x96\x87\"");
}

TEST(integers_encode_exactly_including_int64_edges) {
    EXPECT_VALUE("30", "30");
    EXPECT_VALUE("0", "0");
    EXPECT_VALUE("-0", "0");
    EXPECT_VALUE("-7", "-7");
    EXPECT_VALUE("9007199254740993", "9007199254740993"); /* 2^53 + 1 */
    EXPECT_VALUE("9223372036854775807", "9223372036854775807");
    EXPECT_VALUE("-9223372036854775808", "-9223372036854775808");
    char text[24];
    for (int digits = 1; digits <= 18; digits++) { /* either side of every power of ten */
        long long p = 1;
        for (int d = 0; d < digits; d++)
            p *= 10;
        long long around[] = {p - 1, p, p + 1, -(p - 1), -p, -(p + 1)};
        for (size_t k = 0; k < sizeof around / sizeof around[0]; k++) {
            snprintf(text, sizeof text, "%lld", around[k]);
            EXPECT_VALUE(text, text);
        }
    }
}

TEST(integer_literal_out_of_range_is_a_parse_error) {
    MiniGrafDb *db = open_memory_db();
    char *got = minigraf_execute(db, "(transact [[:a :n 99999999999999999999]])");
    CHECK(got == NULL);
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strstr(msg, "Integer literal out of range: 99999999999999999999"));
    got = minigraf_execute(db, "(transact [[:a :n 9223372036854775808]])");
    CHECK(got == NULL);
    got = minigraf_execute(db, "(transact [[:a :n -9223372036854775809]])");
    CHECK(got == NULL);
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(floats_use_shortest_round_trip_form) {
    EXPECT_VALUE("10.5", "10.5");
    EXPECT_VALUE("-0.5", "-0.5");
    EXPECT_VALUE("0.1", "0.1");
    EXPECT_VALUE("3.14159", "3.14159");
    EXPECT_VALUE("0.30000000000000004", "0.30000000000000004");
    EXPECT_VALUE("0.1000000000000000055511151231257827", "0.1");
}

TEST(integral_floats_keep_point_zero) {
    EXPECT_VALUE("95.0", "95.0");
    EXPECT_VALUE("3.", "3.0");
    EXPECT_VALUE("0.0", "0.0");
    EXPECT_VALUE("-0.0", "-0.0");
    EXPECT_VALUE("-12.000", "-12.0");
}

TEST(floats_of_large_and_small_magnitude_use_exponents) {
    EXPECT_VALUE("1000000000000000000000.0", "1e21");
    EXPECT_VALUE("1500000000000000000000.0", "1.5e21");
    EXPECT_VALUE("0.0000001", "1e-7");
    EXPECT_VALUE("0.000000125", "1.25e-7");
    EXPECT_VALUE("-0.0000001", "-1e-7");
}

TEST(largest_double_literal_round_trips) {
    char literal[400] = "17976931348623157";
    for (int i = 0; i < 292; i++)
        strcat(literal, "0");
    strcat(literal, ".0");
    EXPECT_VALUE(literal, "1.7976931348623157e308");
}

TEST(float_literal_overflow_becomes_infinity_encoded_as_null) {
    char literal[420] = "1";
    for (int i = 0; i < 400; i++)
        strcat(literal, "0");
    strcat(literal, ".0");
    EXPECT_VALUE(literal, "null");
    char negative[422] = "-";
    strcat(negative, literal);
    EXPECT_VALUE(negative, "null");
}

TEST(booleans_and_nil_encode_as_json_literals) {
    EXPECT_VALUE("true", "true");
    EXPECT_VALUE("false", "false");
    EXPECT_VALUE("nil", "null");
}

TEST(keywords_encode_with_their_leading_colon) {
    EXPECT_VALUE(":active", "\":active\"");
    EXPECT_VALUE(":status/active", "\":status/active\"");
    EXPECT_VALUE(":alive?", "\":alive?\"");
    EXPECT_VALUE(":bob", "\":bob\"");
}

TEST(uuid_refs_encode_as_lowercase_hyphenated_strings) {
    EXPECT_VALUE("#uuid \"550e8400-e29b-41d4-a716-446655440000\"",
                 "\"550e8400-e29b-41d4-a716-446655440000\"");
    EXPECT_VALUE("#uuid \"550E8400-E29B-41D4-A716-446655440000\"",
                 "\"550e8400-e29b-41d4-a716-446655440000\"");
}

TEST(keyword_entities_encode_as_their_v5_uuid) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :n 1] [:bob :n 2] [:a :n 3] [:e1 :n 4] "
                        "[:carol :n 5] [:550e8400-e29b-41d4-a716-446655440000 :n 6]])");
    EXPECT_EXEC(db, "(query [:find ?e ?v :where [?e :n ?v]])",
                "{\"variables\":[\"?e\",\"?v\"],\"results\":["
                "[\"e340ebba-e050-5d3b-8c2e-5388ce184a79\",1],"
                "[\"2340101d-cda1-5ebe-a64b-0d27506374ef\",2],"
                "[\"ddac7794-6537-5d40-a911-e7998b77f717\",3],"
                "[\"eb723470-492e-5f57-a568-d7a4362287c8\",4],"
                "[\"bb8e4db4-5f3b-579f-accb-f19c3f3c3031\",5],"
                "[\"550e8400-e29b-41d4-a716-446655440000\",6]]}");
    minigraf_close(db);
}

TEST(attribute_variable_binds_the_attribute_keyword) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]])");
    EXPECT_EXEC(db, "(query [:find ?a :where [:alice ?a _]])",
                "{\"variables\":[\"?a\"],\"results\":[[\":person/name\"],[\":person/age\"]]}");
    minigraf_close(db);
}

TEST(one_row_holds_values_of_every_type) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:r :s \"x\"] [:r :i 1] [:r :f 1.5] [:r :b true] "
                        "[:r :k :kw] [:r :u #uuid \"550e8400-e29b-41d4-a716-446655440000\"] "
                        "[:r :z nil]])");
    EXPECT_EXEC(db,
                "(query [:find ?s ?i ?f ?b ?k ?u ?z :where [:r :s ?s] [:r :i ?i] "
                "[:r :f ?f] [:r :b ?b] [:r :k ?k] [:r :u ?u] [:r :z ?z]])",
                "{\"variables\":[\"?s\",\"?i\",\"?f\",\"?b\",\"?k\",\"?u\",\"?z\"],"
                "\"results\":[[\"x\",1,1.5,true,\":kw\","
                "\"550e8400-e29b-41d4-a716-446655440000\",null]]}");
    minigraf_close(db);
}

TEST(commas_and_comments_are_whitespace) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a, :n, 1]] ; a comment\n)");
    EXPECT_EXEC(db, "(query [:find ?v\n ; comment line\n :where [:a :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(transact_returns_wall_clock_ms_not_the_counter),
           TEST_ENTRY(retract_returns_retracted_wall_clock_ms),
           TEST_ENTRY(empty_transact_is_legal_and_returns_transacted),
           TEST_ENTRY(query_result_lists_variables_before_results),
           TEST_ENTRY(query_without_matches_has_empty_results_array),
           TEST_ENTRY(same_variable_may_appear_twice_in_find),
           TEST_ENTRY(find_without_specs_yields_one_empty_row_per_solution),
           TEST_ENTRY(strings_encode_as_json_strings),
           TEST_ENTRY(strings_escape_quote_backslash_and_control_characters),
           TEST_ENTRY(strings_unknown_escape_yields_the_character),
           TEST_ENTRY(strings_keep_non_ascii_as_raw_utf8),
           TEST_ENTRY(integers_encode_exactly_including_int64_edges),
           TEST_ENTRY(integer_literal_out_of_range_is_a_parse_error),
           TEST_ENTRY(floats_use_shortest_round_trip_form),
           TEST_ENTRY(integral_floats_keep_point_zero),
           TEST_ENTRY(floats_of_large_and_small_magnitude_use_exponents),
           TEST_ENTRY(largest_double_literal_round_trips),
           TEST_ENTRY(float_literal_overflow_becomes_infinity_encoded_as_null),
           TEST_ENTRY(booleans_and_nil_encode_as_json_literals),
           TEST_ENTRY(keywords_encode_with_their_leading_colon),
           TEST_ENTRY(uuid_refs_encode_as_lowercase_hyphenated_strings),
           TEST_ENTRY(keyword_entities_encode_as_their_v5_uuid),
           TEST_ENTRY(attribute_variable_binds_the_attribute_keyword),
           TEST_ENTRY(one_row_holds_values_of_every_type),
           TEST_ENTRY(commas_and_comments_are_whitespace))
