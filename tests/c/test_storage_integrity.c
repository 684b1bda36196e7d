/* Storage integrity (issue 20; docs/file-format.md §6, §7): the WAL is
 * found from the file, not the spelling of its path; it names its
 * database; a damaged frame that later frames outlive is corruption, not
 * a torn tail; a gap in the transaction counter costs one record. */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "support.h"

#define GAP_2_62 "4611686018427387904"

/* ---- helpers ------------------------------------------------------------- */

static MiniGrafDb *open_opts_at(int line, const char *path, const char *opts) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, opts, &error);
    if (db == NULL)
        check_fail_str(__FILE__, line, "open file database", error, NULL);
    minigraf_string_free(error);
    return db;
}
#define OPEN(path) open_opts_at(__LINE__, (path), NULL)
#define OPEN_WITH(path, opts) open_opts_at(__LINE__, (path), (opts))

/* Expects the open to fail with `code` ("STG-045") and returns its message
 * (the caller frees it). */
static char *expect_open_error_at(int line, const char *path, const char *opts, const char *code) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, opts, &error);
    char prefix[16];
    snprintf(prefix, sizeof prefix, "[%s]", code);
    if (db != NULL) {
        check_fail(__FILE__, line, "open should have failed");
        minigraf_close(db);
    } else if (error == NULL || strncmp(error, prefix, strlen(prefix)) != 0) {
        check_fail_str(__FILE__, line, "open error", error, prefix);
    }
    return error;
}
#define EXPECT_OPEN_ERROR(path, opts, code) expect_open_error_at(__LINE__, (path), (opts), (code))

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static char *read_all(const char *path, long *len) {
    *len = file_size(path);
    FILE *f = fopen(path, "rb");
    char *bytes = malloc(*len > 0 ? (size_t)*len : 1);
    if (f && bytes && *len > 0 && fread(bytes, 1, (size_t)*len, f) != (size_t)*len)
        *len = -1;
    if (f)
        fclose(f);
    return bytes;
}

static bool same_bytes(const char *path, const char *bytes, long len) {
    long now;
    char *cur = read_all(path, &now);
    bool same = now == len && (len == 0 || memcmp(cur, bytes, (size_t)len) == 0);
    free(cur);
    return same;
}

static void flip_bit(const char *path, long offset) {
    int fd = open(path, O_RDWR);
    unsigned char b = 0;
    CHECK(fd >= 0 && pread(fd, &b, 1, offset) == 1);
    b ^= 0x10;
    CHECK(fd >= 0 && pwrite(fd, &b, 1, offset) == 1);
    if (fd >= 0)
        close(fd);
}

static void wal_of(char *out, size_t cap, const char *path) {
    snprintf(out, cap, "%s.wal", path);
}

/* In a child process: opens `path` (with `opts`), commits transactions
 * first..last, one fact [:e<i> :n i] each, and dies without closing, as a
 * crash would: the commits are in the WAL only. */
