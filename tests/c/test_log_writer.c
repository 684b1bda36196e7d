/* The log writer: building a database file from fact records, and the
 * export → import round trip through the fact log (minigraf.h "Log
 * writer"). */
#include "log_support.h"

#define E1 "00000000-0000-0000-0000-000000000001"
#define FOREVER "9223372036854775807"

/* One record's JSON with the given typed value and counters. */
static char *record(char *out, size_t cap, const char *attr, const char *typed, unsigned tx,
                    long long vf, const char *vt, const char *asserted) {
    snprintf(out, cap,
             "{\"entity\":\"" E1 "\",\"attribute\":\"%s\",\"value\":%s,\"tx_count\":%u,"
             "\"tx_id\":%u000,\"valid_from\":%lld,\"valid_to\":%s,\"asserted\":%s}",
             attr, typed, tx, tx, vf, vt, asserted);
    return out;
}

static MiniGrafLogWriter *create_at(const char *file, int line, const char *path) {
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(path, NULL, &error);
    if (w == NULL)
        check_fail_str(file, line, "minigraf_log_writer_create", error, NULL);
    minigraf_string_free(error);
    return w;
}
#define CREATE(path) create_at(__FILE__, __LINE__, (path))

static void expect_writer_error_at(int line, MiniGrafLogWriter *w, int rc, int code) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "[%s] ", minigraf_error_code_name(code));
    if (rc != -1) /* a 0.1 status function: -1, the code on the writer */
        check_fail_int(__FILE__, line, "status", rc, -1);
    if (minigraf_log_writer_last_error_code(w) != code)
        check_fail_int(__FILE__, line, "last error code", minigraf_log_writer_last_error_code(w),
                       code);
    const char *msg = minigraf_log_writer_last_error(w);
    if (msg == NULL || strncmp(msg, prefix, strlen(prefix)) != 0)
        check_fail_str(__FILE__, line, "message", msg, prefix);
}
#define EXPECT_WRITER_ERROR(w, call, code) expect_writer_error_at(__LINE__, (w), (call), (code))

/* ---- the round trip ------------------------------------------------------ */

#define HUGE_DIGITS                                                                               \
    "1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" \
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" \
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0"

/* Assertions, retractions (one of a missing fact), valid-time windows,
 * every value type and empty transactions: 10 transactions. */
static void fill_source(MiniGrafDb *db) {
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]"
                        " [:alice :friend :bob] [:bob :person/name \"Bob \xf0\x9f\x98\x80\"]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"}"
                        " [[:carol :emp/status :active]])");
    EXPECT_RETRACT(db, "(retract [[:alice :person/age 30]])");
    EXPECT_TRANSACT(db, "(transact [])");
    EXPECT_TRANSACT(db, "(transact [[:v :i 9223372036854775807] [:v :j -9223372036854775808]"
                        " [:v :f -0.0] [:v :z 0.0] [:v :g 0.1] [:v :inf " HUGE_DIGITS "]"
                        " [:v :ninf -" HUGE_DIGITS "] [:v :b true] [:v :n nil]"
                        " [:v :r #uuid \"" E1 "\"] [:v :k :kw/x] [:v :s \"\"]"
                        " [:v :u \"\\\"q\\\" \\\\ \\n\"]])");
    EXPECT_RETRACT(db, "(retract [[:nobody :x 1]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2024-01-01\"} [[:carol :emp/status :inactive]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :person/age 31]"
                        " [:v :g 0.1 {:valid-to \"2030-01-01\"}]])");
    EXPECT_TRANSACT(db, "(transact [])");
    EXPECT_TRANSACT(db, "(transact [])");
}

/* The query's answer on both databases, compared with rows sorted. */
static void expect_same_answer_at(int line, MiniGrafDb *a, MiniGrafDb *b, const char *query) {
    char *x = exec_at(__FILE__, line, a, query), *y = exec_at(__FILE__, line, b, query);
    if (x && y) {
        char *cx = canonical_result(x), *cy = canonical_result(y);
        if (strcmp(cx, cy) != 0)
            check_fail_str(__FILE__, line, query, cy, cx);
        free(cx);
        free(cy);
    }
    minigraf_string_free(x);
    minigraf_string_free(y);
}

