/* Reads inside a write transaction over a large committed database: the
 * view forks the committed store instead of copying it (store_fork). Each
 * test stages a few statements over thousands of committed facts and
 * compares every read inside the transaction with a reference database
 * where the same statements were committed one by one (language.md §7.5: staged
 * statements read as the transactions current+1, +2, ...): the same
 * answers for every index order, retractions of committed facts, history
 * and :as-of. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "support.h"

#define ENTITIES 3000

/* ENTITIES entities :e<i> with :n i, :name "name <i>", :group (i mod 7)
 * and :next the ref of :e<i+1>, committed in 6 transactions; `split`:
 * the last two after a checkpoint (so the committed store holds both
 * checkpointed pages and pages changed since). */
static void fill(MiniGrafDb *db, int split) {
    static char tx[ENTITIES / 6 * 140 + 64];
    for (int part = 0; part < 6; part++) {
        if (split && part == 4)
            CHECK_INT_EQ(minigraf_checkpoint(db), 0);
        size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
        for (int i = part * ENTITIES / 6; i < (part + 1) * ENTITIES / 6; i++)
            len += (size_t)snprintf(
                tx + len, sizeof tx - len,
                "[:e%d :n %d] [:e%d :name \"name %d\"] [:e%d :group %d] [:e%d :next :e%d] ", i, i,
                i, i, i, i % 7, i, i + 1);
        snprintf(tx + len, sizeof tx - len, "])");
        EXPECT_TRANSACT(db, tx);
    }
}

static const char *const STAGED[] = {
    ("(transact [[:e5 :n 500] [:new1 :n 1] [:new1 :name \"fresh\"] [:new1 :group 3] "
     "[:new1 :next :e7]])"),
    "(retract [[:e10 :n 10] [:e11 :group 4] [:e12 :next :e13]])",
    "(transact [[:e10 :n 1010] [:new2 :name \"name 20\"] [:new2 :next :new1]])",
    "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} [[:e20 :group 99]])",
};
#define STAGED_COUNT (sizeof STAGED / sizeof *STAGED)

/* Queries over every index order, history and time. $B stands for the
 * committed counter (replaced before the run). */
static const char *const READS[] = {
    "(query [:find ?v :where [:e5 :n ?v]])", /* EAVT */
    "(query [:find ?a ?v :where [:e10 ?a ?v]])",
    "(query [:find ?e :where [?e :group 3]])",          /* AVET */
    "(query [:find (count ?e) :where [?e :group ?g]])", /* AEVT */
    "(query [:find ?e :where [?e :name \"name 20\"]])",
    "(query [:find ?e :where [?e :next :e7]])", /* VAET */
    "(query [:find ?x :where [:new2 :next ?y] [?y :next ?z] [?x :next ?z]])",
    "(query [:find ?e ?n :where [?e :next :e13] [?e :n ?n]])",
    "(query [:find (count ?e) :where [?e :n ?n] [(> ?n 2990)]])",
    "(query [:find ?v ?c :any-valid-time :where [:e10 :n ?v] [:e10 :db/tx-count ?c]])",
    "(query [:find ?g :where [:e20 :group ?g]])",
    "(query [:find ?g :valid-at \"2020-06-01\" :where [:e20 :group ?g]])",
    "(query [:find ?g :any-valid-time :where [:e20 :group ?g]])",
    "(query [:find ?v :as-of $B :where [:e5 :n ?v]])",
    "(query [:find ?v :as-of $B1 :where [:e10 :n ?v]])",
    "(query [:find ?v :as-of $B2 :where [:e10 :n ?v]])",
    "(query [:find ?e :as-of $B2 :where [?e :next :e13]])",
    "(query [:find (count ?e) :as-of 3 :where [?e :n ?n]])",
};
#define READ_COUNT (sizeof READS / sizeof *READS)

/* READS[i] with $B, $B1, $B2 replaced by the committed counter (+0,1,2). */
static void expand(const char *q, uint64_t base, char *out, size_t size) {
    const char *p = strstr(q, "$B");
    if (!p) {
        snprintf(out, size, "%s", q);
        return;
    }
    int plus = p[2] == '1' ? 1 : p[2] == '2' ? 2 : 0;
    snprintf(out, size, "%.*s%llu%s", (int)(p - q), q, (unsigned long long)(base + (uint64_t)plus),
             p + 2 + (plus ? 1 : 0));
}

