/* The limits on a string value (docs/language.md "Strings", minigraf.h
 * "Limits"), each tried at the limit and one byte past it: 1,048,576
 * decoded bytes for a string written in a command or bound to a prepared
 * query (PRS-007 beyond), and 4,068 bytes for a string stored in a
 * database file, whether by transact, a write transaction or the log
 * writer (WAL-003 beyond, nothing written). */
#include "support.h"

#define MEMORY_LIMIT 1048576
#define FILE_LIMIT 4068

/* "(transact [[:a :s \"xxx...\"]])" with `n` decoded bytes; with `escaped`
 * every byte is written as the escape \n, so the text is twice as long. */
static char *transact_text(size_t n, int escaped) {
    const char *head = "(transact [[:a :s \"", *tail = "\"]])";
    size_t h = strlen(head), t = strlen(tail), body = escaped ? 2 * n : n;
    char *s = malloc(h + body + t + 1);
    memcpy(s, head, h);
    for (size_t i = 0; i < n; i++) {
        if (escaped) {
            s[h + 2 * i] = '\\';
            s[h + 2 * i + 1] = 'n';
        } else {
            s[h + i] = 'x';
        }
    }
    memcpy(s + h + body, tail, t + 1);
    return s;
}

static char *bytes(size_t n, char c) {
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* The number of facts whose :s is exactly the `n` bytes `c`, through a
 * prepared query with the string bound (-1 when the query fails). */
static long count_matching(MiniGrafDb *db, size_t n, char c) {
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find (count ?e) :where [?e :s $v]])");
    if (s == NULL)
        return -1;
    char *v = bytes(n, c);
    long count = -1;
    if (minigraf_stmt_bind_string(s, "v", v, n) == 0) {
        char *out = minigraf_stmt_execute(s);
        if (out != NULL) {
            const char *r = strstr(out, "\"results\":[");
            count = r == NULL ? -1 : strncmp(r, "\"results\":[]", 12) == 0 ? 0 : atol(r + 12);
            minigraf_string_free(out);
        }
    }
    free(v);
    minigraf_stmt_free(s);
    return count;
}

static void expect_transact_len(int line, MiniGrafDb *db, size_t n, int escaped, const char *code) {
    char *text = transact_text(n, escaped);
    if (code == NULL)
        expect_write_at(__FILE__, line, db, text, "transacted");
    else
        expect_error_at(__FILE__, line, db, text, code);
    free(text);
}

/* ---- in memory -------------------------------------------------------------- */

TEST(memory_transact_at_limit_and_past_it) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT, 0, NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT + 1, 0, "PRS-007");
    CHECK_STR_EQ(minigraf_last_error(db), "[PRS-007] String exceeds maximum length of 1048576 bytes"
                                          " (at line 1, column 19)");
    CHECK_INT_EQ(count_matching(db, MEMORY_LIMIT, 'x'), 1);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

/* The limit counts decoded bytes: 2 MiB of text holding 1 MiB of escapes. */
TEST(memory_limit_counts_decoded_bytes) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT, 1, NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT + 1, 1, "PRS-007");
    CHECK_INT_EQ(count_matching(db, MEMORY_LIMIT, '\n'), 1);
    minigraf_close(db);
}

/* A query's string literal has the same limit as a transacted one. */
TEST(memory_query_literal_at_limit_and_past_it) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    const char *head = "(query [:find ?e :where [?e :s \"", *tail = "\"]])";
    for (size_t n = MEMORY_LIMIT; n <= MEMORY_LIMIT + 1; n++) {
        char *x = bytes(n, 'x');
        size_t len = strlen(head) + n + strlen(tail) + 1;
        char *text = malloc(len);
        snprintf(text, len, "%s%s%s", head, x, tail);
        if (n == MEMORY_LIMIT)
            EXPECT_EXEC(db, text, "{\"variables\":[\"?e\"],\"results\":[]}");
        else
            EXPECT_ERROR(db, text, "PRS-007");
        free(text);
        free(x);
    }
    minigraf_close(db);
}