static void expect_same_answers(MiniGrafDb *a, MiniGrafDb *b) {
    const char *shapes[] = {"(query [:find ?e ?a ?v %s :where [?e ?a ?v]])",
                            ("(query [:find ?n ?g %s :where [?p :person/name ?n]"
                             " [?p :person/age ?g]])"),
                            "(query [:find ?s %s :where [:carol :emp/status ?s]])",
                            "(query [:find ?f %s :where [?p :friend ?f]])"};
    const char *cuts[] = {"", ":any-valid-time", ":valid-at \"2023-03-01\"",
                          ":valid-at \"2029-01-01\"", ":as-of 0 :any-valid-time"};
    char q[256];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            snprintf(q, sizeof q, shapes[s], cuts[c]);
            expect_same_answer_at(__LINE__, a, b, q);
        }
        for (int n = 0; n <= 11; n++) {
            char cut[64];
            snprintf(cut, sizeof cut, ":as-of %d%s", n, n % 2 ? " :any-valid-time" : "");
            snprintf(q, sizeof q, shapes[s], cut);
            expect_same_answer_at(__LINE__, a, b, q);
        }
    }
}

static void expect_same_logs(MiniGrafDb *a, MiniGrafDb *b, const char *filter) {
    char *x = DRAIN_LOG(minigraf_fact_log(a, filter), 7);
    char *y = DRAIN_LOG(minigraf_fact_log(b, filter), 3);
    CHECK_STR_EQ(y, x);
    free(x);
    free(y);
}

TEST(export_import_answers_every_query_identically) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *source = open_memory_db();
    fill_source(source);
    REQUIRE(EXPORT_DB(source, t.path, 2) == 0);
    MiniGrafDb *copy = minigraf_open(t.path);
    REQUIRE(copy != NULL);
    CHECK_INT_EQ(tx_count(copy), 10);
    CHECK_INT_EQ(tx_count(copy), tx_count(source));
    expect_same_logs(source, copy, NULL);
    expect_same_logs(source, copy, "{\"order\":\"storage\"}");
    expect_same_answers(source, copy);
    minigraf_close(copy);
    minigraf_close(source);
    temp_db_remove(&t);
}

TEST(export_of_an_imported_copy_is_identical) {
    temp_db_path t, u;
    temp_db_make(&t);
    temp_db_make(&u);
    MiniGrafDb *source = open_memory_db();
    fill_source(source);
    REQUIRE(EXPORT_DB(source, t.path, 1000) == 0);
    MiniGrafDb *copy = minigraf_open(t.path);
    REQUIRE(copy != NULL);
    REQUIRE(EXPORT_DB(copy, u.path, 1) == 0);
    MiniGrafDb *second = minigraf_open(u.path);
    REQUIRE(second != NULL);
    expect_same_logs(source, second, NULL);
    CHECK_INT_EQ(tx_count(second), 10);
    /* the copy is an ordinary database: the next write is transaction 11 */
    EXPECT_TRANSACT(second, "(transact [[:dan :person/name \"Dan\"]])");
    EXPECT_LOG(second, "{\"tx_from\":11}", ":person/name=Dan@11");
    minigraf_close(second);
    minigraf_close(copy);
    minigraf_close(source);
    temp_db_remove(&t);
    temp_db_remove(&u);
}

TEST(empty_database_exports_to_an_empty_file) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *source = open_memory_db();
    REQUIRE(EXPORT_DB(source, t.path, 2) == 0);
    MiniGrafDb *copy = minigraf_open(t.path);
    REQUIRE(copy != NULL);
    CHECK_INT_EQ(tx_count(copy), 0);
    EXPECT_LOG(copy, NULL, "");
    minigraf_close(copy);
    minigraf_close(source);
    temp_db_remove(&t);
}

/* Values the language cannot write (NaN) and the edges of every type come
 * back from the fact log byte for byte. */
