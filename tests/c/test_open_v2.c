/* minigraf_open_v2 and minigraf_log_writer_create_v2: constructors that
 * return the numeric code. */
#include "support.h"

TEST(open_v2_in_memory_and_file) {
    MiniGrafDb *db = (MiniGrafDb *)1;
    char *msg = (char *)1;
    CHECK_INT_EQ(minigraf_open_v2(NULL, NULL, &db, &msg), 0);
    CHECK(db != NULL && msg == NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :b 1]])");
    minigraf_close(db);

    temp_db_path t;
    temp_db_make(&t);
    CHECK_INT_EQ(minigraf_open_v2(t.path, "{\"synchronous\":\"normal\"}", &db, NULL), 0);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :b 1]])");
    /* the same file again in this process */
    MiniGrafDb *again = (MiniGrafDb *)1;
    int rc = minigraf_open_v2(t.path, NULL, &again, &msg);
    if (rc != 0) { /* STG-025 until shared stores land */
        CHECK(again == NULL);
        CHECK(msg != NULL && strncmp(msg, "[", 1) == 0);
        CHECK_STR_EQ(minigraf_error_code_name(rc), "STG-025");
        minigraf_string_free(msg);
    } else {
        minigraf_close(again);
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(open_v2_returns_the_code_and_the_message) {
    MiniGrafDb *db = (MiniGrafDb *)1;
    char *msg = NULL;
    CHECK_INT_EQ(minigraf_open_v2(NULL, "{\"nope\":1}", &db, &msg), MINIGRAF_E_API_017);
    CHECK(db == NULL);
    REQUIRE(msg != NULL);
    CHECK(strncmp(msg, "[API-017] ", 10) == 0);
    minigraf_string_free(msg);
    CHECK_INT_EQ(minigraf_open_v2(NULL, "{\"page_cache_size\":0}", &db, NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_open_v2(NULL, NULL, NULL, &msg), MINIGRAF_E_API_017);
    minigraf_string_free(msg);
    CHECK_INT_EQ(minigraf_open_v2("/nonexistent-dir-mg/x.graph", NULL, &db, NULL),
                 MINIGRAF_E_STG_010);
    CHECK(db == NULL);
    CHECK_INT_EQ(minigraf_open_v2(NULL, "\"\xc3\"", &db, NULL), MINIGRAF_E_API_017);
}

TEST(old_constructors_are_the_same_code_path) {
    char *msg = (char *)1; /* left untouched on success, as in 0.1 */
    MiniGrafDb *db = minigraf_open_with_options(NULL, NULL, &msg);
    CHECK(db != NULL && msg == (char *)1);
    minigraf_close(db);
    msg = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"nope\":1}", &msg) == NULL);
    CHECK(msg != NULL && strncmp(msg, "[API-017] ", 10) == 0);
    minigraf_string_free(msg);
    CHECK(minigraf_open_with_options(NULL, "{\"nope\":1}", NULL) == NULL);
}

TEST(log_writer_create_v2) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = (MiniGrafLogWriter *)1;
    char *msg = (char *)1;
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path, NULL, &w, &msg), 0);
    CHECK(w != NULL && msg == NULL);
    MiniGrafLogWriter *w2 = (MiniGrafLogWriter *)1;
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path, NULL, &w2, &msg), MINIGRAF_E_STG_043);
    CHECK(w2 == NULL);
    CHECK(msg != NULL && strncmp(msg, "[STG-043] ", 10) == 0);
    minigraf_string_free(msg);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    char other[128];
    snprintf(other, sizeof other, "%s/other.graph", t.dir);
    CHECK_INT_EQ(minigraf_log_writer_create_v2(other, "{\"read_only\":true}", &w2, NULL),
                 MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_log_writer_create_v2(other, NULL, NULL, NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_log_writer_create_v2(NULL, NULL, &w2, NULL), MINIGRAF_E_API_017);
    /* the 0.1 form over the same path */
    CHECK(minigraf_log_writer_create(t.path, NULL, NULL) == NULL);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(open_v2_in_memory_and_file),
           TEST_ENTRY(open_v2_returns_the_code_and_the_message),
           TEST_ENTRY(old_constructors_are_the_same_code_path), TEST_ENTRY(log_writer_create_v2))
