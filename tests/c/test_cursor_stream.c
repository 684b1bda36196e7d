/* Streaming cursors (minigraf.h, language.md §14.2): a plain projection's rows are
 * produced batch by batch on the snapshot of the moment the cursor opened;
 * a write leaves it streaming that snapshot, and a checkpoint or a close
 * reads the rest into memory first, so the answer stays the same and no
 * writer waits for a cursor. */
#include <pthread.h>
#include <stdbool.h>

#include "support.h"

#define QRY_012 2012

/* [:pK :n K] for K in [from, from + n). */
static void add_numbers(MiniGrafDb *db, int from, int n) {
    size_t cap = 64 + (size_t)n * 32;
    char *tx = malloc(cap);
    size_t len = (size_t)snprintf(tx, cap, "(transact [");
    for (int i = from; i < from + n; i++)
        len += (size_t)snprintf(tx + len, cap - len, "[:p%d :n %d]", i, i);
    snprintf(tx + len, cap - len, "])");
    EXPECT_TRANSACT(db, tx);
    free(tx);
}

static const char *ALL_N = "(query [:find ?e ?v :where [?e :n ?v]])";

/* Rows of a batch "[[..],[..]]" of plain (non-list) values. */
static int rows_in(const char *batch) {
    int rows = 0;
    for (const char *p = batch + 1; *p; p++)
        rows += *p == '[';
    return rows;
}

/* Reads up to `max` rows more; the number read, -1 on error. */
static int read_rows(MiniGrafCursor *c, size_t max) {
    char *b = minigraf_cursor_next_batch(c, max);
    if (!b)
        return minigraf_cursor_last_error(c) ? -1 : 0;
    int n = rows_in(b);
    minigraf_string_free(b);
    return n;
}

/* Every remaining row; -1 on error. */
static int read_all(MiniGrafCursor *c) {
    int total = 0, n;
    while ((n = read_rows(c, 300)) > 0)
        total += n;
    return n < 0 ? -1 : total;
}

static int count_now(MiniGrafDb *db) {
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    int n = c ? read_all(c) : -1;
    minigraf_cursor_free(c);
    return n;
}

TEST(partial_read_then_free_lets_writers_in) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 2000);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 10), 10);
    minigraf_cursor_free(c);
    add_numbers(db, 2000, 5);
    CHECK_INT_EQ(count_now(db), 2005);
    minigraf_close(db);
}

TEST(free_before_the_first_batch) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 100);
    minigraf_cursor_free(minigraf_query(db, ALL_N));
    add_numbers(db, 100, 1);
    CHECK_INT_EQ(count_now(db), 101);
    minigraf_close(db);
}

TEST(write_on_the_same_thread_mid_stream_keeps_the_answer) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 2000);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 500), 500);
    add_numbers(db, 2000, 100);
    EXPECT_RETRACT(db, "(retract [[:p0 :n 0] [:p1999 :n 1999]])");
    CHECK_INT_EQ(read_all(c), 1500);
    CHECK_STR_EQ(minigraf_cursor_last_error(c), NULL);
    minigraf_cursor_free(c);
    CHECK_INT_EQ(count_now(db), 2098);
    minigraf_close(db);
}

TEST(checkpoint_mid_stream_keeps_the_answer) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    add_numbers(db, 0, 1500);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 700), 700);
    add_numbers(db, 1500, 10);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    CHECK_INT_EQ(read_all(c), 800);
    minigraf_cursor_free(c);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(close_mid_stream_keeps_the_rest_readable) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    add_numbers(db, 0, 1200);
    MiniGrafCursor *streaming = minigraf_query(db, ALL_N);
    MiniGrafCursor *untouched = minigraf_query(db, ALL_N);
    REQUIRE(streaming != NULL && untouched != NULL);
    CHECK_INT_EQ(read_rows(streaming, 200), 200);
    minigraf_close(db);
    CHECK_INT_EQ(read_all(streaming), 1000);
    CHECK_INT_EQ(read_all(untouched), 1200);
    minigraf_cursor_free(streaming);
    minigraf_cursor_free(untouched);
    temp_db_remove(&t);
}

typedef struct writer_job {
    MiniGrafDb *db;
    int done;
} writer_job;

