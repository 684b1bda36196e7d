/* Explicit write transactions (minigraf.h "Write transactions"; language.md §15,
 * language.md §7.5): staging, reads inside, one commit, rollback, the writer between
 * threads, close, and durability of file-backed databases. */
#include <pthread.h>
#include <sys/wait.h>

#include "support.h"

#define API_014 5014
#define API_017 5017
#define API_018 5018
#define API_020 5020
#define INT_003 6003

#define IN_TX_MESSAGE                                                                       \
    "[INT-003] a WriteTransaction is already in progress on this thread; use tx.execute() " \
    "instead"

static MiniGrafDb *open_with(const char *path, const char *options) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    if (db == NULL)
        check_fail_str(__FILE__, __LINE__, "open", error, NULL);
    minigraf_string_free(error);
    return db;
}

static MiniGrafTx *begin_at(int line, MiniGrafDb *db) {
    MiniGrafTx *tx = minigraf_begin_write(db);
    if (tx == NULL) {
        check_fail(__FILE__, line, "minigraf_begin_write");
        fprintf(stderr, "    error: %s\n", minigraf_last_error(db));
    }
    return tx;
}
#define BEGIN(db) begin_at(__LINE__, (db))

#define TX_EXPECT(tx, text, want) EXPECT_TX_EXEC((tx), (text), (want))
#define TX_STAGE(tx, text) EXPECT_TX_EXEC((tx), (text), "{\"ok\":true}")

/* Expects `text` to fail in the transaction with `code`, "[CODE] " first. */
static void tx_error_at(int line, MiniGrafTx *tx, const char *text, const char *code) {
    char *got = minigraf_tx_execute(tx, text);
    if (got != NULL) {
        check_fail_str(__FILE__, line, text, got, code);
        minigraf_string_free(got);
        return;
    }
    const char *name = minigraf_error_code_name(minigraf_tx_last_error_code(tx));
    if (!check_str_equal(name, code))
        check_fail_str(__FILE__, line, text, name, code);
    const char *msg = minigraf_tx_last_error(tx);
    if (msg == NULL || strncmp(msg + 1, code, strlen(code)) != 0)
        check_fail_str(__FILE__, line, "message starts with [CODE]", msg, code);
}
#define TX_ERROR(tx, text, code) tx_error_at(__LINE__, (tx), (text), (code))

#define NAMES "(query [:find ?n :where [?e :name ?n]])"

/* ---- staging and visibility -------------------------------------------- */

TEST(staged_writes_return_ok_and_stay_invisible_to_others) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :name \"Alice\"]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:bob :name \"Bob\"]])");
    TX_STAGE(tx, "(retract [[:alice :name \"Alice\"]])");
    /* a plain query (on this thread too) sees only committed data */
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    CHECK_INT_EQ(tx_count(db), 1);
    TX_EXPECT(tx, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    CHECK(minigraf_tx_last_error(tx) == NULL);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    CHECK_INT_EQ(tx_count(db), 2);
    minigraf_tx_free(tx);
    minigraf_close(db);
}

