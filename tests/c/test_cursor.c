/* Cursors: minigraf_query() and batches (minigraf.h, language.md §14.2). */
#include "support.h"

#define API_012 5012
#define API_017 5017

/* A database with :p0 … :p<n-1>, each [:pK :n K]. */
static MiniGrafDb *db_with_numbers(int n) {
    MiniGrafDb *db = open_memory_db();
    size_t cap = 64 + (size_t)n * 32;
    char *tx = malloc(cap);
    size_t len = (size_t)snprintf(tx, cap, "(transact [");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(tx + len, cap - len, "[:p%d :n %d]", i, i);
    snprintf(tx + len, cap - len, "])");
    EXPECT_TRANSACT(db, tx);
    free(tx);
    return db;
}

/* Number of rows in a batch text "[[..],[..]]" (rows hold no nested arrays
 * in these tests: one integer per row). */
static int batch_rows(const char *batch) {
    int rows = 0;
    for (const char *p = batch + 1; *p; p++)
        rows += *p == '[';
    return rows;
}

/* Takes the next batch and checks how many rows it holds. */
static void expect_batch_of_at(int line, MiniGrafCursor *c, size_t max, int rows) {
    char *b = minigraf_cursor_next_batch(c, max);
    if (b == NULL) {
        check_fail_int(__FILE__, line, "batch rows", -1, rows);
        return;
    }
    if (batch_rows(b) != rows)
        check_fail_int(__FILE__, line, b, batch_rows(b), rows);
    CHECK_STR_EQ(minigraf_cursor_last_error(c), NULL);
    minigraf_string_free(b);
}
#define EXPECT_BATCH_OF(c, max, rows) expect_batch_of_at(__LINE__, (c), (max), (rows))

/* The cursor is at its end: NULL with no error, and stays so. */
static void expect_end_at(int line, MiniGrafCursor *c) {
    for (int i = 0; i < 3; i++) {
        char *b = minigraf_cursor_next_batch(c, 10);
        if (b != NULL)
            check_fail_str(__FILE__, line, "batch after end", b, NULL);
        minigraf_string_free(b);
        if (minigraf_cursor_last_error(c) != NULL)
            check_fail_str(__FILE__, line, "error at end", minigraf_cursor_last_error(c), NULL);
        if (minigraf_cursor_last_error_code(c) != 0)
            check_fail_int(__FILE__, line, "code at end", minigraf_cursor_last_error_code(c), 0);
    }
}
#define EXPECT_END(c) expect_end_at(__LINE__, (c))

static const char *ALL_N = "(query [:find ?v :where [?e :n ?v]])";