static void *write_some(void *arg) {
    writer_job *j = arg;
    for (int i = 0; i < 20; i++) {
        char tx[64];
        snprintf(tx, sizeof tx, "(transact [[:w%d :n %d]])", i, 100000 + i);
        char *r = minigraf_execute(j->db, tx);
        j->done += r != NULL;
        minigraf_string_free(r);
    }
    return NULL;
}

TEST(writer_thread_commits_while_a_cursor_streams) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 3000);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 100), 100);
    writer_job j = {db, 0};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, write_some, &j) == 0);
    int rest = read_all(c);
    pthread_join(th, NULL);
    CHECK_INT_EQ(rest, 2900);
    CHECK_INT_EQ(j.done, 20);
    minigraf_cursor_free(c);
    CHECK_INT_EQ(count_now(db), 3020);
    minigraf_close(db);
}

TEST(memory_limit_reached_mid_stream_is_reported_by_next_batch) {
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 20000}", NULL);
    REQUIRE(db != NULL);
    add_numbers(db, 0, 2000);
    MiniGrafCursor *c = minigraf_query(db, ALL_N);
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 10), 10);
    /* a write leaves it streaming its snapshot (issue 20) ... */
    add_numbers(db, 2000, 1);
    CHECK_INT_EQ(read_rows(c, 10), 10);
    /* ... a checkpoint makes it hold its rest: more than the limit */
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    char *b = minigraf_cursor_next_batch(c, 10);
    CHECK(b == NULL);
    minigraf_string_free(b);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), QRY_012);
    CHECK(minigraf_cursor_last_error(c) != NULL &&
          strncmp(minigraf_cursor_last_error(c), "[QRY-012]", 9) == 0);
    CHECK_INT_EQ(read_rows(c, 10), -1); /* the error stays */
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), QRY_012);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* [:tK :s "<text>K"] for K in [0, n), the text `width` bytes long, and a
 * keyword and a ref (a #uuid, never :tK's own) beside it. */
static void add_texts(MiniGrafDb *db, int n, int width) {
    size_t cap = 64 + (size_t)n * ((size_t)width + 96);
    char *tx = malloc(cap);
    size_t len = (size_t)snprintf(tx, cap, "(transact [");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(tx + len, cap - len,
                                "[:t%d :s \"%0*d\"] [:t%d :k :kw/v%d] "
                                "[:t%d :r #uuid \"00000000-0000-4000-8000-%012d\"]",
                                i, width, i, i, i, i, i + 1);
    snprintf(tx + len, cap - len, "])");
    EXPECT_TRANSACT(db, tx);
    free(tx);
}

/* A streamed row's texts and refs are decoded as it is handed out (the
 * :where hands them on as dictionary ids): the reader's decoded texts
 * count against the limit row by row, and the step that crosses it fails
 * with QRY-012, as does every step after it. */
/* 400 texts of 200 bytes in memory, where queries may hold 40,000 bytes. */
static MiniGrafDb *open_limited_texts(void) {
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 40000}", NULL);
    if (db)
        add_texts(db, 400, 200);
    return db;
}

TEST(texts_decoded_row_by_row_reach_the_memory_limit_on_step) {
    MiniGrafDb *db = open_limited_texts();
    REQUIRE(db != NULL);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e ?s :where [?e :s ?s]])");
    REQUIRE(c != NULL);
    int rows = 0, rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        size_t len = 0;
        CHECK(minigraf_cursor_column_text(c, 1, &len) != NULL && len == 200);
        rows++;
    }
    CHECK_INT_EQ(rc, -QRY_012);
    CHECK(rows > 0 && rows < 400);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), QRY_012);
    CHECK_INT_EQ(minigraf_cursor_step(c), -QRY_012);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* The same by JSON batches, and with a limit large enough: every row. */