TEST(query_inside_sees_committed_plus_staged_records) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :age 30] [:alice :friend :bob]])");
    MiniGrafTx *tx = BEGIN(db);
    /* before anything is staged: the committed data */
    TX_EXPECT(tx, "(query [:find ?a :where [:alice :age ?a]])",
              "{\"variables\":[\"?a\"],\"results\":[[30]]}");
    TX_STAGE(tx, "(transact [[:bob :name \"Bob\"] [:alice :age 31]])");
    TX_STAGE(tx, "(retract [[:alice :age 30]])");
    TX_EXPECT(tx, "(query [:find ?a :where [:alice :age ?a]])",
              "{\"variables\":[\"?a\"],\"results\":[[31]]}");
    /* keyword / ref duality across committed and staged records */
    TX_EXPECT(tx, "(query [:find ?n :where [:alice :friend ?f] [?f :name ?n]])",
              "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    /* the view follows later statements */
    TX_STAGE(tx, "(transact [[:carol :name \"Carol\"]])");
    TX_EXPECT(tx, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"],[\"Carol\"]]}");
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(staged_statements_read_as_the_next_counter_values) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :v 1]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :v 2]])");
    TX_STAGE(tx, "(retract [[:a :v 1]])");
    TX_STAGE(tx, "(transact [[:a :v 3]])");
    const char *q1 = "(query [:find ?v :as-of 1 :where [:a :v ?v]])";
    const char *q2 = "(query [:find ?v :as-of 2 :where [:a :v ?v]])";
    const char *q3 = "(query [:find ?v :as-of 3 :where [:a :v ?v]])";
    const char *q4 = "(query [:find ?v :as-of 4 :where [:a :v ?v]])";
    TX_EXPECT(tx, q1, "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    TX_EXPECT(tx, q2, "{\"variables\":[\"?v\"],\"results\":[[1],[2]]}");
    TX_EXPECT(tx, q3, "{\"variables\":[\"?v\"],\"results\":[[2]]}");
    TX_EXPECT(tx, q4, "{\"variables\":[\"?v\"],\"results\":[[2],[3]]}");
    TX_EXPECT(tx, "(query [:find ?v ?c :any-valid-time :where [:a :v ?v] [:a :db/tx-count ?c]])",
              "{\"variables\":[\"?v\",\"?c\"],\"results\":[[2,2],[3,4]]}");
    /* staged tx times never go backwards, and a plain query's now is not
     * before them: every staged fact is valid now */
    TX_EXPECT(tx, "(query [:find (count ?v) :where [:a :v ?v]])",
              "{\"variables\":[\"(count ?v)\"],\"results\":[[2]]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    /* after commit: one counter value for all three */
    CHECK_INT_EQ(tx_count(db), 2);
    EXPECT_EXEC(db, "(query [:find ?v :as-of 2 :where [:a :v ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[2],[3]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :where [:a :v ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(db);
}

TEST(valid_time_maps_of_staged_facts_apply_inside) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} "
                 "[[:carol :emp/status :active]])");
    TX_EXPECT(tx, "(query [:find ?s :valid-at \"2023-03-01\" :where [:carol :emp/status ?s]])",
              "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    TX_EXPECT(tx, "(query [:find ?s :valid-at \"2023-06-30\" :where [:carol :emp/status ?s]])",
              "{\"variables\":[\"?s\"],\"results\":[]}");
    TX_EXPECT(tx, "(query [:find ?s :where [:carol :emp/status ?s]])",
              "{\"variables\":[\"?s\"],\"results\":[]}");
    TX_EXPECT(tx, "(query [:find ?f :any-valid-time :where [:carol :db/valid-from ?f]])",
              "{\"variables\":[\"?f\"],\"results\":[[1672531200000]]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-03-01\" :where [:carol :emp/status ?s]])",
                "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    minigraf_close(db);
}

TEST(negation_disjunction_and_aggregates_see_staged_records) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n \"a\"] [:b :n \"b\"] [:a :score 5]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:c :n \"c\"] [:b :score 7] [:c :score 1]])");
    TX_STAGE(tx, "(retract [[:a :score 5]])");
    TX_EXPECT(tx, "(query [:find ?n :where [?e :n ?n] (not-join [?e] [?e :score ?s])])",
              "{\"variables\":[\"?n\"],\"results\":[[\"a\"]]}");
    TX_EXPECT(tx, "(query [:find ?n :where [?e :n ?n] (or [?e :score 7] [?e :score 1])])",
              "{\"variables\":[\"?n\"],\"results\":[[\"b\"],[\"c\"]]}");
    TX_EXPECT(tx, "(query [:find (sum ?s) (count ?e) :where [?e :score ?s]])",
              "{\"variables\":[\"(sum ?s)\",\"(count ?e)\"],\"results\":[[8,2]]}");
    TX_EXPECT(tx, "(query [:find ?n ?s :where [?e :n ?n] [?e :score ?s] [(> ?s 2)]])",
              "{\"variables\":[\"?n\",\"?s\"],\"results\":[[\"b\",7]]}");
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, "(query [:find (sum ?s) (count ?e) :where [?e :score ?s]])",
                "{\"variables\":[\"(sum ?s)\",\"(count ?e)\"],\"results\":[[5,1]]}");
    minigraf_close(db);
}

