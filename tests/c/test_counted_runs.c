/* Aggregates over a :where of one pattern read runs of records, not rows
 * (exec/where.c, choose_collapse): a run of visible records that agree on
 * what the :find reads is handed to aggregation as one weighted row. Each
 * answer here is checked against the same query made to go row by row (a
 * filter clause that keeps every row), over records retracted, asserted
 * again, with valid-time windows in the past and the future, nils, floats
 * O3 groups together (0.0, -0.0), keywords beside the refs they name, more
 * groups than a batch holds and histories longer than a scan's
 * read-ahead: at every :as-of point, with and without valid-time cuts, in
 * memory and in a file with the history index. */
#include <stdbool.h>
#include <stdio.h>

#include "support.h"

/* Keyword :kw and the Ref to the entity it names: the value position's
 * two forms (language.md §6.4 E4). */
static void write_values(MiniGrafDb *db) {
    EXPECT_TRANSACT(db, "(transact [[:a :tag \"x\"] [:b :tag \"x\"] [:c :tag \"y\"]"
                        " [:a :n 1] [:b :n 1.0] [:c :n nil] [:d :n 0.0] [:e :n -0.0]"
                        " [:a :group 1] [:b :group 1] [:c :group 2] [:d :group 2.0]"
                        " [:e :group :kw] [:f :group nil] [:a :num 3] [:b :num 3] [:c :num 4]])");
    EXPECT_TRANSACT(db, "(transact [[:kw :marker true]])");
    char *kw = EXEC(db, "(query [:find ?e :where [?e :marker true]])");
    const char *uuid = kw ? strstr(kw, "[[\"") : NULL;
    CHECK(uuid != NULL && strlen(uuid) > 39);
    if (uuid) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "(transact [[:g :group #uuid \"%.36s\"]])", uuid + 3);
        EXPECT_TRANSACT(db, cmd);
    }
    minigraf_string_free(kw);
    EXPECT_RETRACT(db, "(retract [[:a :tag \"x\"] [:b :group 1] [:c :num 4]])");
    EXPECT_TRANSACT(db, "(transact [[:a :tag \"x\"] [:b :group 3] [:c :n 7] [:d :num 3]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"}"
                        " [[:h :group 1] [:h :n 5] [:h :num 3]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2100-01-01\"} [[:i :group 2] [:i :num 9]])");
    EXPECT_TRANSACT(db, "(transact {:valid-to \"2100-01-01\"} [[:j :group 1] [:j :num 3]])");
}

/* 150 groups (more than a batch's 64 rows), each entity's value asserted
 * and retracted over rounds, some long enough to cross the read-ahead. */
static void write_rounds(MiniGrafDb *db) {
    char cmd[160];
    for (int round = 0; round < 6; round++)
        for (int i = 0; i < 150; i++) {
            if (round > 0 && i % (round + 1) != 0)
                continue;
            bool asserts = round % 2 == 0 || i % 4 == 0;
            snprintf(cmd, sizeof cmd, "(%s [[:r%d :group %d] [:r%d :num %d]])",
                     asserts ? "transact" : "retract", i, 10 + i % 150, i, i % 7);
            expect_write_at(__FILE__, __LINE__, db, cmd, asserts ? "transacted" : "retracted");
        }
    for (int k = 0; k < 140; k++) { /* one triple's history of 140 records */
        snprintf(cmd, sizeof cmd, "(%s [[:long :group 500] [:long :num 8]])",
                 k % 2 == 0 ? "transact" : "retract");
        expect_write_at(__FILE__, __LINE__, db, cmd, k % 2 == 0 ? "transacted" : "retracted");
    }
}

/* The :find and :where of every compared query, run as written (the runs
 * path) and with `[(= 1 1)]` added (row by row). */
static const char *const shapes[][2] = {
    {"(count ?v)", "[?e ?a ?v]"},
    {"(count ?e)", "[?e ?a ?v]"},
    {"(count ?v) (count ?e) (count-distinct ?v)", "[?e ?a ?v]"},
    {"?g (count ?e)", "[?e :group ?g]"},
    {"?g (count ?e) (count-distinct ?e)", "[?e :group ?g]"},
    {"(count ?g)", "[?e :group ?g]"},
    {"(count ?v)", "[?e :n ?v]"},
    {"?v (count ?e)", "[?e :n ?v]"},
    {"(count ?v) (count-distinct ?v) (sum ?v) (min ?v) (max ?v) (avg ?v)", "[?e :num ?v]"},
    {"?v (count ?e) (sum ?v)", "[?e :num ?v]"},
    {"(count ?e) (sum ?v) :with ?v", "[?e :num ?v]"},
    {"?a (count ?e)", "[?e ?a _]"},
    {"?e (count ?v)", "[?e ?a ?v]"},
    {"(count ?e)", "[?e :group :kw]"},
    {"(count ?e)", "[?e :group 2.0]"},
    {"(count ?e)", "[?e :group 1]"},
    {"(count ?v)", "[:a ?a ?v]"},
    {"(count ?v)", "[:long :group ?v]"},
    {"(count ?v)", "[:r0 :num ?v]"},
    {"(count ?x)", "[?x :group ?x]"},
};

typedef struct query_pair {
    char fast[512], slow[512];
} query_pair;

static query_pair pair_of(const char *find, const char *cut, const char *where) {
    query_pair q;
    snprintf(q.fast, sizeof q.fast, "(query [:find %s %s:where %s])", find, cut, where);
    snprintf(q.slow, sizeof q.slow, "(query [:find %s %s:where %s [(= 1 1)]])", find, cut, where);
    return q;
}

static void compare(MiniGrafDb *db, const char *find, const char *cut, const char *where) {
    query_pair q = pair_of(find, cut, where);
    char *want = EXEC(db, q.slow);
    if (want)
        EXPECT_EXEC(db, q.fast, want);
    minigraf_string_free(want);
}

