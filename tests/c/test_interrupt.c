/* Cancellation (minigraf.h "Cancellation, progress and shared handles"):
 * minigraf_interrupt from another thread stops the running query, cursor
 * open, cursor fetch and write with API-013, the database stays usable
 * and later calls are not affected; a progress handler that returns
 * non-zero and query_timeout_ms stop a call the same way. */
#include <sched.h>

#include "heavy.h"

typedef struct job {
    MiniGrafDb *db;
    const char *text;
    MiniGrafCursor *cursor; /* fetch from it instead of executing `text` */
    MiniGrafTx *tx;         /* run_tx_execute: execute `text` inside it */
    int code;               /* the call's error code, 0 for success */
    char *message;
} job;

static void *run_execute(void *arg) {
    job *j = arg;
    char *out = minigraf_execute(j->db, j->text);
    j->code = out ? 0 : minigraf_last_error_code(j->db);
    if (!out && minigraf_last_error(j->db))
        j->message = strdup(minigraf_last_error(j->db));
    minigraf_string_free(out);
    return NULL;
}

static void *run_query(void *arg) {
    job *j = arg;
    MiniGrafCursor *c = minigraf_query(j->db, j->text);
    j->code = c ? 0 : minigraf_last_error_code(j->db);
    minigraf_cursor_free(c);
    return NULL;
}

static void *run_tx_execute(void *arg) {
    job *j = arg;
    char *out = minigraf_tx_execute(j->tx, j->text);
    j->code = out ? 0 : minigraf_tx_last_error_code(j->tx);
    minigraf_string_free(out);
    return NULL;
}

static void *run_fetch(void *arg) {
    job *j = arg;
    char *b = minigraf_cursor_next_batch(j->cursor, (size_t)1 << 40);
    j->code = b ? 0 : minigraf_cursor_last_error_code(j->cursor);
    minigraf_string_free(b);
    return NULL;
}

/* Starts `fn` on a thread, waits until its call is running (the progress
 * handler says so), interrupts it and waits for it to return. */
static void interrupt_while_running(job *j, void *(*fn)(void *)) {
    atomic_int running = 0;
    CHECK_INT_EQ(minigraf_progress_handler(j->db, 1, heavy_mark_running, &running), 0);
    pthread_t t;
    pthread_create(&t, NULL, fn, j);
    heavy_wait(&running);
    minigraf_interrupt(j->db);
    pthread_join(t, NULL);
    CHECK_INT_EQ(minigraf_progress_handler(j->db, 0, NULL, NULL), 0);
}

static MiniGrafDb *heavy_db(void) {
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"max_results\": 1000000000000}", NULL);
    CHECK(db != NULL);
    heavy_fill(db);
    return db;
}

TEST(interrupt_stops_a_running_query_and_the_database_stays_usable) {
    MiniGrafDb *db = heavy_db();
    job j = {.db = db, .text = HEAVY_COUNT};
    interrupt_while_running(&j, run_execute);
    CHECK_INT_EQ(j.code, 5013);
    CHECK_STR_EQ(j.message, "[API-013] interrupted");
    free(j.message);
    EXPECT_EXEC(db, "(query [:find ?x :where [:e1 :n ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[[1]]}");
    minigraf_close(db);
}

TEST(interrupt_stops_a_rule_query) {
    MiniGrafDb *db = heavy_db();
    job j = {.db = db, .text = HEAVY_RULES};
    interrupt_while_running(&j, run_execute);
    CHECK_INT_EQ(j.code, 5013);
    free(j.message);
    minigraf_close(db);
}

TEST(interrupt_stops_a_cursor_while_it_opens) {
    MiniGrafDb *db = heavy_db();
    job j = {.db = db, .text = HEAVY_COUNT};
    interrupt_while_running(&j, run_query);
    CHECK_INT_EQ(j.code, 5013);
    minigraf_close(db);
}

TEST(interrupt_stops_a_streaming_fetch_and_ends_the_cursor) {
    MiniGrafDb *db = heavy_db();
    MiniGrafCursor *c = minigraf_query(db, HEAVY_ROWS);
    CHECK(c != NULL);
    job j = {.db = db, .cursor = c};
    interrupt_while_running(&j, run_fetch);
    CHECK_INT_EQ(j.code, 5013);
    CHECK(minigraf_cursor_next_batch(c, 10) == NULL); /* finished, same error */
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 5013);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(calls_after_an_interrupt_are_not_affected) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    minigraf_interrupt(db);
    minigraf_interrupt(db);
    EXPECT_EXEC(db, "(query [:find ?x :where [:a :n ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[[1]]}");
    EXPECT_TRANSACT(db, "(transact [[:a :n 2]])");
    CHECK_INT_EQ(tx_count(db), 2);
    minigraf_close(db);
}

typedef struct writer {
    MiniGrafDb *db;
    char *text;
    atomic_int done;
    int code;
} writer;

static void *run_big_write(void *arg) {
    writer *w = arg;
    char *out = minigraf_execute(w->db, w->text);
    w->code = out ? 0 : minigraf_last_error_code(w->db);
    minigraf_string_free(out);
    atomic_store(&w->done, 1);
    return NULL;
}

/* Whether the interrupt lands before the commit or after it depends on
 * timing: either the write is whole, or it failed with API-013 and
 * nothing of it is there. */