TEST(rule_inside_registers_at_once_and_survives_rollback) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:b :edge :c]])");
    TX_EXPECT(tx, "(rule [(reach ?x ?y) [?x :edge ?y]])", "{\"ok\":true}");
    TX_EXPECT(tx, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", "{\"ok\":true}");
    TX_EXPECT(tx, "(query [:find ?y :where (reach :a ?y)])",
              "{\"variables\":[\"?y\"],\"results\":[[\":b\"],[\":c\"]]}");
    CHECK_INT_EQ(minigraf_tx_rollback(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])",
                "{\"variables\":[\"?y\"],\"results\":[[\":b\"]]}");
    minigraf_close(db);
}

TEST(tx_query_cursor_reads_committed_plus_staged_and_outlives_the_transaction) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :name \"A\"]])");
    MiniGrafTx *tx = BEGIN(db);
    MiniGrafCursor *before = minigraf_tx_query(tx, NAMES);
    TX_STAGE(tx, "(transact [[:b :name \"B\"]])");
    MiniGrafCursor *c = minigraf_tx_query(tx, NAMES);
    REQUIRE(before != NULL && c != NULL);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    char *rows = drain_cursor(c, 1);
    char *sorted = rows ? json_sorted_array(rows, &(size_t){0}) : NULL;
    CHECK_STR_EQ(sorted, "[[\"A\"],[\"B\"]]");
    free(sorted);
    free(rows);
    rows = drain_cursor(before, 10);
    CHECK_STR_EQ(rows, "[[\"A\"]]");
    free(rows);
    minigraf_cursor_free(before);
    minigraf_cursor_free(c);
    CHECK(minigraf_tx_query(tx, NAMES) == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_018);
    minigraf_tx_free(tx);
    tx = BEGIN(db);
    CHECK(minigraf_tx_query(tx, "(transact [[:c :name \"C\"]])") == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_tx_last_error_code(tx)), "API-012");
    minigraf_tx_free(tx);
    minigraf_close(db);
}

TEST(staging_errors_leave_the_transaction_open) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    TX_ERROR(tx, "(transact [[\"alice\" :name \"A\"]])", "INT-001");
    TX_ERROR(tx, "(transact [[:a \"name\" \"A\"]])", "API-003");
    TX_ERROR(tx, "(transact [[:a :db/tx-count 1]])", "API-004");
    TX_ERROR(tx, "(transact [[:a :v ?x]])", "INT-002");
    TX_ERROR(tx, "(transact [[:a :v 1 {:valid-from \"2024-01-01\" :valid-to \"2023-01-01\"}]])",
             "API-019");
    TX_ERROR(tx, "(transact [[:a :v 1]]", "PRS-005");
    TX_STAGE(tx, "(transact [[:a :v 1]])");
    TX_EXPECT(tx, "(query [:find ?v :where [:a :v ?v]])",
              "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

/* The example of docs/c-api.md "Write transactions". */
TEST(docs_example_transfer) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:acct/alice :balance 100] [:acct/bob :balance 20]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(retract [[:acct/alice :balance 100] [:acct/bob :balance 20]])");
    TX_STAGE(tx, "(transact [[:acct/alice :balance 70] [:acct/bob :balance 50]])");
    TX_EXPECT(tx, "(query [:find (sum ?b) :where [?a :balance ?b]])",
              "{\"variables\":[\"(sum ?b)\"],\"results\":[[120]]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 2);
    EXPECT_EXEC(db, "(query [:find ?b :where [?a :balance ?b]])",
                "{\"variables\":[\"?b\"],\"results\":[[50],[70]]}");
    minigraf_close(db);
}

/* ---- commit and rollback ------------------------------------------------ */

TEST(commit_is_one_counter_value_and_one_tx_time) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:z :k 0]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :k 1]])");
    TX_STAGE(tx, "(transact [[:b :k 2] [:c :k 3]])");
    TX_STAGE(tx, "(retract [[:z :k 0]])");
    TX_STAGE(tx, "(transact [[:d :k 4]])");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 2);
    EXPECT_EXEC(db,
                "(query [:find (count-distinct ?c) (count-distinct ?t) (count ?v) :any-valid-time "
                ":where [?e :k ?v] [?e :db/tx-count ?c] [?e :db/tx-id ?t] [(> ?v 0)]])",
                "{\"variables\":[\"(count-distinct ?c)\",\"(count-distinct ?t)\",\"(count ?v)\"],"
                "\"results\":[[1,1,4]]}");
    /* the default :valid-from of every fact is the commit's tx time */
    EXPECT_EXEC(db,
                "(query [:find (count-distinct ?f) :any-valid-time :where [?e :k ?v] "
                "[?e :db/valid-from ?f] [?e :db/tx-id ?f]])",
                "{\"variables\":[\"(count-distinct ?f)\"],\"results\":[[1]]}");
    EXPECT_EXEC(db, "(query [:find ?v :where [?e :k ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1],[2],[3],[4]]}");
    minigraf_close(db);
}

