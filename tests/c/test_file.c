/* File-backed databases: checkpoint, close, reopen, durability and damaged
 * files (minigraf.h; language.md §17). */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "support.h"

#define STG_025 3025

static MiniGrafDb *open_file_at(int line, const char *path) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
    if (db == NULL)
        check_fail_str(__FILE__, line, "open file database", error, NULL);
    minigraf_string_free(error);
    return db;
}
#define OPEN_FILE(path) open_file_at(__LINE__, (path))

static void write_file(const char *path, const char *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        check_fail(__FILE__, __LINE__, path);
        return;
    }
    fwrite(bytes, 1, len, f);
    fclose(f);
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Expects opening `path` to fail with a storage (STG) error. */
static void expect_storage_error_at(int line, const char *path) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
    if (db != NULL) {
        check_fail(__FILE__, line, "damaged file must not open");
        minigraf_close(db);
    }
    if (error == NULL || strncmp(error, "[STG-", 5) != 0)
        check_fail_str(__FILE__, line, "storage error", error, "[STG-...] ...");
    minigraf_string_free(error);
}

#define ALL_VALUES_TX                                                                   \
    "(transact [[:r :s \"h\xc3\xa9llo \xf0\x9f\x98\x80\"] [:r :i 9223372036854775807] " \
    "[:r :j -9223372036854775808] [:r :f 10.5] [:r :b false] [:r :k :kw] "              \
    "[:r :u #uuid \"550e8400-e29b-41d4-a716-446655440000\"] [:r :z nil]])"
#define ALL_VALUES_Q                                                                 \
    "(query [:find ?s ?i ?j ?f ?b ?k ?u ?z :where [:r :s ?s] [:r :i ?i] [:r :j ?j] " \
    "[:r :f ?f] [:r :b ?b] [:r :k ?k] [:r :u ?u] [:r :z ?z]])"
#define ALL_VALUES_R                                                                    \
    "{\"variables\":[\"?s\",\"?i\",\"?j\",\"?f\",\"?b\",\"?k\",\"?u\",\"?z\"],"         \
    "\"results\":[[\"h\xc3\xa9llo \xf0\x9f\x98\x80\",9223372036854775807,"              \
    "-9223372036854775808,10.5,false,\":kw\",\"550e8400-e29b-41d4-a716-446655440000\"," \
    "null]]}"

