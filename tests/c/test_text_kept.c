/* A query text run again keeps its plan and operators in the database's
 * cache of parsed texts (db/query_cache.h), as a prepared statement does.
 * Every test here runs the same texts many times, through minigraf_query
 * and minigraf_execute, with new data, another run in flight or another
 * thread between runs, and compares each answer with a fresh plan: the
 * same text made unique by a trailing comment, so that it is parsed,
 * planned and run once. */
#include <pthread.h>

#include "support.h"

/* 60 entities :p0..:p59 with :age i, :name "n<i>" and :group (i mod 3). */
static MiniGrafDb *ages(const char *options) {
    MiniGrafDb *db = options ? minigraf_open_with_options(NULL, options, NULL) : open_memory_db();
    if (!db)
        return NULL;
    char tx[8192];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len,
                                "[:p%d :age %d] [:p%d :name \"n%d\"] [:p%d :group %d] ", i, i, i, i,
                                i, i % 3);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    return db;
}

/* The rows of a minigraf_execute answer, sorted; NULL on error. */
static char *sorted_rows(char *answer) {
    const char *res = answer ? strstr(answer, "\"results\":") : NULL;
    char *rows = res ? json_sorted_array(res + strlen("\"results\":"), NULL) : NULL;
    minigraf_string_free(answer);
    return rows;
}

/* The text's answer planned afresh: a text seen once is not kept. */
static char *fresh_rows(MiniGrafDb *db, const char *text) {
    static int unique;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s ; fresh %d", text, unique++);
    return sorted_rows(EXEC(db, buf));
}

/* The text's answer as a cursor drained in batches of `batch`, sorted. */
static char *cursor_rows(MiniGrafDb *db, const char *text, size_t batch) {
    MiniGrafCursor *c = minigraf_query(db, text);
    if (!c)
        return NULL;
    char *rows = drain_cursor(c, batch);
    minigraf_cursor_free(c);
    char *sorted = rows ? json_sorted_array(rows, NULL) : NULL;
    free(rows);
    return sorted;
}

/* The text through minigraf_query and minigraf_execute (its kept plan
 * from the second run on) against a fresh plan of it. */
static void expect_same_at(int line, MiniGrafDb *db, const char *text, size_t batch) {
    char *want = fresh_rows(db, text);
    for (int run = 0; run < 2; run++) {
        char *got = run == 0 ? cursor_rows(db, text, batch) : sorted_rows(EXEC(db, text));
        if (!got || !want || strcmp(got, want) != 0)
            check_fail_str(__FILE__, line, text, got ? got : minigraf_last_error(db),
                           want ? want : "(none)");
        free(got);
    }
    free(want);
}
#define EXPECT_SAME(db, text, batch) expect_same_at(__LINE__, (db), (text), (batch))

static const char *const TEXTS[] = {
    "(query [:find ?a :where [:p7 :age ?a]])",
    "(query [:find ?n :where [?e :group 1] [?e :name ?n]])",
    "(query [:find ?e ?a :where [?e :age ?a] [(>= ?a 40)]])",
    "(query [:find ?n ?m :where [?e :group 2] [?e :name ?n] [?f :age 3] [?f :name ?m]])",
    "(query [:find ?a :where [?e :name \"n5\"] [?e :age ?a] :limit 1])",
    /* pseudo-attributes, paired with the pattern on the same entity (language.md D16) */
    "(query [:find ?n ?t :any-valid-time :where [?e :group 0] [?e :name ?n] [?e :db/tx-count ?t]])",
    "(query [:find ?a ?t :valid-at :any-valid-time :where [:p7 :age ?a] [:p7 :db/tx-count ?t]])",
};
#define TEXT_COUNT (sizeof TEXTS / sizeof TEXTS[0])

/* Facts added run after run (the store grows far past the size the plans
 * were made for, so they are planned again), retracted and changed: each
 * run sees the data written last. */