TEST(texts_decoded_row_by_row_by_batches) {
    MiniGrafDb *db = open_limited_texts();
    REQUIRE(db != NULL);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?s :where [?e :s ?s]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_all(c), -1);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), QRY_012);
    minigraf_cursor_free(c);
    minigraf_close(db);
    db = open_memory_db();
    add_texts(db, 400, 200);
    c = minigraf_query(db, "(query [:find ?s :where [?e :s ?s]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_all(c), 400);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Whether the current row of `c` is [:tK "<K, width 8>" :kw/vK ref]. */
static bool row_is_text_k(MiniGrafCursor *c, int *k) {
    size_t len = 0, klen = 0;
    const char *s = minigraf_cursor_column_text(c, 1, &len);
    const char *kw = minigraf_cursor_column_keyword(c, 2, &klen);
    const unsigned char *e = minigraf_cursor_column_uuid(c, 0);
    const unsigned char *r = minigraf_cursor_column_uuid(c, 3);
    if (!s || len != 8 || !kw || !e || !r)
        return false;
    *k = atoi(s);
    char want[32];
    snprintf(want, sizeof want, ":kw/v%d", *k);
    return klen == strlen(want) && memcmp(kw, want, klen) == 0 &&
           minigraf_cursor_column_type(c, 1) == MINIGRAF_TYPE_STRING &&
           minigraf_cursor_column_type(c, 2) == MINIGRAF_TYPE_KEYWORD &&
           minigraf_cursor_column_type(c, 3) == MINIGRAF_TYPE_REF && memcmp(e, r, 16) != 0;
}

/* Rows read before a checkpoint, the rows the checkpoint read into memory
 * (decoded then, from the snapshot it let go of) and the rows of an
 * :offset / :limit window all keep their types and texts. */
TEST(streamed_texts_keywords_and_refs_survive_a_checkpoint) {
    MiniGrafDb *db = open_memory_db();
    add_texts(db, 300, 8);
    const char *q = "(query [:find ?e ?s ?k ?r :where [?e :s ?s] [?e :k ?k] [?e :r ?r]])";
    MiniGrafCursor *c = minigraf_query(db, q);
    REQUIRE(c != NULL);
    bool seen[300] = {false};
    int rows = 0, rc, k = -1;
    while (rows < 50 && (rc = minigraf_cursor_step(c)) == 1) {
        CHECK(row_is_text_k(c, &k) && k >= 0 && k < 300 && !seen[k]);
        seen[k >= 0 && k < 300 ? k : 0] = true;
        rows++;
    }
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    EXPECT_TRANSACT(db, "(transact [[:later :s \"00000999\"]])");
    while ((rc = minigraf_cursor_step(c)) == 1) {
        CHECK(row_is_text_k(c, &k) && k >= 0 && k < 300 && !seen[k]);
        seen[k >= 0 && k < 300 ? k : 0] = true;
        rows++;
    }
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(rows, 300);
    minigraf_cursor_free(c);
    c = minigraf_query(db, "(query [:find ?e ?s ?k ?r :where [?e :s ?s] [?e :k ?k] [?e :r ?r] "
                           ":offset 290 :limit 20])");
    REQUIRE(c != NULL);
    for (rows = 0; (rc = minigraf_cursor_step(c)) == 1; rows++)
        CHECK(row_is_text_k(c, &k));
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(rows, 10);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Whether the current row of `c` is ["<K, width 8>" :kw/vK ...] with the
 * text and keyword at columns `s` and `s` + 1. */
static bool text_and_keyword_agree(MiniGrafCursor *c, int s) {
    size_t len = 0, klen = 0;
    const char *text = minigraf_cursor_column_text(c, s, &len);
    const char *kw = minigraf_cursor_column_keyword(c, s + 1, &klen);
    if (!text || len != 8 || !kw)
        return false;
    char want[32];
    snprintf(want, sizeof want, ":kw/v%d", atoi(text));
    return klen == strlen(want) && memcmp(kw, want, klen) == 0;
}

/* Reads `q`'s rows by steps, with another query (of other texts) and a
 * checkpoint after the first 10, checking each row's text and keyword
 * (columns `col`, `col` + 1): 1 when all 300 agree. */
static int computed_rows_agree(MiniGrafDb *db, const char *q, int col) {
    int rows = 0, bad = 0, rc;
    MiniGrafCursor *c = minigraf_query(db, q);
    if (!c)
        return 0;
    while (rows < 10 && (rc = minigraf_cursor_step(c)) == 1 && ++rows)
        bad += !text_and_keyword_agree(c, col);
    MiniGrafCursor *other = minigraf_query(db, "(query [:find ?o :where [?e :o ?o]])");
    bad += other == NULL || read_all(other) != 300; /* other texts, decoded anew */
    minigraf_cursor_free(other);
    bad += minigraf_checkpoint(db) != 0;
    while ((rc = minigraf_cursor_step(c)) == 1 && ++rows)
        bad += !text_and_keyword_agree(c, col);
    minigraf_cursor_free(c);
    return bad == 0 && rc == 0 && rows == 300;
}

/* Answers computed when the cursor opens (groups, windows, sorted rows)
 * are handed out where they were computed, after the snapshot that
 * decoded their texts is let go of: their texts are their own, whatever
 * runs in between; in memory and in a file. */
TEST(computed_texts_outlive_their_snapshot) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    for (int file = 0; file < 2; file++) {
        MiniGrafDb *db = file ? minigraf_open(t.path) : open_memory_db();
        REQUIRE(db != NULL);
        add_texts(db, 300, 8);
        for (int i = 0; i < 300; i++) {
            char tx[96];
            snprintf(tx, sizeof tx, "(transact [[:o%d :o \"other text %d\"]])", i, i);
            EXPECT_TRANSACT(db, tx);
        }
        CHECK_INT_EQ(minigraf_checkpoint(db), 0);
        CHECK(computed_rows_agree(
            db, "(query [:find ?s ?k (count ?e) :where [?e :s ?s] [?e :k ?k]])", 0));
        CHECK(computed_rows_agree(db,
                                  "(query [:find ?e ?s ?k (row-number :over (:order-by ?s)) "
                                  ":where [?e :s ?s] [?e :k ?k]])",
                                  1));
        CHECK(computed_rows_agree(db,
                                  "(query [:find ?e ?s ?k :where [?e :s ?s] [?e :k ?k] "
                                  ":order-by [?k]])",
                                  1));
        minigraf_close(db);
    }
    temp_db_remove(&t);
}

TEST(limit_and_offset_stream) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 500);
    MiniGrafCursor *c = minigraf_query(db,
                                       "(query [:find ?v :where [?e :n ?v] :offset 5 :limit 7])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(read_rows(c, 3), 3);
    add_numbers(db, 500, 1);
    CHECK_INT_EQ(read_all(c), 4);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(computed_answers_are_unaffected_by_writes) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, 0, 50);
    MiniGrafCursor *sorted = minigraf_query(
        db, "(query [:find ?v :where [?e :n ?v] :order-by [?v :desc]])");
    MiniGrafCursor *counted = minigraf_query(db, "(query [:find (count ?e) :where [?e :n ?v]])");
    REQUIRE(sorted != NULL && counted != NULL);
    char *first = minigraf_cursor_next_batch(sorted, 2);
    CHECK_STR_EQ(first, "[[49],[48]]");
    minigraf_string_free(first);
    add_numbers(db, 50, 10);
    CHECK_INT_EQ(read_all(sorted), 48);
    char *count = minigraf_cursor_next_batch(counted, 1);
    CHECK_STR_EQ(count, "[[50]]");
    minigraf_string_free(count);
    minigraf_cursor_free(sorted);
    minigraf_cursor_free(counted);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(partial_read_then_free_lets_writers_in),
           TEST_ENTRY(computed_texts_outlive_their_snapshot),
           TEST_ENTRY(free_before_the_first_batch),
           TEST_ENTRY(write_on_the_same_thread_mid_stream_keeps_the_answer),
           TEST_ENTRY(checkpoint_mid_stream_keeps_the_answer),
           TEST_ENTRY(close_mid_stream_keeps_the_rest_readable),
           TEST_ENTRY(writer_thread_commits_while_a_cursor_streams),
           TEST_ENTRY(memory_limit_reached_mid_stream_is_reported_by_next_batch),
           TEST_ENTRY(texts_decoded_row_by_row_reach_the_memory_limit_on_step),
           TEST_ENTRY(texts_decoded_row_by_row_by_batches),
           TEST_ENTRY(streamed_texts_keywords_and_refs_survive_a_checkpoint),
           TEST_ENTRY(limit_and_offset_stream),
           TEST_ENTRY(computed_answers_are_unaffected_by_writes))