TEST(empty_commit_consumes_no_counter_value) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 0);
    tx = BEGIN(db);
    TX_EXPECT(tx, NAMES, "{\"variables\":[\"?n\"],\"results\":[]}");
    TX_EXPECT(tx, "(rule [(r ?x ?y) [?x :e ?y]])", "{\"ok\":true}");
    TX_STAGE(tx, "(transact [])"); /* stages no record */
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 0);
    /* a retraction of nothing is a record, as outside a transaction */
    tx = BEGIN(db);
    TX_STAGE(tx, "(retract [[:a :b 1]])");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(rollback_discards_and_ends_the_transaction) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :name \"A\"]])");
    CHECK_INT_EQ(minigraf_tx_rollback(tx), 0);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[]}");
    CHECK_INT_EQ(tx_count(db), 0);
    CHECK(minigraf_tx_execute(tx, "(transact [[:b :name \"B\"]])") == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_018);
    CHECK_INT_EQ(minigraf_tx_commit(tx), API_018);
    CHECK_INT_EQ(minigraf_tx_rollback(tx), API_018);
    minigraf_tx_free(tx);
    /* the writer is free again: plain writes and a new transaction */
    EXPECT_TRANSACT(db, "(transact [[:c :name \"C\"]])");
    tx = BEGIN(db);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    CHECK_INT_EQ(minigraf_tx_commit(tx), API_018);
    minigraf_tx_free(tx);
    minigraf_close(db);
}

TEST(free_rolls_back_an_open_transaction) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :name \"A\"]])");
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_TRANSACT(db, "(transact [[:b :name \"B\"]])");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_tx_free(tx); /* a second free is harmless */
    minigraf_close(db);
}

TEST(last_statement_decides_for_one_triple) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :k 1] [:c :k 3]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(retract [[:a :k 1]])");
    TX_STAGE(tx, "(transact [[:a :k 1]])"); /* re-asserted: live */
    TX_STAGE(tx, "(transact [[:b :k 2]])");
    TX_STAGE(tx, "(retract [[:b :k 2]])"); /* retracted last: gone */
    TX_STAGE(tx, "(transact [[:c :k 3 {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"}]])");
    TX_STAGE(tx, "(transact [[:c :k 3 {:valid-from \"2022-01-01\"}]])");
    const char *all = "(query [:find ?v :where [?e :k ?v]])";
    const char *want = "{\"variables\":[\"?v\"],\"results\":[[1],[3]]}";
    TX_EXPECT(tx, all, want);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, all, want);
    EXPECT_EXEC(db, "(query [:find ?v :valid-at \"2020-06-01\" :where [:c :k ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?v :valid-at \"2023-01-01\" :where [:c :k ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[3]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :valid-at \"2023-01-01\" :where [:c :k ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[]}");
    /* one record per triple was committed: :a and :c asserted (the
     * retraction of :b hides nothing visible) */
    EXPECT_EXEC(db,
                "(query [:find (count ?t) :any-valid-time :where [?e :k ?v] "
                "[?e :db/tx-count ?t] [(= ?t 2)]])",
                "{\"variables\":[\"(count ?t)\"],\"results\":[[2]]}");
    minigraf_close(db);
}

/* ---- the writer between threads ---------------------------------------- */

TEST(same_thread_plain_writes_fail_with_int_003) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    CHECK(minigraf_execute(db, "(transact [[:a :b 1]])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), INT_003);
    CHECK_STR_EQ(minigraf_last_error(db), IN_TX_MESSAGE);
    EXPECT_ERROR(db, "(retract [[:a :b 1]])", "INT-003");
    EXPECT_ERROR(db, "(rule [(r ?x ?y) [?x :e ?y]])", "INT-003");
    CHECK(minigraf_begin_write(db) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), INT_003);
    CHECK_INT_EQ(minigraf_checkpoint(db), -1); /* a 0.1 function: 0 or -1 */
    CHECK_INT_EQ(minigraf_last_error_code(db), INT_003);
    /* queries are reads: allowed, committed data only */
    EXPECT_EXEC(db, "(query [:find ?v :where [:a :b ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[]}");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_TRANSACT(db, "(transact [[:a :b 1]])");
    minigraf_close(db);
}