TEST(batches_hold_at_most_n_rows) {
    MiniGrafDb *db = db_with_numbers(5);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    EXPECT_BATCH_OF(c, 2, 2);
    EXPECT_BATCH_OF(c, 2, 2);
    EXPECT_BATCH_OF(c, 2, 1);
    EXPECT_END(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(batch_size_zero_counts_as_one) {
    MiniGrafDb *db = db_with_numbers(2);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    EXPECT_BATCH_OF(c, 0, 1);
    EXPECT_BATCH_OF(c, 0, 1);
    EXPECT_END(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(batch_larger_than_answer_returns_everything_at_once) {
    MiniGrafDb *db = db_with_numbers(3);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    char *b = minigraf_cursor_next_batch(c, 1000);
    char *sorted = b ? json_sorted_array(b, NULL) : NULL;
    CHECK_STR_EQ(sorted, "[[0],[1],[2]]");
    free(sorted);
    minigraf_string_free(b);
    EXPECT_END(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(large_answer_streams_in_full_batches) {
    MiniGrafDb *db = db_with_numbers(2500);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    EXPECT_BATCH_OF(c, 1000, 1000);
    EXPECT_BATCH_OF(c, 1000, 1000);
    EXPECT_BATCH_OF(c, 1000, 500);
    EXPECT_END(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(empty_answer_ends_at_first_batch) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    EXPECT_END(c);
    char *vars = minigraf_cursor_vars(c);
    CHECK_STR_EQ(vars, "[\"?v\"]");
    minigraf_string_free(vars);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(rows_render_like_execute_results) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :friend :bob] "
                        "[:alice :score 10.5]])");
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e ?n ?f ?s :where "
                                           "[?e :person/name ?n] [?e :friend ?f] [?e :score ?s]])");
    REQUIRE(c != NULL);
    char *b = minigraf_cursor_next_batch(c, 10);
    CHECK_STR_EQ(b, "[[\"e340ebba-e050-5d3b-8c2e-5388ce184a79\",\"Alice\",\":bob\",10.5]]");
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* A row's cells of fixed width (refs, integers, booleans, nulls) are
 * written into room taken for the whole row; a text between them, longer
 * than that room, is appended and the room taken again after it. */
TEST(rows_mix_fixed_width_cells_and_long_texts) {
    MiniGrafDb *db = open_memory_db();
    char tx[1500], text[601];
    memset(text, 'x', 600);
    text[600] = '\0';
    text[300] = 'y';
    snprintf(tx, sizeof tx,
             "(transact [[:r :u #uuid \"01234567-89ab-cdef-fedc-ba9876543210\"] "
             "[:r :lo -9223372036854775808] [:r :hi 9223372036854775807] [:r :zero 0] "
             "[:r :neg -100] [:r :t true] [:r :f false] [:r :z nil] [:r :s \"%s\\\"\"] "
             "[:r :x 1.5] [:r :k :kw]])",
             text);
    EXPECT_TRANSACT(db, tx);
    MiniGrafCursor *c = minigraf_query(
        db, "(query [:find ?u ?lo ?s ?hi ?zero ?neg ?t ?f ?z ?x ?k :where [:r :u ?u] [:r :lo ?lo] "
            "[:r :hi ?hi] [:r :zero ?zero] [:r :neg ?neg] [:r :t ?t] [:r :f ?f] [:r :z ?z] "
            "[:r :s ?s] [:r :x ?x] [:r :k ?k]])");
    REQUIRE(c != NULL);
    char *b = minigraf_cursor_next_batch(c, 10), expected[1000];
    snprintf(expected, sizeof expected,
             "[[\"01234567-89ab-cdef-fedc-ba9876543210\",-9223372036854775808,\"%s\\\"\","
             "9223372036854775807,0,-100,true,false,null,1.5,\":kw\"]]",
             text);
    CHECK_STR_EQ(b, expected);
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Rows a block at a time (64 to the writer) where texts longer than the
 * room taken for a row sit among fixed-width cells: the room for the rest
 * of the block is taken again after each; integers of 1 to 19 digits. */
TEST(rows_of_a_block_with_long_texts_among_them) {
    enum { ROWS = 150, LONG = 700 };
    MiniGrafDb *db = open_memory_db();
    char text[LONG + 1], cell[LONG + 64];
    memset(text, 'q', LONG);
    text[LONG] = '\0';
    size_t cap = ROWS * (LONG + 96), len = 1;
    char *tx = malloc(cap), *expected = malloc(cap);
    REQUIRE(tx != NULL && expected != NULL);
    strcpy(expected, "[");
    for (int i = 0; i < ROWS; i++) {
        int64_t n = (int64_t)i * 61035156250000LL / (ROWS - 1) * (i % 2 ? -1 : 1) + i;
        const char *s = i % 7 == 3 ? text : "t";
        snprintf(tx, cap, "(transact [[:r%d :i %d] [:r%d :n %lld] [:r%d :s \"%s\"] [:r%d :b %s]])",
                 i, i, i, (long long)n, i, s, i, i % 2 ? "true" : "nil");
        EXPECT_TRANSACT(db, tx);
        snprintf(cell, sizeof cell, "%s[%d,%lld,\"%s\",%s]", i ? "," : "", i, (long long)n, s,
                 i % 2 ? "true" : "null");
        len += strlen(cell);
        REQUIRE(len < cap);
        strcat(expected, cell);
    }
    strcat(expected, "]");
    MiniGrafCursor *c = minigraf_query(
        db, "(query [:find ?i ?n ?s ?b :where [?e :i ?i] [?e :n ?n] [?e :s ?s] [?e :b ?b] "
            ":order-by [?i]])");
    REQUIRE(c != NULL);
    char *b = minigraf_cursor_next_batch(c, 1000);
    CHECK_STR_EQ(b, expected);
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    free(tx);
    free(expected);
    minigraf_close(db);
}

TEST(vars_lists_find_columns_as_compact_json) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?name ?age ?name :where "
                                           "[?e :person/name ?name] [?e :person/age ?age]])");
    REQUIRE(c != NULL);
    char *vars = minigraf_cursor_vars(c);
    CHECK_STR_EQ(vars, "[\"?name\",\"?age\",\"?name\"]");
    minigraf_string_free(vars);
    vars = minigraf_cursor_vars(c); /* may be asked again, also after the end */
    CHECK_STR_EQ(vars, "[\"?name\",\"?age\",\"?name\"]");
    minigraf_string_free(vars);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(answer_is_fixed_when_the_cursor_opens) {
    MiniGrafDb *db = db_with_numbers(2);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    EXPECT_TRANSACT(db, "(transact [[:late :n 99]])");
    EXPECT_RETRACT(db, "(retract [[:p0 :n 0]])");
    char *rows = drain_cursor(c, 1);
    char *sorted_then = rows ? json_sorted_array(rows, NULL) : NULL;
    CHECK_STR_EQ(sorted_then, "[[0],[1]]");
    free(sorted_then);
    minigraf_cursor_free(c);
    c = minigraf_query(db, ALL_N);
    char *now = c ? drain_cursor(c, 1000) : NULL;
    char *sorted_now = now ? json_sorted_array(now, NULL) : NULL;
    CHECK_STR_EQ(sorted_now, "[[1],[99]]");
    free(rows);
    free(now);
    free(sorted_now);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(cursor_outlives_database_close) {
    MiniGrafDb *db = db_with_numbers(3);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    minigraf_close(db);
    EXPECT_BATCH_OF(c, 2, 2);
    char *vars = minigraf_cursor_vars(c);
    CHECK_STR_EQ(vars, "[\"?v\"]");
    minigraf_string_free(vars);
    EXPECT_BATCH_OF(c, 2, 1);
    EXPECT_END(c);
    minigraf_cursor_free(c);
}

TEST(several_cursors_on_one_database_are_independent) {
    MiniGrafDb *db = db_with_numbers(4);
    MiniGrafCursor *a = minigraf_query(db, ALL_N);
    MiniGrafCursor *b = minigraf_query(db, ALL_N);
    REQUIRE(a != NULL && b != NULL);
    EXPECT_BATCH_OF(a, 3, 3);
    EXPECT_BATCH_OF(b, 1, 1);
    EXPECT_BATCH_OF(a, 3, 1);
    EXPECT_BATCH_OF(b, 10, 3);
    EXPECT_END(a);
    EXPECT_END(b);
    minigraf_cursor_free(a);
    minigraf_cursor_free(b);
    minigraf_close(db);
}

TEST(typed_format_tags_every_value_type) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:r :s \"x\"] [:r :i 1] [:r :f 1.5] [:r :b true] "
                        "[:r :k :kw] [:r :u #uuid \"550e8400-e29b-41d4-a716-446655440000\"]])");
    MiniGrafCursor *c = minigraf_query(db,
                                       "(query [:find ?e ?s ?i ?f ?b ?k ?u :where [?e :s ?s] "
                                       "[?e :i ?i] [?e :f ?f] [?e :b ?b] [?e :k ?k] [?e :u ?u]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED), 0);
    char *b = minigraf_cursor_next_batch(c, 10);
    CHECK_STR_EQ(b, "[[{\"type\":\"ref\",\"value\":\"d5d10247-7123-5ff0-8ef4-ef85e857dffe\"},"
                    "{\"type\":\"string\",\"value\":\"x\"},"
                    "{\"type\":\"integer\",\"value\":1},"
                    "{\"type\":\"float\",\"value\":1.5},"
                    "{\"type\":\"boolean\",\"value\":true},"
                    "{\"type\":\"keyword\",\"value\":\":kw\"},"
                    "{\"type\":\"ref\",\"value\":\"550e8400-e29b-41d4-a716-446655440000\"}]]");
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(typed_format_names_null_and_infinities) {
    MiniGrafDb *db = open_memory_db();
    char tx[1000] = "(transact [[:r :z nil] [:r :inf 1";
    for (int i = 0; i < 400; i++)
        strcat(tx, "0");
    strcat(tx, ".0]])");
    EXPECT_TRANSACT(db, tx);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?z ?f :where [:r :z ?z] [:r :inf ?f]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED), 0);
    char *b = minigraf_cursor_next_batch(c, 10);
    CHECK(b != NULL && strncmp(b, "[[{\"type\":\"null\"", 16) == 0);
    CHECK(b != NULL && strstr(b, "{\"type\":\"float\",\"value\":\"Infinity\"}]]") != NULL);
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(format_change_applies_to_following_batches) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :k :x] [:b :k :y]])");
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?k :where [_ :k ?k]])");
    REQUIRE(c != NULL);
    char *first = minigraf_cursor_next_batch(c, 1);
    CHECK(first != NULL && strncmp(first, "[[\":", 4) == 0);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED), 0);
    char *second = minigraf_cursor_next_batch(c, 1);
    const char *typed = "[[{\"type\":\"keyword\",\"value\":\":";
    CHECK(second != NULL && strncmp(second, typed, strlen(typed)) == 0);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_JSON), 0);
    minigraf_string_free(first);
    minigraf_string_free(second);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(unknown_format_fails_with_api_017) {
    MiniGrafDb *db = db_with_numbers(1);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK(minigraf_cursor_set_format(c, 2) != 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), API_017);
    CHECK(minigraf_cursor_set_format(c, -1) != 0);
    const char *msg = minigraf_cursor_last_error(c);
    CHECK(msg != NULL && strncmp(msg, "[API-017] ", 10) == 0);
    char *b = minigraf_cursor_next_batch(c, 5); /* still usable, default format */
    CHECK_STR_EQ(b, "[[0]]");
    CHECK_STR_EQ(minigraf_cursor_last_error(c), NULL);
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(query_of_a_non_query_command_fails_with_api_012_and_writes_nothing) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_query(db, "(transact [[:a :n 1]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_012);
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strncmp(msg, "[API-012] ", 10) == 0);
    CHECK(minigraf_query(db, "(retract [[:a :n 1]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_012);
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(query_parse_error_is_reported_on_the_database) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_query(db, "(query [:find ?x :where [?x :a 1]]") == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "PRS-005");
    CHECK(minigraf_query(db, "(frobnicate)") == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "PRS-011");
    minigraf_close(db);
}

