/* minigraf_export: a database copied into a new file in one call. */
#include <sys/stat.h>

#include "log_support.h"
#include "support.h"

/* Assertions, retractions, valid-time windows, every value type and empty
 * transactions, a trailing one included. */
static void fill(MiniGrafDb *db) {
    EXPECT_TRANSACT(db, "(transact [[:alice :name \"Alice\"] [:alice :age 30] [:alice :friend :bob]"
                        " [:bob :name \"Bob\"]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"}"
                        " [[:carol :status :active]])");
    EXPECT_RETRACT(db, "(retract [[:alice :age 30]])");
    EXPECT_TRANSACT(db, "(transact [])");
    EXPECT_TRANSACT(db, "(transact [[:v :i 9223372036854775807] [:v :f 2.5] [:v :b false]"
                        " [:v :k :a/b] [:v :s \":a/b\"] [:v :n nil]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :age 31]])");
    EXPECT_TRANSACT(db, "(transact [])");
    EXPECT_TRANSACT(db, "(transact [])");
}

static const char *const QUERIES[] = {
    "(query [:find ?e ?a ?v :where [?e ?a ?v]])",
    "(query [:find ?e ?a ?v :as-of 1 :where [?e ?a ?v]])",
    "(query [:find ?e ?a ?v :as-of 3 :where [?e ?a ?v]])",
    "(query [:find ?e ?a ?v :as-of 5 :where [?e ?a ?v]])",
    "(query [:find ?s :valid-at \"2023-03-01T00:00:00Z\" :where [:carol :status ?s]])",
    "(query [:find ?s :where [:carol :status ?s]])",
    "(query [:find ?e ?v ?t :valid-at :any-valid-time :where [?e :age ?v] [?e :db/tx-count ?t]])",
};

static void expect_same_answers(MiniGrafDb *a, MiniGrafDb *b) {
    for (size_t i = 0; i < sizeof QUERIES / sizeof QUERIES[0]; i++) {
        char *x = EXEC(a, QUERIES[i]), *y = EXEC(b, QUERIES[i]);
        if (x && y) {
            char *cx = canonical_result(x), *cy = canonical_result(y);
            if (strcmp(cx, cy) != 0)
                check_fail_str(__FILE__, __LINE__, QUERIES[i], cy, cx);
            free(cx);
            free(cy);
        }
        minigraf_string_free(x);
        minigraf_string_free(y);
    }
    CHECK_INT_EQ(tx_count(a), tx_count(b));
}

TEST(export_then_open_answers_every_query_the_same) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = open_memory_db();
    fill(db);
    CHECK_INT_EQ(tx_count(db), 8);
    CHECK_INT_EQ(minigraf_export(db, t.path, NULL), 0);
    CHECK(minigraf_last_error(db) == NULL);
    MiniGrafDb *copy = minigraf_open(t.path);
    REQUIRE(copy != NULL);
    expect_same_answers(db, copy);
    CHECK_INT_EQ(tx_count(copy), 8); /* the trailing empty transactions too */
    char *a = log_summary_at(__FILE__, __LINE__, db, NULL);
    char *b = log_summary_at(__FILE__, __LINE__, copy, NULL);
    CHECK_STR_EQ(b, a); /* the same records, retractions included */
    free(a);
    free(b);
    minigraf_close(copy);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(export_of_a_file_and_of_a_read_only_database) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    fill(db);
    minigraf_close(db);
    char *error = NULL;
    db = minigraf_open_with_options(t.path, "{\"read_only\":true}", &error);
    REQUIRE(db != NULL);
    char copy_path[128];
    snprintf(copy_path, sizeof copy_path, "%s/copy.graph", t.dir);
    CHECK_INT_EQ(minigraf_export(db, copy_path, "{\"synchronous\":\"full\"}"), 0);
    MiniGrafDb *copy = minigraf_open(copy_path);
    REQUIRE(copy != NULL);
    expect_same_answers(db, copy);
    minigraf_close(copy);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(an_empty_database_exports_to_an_empty_copy) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [])");
    CHECK_INT_EQ(minigraf_export(db, t.path, NULL), 0);
    MiniGrafDb *copy = minigraf_open(t.path);
    REQUIRE(copy != NULL);
    CHECK_INT_EQ(tx_count(copy), 1);
    minigraf_close(copy);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(existing_target_is_stg_043_and_untouched) {
    temp_db_path t;
    temp_db_make(&t);
    FILE *f = fopen(t.path, "w");
    REQUIRE(f != NULL);
    fputs("keep", f);
    fclose(f);
    MiniGrafDb *db = open_memory_db();
    fill(db);
    CHECK_INT_EQ(minigraf_export(db, t.path, NULL), MINIGRAF_E_STG_043);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_STG_043);
    CHECK(strncmp(minigraf_last_error(db), "[STG-043] ", 10) == 0);
    struct stat st;
    CHECK(stat(t.path, &st) == 0 && st.st_size == 4);
    /* the database goes on as before */
    CHECK_INT_EQ(tx_count(db), 8);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(bad_arguments) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = open_memory_db();
    CHECK_INT_EQ(minigraf_export(NULL, t.path, NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_export(db, NULL, NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_export(db, "", NULL), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_export(db, t.path, "{\"read_only\":true}"), MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_API_017);
    struct stat st;
    CHECK(stat(t.path, &st) != 0); /* nothing created */
    char bad[128];
    snprintf(bad, sizeof bad, "%s/no/such/dir.graph", t.dir);
    CHECK(minigraf_export(db, bad, NULL) != 0);
    minigraf_close(db);
    CHECK_INT_EQ(minigraf_export(db, t.path, NULL), MINIGRAF_E_API_018);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(export_then_open_answers_every_query_the_same),
           TEST_ENTRY(export_of_a_file_and_of_a_read_only_database),
           TEST_ENTRY(an_empty_database_exports_to_an_empty_copy),
           TEST_ENTRY(existing_target_is_stg_043_and_untouched), TEST_ENTRY(bad_arguments))