TEST(records_round_trip_losslessly) {
    temp_db_path t;
    temp_db_make(&t);
    const char *typed[] = {
        "{\"type\":\"float\",\"value\":\"NaN\"}",
        "{\"type\":\"float\",\"value\":\"Infinity\"}",
        "{\"type\":\"float\",\"value\":\"-Infinity\"}",
        "{\"type\":\"float\",\"value\":-0.0}",
        "{\"type\":\"float\",\"value\":5e-324}",
        "{\"type\":\"float\",\"value\":1.7976931348623157e308}",
        "{\"type\":\"float\",\"value\":0.1}",
        "{\"type\":\"integer\",\"value\":9223372036854775807}",
        "{\"type\":\"integer\",\"value\":-9223372036854775808}",
        "{\"type\":\"integer\",\"value\":9007199254740993}",
        "{\"type\":\"string\",\"value\":\"\xf0\x9f\x98\x80 \xe2\x80\x8f \\u0001\"}",
        "{\"type\":\"string\",\"value\":\"\"}",
        "{\"type\":\"boolean\",\"value\":false}",
        "{\"type\":\"ref\",\"value\":\"" E1 "\"}",
        "{\"type\":\"keyword\",\"value\":\":a/b\"}",
        "{\"type\":\"null\",\"value\":null}"};
    size_t n = sizeof typed / sizeof typed[0];
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    char want[8192] = "[", rec[512];
    for (size_t i = 0; i < n; i++) {
        char attr[16];
        snprintf(attr, sizeof attr, ":v%zu", i);
        record(rec, sizeof rec, attr, typed[i], (unsigned)(1 + i / 4), -5000, FOREVER, "true");
        CHECK_INT_EQ(minigraf_log_writer_append(w, rec), 0);
        CHECK_STR_EQ(minigraf_log_writer_last_error(w), NULL);
        strcat(want, i ? "," : "");
        strcat(want, rec);
    }
    strcat(want, "]");
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    char *got = DRAIN_LOG(minigraf_fact_log(db, NULL), 5);
    CHECK_STR_EQ(got, want);
    CHECK_INT_EQ(tx_count(db), 4);
    free(got);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(any_json_spelling_of_a_record_is_accepted) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    CHECK_INT_EQ(minigraf_log_writer_append(
                     w,
                     " { \"asserted\" : false , \"valid_to\":" FOREVER ",\"valid_from\":0,"
                     "\"tx_id\":7,\"tx_count\":1,"
                     "\"value\":{\"value\":2.50E1,\"type\":\"float\"},\"attribute\":\":\\u0061\","
                     "\"entity\":\"{00000000-0000-0000-0000-0000000000AB}\"}"),
                 0);
    char rec[512];
    CHECK_INT_EQ(minigraf_log_writer_append(
                     w, record(rec, sizeof rec, ":s",
                               "{\"type\":\"string\",\"value\":\"\\ud83d\\ude00\\u00e9\\/\"}", 1, 0,
                               FOREVER, "true")),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    char *got = DRAIN_LOG(minigraf_fact_log(db, NULL), 5);
    CHECK_STR_EQ(got, "[{\"entity\":\"00000000-0000-0000-0000-0000000000ab\",\"attribute\":\":a\","
                      "\"value\":{\"type\":\"float\",\"value\":25.0},\"tx_count\":1,\"tx_id\":7,"
                      "\"valid_from\":0,\"valid_to\":" FOREVER ",\"asserted\":false},"
                      "{\"entity\":\"" E1 "\",\"attribute\":\":s\","
                      "\"value\":{\"type\":\"string\",\"value\":\"\xf0\x9f\x98\x80\xc3\xa9/\"},"
                      "\"tx_count\":1,\"tx_id\":1000,\"valid_from\":0,\"valid_to\":" FOREVER
                      ",\"asserted\":true}]");
    free(got);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(gaps_in_tx_count_become_empty_transactions) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    char rec[512];
    uint64_t n = 99;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, ":n",
                                                      "{\"type\":\"integer\",\"value\":1}", 1, 0,
                                                      FOREVER, "true")),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, ":n",
                                                      "{\"type\":\"integer\",\"value\":4}", 4, 0,
                                                      FOREVER, "true")),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 4);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, 6), 0);
    /* the counter's own transaction is still open to records */
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, ":n",
                                                      "{\"type\":\"integer\",\"value\":6}", 6, 0,
                                                      FOREVER, "true")),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, 6), 0);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, 8), 0);
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 8);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(tx_count(db), 8);
    EXPECT_LOG(db, NULL, ":n=1@1 :n=4@4 :n=6@6");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 3 :any-valid-time :where [_ :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 5 :any-valid-time :where [_ :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1],[4]]}");
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- errors -------------------------------------------------------------- */

