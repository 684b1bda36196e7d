/* Opening databases: in memory, file-backed, and every option of
 * minigraf_open_with_options() (minigraf.h, language.md §16, §17). */
#include "support.h"

#define API_017 5017
#define API_014 5014

/* Opens with `options` and expects failure with `code` in *error_out. */
static void expect_open_fails_at(const char *file, int line, const char *path, const char *options,
                                 const char *code) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "[%s] ", code);
    if (db != NULL) {
        check_fail_str(file, line, options, "opened", code);
        minigraf_close(db);
    }
    if (error == NULL || strncmp(error, prefix, strlen(prefix)) != 0)
        check_fail_str(file, line, options, error, prefix);
    minigraf_string_free(error);
}
#define EXPECT_OPEN_FAILS(options, code) \
    expect_open_fails_at(__FILE__, __LINE__, NULL, (options), (code))

/* Opens an in-memory database with `options`, which must succeed. */
static MiniGrafDb *open_with(const char *options) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(NULL, options, &error);
    if (db == NULL) {
        check_fail(__FILE__, __LINE__, options);
        fprintf(stderr, "    error: %s\n", error ? error : "NULL");
        minigraf_string_free(error);
    }
    return db;
}

TEST(in_memory_database_starts_empty_with_tx_count_zero) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    CHECK_INT_EQ(tx_count(db), 0);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), 0);
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :a ?v]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(in_memory_databases_are_independent) {
    MiniGrafDb *a = open_memory_db(), *b = open_memory_db();
    REQUIRE(a != NULL && b != NULL);
    EXPECT_TRANSACT(a, "(transact [[:x :n 1]])");
    EXPECT_EXEC(b, "(query [:find ?n :where [:x :n ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[]}");
    CHECK_INT_EQ(tx_count(b), 0);
    minigraf_close(a);
    minigraf_close(b);
}

TEST(open_with_options_null_path_is_in_memory) {
    MiniGrafDb *a = open_with(NULL), *b = minigraf_open_with_options(NULL, NULL, NULL);
    CHECK(a != NULL);
    CHECK(b != NULL);
    if (a && b) {
        EXPECT_TRANSACT(a, "(transact [[:x :n 1]])");
        EXPECT_EXEC(b, "(query [:find ?n :where [:x :n ?n]])",
                    "{\"variables\":[\"?n\"],\"results\":[]}");
    }
    minigraf_close(a);
    minigraf_close(b);
}

TEST(open_with_empty_options_object_uses_defaults) {
    MiniGrafDb *db = open_with("{}");
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(open_accepts_every_documented_option_key) {
    const char *each[] = {
        "{\"read_only\":false}",
        "{\"read_only\":true}",
        "{\"max_derived_facts\":1}",
        "{\"max_derived_facts\":1000000}",
        "{\"max_results\":1}",
        "{\"max_results\":5000000}",
        "{\"read_only\":false,\"max_derived_facts\":10,\"max_results\":20}",
        " { \"max_results\" : 7 , \"read_only\" : false } ",
    };
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        MiniGrafDb *db = open_with(each[i]);
        CHECK(db != NULL);
        minigraf_close(db);
    }
}

TEST(read_only_false_allows_writes) {
    MiniGrafDb *db = open_with("{\"read_only\":false}");
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    EXPECT_RETRACT(db, "(retract [[:x :n 1]])");
    minigraf_close(db);
}

