/* Streaming cursors (minigraf.h, language.md §14.2): a plain projection's rows are
 * produced batch by batch on the snapshot of the moment the cursor opened;
 * a write leaves it streaming that snapshot, and a checkpoint or a close
 * reads the rest into memory first, so the answer stays the same and no
 * writer waits for a cursor. */
#include <pthread.h>

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
           TEST_ENTRY(free_before_the_first_batch),
           TEST_ENTRY(write_on_the_same_thread_mid_stream_keeps_the_answer),
           TEST_ENTRY(checkpoint_mid_stream_keeps_the_answer),
           TEST_ENTRY(close_mid_stream_keeps_the_rest_readable),
           TEST_ENTRY(writer_thread_commits_while_a_cursor_streams),
           TEST_ENTRY(memory_limit_reached_mid_stream_is_reported_by_next_batch),
           TEST_ENTRY(limit_and_offset_stream),
           TEST_ENTRY(computed_answers_are_unaffected_by_writes))