TEST(existing_target_is_stg_043) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    minigraf_close(db);
    char *error = NULL;
    CHECK(minigraf_log_writer_create(t.path, NULL, &error) == NULL);
    char want[256];
    snprintf(want, sizeof want, "[STG-043] log writer target already exists: %s", t.path);
    CHECK_STR_EQ(error, want);
    minigraf_string_free(error);
    CHECK(minigraf_log_writer_create(t.path, NULL, NULL) == NULL);
    CHECK(file_exists(t.path)); /* untouched */

    /* a leftover WAL alone also refuses the target */
    char wal[128];
    snprintf(wal, sizeof wal, "%s.wal", t.path);
    unlink(t.path);
    REQUIRE(file_exists(wal));
    error = NULL;
    CHECK(minigraf_log_writer_create(t.path, NULL, &error) == NULL);
    CHECK_STR_EQ(error, want);
    CHECK(!file_exists(t.path));
    minigraf_string_free(error);
    temp_db_remove(&t);
}

TEST(error_out_is_untouched_on_success) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = (char *)"sentinel";
    MiniGrafLogWriter *w = minigraf_log_writer_create(t.path,
                                                      "{\"synchronous\":\"full\","
                                                      "\"page_cache_size\":16}",
                                                      &error);
    CHECK(w != NULL);
    CHECK_STR_EQ(error, "sentinel");
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

TEST(bad_create_arguments_are_api_017) {
    temp_db_path t;
    temp_db_make(&t);
    const char *options[] = {"{\"read_only\":true}", "{\"bogus\":1}", "{", "{\"synchronous\":1}"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char *error = NULL;
        CHECK(minigraf_log_writer_create(t.path, options[i], &error) == NULL);
        CHECK(error != NULL && strncmp(error, "[API-017] ", 10) == 0);
        minigraf_string_free(error);
        CHECK(!file_exists(t.path));
    }
    char *error = NULL;
    CHECK(minigraf_log_writer_create(NULL, NULL, &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] ", 10) == 0);
    minigraf_string_free(error);
    error = NULL;
    CHECK(minigraf_log_writer_create("", NULL, &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] ", 10) == 0);
    minigraf_string_free(error);
    temp_db_remove(&t);
}

TEST(second_finish_and_later_writes_are_api_018) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    CHECK_STR_EQ(minigraf_log_writer_last_error(w), NULL);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_finish(w), API_018);
    char rec[512];
    record(rec, sizeof rec, ":n", "{\"type\":\"integer\",\"value\":1}", 1, 0, FOREVER, "true");
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append(w, rec), API_018);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append_batch(w, "[]"), API_018);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_advance_tx_count(w, 3), API_018);
    uint64_t n = 7;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 0);
    minigraf_log_writer_free(w); /* finished: the file stays */
    CHECK(file_exists(t.path));
    MiniGrafDb *db = minigraf_open(t.path);
    CHECK(db != NULL);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(free_without_finish_deletes_the_file_and_wal) {
    temp_db_path t;
    temp_db_make(&t);
    char wal[128], rec[512];
    snprintf(wal, sizeof wal, "%s.wal", t.path);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    for (unsigned tx = 1; tx <= 3; tx++)
        CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, ":n",
                                                          "{\"type\":\"integer\",\"value\":1}", tx,
                                                          0, FOREVER, "true")),
                     0);
    CHECK(file_exists(t.path));
    minigraf_log_writer_free(w);
    CHECK(!file_exists(t.path));
    CHECK(!file_exists(wal));
    /* the path is free again */
    w = CREATE(t.path);
    CHECK(w != NULL);
    minigraf_log_writer_free(w);
    CHECK(!file_exists(t.path));
    temp_db_remove(&t);
}