static void crash_after_commits(const char *path, const char *opts, int first, int last) {
    pid_t child = fork();
    if (child == 0) {
        MiniGrafDb *db = minigraf_open_with_options(path, opts, NULL);
        int ok = db != NULL;
        for (int i = first; ok && i <= last; i++) {
            char text[96];
            snprintf(text, sizeof text, "(transact [[:e%d :n %d]])", i, i);
            char *r = minigraf_execute(db, text);
            ok = r != NULL;
            minigraf_string_free(r);
        }
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The number of :n facts the database shows. */
static long long facts(MiniGrafDb *db) {
    char *r = minigraf_execute(db, "(query [:find (count ?e) :where [?e :n _]])");
    long long n = -1;
    const char *at = r ? strstr(r, "\"results\":[[") : NULL;
    if (at)
        n = strtoll(at + 12, NULL, 10);
    else if (r && strstr(r, "\"results\":[]"))
        n = 0;
    minigraf_string_free(r);
    return n;
}

static void expect_state_at(int line, const char *path, long long tx, long long count) {
    MiniGrafDb *db = open_opts_at(line, path, NULL);
    if (db == NULL)
        return;
    if ((long long)tx_count(db) != tx)
        check_fail_int(__FILE__, line, "tx_count", (long long)tx_count(db), tx);
    if (facts(db) != count)
        check_fail_int(__FILE__, line, "facts", facts(db), count);
    minigraf_close(db);
}
#define EXPECT_STATE(path, tx, count) expect_state_at(__LINE__, (path), (tx), (count))

/* ---- 1. the WAL follows the file ----------------------------------------- */

TEST(crash_through_a_symlink_then_open_by_the_real_path_keeps_every_commit) {
    temp_db_path t;
    temp_db_make(&t);
    char alias[160];
    snprintf(alias, sizeof alias, "%s/alias.graph", t.dir);
    MiniGrafDb *db = OPEN(t.path);
    minigraf_close(db);
    CHECK(symlink("test.graph", alias) == 0);
    crash_after_commits(alias, NULL, 1, 10);
    char wal[200];
    wal_of(wal, sizeof wal, alias);
    CHECK(file_size(wal) < 0); /* no log beside the alias */
    EXPECT_STATE(t.path, 10, 10);
    crash_after_commits(t.path, NULL, 11, 15); /* and the reverse */
    EXPECT_STATE(alias, 15, 15);
    EXPECT_STATE(t.path, 15, 15);
    temp_db_remove(&t);
}

TEST(dot_dot_and_relative_spellings_find_the_same_wal) {
    temp_db_path t;
    temp_db_make(&t);
    char sub[160], dotted[200], cwd[512];
    snprintf(sub, sizeof sub, "%s/sub", t.dir);
    CHECK(mkdir(sub, 0755) == 0);
    snprintf(dotted, sizeof dotted, "%s/sub/../test.graph", t.dir);
    crash_after_commits(dotted, NULL, 1, 3);
    EXPECT_STATE(t.path, 3, 3);
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(sub) == 0);
    crash_after_commits("../test.graph", NULL, 4, 6);
    CHECK(chdir(cwd) == 0);
    EXPECT_STATE(t.path, 6, 6);
    rmdir(sub);
    temp_db_remove(&t);
}

/* ---- 2. the WAL names its database --------------------------------------- */

TEST(wal_of_another_database_fails_the_open_with_stg_044) {
    temp_db_path a, b;
    temp_db_make(&a);
    temp_db_make(&b);
    crash_after_commits(a.path, NULL, 1, 4); /* a's commits wait in its WAL */
    MiniGrafDb *db = OPEN(b.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    minigraf_close(db);
    char wal_a[200], wal_b[200];
    wal_of(wal_a, sizeof wal_a, a.path);
    wal_of(wal_b, sizeof wal_b, b.path);
    copy_file(wal_a, wal_b);
    long len;
    char *before = read_all(b.path, &len);
    char *msg = EXPECT_OPEN_ERROR(b.path, NULL, "STG-044");
    CHECK(msg != NULL && strstr(msg, "another database") != NULL);
    minigraf_string_free(msg);
    CHECK(same_bytes(b.path, before, len));
    free(before);
    EXPECT_STATE(a.path, 4, 4); /* its own WAL still replays where it belongs */
    temp_db_remove(&a);
    temp_db_remove(&b);
}

TEST(a_stale_wal_of_an_older_checkpoint_is_not_replayed) {
    temp_db_path t;
    temp_db_make(&t);
    crash_after_commits(t.path, NULL, 1, 5);
    char wal[200], saved[200];
    wal_of(wal, sizeof wal, t.path);
    snprintf(saved, sizeof saved, "%s/saved.wal", t.dir);
    copy_file(wal, saved);
    MiniGrafDb *db = OPEN(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(tx_count(db), 5);
    EXPECT_TRANSACT(db, "(transact [[:e6 :n 6]])");
    minigraf_close(db);    /* checkpoints: the next generation */
    copy_file(saved, wal); /* the old frames come back */
    EXPECT_STATE(t.path, 6, 6);
    EXPECT_STATE(t.path, 6, 6);
    temp_db_remove(&t);
}

/* ---- 3. corruption versus torn tail -------------------------------------- */

#define WAL_HEADER 48
#define FRAME_HEADER 24

TEST(a_bit_flipped_in_the_first_of_20_frames_is_corruption_with_stg_045) {
    temp_db_path t;
    temp_db_make(&t);
    crash_after_commits(t.path, NULL, 1, 20);
    char wal[200];
    wal_of(wal, sizeof wal, t.path);
    flip_bit(wal, WAL_HEADER + FRAME_HEADER + 2); /* inside frame 1's payload */
    long main_len, wal_len;
    char *main_before = read_all(t.path, &main_len);
    char *wal_before = read_all(wal, &wal_len);
    char *msg = EXPECT_OPEN_ERROR(t.path, NULL, "STG-045");
    CHECK(msg != NULL && strstr(msg, "frame 1 ") != NULL);
    CHECK(msg != NULL && strstr(msg, "20 commits") != NULL);
    minigraf_string_free(msg);
    msg = EXPECT_OPEN_ERROR(t.path, "{\"read_only\":true}", "STG-045");
    minigraf_string_free(msg);
    CHECK(same_bytes(t.path, main_before, main_len)); /* nothing changed on disk */
    CHECK(same_bytes(wal, wal_before, wal_len));
    free(main_before);
    free(wal_before);
    MiniGrafDb *db = OPEN_WITH(t.path, "{\"recover\":\"truncate_wal\"}");
    if (db != NULL) {
        CHECK_INT_EQ(tx_count(db), 0); /* the loss, accepted knowingly */
        CHECK_INT_EQ(facts(db), 0);
        EXPECT_TRANSACT(db, "(transact [[:e1 :n 1]])");
    }
    minigraf_close(db);
    EXPECT_STATE(t.path, 1, 1);
    temp_db_remove(&t);
}

TEST(a_damaged_frame_in_the_middle_names_its_number) {
    temp_db_path t;
    temp_db_make(&t);
    crash_after_commits(t.path, NULL, 1, 3);
    char wal[200];
    wal_of(wal, sizeof wal, t.path);
    long one = (file_size(wal) - WAL_HEADER) / 3; /* three frames of one size */
    flip_bit(wal, WAL_HEADER + one + FRAME_HEADER + 1);
    char *msg = EXPECT_OPEN_ERROR(t.path, NULL, "STG-045");
    CHECK(msg != NULL && strstr(msg, "frame 2 ") != NULL && strstr(msg, "2 commits") != NULL);
    minigraf_string_free(msg);
    MiniGrafDb *db = OPEN_WITH(t.path, "{\"recover\":\"truncate_wal\"}");
    if (db != NULL)
        CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(a_damaged_final_frame_is_a_torn_tail) {
    temp_db_path t;
    temp_db_make(&t);
    crash_after_commits(t.path, NULL, 1, 20);
    char wal[200];
    wal_of(wal, sizeof wal, t.path);
    flip_bit(wal, file_size(wal) - 2);
    EXPECT_STATE(t.path, 19, 19);
    temp_db_remove(&t);
}

TEST(unsynced_frames_after_a_damaged_one_are_a_torn_tail) {
    /* With synchronous "normal" frames are not synced one by one: a crash
     * may keep a later frame and lose an earlier one, so nothing proves
     * corruption. */
    temp_db_path t;
    temp_db_make(&t);
    crash_after_commits(t.path, "{\"synchronous\":\"normal\"}", 1, 5);
    char wal[200];
    wal_of(wal, sizeof wal, t.path);
    flip_bit(wal, WAL_HEADER + FRAME_HEADER + 2);
    EXPECT_STATE(t.path, 0, 0);
    temp_db_remove(&t);
}

TEST(recover_option_takes_only_truncate_wal) {
    temp_db_path t;
    temp_db_make(&t);
    char *msg = EXPECT_OPEN_ERROR(t.path, "{\"recover\":\"yes\"}", "API-017");
    minigraf_string_free(msg);
    msg = EXPECT_OPEN_ERROR(t.path, "{\"recover\":true}", "API-017");
    minigraf_string_free(msg);
    MiniGrafDb *db = OPEN_WITH(t.path, "{\"recover\":\"truncate_wal\"}"); /* healthy: no effect */
    if (db)
        EXPECT_TRANSACT(db, "(transact [[:e1 :n 1]])");
    minigraf_close(db);
    EXPECT_STATE(t.path, 1, 1);
    temp_db_remove(&t);
}

/* ---- 4. counter gaps ------------------------------------------------------ */

static char *record(char *out, size_t cap, const char *entity_hex, const char *tx) {
    snprintf(out, cap,
             "{\"entity\":\"00000000-0000-0000-0000-%s\",\"attribute\":\":n\","
             "\"value\":{\"type\":\"integer\",\"value\":1},\"tx_count\":%s,"
             "\"tx_id\":1000,\"valid_from\":1000,\"valid_to\":9223372036854775807,"
             "\"asserted\":true}",
             entity_hex, tx);
    return out;
}

static MiniGrafLogWriter *writer_at(int line, const char *path) {
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(path, NULL, &error);
    if (w == NULL)
        check_fail_str(__FILE__, line, "minigraf_log_writer_create", error, NULL);
    minigraf_string_free(error);
    return w;
}

static void expect_as_of_at(int line, MiniGrafDb *db, const char *n, long long want) {
    char text[160];
    snprintf(text, sizeof text, "(query [:find (count ?e) :as-of %s :where [?e :n _]])", n);
    char *r = minigraf_execute(db, text);
    long long got = -1;
    const char *at = r ? strstr(r, "\"results\":[[") : NULL;
    if (at)
        got = strtoll(at + 12, NULL, 10);
    else if (r && strstr(r, "\"results\":[]"))
        got = 0;
    if (got != want)
        check_fail_int(__FILE__, line, text, got, want);
    minigraf_string_free(r);
}
#define EXPECT_AS_OF(db, n, want) expect_as_of_at(__LINE__, (db), (n), (want))

static void expect_gap_state(const char *path) {
    MiniGrafDb *db = OPEN(path);
    REQUIRE(db != NULL);
    CHECK(tx_count(db) == ((uint64_t)1 << 62));
    EXPECT_AS_OF(db, "1", 1);
    EXPECT_AS_OF(db, "2", 1);
    EXPECT_AS_OF(db, "2305843009213693952", 1); /* 2^61: inside the gap */
    EXPECT_AS_OF(db, GAP_2_62, 2);
    minigraf_close(db);
}

TEST(a_log_writer_gap_of_2_62_writes_one_record) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = writer_at(__LINE__, t.path);
    REQUIRE(w != NULL);
    char rec[400];
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, "000000000001", "1")), 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, "000000000002", GAP_2_62)),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    CHECK(file_size(t.path) < 64 * 4096); /* nothing per skipped value */
    expect_gap_state(t.path);
    /* after a commit in the WAL only (a crash), and after its checkpoint */
    crash_after_commits(t.path, NULL, 3, 3);
    MiniGrafDb *db = OPEN(t.path);
    REQUIRE(db != NULL);
    CHECK(tx_count(db) == ((uint64_t)1 << 62) + 1);
    EXPECT_AS_OF(db, GAP_2_62, 2);
    EXPECT_AS_OF(db, "4611686018427387905", 3);
    minigraf_close(db);
    EXPECT_STATE(t.path, (long long)(((uint64_t)1 << 62) + 1), 3);
    temp_db_remove(&t);
}