typedef struct other {
    MiniGrafDb *db;
    const char *text; /* NULL: begin_write (and roll back) */
    int code;         /* of the attempt */
    char *out;
} other;

static void *other_thread(void *arg) {
    other *o = arg;
    if (o->text) {
        o->out = minigraf_execute(o->db, o->text);
    } else {
        MiniGrafTx *tx = minigraf_begin_write(o->db);
        if (tx)
            o->code = minigraf_tx_rollback(tx);
        minigraf_tx_free(tx);
        if (!tx)
            o->code = minigraf_last_error_code(o->db);
        return NULL;
    }
    o->code = o->out ? 0 : minigraf_last_error_code(o->db);
    return NULL;
}

static int run_other(MiniGrafDb *db, const char *text) {
    other o = {db, text, -1, NULL};
    pthread_t t;
    if (pthread_create(&t, NULL, other_thread, &o) != 0)
        return -1;
    pthread_join(t, NULL);
    minigraf_string_free(o.out);
    return o.code;
}

TEST(writers_on_other_threads_fail_with_api_020_after_busy_timeout) {
    MiniGrafDb *db = open_with(NULL, "{\"busy_timeout_ms\":30}");
    REQUIRE(db != NULL);
    MiniGrafTx *tx = BEGIN(db);
    CHECK_INT_EQ(run_other(db, "(transact [[:a :b 1]])"), API_020);
    CHECK_INT_EQ(run_other(db, "(rule [(r ?x ?y) [?x :e ?y]])"), API_020);
    CHECK_INT_EQ(run_other(db, NULL), API_020);
    /* readers are never blocked */
    CHECK_INT_EQ(run_other(db, "(query [:find ?v :where [:a :b ?v]])"), 0);
    TX_STAGE(tx, "(transact [[:a :b 2]])");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    CHECK_INT_EQ(run_other(db, "(transact [[:a :b 3]])"), 0);
    CHECK_INT_EQ(run_other(db, NULL), 0);
    CHECK_INT_EQ(tx_count(db), 2);
    minigraf_close(db);
}

TEST(busy_timeout_option_is_checked) {
    char *error = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"busy_timeout_ms\":-1}", &error) == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017]", 9) == 0);
    minigraf_string_free(error);
    error = NULL;
    CHECK(minigraf_open_with_options(NULL, "{\"busy_timeout_ms\":true}", &error) == NULL);
    minigraf_string_free(error);
    MiniGrafDb *db = open_with(NULL, "{\"busy_timeout_ms\":0}");
    MiniGrafTx *tx = BEGIN(db);
    CHECK_INT_EQ(run_other(db, "(transact [[:a :b 1]])"), API_020);
    minigraf_tx_free(tx);
    minigraf_close(db);
}

typedef struct waiting {
    MiniGrafDb *db;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;
    char *out;
    uint64_t count_seen; /* the counter the writer saw after its write */
} waiting;

static void *waiting_writer(void *arg) {
    waiting *w = arg;
    pthread_mutex_lock(&w->mu);
    w->started = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    w->out = minigraf_execute(w->db, "(transact [[:late :name \"late\"]])");
    minigraf_current_tx_count(w->db, &w->count_seen);
    return NULL;
}

TEST(a_waiting_writer_succeeds_after_the_transaction_commits) {
    MiniGrafDb *db = open_with(NULL, "{\"busy_timeout_ms\":600000}");
    REQUIRE(db != NULL);
    MiniGrafTx *tx = BEGIN(db);
    waiting w = {.db = db};
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, waiting_writer, &w) == 0);
    pthread_mutex_lock(&w.mu);
    while (!w.started)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    TX_STAGE(tx, "(transact [[:early :name \"early\"]])");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    pthread_join(t, NULL);
    CHECK(w.out != NULL && strncmp(w.out, "{\"transacted\":", 14) == 0);
    minigraf_string_free(w.out);
    /* the transaction (begun first) took counter 1, the waiting write 2 */
    CHECK_INT_EQ(w.count_seen, 2);
    EXPECT_EXEC(db, "(query [:find ?n :as-of 1 :where [?e :name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"early\"]]}");
    minigraf_tx_free(tx);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    minigraf_close(db);
}