/* A result text with its rows sorted (the caller frees). */
static char *sorted(const char *json) {
    return json ? canonical_result(json) : NULL;
}

/* Every read in `tx` (as minigraf_tx_execute and as a cursor) against the
 * same read on `ref`. */
static void expect_reads_match(MiniGrafTx *tx, MiniGrafDb *ref, uint64_t base) {
    for (size_t i = 0; i < READ_COUNT; i++) {
        char q[300];
        expand(READS[i], base, q, sizeof q);
        char *got = minigraf_tx_execute(tx, q);
        char *want = EXEC(ref, q);
        char *g = sorted(got), *w = sorted(want);
        if (!g || !w || strcmp(g, w) != 0)
            check_fail_str(__FILE__, __LINE__, q, got ? got : minigraf_tx_last_error(tx), want);
        MiniGrafCursor *c = minigraf_tx_query(tx, q);
        char *rows = c ? drain_cursor(c, 5) : NULL;
        const char *res = w ? strstr(w, "\"results\":") : NULL;
        char *want_rows = res ? json_sorted_array(res + strlen("\"results\":"), NULL) : NULL;
        char *got_rows = rows ? json_sorted_array(rows, NULL) : NULL;
        if (!got_rows || !want_rows || strcmp(got_rows, want_rows) != 0)
            check_fail_str(__FILE__, __LINE__, q, got_rows ? got_rows : "(no cursor)", want_rows);
        minigraf_cursor_free(c);
        free(rows);
        free(got_rows);
        free(want_rows);
        free(g);
        free(w);
        minigraf_string_free(got);
        minigraf_string_free(want);
    }
}

/* Stages STAGED one by one in a transaction on `db`, comparing every read
 * after each with `ref`, which commits the same statement; then rolls
 * back (or commits) and checks `db` again. */
static void stage_and_compare(MiniGrafDb *db, MiniGrafDb *ref, int commit) {
    uint64_t base = tx_count(db);
    CHECK_INT_EQ((long)base, (long)tx_count(ref));
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx);
    expect_reads_match(tx, ref, base); /* nothing staged: the committed store */
    for (size_t s = 0; s < STAGED_COUNT; s++) {
        char *r = minigraf_tx_execute(tx, STAGED[s]);
        CHECK(r != NULL);
        minigraf_string_free(r);
        char *w = EXEC(ref, STAGED[s]);
        minigraf_string_free(w);
        expect_reads_match(tx, ref, base);
    }
    /* the committed database, read from outside, has none of it */
    char *outside = EXEC(db, "(query [:find ?e :where [?e :name \"fresh\"]])");
    CHECK_STR_EQ(outside, "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_string_free(outside);
    if (commit) {
        CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
        CHECK_INT_EQ((long)tx_count(db), (long)base + 1);
        EXPECT_EXEC(db, "(query [:find ?v :where [:e10 :n ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[1010]]}");
        EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :next :e13]])",
                    "{\"variables\":[\"(count ?e)\"],\"results\":[[0]]}");
    } else {
        CHECK_INT_EQ(minigraf_tx_rollback(tx), 0);
        CHECK_INT_EQ((long)tx_count(db), (long)base);
        EXPECT_EXEC(db, "(query [:find ?v :where [:e10 :n ?v]])",
                    "{\"variables\":[\"?v\"],\"results\":[[10]]}");
    }
    minigraf_tx_free(tx);
}

TEST(file_database_large_committed_small_staged) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db);
    MiniGrafDb *ref = open_memory_db();
    fill(db, 1);
    fill(ref, 0);
    stage_and_compare(db, ref, 0);
    minigraf_close(ref);
    ref = open_memory_db(); /* again after the rollback, then committed */
    fill(ref, 0);
    stage_and_compare(db, ref, 1);
    minigraf_close(ref);
    minigraf_close(db);
    /* what the commit wrote is all the file holds of the transaction */
    db = minigraf_open(t.path);
    REQUIRE(db);
    EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :name \"fresh\"]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[1]]}");
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(memory_database_large_committed_small_staged) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafDb *ref = open_memory_db();
    fill(db, 0);
    fill(ref, 0);
    stage_and_compare(db, ref, 0);
    minigraf_close(ref);
    ref = open_memory_db();
    fill(ref, 0);
    stage_and_compare(db, ref, 1);
    minigraf_close(ref);
    minigraf_close(db);
}