TEST(decreasing_tx_count_is_api_017) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    char rec[512];
    const char *one = "{\"type\":\"integer\",\"value\":1}";
    EXPECT_WRITER_ERROR(
        w, minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", one, 0, 0, FOREVER, "true")),
        API_017);
    CHECK_INT_EQ(
        minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", one, 3, 0, FOREVER, "true")),
        0);
    EXPECT_WRITER_ERROR(
        w, minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", one, 2, 0, FOREVER, "true")),
        API_017);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_advance_tx_count(w, 2), API_017);
    CHECK_INT_EQ(
        minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", one, 3, 0, FOREVER, "false")),
        0);
    CHECK_STR_EQ(minigraf_log_writer_last_error(w), NULL);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), 0);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

TEST(malformed_record_is_api_017) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    const char *v1 = "{\"type\":\"integer\",\"value\":1}";
    char rec[512];
    const char *bad_values[] = {"{\"type\":\"integer\",\"value\":1.5}",
                                "{\"type\":\"integer\",\"value\":9223372036854775808}",
                                "{\"type\":\"integer\",\"value\":\"1\"}",
                                "{\"type\":\"float\",\"value\":\"nan\"}",
                                "{\"type\":\"float\",\"value\":1e999}",
                                "{\"type\":\"float\",\"value\":null}",
                                "{\"type\":\"keyword\",\"value\":\"a\"}",
                                "{\"type\":\"ref\",\"value\":\"nope\"}",
                                "{\"type\":\"boolean\",\"value\":1}",
                                "{\"type\":\"null\",\"value\":0}",
                                "{\"type\":\"date\",\"value\":1}",
                                "{\"type\":\"string\"}",
                                "\"x\"",
                                "{\"type\":\"string\",\"value\":\"x\",\"extra\":1}"};
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++)
        EXPECT_WRITER_ERROR(
            w,
            minigraf_log_writer_append(
                w, record(rec, sizeof rec, ":n", bad_values[i], 1, 0, FOREVER, "true")),
            API_017);
    const char *bad_records[] = {
        "",
        "{",
        "[]",
        "null",
        "{\"entity\":\"" E1 "\"}",
        "{\"entity\":\"x\",\"attribute\":\":n\",\"value\":{\"type\":\"null\",\"value\":null},"
        "\"tx_count\":1,\"tx_id\":1,\"valid_from\":0,\"valid_to\":1,\"asserted\":true}",
        "{\"entity\":\"" E1 "\",\"attribute\":\":n\",\"value\":{\"type\":\"null\",\"value\":null},"
        "\"tx_count\":1,\"tx_id\":1,\"valid_from\":0,\"valid_to\":1,\"asserted\":true,\"x\":1}",
        "{\"entity\":\"" E1 "\",\"attribute\":\":n\",\"value\":{\"type\":\"null\",\"value\":null},"
        "\"tx_count\":-1,\"tx_id\":1,\"valid_from\":0,\"valid_to\":1,\"asserted\":true}",
        "{\"entity\":\"" E1 "\",\"attribute\":\":n\",\"value\":{\"type\":\"null\",\"value\":null},"
        "\"tx_count\":1,\"tx_id\":1,\"valid_from\":0,\"valid_to\":1,\"asserted\":1}",
        "{\"entity\":\"" E1 "\",\"attribute\":\":n\",\"value\":{\"type\":\"null\",\"value\":null},"
        "\"tx_count\":1,\"tx_id\":1,\"valid_from\":0,\"valid_to\":1,\"asserted\":true,"
        "\"asserted\":true}"};
    for (size_t i = 0; i < sizeof bad_records / sizeof bad_records[0]; i++)
        EXPECT_WRITER_ERROR(w, minigraf_log_writer_append(w, bad_records[i]), API_017);
    /* an attribute that is not a keyword; an empty or inverted window */
    EXPECT_WRITER_ERROR(
        w, minigraf_log_writer_append(w, record(rec, sizeof rec, "n", v1, 1, 0, FOREVER, "true")),
        API_017);
    EXPECT_WRITER_ERROR(
        w, minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", v1, 1, 5, "5", "true")),
        API_017);
    EXPECT_WRITER_ERROR(
        w, minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", v1, 1, 9, "5", "true")),
        API_017);
    /* a retraction carries whatever window it had */
    CHECK_INT_EQ(
        minigraf_log_writer_append(w, record(rec, sizeof rec, ":n", v1, 1, 5, "5", "false")), 0);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append(w, NULL), API_017);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append(w, "\"\xc3\""), API_017);
    uint64_t n = 0;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 1);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