TEST(an_interrupted_write_writes_nothing) {
    MiniGrafDb *db = open_memory_db();
    size_t cap = 40u * 20000 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "(transact [");
    for (int i = 0; i < 20000; i++)
        len += (size_t)snprintf(text + len, cap - len, "[:w%d :big %d] ", i, i);
    snprintf(text + len, cap - len, "])");
    writer w = {.db = db, .text = text};
    pthread_t t;
    pthread_create(&t, NULL, run_big_write, &w);
    while (!atomic_load(&w.done))
        minigraf_interrupt(db);
    pthread_join(t, NULL);
    char *count = EXEC(db, "(query [:find (count ?e) :where [?e :big ?v]])");
    if (w.code == 5013) {
        CHECK_INT_EQ(tx_count(db), 0);
        CHECK_STR_EQ(count, "{\"variables\":[\"(count ?e)\"],\"results\":[[0]]}");
    } else {
        CHECK_INT_EQ(w.code, 0);
        CHECK_INT_EQ(tx_count(db), 1);
        CHECK_STR_EQ(count, "{\"variables\":[\"(count ?e)\"],\"results\":[[20000]]}");
    }
    minigraf_string_free(count);
    free(text);
    minigraf_close(db);
}

typedef struct counter {
    int calls, stop_at;
    pthread_t thread;
    int other_thread;
} counter;

static int count_and_stop(void *arg) {
    counter *c = arg;
    c->other_thread |= !pthread_equal(pthread_self(), c->thread);
    return ++c->calls >= c->stop_at;
}

TEST(a_progress_handler_runs_on_the_calling_thread_and_stops_the_call) {
    MiniGrafDb *db = heavy_db();
    counter c = {.stop_at = 5, .thread = pthread_self()};
    CHECK_INT_EQ(minigraf_progress_handler(db, 100, count_and_stop, &c), 0);
    EXPECT_ERROR(db, HEAVY_COUNT, "API-013");
    CHECK_STR_EQ(minigraf_last_error(db), "[API-013] interrupted by the progress handler");
    CHECK_INT_EQ(c.calls, 5);
    CHECK_INT_EQ(c.other_thread, 0);
    /* the next call begins with the handler afresh: it counts on */
    EXPECT_ERROR(db, HEAVY_COUNT, "API-013");
    CHECK_INT_EQ(c.calls, 6);
    CHECK_INT_EQ(minigraf_progress_handler(db, 0, NULL, NULL), 0);
    EXPECT_EXEC(db, "(query [:find ?x :where [:e2 :n ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[[2]]}");
    CHECK_INT_EQ(c.calls, 6);
    minigraf_close(db);
}

TEST(progress_handler_arguments_are_checked) {
    MiniGrafDb *db = open_memory_db();
    counter c = {.stop_at = 1};
    CHECK_INT_EQ(minigraf_progress_handler(db, 0, count_and_stop, &c), 5017);
    CHECK_INT_EQ(minigraf_last_error_code(db), 5017);
    CHECK_INT_EQ(minigraf_progress_handler(NULL, 1, count_and_stop, &c), 5017);
    CHECK_INT_EQ(minigraf_progress_handler(db, 1, NULL, NULL), 0);
    CHECK(minigraf_last_error(db) == NULL);
    minigraf_close(db);
    CHECK_INT_EQ(minigraf_progress_handler(db, 1, count_and_stop, &c), 5018);
    minigraf_interrupt(db);   /* closed: nothing happens */
    minigraf_interrupt(NULL); /* nothing happens */
}

TEST(query_timeout_ms_stops_a_long_query) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_timeout_ms\": 30}", &error);
    CHECK(db != NULL);
    heavy_fill(db);
    EXPECT_ERROR(db, HEAVY_COUNT, "API-013");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-013] interrupted: the query ran longer than query_timeout_ms (30 ms)");
    EXPECT_EXEC(db, "(query [:find ?x :where [:e3 :n ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[[3]]}");
    minigraf_close(db);
}

TEST(query_timeout_ms_must_be_a_non_negative_integer) {
    char *error = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"query_timeout_ms\": -1}", &error) == NULL);
    CHECK_STR_EQ(error, "[API-017] option \"query_timeout_ms\" must be an integer >= 0");
    minigraf_string_free(error);
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_timeout_ms\": 0}", NULL);
    CHECK(db != NULL);
    minigraf_close(db);
}

/* A query inside a write transaction (committed + staged facts) stops too;
 * the transaction stays open and commits what it staged. */
TEST(interrupt_stops_a_query_inside_a_write_transaction) {
    MiniGrafDb *db = heavy_db();
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx != NULL);
    char *staged = minigraf_tx_execute(tx, "(transact [[:staged :n -1]])");
    CHECK(staged != NULL);
    minigraf_string_free(staged);
    job j = {.db = db, .tx = tx, .text = HEAVY_COUNT};
    interrupt_while_running(&j, run_tx_execute);
    CHECK_INT_EQ(j.code, 5013);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, "(query [:find ?x :where [:staged :n ?x]])",
                "{\"variables\":[\"?x\"],\"results\":[[-1]]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(interrupt_stops_a_running_query_and_the_database_stays_usable),
           TEST_ENTRY(interrupt_stops_a_query_inside_a_write_transaction),
           TEST_ENTRY(interrupt_stops_a_rule_query),
           TEST_ENTRY(interrupt_stops_a_cursor_while_it_opens),
           TEST_ENTRY(interrupt_stops_a_streaming_fetch_and_ends_the_cursor),
           TEST_ENTRY(calls_after_an_interrupt_are_not_affected),
           TEST_ENTRY(an_interrupted_write_writes_nothing),
           TEST_ENTRY(a_progress_handler_runs_on_the_calling_thread_and_stops_the_call),
           TEST_ENTRY(progress_handler_arguments_are_checked),
           TEST_ENTRY(query_timeout_ms_stops_a_long_query),
           TEST_ENTRY(query_timeout_ms_must_be_a_non_negative_integer))