TEST(checkpoint_close_reopen_keeps_every_value) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, ALL_VALUES_TX);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    minigraf_close(db);
    db = OPEN_FILE(t.path);
    if (db != NULL) {
        EXPECT_EXEC(db, ALL_VALUES_Q, ALL_VALUES_R);
        CHECK_INT_EQ(tx_count(db), 1);
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(close_without_checkpoint_keeps_committed_data) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    EXPECT_TRANSACT(db, "(transact [[:a :n 2]])");
    minigraf_close(db);
    db = OPEN_FILE(t.path);
    if (db != NULL) {
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[1],[2]]}");
        CHECK_INT_EQ(tx_count(db), 2);
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(reopen_preserves_tx_count_history_and_retractions) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    EXPECT_RETRACT(db, "(retract [[:k :v 1]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} "
                        "[[:k :w :old]])");
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    EXPECT_TRANSACT(db, "(transact [])"); /* after the checkpoint: in the log only */
    minigraf_close(db);
    db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(tx_count(db), 4);
    EXPECT_EXEC(db, "(query [:find ?v :where [:k :v ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :where [:k :v ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    EXPECT_EXEC(db, "(query [:find ?w :valid-at \"2023-03-01\" :where [:k :w ?w]])",
                "{\"variables\":[\"?w\"],\"results\":[[\":old\"]]}");
    EXPECT_TRANSACT(db, "(transact [[:k :v 5]])");
    CHECK_INT_EQ(tx_count(db), 5);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(checkpoint_of_in_memory_database_is_a_no_op) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(committed_data_survives_a_process_that_never_closes) {
    temp_db_path t;
    temp_db_make(&t);
    pid_t child = fork();
    if (child == 0) {
        MiniGrafDb *db = minigraf_open(t.path);
        char *r = db ? minigraf_execute(db, "(transact [[:a :n 1]])") : NULL;
        int ok = r != NULL;
        minigraf_string_free(r);
        _exit(ok ? 0 : 1); /* no close, no checkpoint */
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    MiniGrafDb *db = OPEN_FILE(t.path);
    if (db != NULL) {
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[1]]}");
        CHECK_INT_EQ(tx_count(db), 1);
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(truncated_log_tail_is_tolerated) {
    temp_db_path t;
    temp_db_make(&t);
    pid_t child = fork();
    if (child == 0) {
        MiniGrafDb *db = minigraf_open(t.path);
        char *a = db ? minigraf_execute(db, "(transact [[:a :n 1]])") : NULL;
        char *b = db ? minigraf_execute(db, "(transact [[:a :n 2]])") : NULL;
        int ok = a != NULL && b != NULL;
        minigraf_string_free(a);
        minigraf_string_free(b);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Cut into the last commit: of the log sidecar if there is one, else of
     * the main file (whose tail is then the log). */
    char wal[128];
    snprintf(wal, sizeof wal, "%s.wal", t.path);
    const char *log = file_size(wal) > 3 ? wal : t.path;
    long size = file_size(log);
    REQUIRE(size > 3);
    CHECK(truncate(log, size - 3) == 0);
    MiniGrafDb *db = OPEN_FILE(t.path);
    if (db != NULL) {
        EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[1]]}");
        CHECK_INT_EQ(tx_count(db), 1);
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(garbage_file_fails_with_storage_error) {
    temp_db_path t;
    temp_db_make(&t);
    char junk[8192];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 131 + 7);
    write_file(t.path, junk, sizeof junk);
    expect_storage_error_at(__LINE__, t.path);
    CHECK(minigraf_open(t.path) == NULL);
    temp_db_remove(&t);
}

TEST(short_file_fails_with_storage_error) {
    temp_db_path t;
    temp_db_make(&t);
    write_file(t.path, "not a db", 8);
    expect_storage_error_at(__LINE__, t.path);
    temp_db_remove(&t);
}

TEST(damaged_database_header_fails_with_storage_error) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    minigraf_close(db);
    int fd = open(t.path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, "XXXXXXXX", 8, 0) == 8);
    if (fd >= 0)
        close(fd);
    expect_storage_error_at(__LINE__, t.path);
    temp_db_remove(&t);
}

/* Since 0.2.0 the second open shares the first one's store
 * (tests/c/test_shared_store.c has the rest). */
TEST(second_open_of_one_file_in_a_process_shares_the_store) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = OPEN_FILE(t.path);
    REQUIRE(db != NULL);
    char *error = NULL;
    MiniGrafDb *again = minigraf_open_with_options(t.path, NULL, &error);
    CHECK(again != NULL && again != db);
    CHECK(error == NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    EXPECT_EXEC(again, "(query [:find ?v :where [:a :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(again);
    minigraf_close(db);
    db = OPEN_FILE(t.path); /* free again once closed */
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(checkpoint_close_reopen_keeps_every_value),
           TEST_ENTRY(close_without_checkpoint_keeps_committed_data),
           TEST_ENTRY(reopen_preserves_tx_count_history_and_retractions),
           TEST_ENTRY(checkpoint_of_in_memory_database_is_a_no_op),
           TEST_ENTRY(committed_data_survives_a_process_that_never_closes),
           TEST_ENTRY(truncated_log_tail_is_tolerated),
           TEST_ENTRY(garbage_file_fails_with_storage_error),
           TEST_ENTRY(short_file_fails_with_storage_error),
           TEST_ENTRY(damaged_database_header_fails_with_storage_error),
           TEST_ENTRY(second_open_of_one_file_in_a_process_shares_the_store))