TEST(readers_run_while_a_transaction_is_open) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :name \"A\"]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:b :name \"B\"]])");
    CHECK_INT_EQ(run_other(db, NAMES), 0);
    MiniGrafCursor *c = minigraf_query(db, NAMES); /* streams on the committed store */
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0); /* detaches the streaming cursor first */
    char *rows = drain_cursor(c, 1);
    CHECK_STR_EQ(rows, "[[\"A\"]]");
    free(rows);
    minigraf_cursor_free(c);
    minigraf_tx_free(tx);
    minigraf_close(db);
}

/* ---- handles, read-only, close ----------------------------------------- */

TEST(null_and_dead_handles_are_errors) {
    CHECK(minigraf_begin_write(NULL) == NULL);
    CHECK(minigraf_tx_execute(NULL, "(query [:find ?x :where [?x :a 1]])") == NULL);
    CHECK(minigraf_tx_query(NULL, NAMES) == NULL);
    CHECK_INT_EQ(minigraf_tx_commit(NULL), API_017);
    CHECK_INT_EQ(minigraf_tx_rollback(NULL), API_017);
    CHECK_INT_EQ(minigraf_tx_last_error_code(NULL), API_017);
    CHECK(minigraf_tx_last_error(NULL) == NULL); /* as every *_last_error(NULL) */
    minigraf_tx_free(NULL);
    MiniGrafDb *db = open_memory_db();
    MiniGrafTx *tx = BEGIN(db);
    CHECK(minigraf_tx_execute(tx, NULL) == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_017);
    CHECK(minigraf_tx_execute(tx, "(transact [[:a :s \"\xff\"]])") == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_017);
    CHECK(minigraf_tx_query(tx, NULL) == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_017);
    minigraf_tx_free(tx);
    /* a freed handle: detected, never dereferenced */
    CHECK_INT_EQ(minigraf_tx_commit(tx), API_018);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_018);
    CHECK(strncmp(minigraf_tx_last_error(tx), "[API-018]", 9) == 0);
    CHECK(minigraf_tx_execute(tx, NAMES) == NULL);
    minigraf_close(db);
    CHECK(minigraf_begin_write(db) == NULL);
}

TEST(read_only_database_refuses_begin_write) {
    temp_db_path p;
    temp_db_make(&p);
    MiniGrafDb *db = open_with(p.path, NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :name \"A\"]])");
    minigraf_close(db);
    db = open_with(p.path, "{\"read_only\":true}");
    REQUIRE(db != NULL);
    CHECK(minigraf_begin_write(db) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_014);
    CHECK(strncmp(minigraf_last_error(db), "[API-014]", 9) == 0);
    minigraf_close(db);
    temp_db_remove(&p);
}

TEST(close_rolls_back_an_open_transaction) {
    temp_db_path p;
    temp_db_make(&p);
    MiniGrafDb *db = open_with(p.path, NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :name \"A\"]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:b :name \"B\"]])");
    TX_EXPECT(tx, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"A\"],[\"B\"]]}");
    minigraf_close(db);
    CHECK(minigraf_tx_execute(tx, NAMES) == NULL);
    CHECK_INT_EQ(minigraf_tx_last_error_code(tx), API_018);
    CHECK_INT_EQ(minigraf_tx_commit(tx), API_018);
    CHECK_INT_EQ(minigraf_tx_rollback(tx), API_018);
    CHECK(minigraf_tx_query(tx, NAMES) == NULL);
    minigraf_tx_free(tx);
    db = open_with(p.path, NULL);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"A\"]]}");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
    temp_db_remove(&p);
}

/* ---- file-backed durability --------------------------------------------- */

TEST(committed_transaction_survives_reopen) {
    temp_db_path p;
    temp_db_make(&p);
    MiniGrafDb *db = open_with(p.path, NULL);
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :name \"A\"] [:b :name \"B\"]])");
    TX_STAGE(tx, "(retract [[:b :name \"B\"]])");
    TX_STAGE(tx, "(transact [[:c :name \"C\"]])");
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    minigraf_close(db);
    db = open_with(p.path, NULL);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"A\"],[\"C\"]]}");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
    temp_db_remove(&p);
}