/* A bound string has the limit of a written one: past it, PRS-007 and the
 * slot keeps its previous binding. */
TEST(memory_bind_string_at_limit_and_past_it) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT, 0, NULL);
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find (count ?e) :where [?e :s $v]])");
    REQUIRE(s != NULL);
    char *v = bytes(MEMORY_LIMIT + 1, 'x');
    CHECK_INT_EQ(minigraf_stmt_bind_string(s, "v", v, MEMORY_LIMIT), 0);
    CHECK_INT_EQ(minigraf_stmt_bind_string(s, "v", v, MEMORY_LIMIT + 1), MINIGRAF_E_PRS_007);
    CHECK_STR_EQ(
        minigraf_stmt_last_error(s),
        "[PRS-007] String exceeds maximum length of 1048576 bytes (bind value of slot '$v')");
    char *out = minigraf_stmt_execute(s);
    CHECK_STR_EQ(out, "{\"variables\":[\"(count ?e)\"],\"results\":[[1]]}");
    minigraf_string_free(out);
    free(v);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* The JSON form of binds: the same limit, counted after JSON unescaping. */
TEST(memory_bind_json_at_limit_and_past_it) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db != NULL);
    expect_transact_len(__LINE__, db, MEMORY_LIMIT, 0, NULL);
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find (count ?e) :where [?e :s $v]])");
    REQUIRE(s != NULL);
    for (size_t n = MEMORY_LIMIT; n <= MEMORY_LIMIT + 1; n++) {
        const char *head = "{\"v\":{\"val\":\"", *tail = "\"}}";
        char *x = bytes(n, 'x');
        size_t len = strlen(head) + n + strlen(tail) + 1;
        char *json = malloc(len);
        snprintf(json, len, "%s%s%s", head, x, tail);
        CHECK_INT_EQ(minigraf_stmt_bind_json(s, json), n == MEMORY_LIMIT ? 0 : MINIGRAF_E_PRS_007);
        free(json);
        free(x);
    }
    char *out = minigraf_stmt_execute(s);
    CHECK_STR_EQ(out, "{\"variables\":[\"(count ?e)\"],\"results\":[[1]]}");
    minigraf_string_free(out);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* ---- on file ------------------------------------------------------------------ */

TEST(file_transact_at_limit_and_past_it) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    expect_transact_len(__LINE__, db, FILE_LIMIT, 0, NULL);
    expect_transact_len(__LINE__, db, FILE_LIMIT + 1, 0, "WAL-003");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[WAL-003] string value of 4069 bytes exceeds the maximum of 4068 bytes");
    expect_transact_len(__LINE__, db, FILE_LIMIT, 1, NULL); /* decoded bytes here too */
    expect_transact_len(__LINE__, db, MEMORY_LIMIT + 1, 0, "PRS-007");
    CHECK_INT_EQ(tx_count(db), 2);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    minigraf_close(db);

    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT, 'x'), 1);
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT, '\n'), 1);
    CHECK_INT_EQ(tx_count(db), 2);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* A write transaction: the size is checked at commit (WAL-003, nothing
 * written, the transaction ended); the database stays writable. */
static int commit_one(MiniGrafDb *db, size_t n) {
    MiniGrafTx *tx = minigraf_begin_write(db);
    if (tx == NULL)
        return -1;
    char *text = transact_text(n, 0), *out = minigraf_tx_execute(tx, text);
    int rc = out == NULL ? -1 : minigraf_tx_commit(tx);
    minigraf_string_free(out);
    free(text);
    minigraf_tx_free(tx);
    return rc;
}

