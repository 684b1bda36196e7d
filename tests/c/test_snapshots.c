/* Snapshots beside commits (issue 20): a commit does not wait for readers
 * and never changes what an open reader sees. A streaming cursor reads
 * its snapshot's pages while other threads commit over them; queries
 * running beside a writer never see half a transaction. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "support.h"

#define SEEDED 3000
#define COMMITS 400

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

static const char *VALUES = "(query [:find ?e ?v :where [?e :n ?v]])";

/* The ?v of every remaining row ("[[\"<uuid>\",v],...]"), marked in
 * seen[]; false on an error, a value out of range or one seen twice. */
static bool read_values(MiniGrafCursor *c, int *seen, int max, int *rows) {
    char *b;
    while ((b = minigraf_cursor_next_batch(c, 97)) != NULL) {
        for (const char *p = strstr(b, "\","); p; p = strstr(p + 2, "\",")) {
            int v = atoi(p + 2);
            if (v < 0 || v >= max || seen[v]++) {
                minigraf_string_free(b);
                return false;
            }
            (*rows)++;
        }
        minigraf_string_free(b);
    }
    return minigraf_cursor_last_error(c) == NULL;
}

/* Retracts [:pK :n K] for the first COMMITS values and adds as many new
 * ones, one commit each: every commit changes pages the cursor reads. */
static void *change_everything(void *arg) {
    MiniGrafDb *db = arg;
    for (int i = 0; i < COMMITS; i++) {
        char tx[96];
        snprintf(tx, sizeof tx, i % 2 ? "(retract [[:p%d :n %d]])" : "(transact [[:q%d :n %d]])", i,
                 i % 2 ? i : SEEDED + i);
        char *r = minigraf_execute(db, tx);
        minigraf_string_free(r);
    }
    return NULL;
}

/* Seeds SEEDED values, opens a streaming cursor, reads a little, lets
 * another thread commit COMMITS times (with a checkpoint mid-way when
 * asked), and expects exactly the seeded values from the cursor. */
static void cursor_keeps_its_snapshot(MiniGrafDb *db, bool checkpoint_midway) {
    add_numbers(db, 0, SEEDED);
    MiniGrafCursor *c = minigraf_query(db, VALUES);
    REQUIRE(c != NULL);
    int *seen = calloc(SEEDED, sizeof *seen);
    int rows = 0;
    char *first = minigraf_cursor_next_batch(c, 10);
    REQUIRE(first != NULL);
    for (const char *p = strstr(first, "\","); p; p = strstr(p + 2, "\","))
        seen[atoi(p + 2)]++, rows++;
    minigraf_string_free(first);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, change_everything, db) == 0);
    pthread_join(th, NULL);
    if (checkpoint_midway)
        CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    CHECK(read_values(c, seen, SEEDED, &rows));
    CHECK_INT_EQ(rows, SEEDED);
    minigraf_cursor_free(c);
    free(seen);
    /* a new query sees every commit */
    MiniGrafCursor *now = minigraf_query(db, VALUES);
    REQUIRE(now != NULL);
    int *all = calloc(SEEDED + COMMITS, sizeof *all), n = 0;
    CHECK(read_values(now, all, SEEDED + COMMITS, &n));
    CHECK_INT_EQ(n, SEEDED); /* half the commits added a value, half retracted one */
    minigraf_cursor_free(now);
    free(all);
}

TEST(memory_cursor_keeps_its_snapshot_while_commits_change_its_pages) {
    MiniGrafDb *db = open_memory_db();
    cursor_keeps_its_snapshot(db, false);
    minigraf_close(db);
}

/* No automatic checkpoint: the commits' page versions pile up beside the
 * cursor's, then a checkpoint reads the cursor's rest first. */
TEST(file_cursor_keeps_its_snapshot_through_commits_and_a_checkpoint) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 0}", NULL);
    REQUIRE(db != NULL);
    cursor_keeps_its_snapshot(db, true);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* Automatic checkpoints fall due while the cursor is open (every 50
 * facts): the writer stops the cursor (reads its rest) and checkpoints. */