/* A memory database holding a text longer than a page (kept beside the
 * pages): the view is a copy, and reads the same. */
TEST(memory_database_with_a_long_text) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafDb *ref = open_memory_db();
    static char tx[12000];
    int n = snprintf(tx, sizeof tx, "(transact [[:long :text \"");
    memset(tx + n, 'x', 9000);
    snprintf(tx + n + 9000, sizeof tx - (size_t)n - 9000, "\"]])");
    EXPECT_TRANSACT(db, tx);
    EXPECT_TRANSACT(ref, tx);
    fill(db, 0);
    fill(ref, 0);
    stage_and_compare(db, ref, 0);
    MiniGrafTx *t = minigraf_begin_write(db);
    REQUIRE(t);
    char *r = minigraf_tx_execute(t, "(transact [[:e1 :n -1]])");
    minigraf_string_free(r);
    r = minigraf_tx_execute(t, "(query [:find (count ?t) :where [:long :text ?t]])");
    CHECK_STR_EQ(r, "{\"variables\":[\"(count ?t)\"],\"results\":[[1]]}");
    minigraf_string_free(r);
    minigraf_tx_free(t);
    minigraf_close(ref);
    minigraf_close(db);
}

typedef struct reader_arg {
    MiniGrafDb *db;
    atomic_int stop;
    int failures;
    atomic_int reads;
} reader_arg;

/* Reads the committed database until told to stop: never a staged fact. */
static void *read_committed_loop(void *p) {
    reader_arg *a = p;
    while (!atomic_load(&a->stop)) {
        char *r = minigraf_execute(a->db, "(query [:find ?v :where [:e10 :n ?v]])");
        if (!r || strcmp(r, "{\"variables\":[\"?v\"],\"results\":[[10]]}") != 0)
            a->failures++;
        minigraf_string_free(r);
        atomic_fetch_add(&a->reads, 1);
    }
    return NULL;
}

/* Other threads read the committed file while the transaction's view
 * reads the same pages (through the fork) and changes its own. */
TEST(view_read_beside_committed_readers) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db);
    fill(db, 1);
    reader_arg a = {.db = db};
    atomic_init(&a.stop, 0);
    atomic_init(&a.reads, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, read_committed_loop, &a);
    while (atomic_load(&a.reads) == 0) /* the readers are running */
        sched_yield();
    for (int round = 0; round < 3; round++) {
        MiniGrafTx *tx = minigraf_begin_write(db);
        REQUIRE(tx);
        for (int i = 0; i < 5; i++) {
            char stmt[120];
            snprintf(stmt, sizeof stmt, "(transact [[:e10 :n %d] [:w%d :n %d]])", 100 + i, i, i);
            char *r = minigraf_tx_execute(tx, stmt);
            minigraf_string_free(r);
            r = minigraf_tx_execute(tx, "(query [:find (count ?v) :where [:e10 :n ?v]])");
            char want[80]; /* 10 and every value staged so far (:n holds many) */
            snprintf(want, sizeof want, "{\"variables\":[\"(count ?v)\"],\"results\":[[%d]]}",
                     i + 2);
            CHECK_STR_EQ(r, want);
            minigraf_string_free(r);
        }
        CHECK_INT_EQ(minigraf_tx_rollback(tx), 0);
        minigraf_tx_free(tx);
    }
    atomic_store(&a.stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_INT_EQ(a.failures, 0);
    CHECK(atomic_load(&a.reads) > 0);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(file_database_large_committed_small_staged),
           TEST_ENTRY(memory_database_large_committed_small_staged),
           TEST_ENTRY(memory_database_with_a_long_text),
           TEST_ENTRY(view_read_beside_committed_readers))