TEST(texts_rerun_across_writes_retractions_and_growth) {
    MiniGrafDb *db = ages(NULL);
    REQUIRE(db);
    for (int round = 0; round < 30; round++) {
        for (size_t t = 0; t < TEXT_COUNT; t++)
            EXPECT_SAME(db, TEXTS[t], 3);
        char tx[8192];
        size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [[:p7 :age %d] ", 100 + round);
        for (int i = 0; i < 20; i++) /* grows the store: 180 facts, then 240 more a round */
            len += (size_t)snprintf(
                tx + len, sizeof tx - len,
                "[:q%d_%d :age %d] [:q%d_%d :group %d] [:q%d_%d :name \"m%d\"] ", round, i, i,
                round, i, i % 3, round, i, i);
        snprintf(tx + len, sizeof tx - len, "])");
        EXPECT_TRANSACT(db, tx);
        char rx[200];
        snprintf(rx, sizeof rx, "(retract [[:q%d_3 :group 0] [:p%d :name \"n%d\"]])", round,
                 round + 10, round + 10);
        char *r = EXEC(db, rx);
        minigraf_string_free(r);
    }
    minigraf_close(db);
}

/* :as-of and :valid-at texts run again while newer facts arrive: each
 * run reads the time it names, not the newest data. */
TEST(as_of_and_valid_at_texts_rerun_across_writes) {
    MiniGrafDb *db = open_memory_db();
    REQUIRE(db);
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    EXPECT_TRANSACT(db, "(transact [[:x :n 2]])");
    EXPECT_TRANSACT(db,
                    "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-01\"} [[:x :n 3]])");
    const char *texts[] = {
        "(query [:find ?v :as-of 2 :where [:x :n ?v]])",
        "(query [:find ?v :as-of 3 :any-valid-time :where [:x :n ?v]])",
        "(query [:find ?v :valid-at \"2023-02-01\" :where [:x :n ?v]])",
        "(query [:find ?v :valid-at :any-valid-time :where [:x :n ?v]])",
        "(query [:find ?v :where [:x :n ?v]])",
        "(query [:find ?v ?f :valid-at :any-valid-time :where [:x :n ?v] [:x :db/valid-from ?f]])",
        "(query [:find ?v ?t :as-of 3 :any-valid-time :where [:x :n ?v] [:x :db/tx-count ?t]])",
    };
    for (int round = 0; round < 20; round++) {
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
            EXPECT_SAME(db, texts[t], 2);
        char tx[160];
        snprintf(tx, sizeof tx, "(transact {:valid-from \"2023-0%d-01\"} [[:x :n %d]])",
                 1 + round % 9, 10 + round);
        EXPECT_TRANSACT(db, tx);
        if (round % 3 == 2) {
            snprintf(tx, sizeof tx, "(retract [[:x :n %d]])", 10 + round);
            char *r = EXEC(db, tx);
            minigraf_string_free(r);
        }
    }
    minigraf_close(db);
}

/* Two cursors of one text open at once: the first holds the kept plan,
 * the second plans afresh; both answer in full, freed in either order. */
TEST(two_cursors_of_one_text_open_at_once) {
    MiniGrafDb *db = ages(NULL);
    REQUIRE(db);
    const char *text = TEXTS[1];
    char *want = fresh_rows(db, text);
    for (int round = 0; round < 6; round++) {
        MiniGrafCursor *a = minigraf_query(db, text);
        REQUIRE(a);
        char *first = minigraf_cursor_next_batch(a, 3); /* `a` streams, mid-way */
        minigraf_string_free(first);
        MiniGrafCursor *b = minigraf_query(db, text);
        REQUIRE(b);
        char *rows_b = drain_cursor(b, 4);
        char *sorted_b = rows_b ? json_sorted_array(rows_b, NULL) : NULL;
        CHECK_STR_EQ(sorted_b, want);
        if (round % 2)
            minigraf_cursor_free(b);
        MiniGrafCursor *again = minigraf_query(db, text); /* a and maybe b still live */
        REQUIRE(again);
        char *rows_again = drain_cursor(again, 5);
        minigraf_cursor_free(again);
        char *rest = drain_cursor(a, 2);
        CHECK(rest != NULL);
        minigraf_cursor_free(a);
        if (round % 2 == 0)
            minigraf_cursor_free(b);
        char *sorted_again = rows_again ? json_sorted_array(rows_again, NULL) : NULL;
        CHECK_STR_EQ(sorted_again, want);
        free(sorted_again);
        free(rows_again);
        free(rest);
        free(sorted_b);
        free(rows_b);
        char *got = cursor_rows(db, text, 7); /* the kept plan, given back */
        CHECK_STR_EQ(got, want);
        free(got);
    }
    free(want);
    minigraf_close(db);
}

/* A cursor of a cached text, holding its kept plan, outlives
 * minigraf_close: it reads its rows, then gives the plan back to an
 * entry the closed database no longer holds (freed with the cursor). */
TEST(cursor_of_a_cached_text_outlives_close) {
    for (int streamed = 0; streamed < 2; streamed++) {
        MiniGrafDb *db = ages(NULL);
        REQUIRE(db);
        const char *text = TEXTS[2];
        char *want = fresh_rows(db, text);
        for (int i = 0; i < 3; i++)
            EXPECT_SAME(db, text, 4);
        MiniGrafCursor *c = minigraf_query(db, text);
        REQUIRE(c);
        char *head = streamed ? minigraf_cursor_next_batch(c, 2) : NULL;
        minigraf_close(db);
        char *rest = drain_cursor(c, 3);
        CHECK(rest != NULL);
        minigraf_cursor_free(c);
        if (head && rest) { /* head's rows, then the rest's */
            char both[8192];
            snprintf(both, sizeof both, "[%.*s%s%s", (int)strlen(head) - 2, head + 1,
                     strlen(rest) > 2 ? "," : "", rest + 1);
            free(rest);
            rest = strdup(both);
        }
        char *sorted = rest ? json_sorted_array(rest, NULL) : NULL;
        CHECK_STR_EQ(sorted, want);
        free(sorted);
        free(rest);
        minigraf_string_free(head);
        free(want);
    }
}

/* A run of a kept text that fails half-way (stopped by the progress
 * handler, or over the memory limit) drops the kept plan: the runs after
 * it plan again and answer in full. */
static int stop_now(void *user_data) {
    (void)user_data;
    return 1;
}

TEST(failed_run_drops_the_kept_plan) {
    MiniGrafDb *db = ages(NULL);
    REQUIRE(db);
    const char *text = TEXTS[2];
    for (int round = 0; round < 4; round++) {
        EXPECT_SAME(db, text, 4); /* planned and kept */
        CHECK_INT_EQ(minigraf_progress_handler(db, 1, stop_now, NULL), 0);
        CHECK(minigraf_query(db, text) == NULL);
        CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "API-013");
        char *r = minigraf_execute(db, text);
        CHECK(r == NULL);
        CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "API-013");
        CHECK_INT_EQ(minigraf_progress_handler(db, 1, NULL, NULL), 0);
        EXPECT_SAME(db, text, 3);
    }
    minigraf_close(db);
}

