/* Entities and texts named again after many others were written: each is
 * stored once, however the writer's dictionary reaches it (a memory
 * database; a file reopened, whose writer builds its filter of known
 * names from the file; a write transaction's view). A name stored twice
 * would split an entity's facts, and these joins would miss rows. */
#include "support.h"

/* Transacts `:eN attr "text-N"` for N in [first, first + n), 100 to a
 * command, or staged in `tx` when given. */
static void transact_range(MiniGrafDb *db, MiniGrafTx *tx, const char *attr, int first, int n) {
    static char text[100 * 64 + 32];
    for (int i = first; i < first + n; i += 100) {
        size_t len = (size_t)snprintf(text, sizeof text, "(transact [");
        for (int k = i; k < i + 100 && k < first + n; k++)
            len += (size_t)snprintf(text + len, sizeof text - len, "[:e%d %s \"text-%d\"]", k, attr,
                                    k);
        snprintf(text + len, sizeof text - len, "])");
        if (tx) {
            char *r = minigraf_tx_execute(tx, text);
            if (!r)
                check_fail_str(__FILE__, __LINE__, "staged transact", minigraf_tx_last_error(tx),
                               NULL);
            minigraf_string_free(r);
        } else {
            EXPECT_TRANSACT(db, text);
        }
    }
}

static void expect_count(MiniGrafDb *db, const char *query, long want) {
    char expected[96];
    snprintf(expected, sizeof expected, "{\"variables\":[\"(count ?e)\"],\"results\":[[%ld]]}",
             want);
    EXPECT_EXEC(db, query, expected);
}

#define BOTH "(query [:find (count ?e) :where [?e :a _] [?e :b _]])"
#define SAME_TEXT "(query [:find (count ?e) :where [?e :a ?t] [?f :b ?t]])"
#define ALL "(query [:find (count ?e) :where [?e :a _]])"

/* More new names than the writer's cache and first filter hold, then
 * every one of them again. */
TEST(test_memory_names_are_stored_once) {
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db);
    transact_range(db, NULL, ":a", 0, 12000);
    transact_range(db, NULL, ":b", 0, 12000);
    expect_count(db, BOTH, 12000);
    expect_count(db, SAME_TEXT, 12000);
    EXPECT_EXEC(db, "(query [:find ?t :where [:e11999 :b ?t]])",
                "{\"variables\":[\"?t\"],\"results\":[[\"text-11999\"]]}");
    minigraf_close(db);
}

/* A reopened file: its writer searches the file's dictionary, and once
 * it has added 1,024 new names builds its filter from it; the old names
 * are found before and after, and all of it survives a reopen. */
TEST(test_reopened_file_finds_its_names) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    const char *opts = "{\"synchronous\": \"normal\"}";
    MiniGrafDb *db = minigraf_open_with_options(t.path, opts, NULL);
    REQUIRE(db);
    transact_range(db, NULL, ":a", 0, 3000);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, opts, NULL);
    REQUIRE(db);
    transact_range(db, NULL, ":b", 0, 3000);    /* every name known */
    transact_range(db, NULL, ":a", 3000, 1000); /* 2,000 new names: the filter built */
    transact_range(db, NULL, ":b", 0, 4000);
    expect_count(db, BOTH, 4000);
    expect_count(db, SAME_TEXT, 4000);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, opts, NULL);
    REQUIRE(db);
    expect_count(db, BOTH, 4000);
    expect_count(db, ALL, 4000);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* A write transaction reads through a view of its own: names committed
 * before it and names it stages are each one entity there and after. */
TEST(test_transaction_view_finds_committed_names) {
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db);
    transact_range(db, NULL, ":a", 0, 2500);
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx);
    transact_range(db, tx, ":b", 0, 2000);
    transact_range(db, tx, ":a", 2500, 700); /* 1,400 new names: the view's filter */
    char *r = minigraf_tx_execute(tx, BOTH);
    CHECK_STR_EQ(r, "{\"variables\":[\"(count ?e)\"],\"results\":[[2000]]}");
    minigraf_string_free(r);
    transact_range(db, tx, ":b", 2000, 1200); /* after the view was built */
    r = minigraf_tx_execute(tx, SAME_TEXT);
    CHECK_STR_EQ(r, "{\"variables\":[\"(count ?e)\"],\"results\":[[3200]]}");
    minigraf_string_free(r);
    CHECK(minigraf_tx_commit(tx) == 0);
    minigraf_tx_free(tx);
    expect_count(db, BOTH, 3200);
    expect_count(db, ALL, 3200);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(test_memory_names_are_stored_once),
           TEST_ENTRY(test_reopened_file_finds_its_names),
           TEST_ENTRY(test_transaction_view_finds_committed_names))