TEST(append_batch_is_all_or_nothing) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    char a[512], b[512], c[512], batch[2048];
    const char *v = "{\"type\":\"integer\",\"value\":1}";
    record(a, sizeof a, ":a", v, 1, 0, FOREVER, "true");
    record(b, sizeof b, ":b", v, 2, 0, FOREVER, "true");
    record(c, sizeof c, ":c", "{\"type\":\"integer\",\"value\":\"x\"}", 3, 0, FOREVER, "true");
    snprintf(batch, sizeof batch, "[%s,%s,%s]", a, b, c);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append_batch(w, batch), API_017);
    CHECK(strstr(minigraf_log_writer_last_error(w), "record 2") != NULL);
    record(c, sizeof c, ":c", v, 1, 0, FOREVER, "true"); /* decreasing inside the batch */
    snprintf(batch, sizeof batch, "[%s,%s,%s]", a, b, c);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append_batch(w, batch), API_017);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append_batch(w, "{}"), API_017);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_append_batch(w, "[1]"), API_017);
    uint64_t n = 9;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 0);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(w, "[]"), 0);
    snprintf(batch, sizeof batch, "[%s,%s]", a, b);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(w, batch), 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_LOG(db, NULL, ":a=1@1 :b=1@2");
    CHECK_INT_EQ(tx_count(db), 2);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(null_and_dead_handles) {
    uint64_t n;
    CHECK_INT_EQ(minigraf_log_writer_append(NULL, "{}"), -1);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(NULL, "[]"), -1);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(NULL, 1), -1);
    CHECK_INT_EQ(minigraf_log_writer_tx_count(NULL, &n), -1);
    CHECK_INT_EQ(minigraf_log_writer_finish(NULL), -1);
    CHECK_STR_EQ(minigraf_log_writer_last_error(NULL), NULL);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(NULL), API_017);
    minigraf_log_writer_free(NULL);

    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = CREATE(t.path);
    REQUIRE(w != NULL);
    EXPECT_WRITER_ERROR(w, minigraf_log_writer_tx_count(w, NULL), API_017);
    minigraf_log_writer_free(w);
    CHECK_INT_EQ(minigraf_log_writer_append(w, "{}"), -1);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), -1);
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), -1);
    CHECK_STR_EQ(minigraf_log_writer_last_error(w), "[API-018] handle was already closed or freed");
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), API_018);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(export_import_answers_every_query_identically),
           TEST_ENTRY(export_of_an_imported_copy_is_identical),
           TEST_ENTRY(empty_database_exports_to_an_empty_file),
           TEST_ENTRY(records_round_trip_losslessly),
           TEST_ENTRY(any_json_spelling_of_a_record_is_accepted),
           TEST_ENTRY(gaps_in_tx_count_become_empty_transactions),
           TEST_ENTRY(existing_target_is_stg_043), TEST_ENTRY(error_out_is_untouched_on_success),
           TEST_ENTRY(bad_create_arguments_are_api_017),
           TEST_ENTRY(second_finish_and_later_writes_are_api_018),
           TEST_ENTRY(free_without_finish_deletes_the_file_and_wal),
           TEST_ENTRY(decreasing_tx_count_is_api_017), TEST_ENTRY(malformed_record_is_api_017),
           TEST_ENTRY(append_batch_is_all_or_nothing), TEST_ENTRY(null_and_dead_handles))