/* Names of 150 bytes: 20 of them sort within 64 KiB, 420 do not. */
static void add_names(MiniGrafDb *db, const char *prefix, int from, int to, int group) {
    static char tx[1 << 20];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = from; i < to; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len,
                                "[:%s%d :group %d] [:%s%d :long \"%s%0146d\"] ", prefix, i, group,
                                prefix, i, prefix, i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
}

TEST(run_over_the_memory_limit_drops_the_kept_plan) {
    MiniGrafDb *db = ages("{\"query_memory_limit\": 65536}");
    REQUIRE(db);
    add_names(db, "f", 0, 900, 7); /* filler: the store's size moves less than 2x below */
    add_names(db, "a", 0, 20, 1);
    const char *text = "(query [:find ?n :where [?e :group 1] [?e :long ?n] :order-by [?n]])";
    EXPECT_SAME(db, text, 50);
    EXPECT_SAME(db, text, 50);
    add_names(db, "b", 0, 400, 1);
    for (int i = 0; i < 2; i++) {
        CHECK(minigraf_query(db, text) == NULL);
        CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "QRY-012");
    }
    char rx[1 << 16];
    size_t len = (size_t)snprintf(rx, sizeof rx, "(retract [");
    for (int i = 0; i < 400; i++)
        len += (size_t)snprintf(rx + len, sizeof rx - len, "[:b%d :group 1] ", i);
    snprintf(rx + len, sizeof rx - len, "])");
    char *r = EXEC(db, rx);
    minigraf_string_free(r);
    for (int i = 0; i < 3; i++)
        EXPECT_SAME(db, text, 50);
    minigraf_close(db);
}

