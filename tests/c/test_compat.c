/* Source compatibility with the earlier minigraf C API: its int-returning
 * calls return 0 or -1 (the code stays on the handle), its *_last_error(NULL)
 * return NULL; 0.2.0 functions return the positive code. */
#include "support.h"

TEST(status_functions_return_minus_one_and_keep_the_code) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = minigraf_log_writer_create(t.path, NULL, NULL);
    REQUIRE(w != NULL);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), -1); /* not 5018 */
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), MINIGRAF_E_API_018);
    CHECK(strncmp(minigraf_log_writer_last_error(w), "[API-018] ", 10) == 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, "{}"), -1);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(w, "[]"), -1);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, 9), -1);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), MINIGRAF_E_API_018);
    uint64_t n = 0;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, NULL), -1);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);

    MiniGrafDb *db = open_memory_db();
    CHECK_INT_EQ(minigraf_current_tx_count(db, NULL), -1);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_current_tx_count(db, &n), 0);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, 7), -1);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED), 0);
    minigraf_cursor_free(c);
    CHECK_INT_EQ(minigraf_cursor_set_format(c, MINIGRAF_FORMAT_JSON), -1); /* freed */
    minigraf_close(db);
    CHECK_INT_EQ(minigraf_checkpoint(db), -1); /* closed */
    CHECK_INT_EQ(minigraf_current_tx_count(db, &n), -1);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_API_018);
    CHECK_INT_EQ(minigraf_checkpoint(NULL), -1);
    CHECK_INT_EQ(minigraf_current_tx_count(NULL, &n), -1);
    CHECK_INT_EQ(minigraf_log_writer_finish(NULL), -1);
    CHECK_INT_EQ(minigraf_cursor_set_format(NULL, 0), -1);
}

TEST(last_error_of_null_is_null) {
    CHECK(minigraf_last_error(NULL) == NULL);
    CHECK(minigraf_cursor_last_error(NULL) == NULL);
    CHECK(minigraf_fact_log_last_error(NULL) == NULL);
    CHECK(minigraf_log_writer_last_error(NULL) == NULL);
    /* the codes are still there */
    CHECK_INT_EQ(minigraf_last_error_code(NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_fact_log_last_error_code(NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(NULL), MINIGRAF_E_API_017);
}

TEST(new_functions_return_the_positive_code) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = NULL;
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path, NULL, &w, NULL), 0);
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path, NULL, &w, NULL), MINIGRAF_E_STG_043);
    MiniGrafDb *db = NULL;
    CHECK_INT_EQ(minigraf_open_v2(NULL, "{\"x\":1}", &db, NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_open_v2(NULL, NULL, &db, NULL), 0);
    CHECK_INT_EQ(minigraf_export(db, t.path, NULL), MINIGRAF_E_STG_043);
    CHECK_INT_EQ(minigraf_export(NULL, t.path, NULL), MINIGRAF_E_API_017);
    minigraf_close(db);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

/* A program written for the earlier API, unchanged: the way it tested
 * results (non-zero is failure, the message from *_last_error). */
TEST(an_earlier_program_runs_unchanged) {
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db != NULL);
    char *r = minigraf_execute(db, "(transact [[:a :n 1]])");
    CHECK(r != NULL);
    minigraf_string_free(r);
    uint64_t count = 0;
    if (minigraf_current_tx_count(db, &count) != 0)
        check_fail(__FILE__, __LINE__, minigraf_last_error(db));
    CHECK_INT_EQ(count, 1);
    CHECK(minigraf_last_error(db) == NULL);
    CHECK(minigraf_execute(db, "(nope)") == NULL);
    CHECK(minigraf_last_error(db) != NULL);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(status_functions_return_minus_one_and_keep_the_code),
           TEST_ENTRY(last_error_of_null_is_null),
           TEST_ENTRY(new_functions_return_the_positive_code),
           TEST_ENTRY(an_earlier_program_runs_unchanged))