TEST(successful_query_clears_the_database_error) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_query(db, "(frobnicate)") == NULL);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    CHECK(c != NULL);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* The database keeps the parse of a text run again: the same text gives
 * the answer of the data and rules of each run, and the same error. */
TEST(a_repeated_query_text_follows_data_rules_and_errors) {
    MiniGrafDb *db = db_with_numbers(2);
    const char *small = "(query [:find ?e :where (small ?e)])";
    const char *bad = "(query [:find ?x :where [?y :n 1]])";
    char *first_error = NULL;
    for (int run = 0; run < 4; run++) {
        if (run == 2)
            EXPECT_EXEC(db, "(rule [(small ?e) [?e :n ?v] [(< ?v 1)]])", "{\"ok\":true}");
        if (run == 3)
            EXPECT_TRANSACT(db, "(transact [[:q :n -1]])");
        MiniGrafCursor *c = minigraf_query(db, small);
        REQUIRE(c != NULL);
        char *rows = drain_cursor(c, 10);
        REQUIRE(rows != NULL);
        CHECK_INT_EQ(batch_rows(rows), run < 2 ? 0 : run == 2 ? 1 : 2);
        free(rows);
        minigraf_cursor_free(c);

        CHECK(minigraf_query(db, bad) == NULL);
        const char *msg = minigraf_last_error(db);
        REQUIRE(msg != NULL);
        if (!first_error)
            first_error = strdup(msg);
        CHECK_STR_EQ(msg, first_error);
    }
    free(first_error);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(a_repeated_query_text_follows_data_rules_and_errors),
           TEST_ENTRY(batches_hold_at_most_n_rows), TEST_ENTRY(batch_size_zero_counts_as_one),
           TEST_ENTRY(batch_larger_than_answer_returns_everything_at_once),
           TEST_ENTRY(large_answer_streams_in_full_batches),
           TEST_ENTRY(empty_answer_ends_at_first_batch),
           TEST_ENTRY(rows_render_like_execute_results),
           TEST_ENTRY(rows_mix_fixed_width_cells_and_long_texts),
           TEST_ENTRY(rows_of_a_block_with_long_texts_among_them),
           TEST_ENTRY(vars_lists_find_columns_as_compact_json),
           TEST_ENTRY(answer_is_fixed_when_the_cursor_opens),
           TEST_ENTRY(cursor_outlives_database_close),
           TEST_ENTRY(several_cursors_on_one_database_are_independent),
           TEST_ENTRY(typed_format_tags_every_value_type),
           TEST_ENTRY(typed_format_names_null_and_infinities),
           TEST_ENTRY(format_change_applies_to_following_batches),
           TEST_ENTRY(unknown_format_fails_with_api_017),
           TEST_ENTRY(query_of_a_non_query_command_fails_with_api_012_and_writes_nothing),
           TEST_ENTRY(query_parse_error_is_reported_on_the_database),
           TEST_ENTRY(successful_query_clears_the_database_error))