/* More distinct texts than the cache keeps, each run twice and then all
 * again: evicted entries free their plans (ASan: no leak), kept ones
 * still answer as a fresh plan. */
TEST(more_texts_than_cache_entries) {
    MiniGrafDb *db = ages(NULL);
    REQUIRE(db);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 400; i++) {
            char text[160];
            snprintf(text, sizeof text, "(query [:find ?n :where [?e :age %d] [?e :name ?n]])",
                     i % 70);
            char padded[200];
            snprintf(padded, sizeof padded, "%s%*s", text, i / 70, ""); /* distinct texts */
            EXPECT_SAME(db, padded, 2);
        }
    minigraf_close(db);
}

/* Threads running the same texts at once (also under TSan): each run
 * takes the kept plan of its thread's part of the cache, or plans afresh
 * when another run holds it, and hands it over when its cursor is freed,
 * possibly on another thread. */
typedef struct job {
    MiniGrafDb *db;
    char *want[TEXT_COUNT];
    int wrong;
} job;

static void *run_texts(void *arg) {
    job *j = arg;
    MiniGrafCursor *held = NULL;
    for (int i = 0; i < 300; i++) {
        size_t t = (size_t)i % TEXT_COUNT;
        char *got = i % 2 ? cursor_rows(j->db, TEXTS[t], 2) : sorted_rows(EXEC(j->db, TEXTS[t]));
        if (!got || strcmp(got, j->want[t]) != 0)
            __atomic_add_fetch(&j->wrong, 1, __ATOMIC_RELAXED);
        free(got);
        if (i % 7 == 0) { /* a cursor held across other runs of the texts */
            minigraf_cursor_free(held);
            held = minigraf_query(j->db, TEXTS[(t + 1) % TEXT_COUNT]);
        }
    }
    minigraf_cursor_free(held);
    return NULL;
}

TEST(many_threads_run_the_same_texts) {
    job j = {.db = ages(NULL)};
    REQUIRE(j.db);
    for (size_t t = 0; t < TEXT_COUNT; t++)
        j.want[t] = fresh_rows(j.db, TEXTS[t]);
    pthread_t threads[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&threads[i], NULL, run_texts, &j);
    for (int i = 0; i < 8; i++)
        pthread_join(threads[i], NULL);
    CHECK_INT_EQ(j.wrong, 0);
    for (size_t t = 0; t < TEXT_COUNT; t++)
        free(j.want[t]);
    minigraf_close(j.db);
}

CHECK_MAIN(TEST_ENTRY(texts_rerun_across_writes_retractions_and_growth),
           TEST_ENTRY(as_of_and_valid_at_texts_rerun_across_writes),
           TEST_ENTRY(two_cursors_of_one_text_open_at_once),
           TEST_ENTRY(cursor_of_a_cached_text_outlives_close),
           TEST_ENTRY(failed_run_drops_the_kept_plan),
           TEST_ENTRY(run_over_the_memory_limit_drops_the_kept_plan),
           TEST_ENTRY(more_texts_than_cache_entries), TEST_ENTRY(many_threads_run_the_same_texts))