TEST(advance_tx_count_by_2_62_is_one_record_and_survives_reopen) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = writer_at(__LINE__, t.path);
    REQUIRE(w != NULL);
    char rec[400];
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, "000000000001", "1")), 0);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, ((uint64_t)1 << 62) - 1), 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, record(rec, sizeof rec, "000000000002", GAP_2_62)),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    expect_gap_state(t.path);
    temp_db_remove(&t);
}

TEST(a_counter_past_int64_max_is_refused_with_stg_046) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = writer_at(__LINE__, t.path);
    REQUIRE(w != NULL);
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, (uint64_t)1 << 63), -1);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_log_writer_last_error_code(w)), "STG-046");
    char rec[400];
    CHECK_INT_EQ(minigraf_log_writer_append(
                     w, record(rec, sizeof rec, "000000000001", "9223372036854775808")),
                 -1);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_log_writer_last_error_code(w)), "STG-046");
    CHECK_INT_EQ(minigraf_log_writer_advance_tx_count(w, INT64_MAX), 0); /* the last one */
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = OPEN(t.path);
    REQUIRE(db != NULL);
    CHECK(tx_count(db) == (uint64_t)INT64_MAX);
    char *r = minigraf_execute(db, "(transact [[:e1 :n 1]])");
    CHECK(r == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "STG-046");
    minigraf_string_free(r);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- 5. strict input ------------------------------------------------------ */