TEST(read_only_database_rejects_transact_and_retract_with_api_014) {
    MiniGrafDb *db = open_with("{\"read_only\":true}");
    REQUIRE(db != NULL);
    EXPECT_ERROR(db, "(transact [[:x :n 1]])", "API-014");
    CHECK_INT_EQ(minigraf_last_error_code(db), API_014);
    EXPECT_ERROR(db, "(transact [])", "API-014");
    EXPECT_ERROR(db, "(retract [[:x :n 1]])", "API-014");
    CHECK_INT_EQ(tx_count(db), 0);
    EXPECT_EXEC(db, "(query [:find ?n :where [:x :n ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(read_only_file_database_reads_but_does_not_write) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    minigraf_close(db);

    char *error = NULL;
    db = minigraf_open_with_options(t.path, "{\"read_only\":true}", &error);
    CHECK_STR_EQ(error, NULL);
    if (db != NULL) {
        EXPECT_EXEC(db, "(query [:find ?n :where [:x :n ?n]])",
                    "{\"variables\":[\"?n\"],\"results\":[[1]]}");
        EXPECT_ERROR(db, "(transact [[:x :n 2]])", "API-014");
        CHECK_INT_EQ(tx_count(db), 1);
    }
    minigraf_close(db);
    minigraf_string_free(error);
    temp_db_remove(&t);
}

TEST(unknown_option_key_fails_with_api_017) {
    EXPECT_OPEN_FAILS("{\"readonly\":true}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_results\":5,\"cache_size\":10}", "API-017");
    EXPECT_OPEN_FAILS("{\"\":1}", "API-017");
}

TEST(malformed_options_json_fails_with_api_017) {
    EXPECT_OPEN_FAILS("", "API-017");
    EXPECT_OPEN_FAILS("{", "API-017");
    EXPECT_OPEN_FAILS("not json", "API-017");
    EXPECT_OPEN_FAILS("{\"read_only\":true,}", "API-017");
    EXPECT_OPEN_FAILS("{\"read_only\" true}", "API-017");
    EXPECT_OPEN_FAILS("{read_only:true}", "API-017");
    EXPECT_OPEN_FAILS("{} {}", "API-017");
}

TEST(options_json_that_is_not_an_object_fails_with_api_017) {
    EXPECT_OPEN_FAILS("[]", "API-017");
    EXPECT_OPEN_FAILS("null", "API-017");
    EXPECT_OPEN_FAILS("true", "API-017");
    EXPECT_OPEN_FAILS("42", "API-017");
    EXPECT_OPEN_FAILS("\"read_only\"", "API-017");
}

TEST(options_with_wrong_value_types_fail_with_api_017) {
    EXPECT_OPEN_FAILS("{\"read_only\":1}", "API-017");
    EXPECT_OPEN_FAILS("{\"read_only\":\"true\"}", "API-017");
    EXPECT_OPEN_FAILS("{\"read_only\":null}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_results\":\"10\"}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_results\":true}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_results\":1.5}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_derived_facts\":[1]}", "API-017");
}

TEST(limit_options_below_one_fail_with_api_017) {
    EXPECT_OPEN_FAILS("{\"max_results\":0}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_results\":-1}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_derived_facts\":0}", "API-017");
    EXPECT_OPEN_FAILS("{\"max_derived_facts\":-100}", "API-017");
}

TEST(failed_open_without_error_out_does_not_crash) {
    CHECK(minigraf_open_with_options(NULL, "{\"bogus\":1}", NULL) == NULL);
    CHECK(minigraf_open_with_options(NULL, "{", NULL) == NULL);
}

TEST(successful_open_leaves_error_out_untouched) {
    char sentinel_text[] = "untouched";
    char *error = sentinel_text;
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"max_results\":3}", &error);
    CHECK(db != NULL);
    CHECK(error == sentinel_text);
    minigraf_close(db);
}

TEST(failed_open_error_out_is_caller_owned_code_message) {
    char *error = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"nope\":1}", &error) == NULL);
    REQUIRE(error != NULL);
    CHECK(strncmp(error, "[API-017] ", 10) == 0);
    CHECK(strlen(error) > 10);
    minigraf_string_free(error); /* ASan / valgrind check the ownership */
}

TEST(open_file_creates_the_database) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(tx_count(db), 0);
    CHECK(access(t.path, F_OK) == 0);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(open_file_in_missing_directory_fails_with_message) {
    char *error = NULL;
    const char *path = "/nonexistent-minigraf-dir/sub/db.graph";
    CHECK(minigraf_open(path) == NULL);
    CHECK(minigraf_open_with_options(path, NULL, &error) == NULL);
    REQUIRE(error != NULL);
    CHECK(error[0] == '[' && strstr(error, "] ") != NULL);
    minigraf_string_free(error);
}

TEST(open_with_options_file_path_and_options) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"max_results\":10}", &error);
    CHECK_STR_EQ(error, NULL);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(in_memory_database_starts_empty_with_tx_count_zero),
           TEST_ENTRY(in_memory_databases_are_independent),
           TEST_ENTRY(open_with_options_null_path_is_in_memory),
           TEST_ENTRY(open_with_empty_options_object_uses_defaults),
           TEST_ENTRY(open_accepts_every_documented_option_key),
           TEST_ENTRY(read_only_false_allows_writes),
           TEST_ENTRY(read_only_database_rejects_transact_and_retract_with_api_014),
           TEST_ENTRY(read_only_file_database_reads_but_does_not_write),
           TEST_ENTRY(unknown_option_key_fails_with_api_017),
           TEST_ENTRY(malformed_options_json_fails_with_api_017),
           TEST_ENTRY(options_json_that_is_not_an_object_fails_with_api_017),
           TEST_ENTRY(options_with_wrong_value_types_fail_with_api_017),
           TEST_ENTRY(limit_options_below_one_fail_with_api_017),
           TEST_ENTRY(failed_open_without_error_out_does_not_crash),
           TEST_ENTRY(successful_open_leaves_error_out_untouched),
           TEST_ENTRY(failed_open_error_out_is_caller_owned_code_message),
           TEST_ENTRY(open_file_creates_the_database),
           TEST_ENTRY(open_file_in_missing_directory_fails_with_message),
           TEST_ENTRY(open_with_options_file_path_and_options))