TEST(size_limits_apply_at_commit_and_nothing_is_written) {
    temp_db_path p;
    temp_db_make(&p);
    MiniGrafDb *db = open_with(p.path, NULL);
    size_t n = 5000;
    char *text = malloc(n + 64);
    int k = snprintf(text, 64, "(transact [[:a :s \"");
    memset(text + k, 'x', n);
    strcpy(text + k + n, "\"]])");
    MiniGrafTx *tx = BEGIN(db);
    TX_STAGE(tx, "(transact [[:a :name \"A\"]])");
    TX_STAGE(tx, text);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_tx_commit(tx)), "WAL-003");
    CHECK(strncmp(minigraf_tx_last_error(tx), "[WAL-003]", 9) == 0);
    CHECK_INT_EQ(minigraf_tx_commit(tx), API_018); /* the failed commit ended it */
    minigraf_tx_free(tx);
    CHECK_INT_EQ(tx_count(db), 0);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_TRANSACT(db, "(transact [[:b :name \"B\"]])"); /* the writer is free */
    minigraf_close(db);
    free(text);
    temp_db_remove(&p);
}

TEST(a_transaction_abandoned_by_an_exiting_process_leaves_nothing) {
    temp_db_path p;
    temp_db_make(&p);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        MiniGrafDb *db = minigraf_open(p.path);
        char *out = db ? minigraf_execute(db, "(transact [[:a :name \"A\"]])") : NULL;
        MiniGrafTx *tx = db ? minigraf_begin_write(db) : NULL;
        char *staged = tx ? minigraf_tx_execute(tx, "(transact [[:b :name \"B\"]])") : NULL;
        char *seen = tx ? minigraf_tx_execute(tx, NAMES) : NULL;
        _exit(out && staged && seen && strstr(seen, "\"B\"") ? 0 : 1); /* no close, no commit */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    MiniGrafDb *db = open_with(p.path, NULL);
    EXPECT_EXEC(db, NAMES, "{\"variables\":[\"?n\"],\"results\":[[\"A\"]]}");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
    temp_db_remove(&p);
}

CHECK_MAIN(TEST_ENTRY(staged_writes_return_ok_and_stay_invisible_to_others),
           TEST_ENTRY(query_inside_sees_committed_plus_staged_records),
           TEST_ENTRY(staged_statements_read_as_the_next_counter_values),
           TEST_ENTRY(valid_time_maps_of_staged_facts_apply_inside),
           TEST_ENTRY(negation_disjunction_and_aggregates_see_staged_records),
           TEST_ENTRY(rule_inside_registers_at_once_and_survives_rollback),
           TEST_ENTRY(tx_query_cursor_reads_committed_plus_staged_and_outlives_the_transaction),
           TEST_ENTRY(staging_errors_leave_the_transaction_open), TEST_ENTRY(docs_example_transfer),
           TEST_ENTRY(commit_is_one_counter_value_and_one_tx_time),
           TEST_ENTRY(empty_commit_consumes_no_counter_value),
           TEST_ENTRY(rollback_discards_and_ends_the_transaction),
           TEST_ENTRY(free_rolls_back_an_open_transaction),
           TEST_ENTRY(last_statement_decides_for_one_triple),
           TEST_ENTRY(same_thread_plain_writes_fail_with_int_003),
           TEST_ENTRY(writers_on_other_threads_fail_with_api_020_after_busy_timeout),
           TEST_ENTRY(busy_timeout_option_is_checked),
           TEST_ENTRY(a_waiting_writer_succeeds_after_the_transaction_commits),
           TEST_ENTRY(readers_run_while_a_transaction_is_open),
           TEST_ENTRY(null_and_dead_handles_are_errors),
           TEST_ENTRY(read_only_database_refuses_begin_write),
           TEST_ENTRY(close_rolls_back_an_open_transaction),
           TEST_ENTRY(committed_transaction_survives_reopen),
           TEST_ENTRY(size_limits_apply_at_commit_and_nothing_is_written),
           TEST_ENTRY(a_transaction_abandoned_by_an_exiting_process_leaves_nothing))