static int append_with(MiniGrafLogWriter *w, const char *attr_json, const char *value_json,
                       const char *tx) {
    char rec[600];
    snprintf(rec, sizeof rec,
             "{\"entity\":\"00000000-0000-0000-0000-000000000001\",\"attribute\":%s,"
             "\"value\":%s,\"tx_count\":%s,\"tx_id\":1000,\"valid_from\":1000,"
             "\"valid_to\":9223372036854775807,\"asserted\":true}",
             attr_json, value_json, tx);
    return minigraf_log_writer_append(w, rec) == 0 ? 0 : minigraf_log_writer_last_error_code(w);
}

#define INT1 "{\"type\":\"integer\",\"value\":1}"

static void expect_code_at(int line, int rc, const char *code) {
    const char *name = minigraf_error_code_name(rc);
    if (!check_str_equal(name, code))
        check_fail_str(__FILE__, line, "error code", name, code);
}
#define EXPECT_CODE(rc, code) expect_code_at(__LINE__, (rc), (code))

TEST(log_writer_refuses_attributes_the_language_cannot_write) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = writer_at(__LINE__, t.path);
    REQUIRE(w != NULL);
    EXPECT_CODE(append_with(w, "\":a b\"", INT1, "1"), "API-017");
    EXPECT_CODE(append_with(w, "\":a.b\"", INT1, "1"), "API-017");
    EXPECT_CODE(append_with(w, "\":a\\u0000b\"", INT1, "1"), "API-017");
    EXPECT_CODE(append_with(w, "\"a/b\"", INT1, "1"), "API-017");
    EXPECT_CODE(append_with(w, "\":db/tx-count\"", INT1, "1"), "API-004");
    EXPECT_CODE(append_with(w, "\":db/valid-from\"", INT1, "1"), "API-004");
    EXPECT_CODE(append_with(w, "\":a\"", "{\"type\":\"keyword\",\"value\":\":x y\"}", "1"),
                "API-017");
    uint64_t n = 99;
    CHECK_INT_EQ(minigraf_log_writer_tx_count(w, &n), 0);
    CHECK_INT_EQ(n, 0); /* nothing was taken */
    CHECK_INT_EQ(append_with(w, "\":a/b-c_d?\"", INT1, "1"), 0);
    CHECK_INT_EQ(append_with(w, "\":\u00e9t\u00e9\"", INT1, "1"), 0); /* Unicode letters */
    CHECK_INT_EQ(append_with(w, "\":k\"", "{\"type\":\"keyword\",\"value\":\":ok/yes\"}", "1"), 0);
    /* the bare ':' is a keyword (language.md §2.2): transact writes it */
    CHECK_INT_EQ(append_with(w, "\":\"", "{\"type\":\"keyword\",\"value\":\":\"}", "1"), 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = OPEN(t.path);
    if (db) {
        EXPECT_EXEC(db, "(query [:find ?v :where [_ :a/b-c_d? ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[1]]}");
        EXPECT_EXEC(db, "(query [:find ?v :where [_ : ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[\":\"]]}");
    }
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(json_inputs_refuse_what_rfc_8259_refuses) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = writer_at(__LINE__, t.path);
    REQUIRE(w != NULL);
    EXPECT_CODE(append_with(w, "\":a\"", INT1, "+1"), "API-017");
    EXPECT_CODE(append_with(w, "\":a\"", INT1, "01"), "API-017");
    EXPECT_CODE(append_with(w, "\":a\"", "{\"type\":\"integer\",\"value\":1,\"value\":2}", "1"),
                "API-017");
    EXPECT_CODE(append_with(w, "\":a\"", "{\"type\":\"integer\",\"value\":+1}", "1"), "API-017");
    const char *msg = minigraf_log_writer_last_error(w);
    CHECK(msg != NULL && strncmp(msg, "[API-017]", 9) == 0);
    CHECK_INT_EQ(append_with(w, "\":a\"", "{\"type\":\"integer\",\"value\":0}", "1"), 0);
    CHECK_INT_EQ(append_with(w, "\":a\"", "{\"type\":\"integer\",\"value\":-0}", "1"), 0);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

TEST(open_options_refuse_plus_signs_leading_zeros_and_repeated_keys) {
    temp_db_path t;
    temp_db_make(&t);
    static const char *const bad[] = {
        "{\"page_cache_size\":+5}",
        "{\"page_cache_size\":05}",
        "{\"wal_checkpoint_threshold\":00}",
        "{\"read_only\":false,\"read_only\":true}",
        "{\"max_results\":5,\"page_cache_size\":5,\"max_results\":6}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *msg = EXPECT_OPEN_ERROR(t.path, bad[i], "API-017");
        minigraf_string_free(msg);
    }
    MiniGrafDb *db = OPEN_WITH(t.path, "{\"page_cache_size\":5,\"wal_checkpoint_threshold\":0}");
    CHECK(db != NULL);
    minigraf_close(db);
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(
        t.path, "{\"page_cache_size\":1,\"page_cache_size\":2}", &error);
    CHECK(w == NULL && error != NULL && strncmp(error, "[API-017]", 9) == 0);
    minigraf_string_free(error);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

/* ---- 6. rules at scale (speed: bench/bench_rules_scale.c) ------------------ */

#define CHAIN 10000

static void register_chain(MiniGrafDb *db, int from, int to) {
    char text[128];
    for (int i = from; i < to; i++) {
        if (i == 0)
            snprintf(text, sizeof text, "(rule [(r0 ?x) [?x :n _]])");
        else
            snprintf(text, sizeof text, "(rule [(r%d ?x) (r%d ?x)])", i, i - 1);
        char *r = minigraf_execute(db, text);
        if (r == NULL) {
            check_fail_str(__FILE__, __LINE__, text, minigraf_last_error(db), NULL);
            return;
        }
        minigraf_string_free(r);
    }
}

TEST(a_chain_of_10000_rules_registers_and_its_query_answers_or_fails_with_int_020) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1] [:b :n 2]])");
    register_chain(db, 0, 500);
    EXPECT_EXEC(db, "(query [:find (count ?x) :where (r499 ?x)])",
                "{\"variables\":[\"(count ?x)\"],\"results\":[[2]]}");
    register_chain(db, 500, CHAIN); /* after a query: the program is built again */
    EXPECT_EXEC(db, "(query [:find (count ?x) :where (r999 ?x)])",
                "{\"variables\":[\"(count ?x)\"],\"results\":[[2]]}");
    EXPECT_ERROR(db, "(query [:find (count ?x) :where (r9999 ?x)])", "INT-020");
    minigraf_close(db);
}