TEST(file_cursor_keeps_its_snapshot_through_automatic_checkpoints) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 50}", NULL);
    REQUIRE(db != NULL);
    cursor_keeps_its_snapshot(db, false);
    minigraf_close(db);
    /* and the file holds every commit */
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_EXACT(db, "(query [:find (count ?e) :where [?e :n _]])",
                 "{\"variables\":[\"(count ?e)\"],\"results\":[[3000]]}");
    minigraf_close(db);
    temp_db_remove(&t);
}

#define PAIRS 300

typedef struct pair_run {
    MiniGrafDb *db;
    atomic_bool done;
    atomic_int started; /* readers running */
    atomic_int odd;     /* answers that saw half a transaction */
    atomic_int answers; /* queries answered */
} pair_run;

/* Each transaction adds two entities: every snapshot counts an even number. */
static void *write_pairs(void *arg) {
    pair_run *r = arg;
    while (atomic_load(&r->started) < 2) /* on a loaded machine they may start late */
        sched_yield();
    for (int i = 0; i < PAIRS; i++) {
        char tx[96];
        snprintf(tx, sizeof tx, "(transact [[:a%d :pair %d] [:b%d :pair %d]])", i, i, i, i);
        char *res = minigraf_execute(r->db, tx);
        minigraf_string_free(res);
    }
    atomic_store(&r->done, true);
    return NULL;
}

static void *count_pairs(void *arg) {
    pair_run *r = arg;
    atomic_fetch_add(&r->started, 1);
    do {
        char *res = minigraf_execute(r->db, "(query [:find (count ?e) :where [?e :pair _]])");
        int n = -1;
        if (res && strstr(res, "[[") && sscanf(strstr(res, "[[") + 2, "%d", &n) == 1) {
            atomic_fetch_add(&r->answers, 1);
            if (n % 2)
                atomic_fetch_add(&r->odd, 1);
        }
        minigraf_string_free(res);
        /* a streaming cursor too, read in small batches across commits */
        MiniGrafCursor *c = minigraf_query(r->db, "(query [:find ?e :where [?e :pair _]])");
        int rows = 0;
        char *b;
        while (c && (b = minigraf_cursor_next_batch(c, 7)) != NULL) {
            for (const char *p = b; (p = strchr(p, '[')) != NULL; p++)
                rows += p != b;
            minigraf_string_free(b);
        }
        if (c && !minigraf_cursor_last_error(c) && rows % 2)
            atomic_fetch_add(&r->odd, 1);
        minigraf_cursor_free(c);
    } while (!atomic_load(&r->done));
    return NULL;
}

static void readers_see_whole_transactions(MiniGrafDb *db) {
    pair_run r = {.db = db};
    atomic_init(&r.done, false);
    atomic_init(&r.started, 0);
    atomic_init(&r.odd, 0);
    atomic_init(&r.answers, 0);
    pthread_t w, q[2];
    REQUIRE(pthread_create(&q[0], NULL, count_pairs, &r) == 0);
    REQUIRE(pthread_create(&q[1], NULL, count_pairs, &r) == 0);
    REQUIRE(pthread_create(&w, NULL, write_pairs, &r) == 0);
    pthread_join(w, NULL);
    pthread_join(q[0], NULL);
    pthread_join(q[1], NULL);
    CHECK_INT_EQ(atomic_load(&r.odd), 0);
    CHECK(atomic_load(&r.answers) > 0);
    EXPECT_EXACT(db, "(query [:find (count ?e) :where [?e :pair _]])",
                 "{\"variables\":[\"(count ?e)\"],\"results\":[[600]]}");
}

TEST(memory_readers_beside_a_writer_see_whole_transactions) {
    MiniGrafDb *db = open_memory_db();
    readers_see_whole_transactions(db);
    minigraf_close(db);
}

TEST(file_readers_beside_a_writer_see_whole_transactions) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 100}", NULL);
    REQUIRE(db != NULL);
    readers_see_whole_transactions(db);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(memory_cursor_keeps_its_snapshot_while_commits_change_its_pages),
           TEST_ENTRY(file_cursor_keeps_its_snapshot_through_commits_and_a_checkpoint),
           TEST_ENTRY(file_cursor_keeps_its_snapshot_through_automatic_checkpoints),
           TEST_ENTRY(memory_readers_beside_a_writer_see_whole_transactions),
           TEST_ENTRY(file_readers_beside_a_writer_see_whole_transactions))