TEST(file_write_transaction_at_limit_and_past_it) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(commit_one(db, FILE_LIMIT + 1), MINIGRAF_E_WAL_003);
    CHECK_INT_EQ(commit_one(db, FILE_LIMIT), 0);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);

    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT, 'x'), 1);
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT + 1, 'x'), 0);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* An export of an in-memory database to a file: WAL-003 for a string too
 * long for the file, and no partial copy is left. */
TEST(export_at_limit_and_past_it) {
    temp_db_path t;
    temp_db_make(&t);
    char path[128];
    for (size_t n = FILE_LIMIT; n <= FILE_LIMIT + 1; n++) {
        MiniGrafDb *db = open_memory_db();
        REQUIRE(db != NULL);
        expect_transact_len(__LINE__, db, n, 0, NULL);
        snprintf(path, sizeof path, "%s/copy-%zu.graph", t.dir, n);
        CHECK_INT_EQ(minigraf_export(db, path, NULL), n == FILE_LIMIT ? 0 : MINIGRAF_E_WAL_003);
        CHECK_INT_EQ(access(path, F_OK) == 0, n == FILE_LIMIT);
        minigraf_close(db);
    }
    snprintf(path, sizeof path, "%s/copy-%d.graph", t.dir, FILE_LIMIT);
    MiniGrafDb *copy = minigraf_open(path);
    REQUIRE(copy != NULL);
    CHECK_INT_EQ(count_matching(copy, FILE_LIMIT, 'x'), 1);
    minigraf_close(copy);
    temp_db_remove(&t);
}

static char *record_json(size_t n) {
    const char *head = "{\"entity\":\"00000000-0000-0000-0000-000000000001\",\"attribute\":\":s\","
                       "\"value\":{\"type\":\"string\",\"value\":\"";
    const char *tail = "\"},\"tx_count\":1,\"tx_id\":1000,\"valid_from\":1000,"
                       "\"valid_to\":9223372036854775807,\"asserted\":true}";
    size_t len = strlen(head) + n + strlen(tail) + 1;
    char *s = malloc(len), *x = bytes(n, 'x');
    snprintf(s, len, "%s%s%s", head, x, tail);
    free(x);
    return s;
}

/* The log writer, record by record and in a batch: WAL-003 past the limit
 * and the record is not written. */
TEST(log_writer_at_limit_and_past_it) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(t.path, NULL, &error);
    REQUIRE(w != NULL);
    char *ok = record_json(FILE_LIMIT), *bad = record_json(FILE_LIMIT + 1);
    CHECK_INT_EQ(minigraf_log_writer_append(w, ok), 0);
    CHECK_INT_EQ(minigraf_log_writer_append(w, bad), -1);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), MINIGRAF_E_WAL_003);
    size_t len = strlen(ok) + strlen(bad) + 4;
    char *batch = malloc(len);
    snprintf(batch, len, "[%s,%s]", ok, bad);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(w, batch), -1);
    CHECK_INT_EQ(minigraf_log_writer_last_error_code(w), MINIGRAF_E_WAL_003);
    snprintf(batch, len, "[%s]", ok);
    CHECK_INT_EQ(minigraf_log_writer_append_batch(w, batch), 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    free(batch);
    free(ok);
    free(bad);

    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT, 'x'),
                 1); /* one fact: the second record repeats it */
    CHECK_INT_EQ(count_matching(db, FILE_LIMIT + 1, 'x'), 0);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(memory_transact_at_limit_and_past_it),
           TEST_ENTRY(memory_limit_counts_decoded_bytes),
           TEST_ENTRY(memory_query_literal_at_limit_and_past_it),
           TEST_ENTRY(memory_bind_string_at_limit_and_past_it),
           TEST_ENTRY(memory_bind_json_at_limit_and_past_it),
           TEST_ENTRY(file_transact_at_limit_and_past_it),
           TEST_ENTRY(file_write_transaction_at_limit_and_past_it),
           TEST_ENTRY(export_at_limit_and_past_it), TEST_ENTRY(log_writer_at_limit_and_past_it))