TEST(a_negative_cycle_closed_at_the_end_of_a_long_chain_is_still_int_054) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, "(rule [(q ?x) [?x :n _] (not (top ?x))])", "{\"ok\":true}");
    char text[128];
    for (int i = 0; i < 2000; i++) {
        snprintf(text, sizeof text,
                 i == 0 ? "(rule [(c0 ?x) (q ?x)])" : "(rule [(c%d ?x) (c%d ?x)])", i, i - 1);
        char *r = minigraf_execute(db, text);
        CHECK(r != NULL);
        minigraf_string_free(r);
    }
    EXPECT_ERROR(db, "(rule [(top ?x) (c1999 ?x)])", "INT-054");
    CHECK_STR_EQ(minigraf_last_error(db), "[INT-054] unstratifiable: predicate 'q' is involved "
                                          "in a negative cycle through 'top'");
    EXPECT_EXEC(db, "(rule [(top ?x) [?x :m _]])", "{\"ok\":true}"); /* not a cycle */
    EXPECT_ERROR(db, "(rule [(c5 ?x) (top ?x) (not (c7 ?x))])", "INT-054");
    minigraf_close(db);
}

/* Finding 6: "" once opened an in-memory database through
 * minigraf_open_with_options, and everything written was lost at close. */
static void every_entry_point_taking_a_path_refuses_an_empty_one_with_api_017(void) {
    CHECK(minigraf_open("") == NULL);
    char *error = NULL;
    CHECK(minigraf_open_with_options("", NULL, &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] path must not be empty", 32) == 0);
    minigraf_string_free(error);
    error = NULL;
    MiniGrafDb *db = (MiniGrafDb *)1;
    CHECK_INT_EQ(minigraf_open_v2("", "{\"read_only\": true}", &db, &error), MINIGRAF_E_API_017);
    CHECK(db == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] path must not be empty", 32) == 0);
    minigraf_string_free(error);
    error = NULL;
    CHECK(minigraf_log_writer_create("", NULL, &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] path must not be empty", 32) == 0);
    minigraf_string_free(error);
    error = NULL;
    MiniGrafLogWriter *w = (MiniGrafLogWriter *)1;
    CHECK_INT_EQ(minigraf_log_writer_create_v2("", NULL, &w, &error), MINIGRAF_E_API_017);
    CHECK(w == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017] path must not be empty", 32) == 0);
    minigraf_string_free(error);
    db = minigraf_open_in_memory();
    CHECK(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    CHECK_INT_EQ(minigraf_export(db, "", NULL), MINIGRAF_E_API_017);
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strncmp(msg, "[API-017] path must not be empty", 32) == 0);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(crash_through_a_symlink_then_open_by_the_real_path_keeps_every_commit),
           TEST_ENTRY(dot_dot_and_relative_spellings_find_the_same_wal),
           TEST_ENTRY(wal_of_another_database_fails_the_open_with_stg_044),
           TEST_ENTRY(a_stale_wal_of_an_older_checkpoint_is_not_replayed),
           TEST_ENTRY(a_bit_flipped_in_the_first_of_20_frames_is_corruption_with_stg_045),
           TEST_ENTRY(a_damaged_frame_in_the_middle_names_its_number),
           TEST_ENTRY(a_damaged_final_frame_is_a_torn_tail),
           TEST_ENTRY(unsynced_frames_after_a_damaged_one_are_a_torn_tail),
           TEST_ENTRY(recover_option_takes_only_truncate_wal),
           TEST_ENTRY(a_log_writer_gap_of_2_62_writes_one_record),
           TEST_ENTRY(advance_tx_count_by_2_62_is_one_record_and_survives_reopen),
           TEST_ENTRY(a_counter_past_int64_max_is_refused_with_stg_046),
           TEST_ENTRY(log_writer_refuses_attributes_the_language_cannot_write),
           TEST_ENTRY(json_inputs_refuse_what_rfc_8259_refuses),
           TEST_ENTRY(open_options_refuse_plus_signs_leading_zeros_and_repeated_keys),
           TEST_ENTRY(a_chain_of_10000_rules_registers_and_its_query_answers_or_fails_with_int_020),
           TEST_ENTRY(a_negative_cycle_closed_at_the_end_of_a_long_chain_is_still_int_054),
           TEST_ENTRY(every_entry_point_taking_a_path_refuses_an_empty_one_with_api_017))