/* Every shape at every :as-of point, under each valid-time cut. */
static void compare_all(MiniGrafDb *db) {
    static const char *const valid[] = {"", ":any-valid-time ", ":valid-at \"2023-03-01\" ",
                                        ":valid-at \"2200-01-01\" "};
    uint64_t last = tx_count(db);
    char cut[96];
    for (uint64_t t = 0; t <= last + 1; t++)
        for (size_t v = 0; v < sizeof valid / sizeof *valid; v++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                if (t == last + 1)
                    snprintf(cut, sizeof cut, "%s", valid[v]); /* no :as-of */
                else if (t % 97 != 0 && t > 12 && t + 3 < last)
                    continue; /* the middle of the rounds: a sample of points */
                else
                    snprintf(cut, sizeof cut, ":as-of %llu %s", (unsigned long long)t, valid[v]);
                compare(db, shapes[s][0], cut, shapes[s][1]);
            }
}

TEST(runs_count_as_rows_in_memory) {
    MiniGrafDb *db = open_memory_db();
    write_values(db);
    write_rounds(db);
    compare_all(db);
    minigraf_close(db);
}

TEST(runs_count_as_rows_in_a_file_with_the_history_index) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"history_index\": true}", NULL);
    REQUIRE(db != NULL);
    write_values(db);
    write_rounds(db);
    minigraf_close(db); /* checkpointed: the scans read leaves from the file */
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    compare_all(db);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* Staged statements count as committed for a read inside the
 * transaction (language.md §7.5). */
TEST(runs_count_as_rows_inside_a_write_transaction) {
    MiniGrafDb *db = open_memory_db();
    write_values(db);
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx != NULL);
    EXPECT_TX_EXEC(tx, "(retract [[:a :group 1] [:c :n 7]])", "{\"ok\":true}");
    EXPECT_TX_EXEC(tx, "(transact [[:a :group 1] [:k :group 2] [:k :n nil]])", "{\"ok\":true}");
    EXPECT_TX_EXEC(tx, "(retract [[:k :group 2]])", "{\"ok\":true}");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        query_pair q = pair_of(shapes[s][0], "", shapes[s][1]);
        char *want = minigraf_tx_execute(tx, q.slow);
        CHECK(want != NULL);
        if (want)
            EXPECT_TX_EXEC(tx, q.fast, want);
        minigraf_string_free(want);
    }
    CHECK(minigraf_tx_rollback(tx) == 0);
    minigraf_tx_free(tx);
    minigraf_close(db);
}

/* The answers themselves, worked out by hand from write_values: nils are
 * not counted, 2 and 2.0 are two groups (O3), :kw and its Ref two, 0.0
 * and -0.0 one. */
TEST(runs_give_the_spec_answers) {
    MiniGrafDb *db = open_memory_db();
    write_values(db);
    EXPECT_EXEC(db, "(query [:find (count ?v) :where [?e :n ?v]])",
                "{\"variables\":[\"(count ?v)\"],\"results\":[[5]]}");
    EXPECT_EXEC(db, "(query [:find (count ?v) :any-valid-time :where [?e :n ?v]])",
                "{\"variables\":[\"(count ?v)\"],\"results\":[[6]]}");
    EXPECT_EXEC(db, "(query [:find ?v (count ?e) :where [?e :n ?v]])",
                "{\"variables\":[\"?v\",\"(count ?e)\"],\"results\":"
                "[[0.0,2],[1,1],[1.0,1],[7,1],[null,1]]}");
    EXPECT_EXEC(db, "(query [:find ?g (count ?e) :where [?e :group ?g]])",
                "{\"variables\":[\"?g\",\"(count ?e)\"],\"results\":[[1,2],[2,1],[2.0,1],[3,1],"
                "[\":kw\",1],[null,1],[\"781a0c5a-f5a8-5020-a390-955b7ada3984\",1]]}");
    EXPECT_EXEC(db, "(query [:find (count ?e) (sum ?v) (min ?v) (max ?v) :where [?e :num ?v]])",
                "{\"variables\":[\"(count ?e)\",\"(sum ?v)\",\"(min ?v)\",\"(max ?v)\"],"
                "\"results\":[[4,12,3,3]]}");
    EXPECT_EXEC(db, "(query [:find (count ?e) :as-of 1 :where [?e :num 4]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[1]]}");
    EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :num 4]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[0]]}");
    minigraf_close(db);
}

/* A prepared query keeps its :where between runs (where_keep): the runs
 * are read again on each snapshot. */
TEST(prepared_counts_follow_new_writes) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafStmt *st = minigraf_prepare(db, "(query [:find ?g (count ?e) :where [?e :group ?g]])");
    REQUIRE(st != NULL);
    char cmd[96];
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "(transact [[:p%d :group 1] [:q%d :group 2]])", i, i);
        EXPECT_TRANSACT(db, cmd);
        char *got = minigraf_stmt_execute(st);
        char want[128];
        snprintf(want, sizeof want,
                 "{\"variables\":[\"?g\",\"(count ?e)\"],\"results\":[[1,%d],[2,%d]]}", i + 1,
                 i + 1);
        REQUIRE(got != NULL);
        expect_result_at(__FILE__, __LINE__, "prepared", got, want);
    }
    minigraf_stmt_free(st);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(runs_count_as_rows_in_memory),
           TEST_ENTRY(runs_count_as_rows_in_a_file_with_the_history_index),
           TEST_ENTRY(runs_count_as_rows_inside_a_write_transaction),
           TEST_ENTRY(runs_give_the_spec_answers), TEST_ENTRY(prepared_counts_follow_new_writes))
