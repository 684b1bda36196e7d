/* The query memory limit counts the texts a query reads from the store
 * (language.md §8.14, D8): values borrow them from the query's snapshot until it
 * ends, so they are held even when the rows are not. A text a query only
 * binds, compares or counts stays a stored id and is never read; the
 * queries below read every text in a predicate. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "minigraf.h"
#include "support.h"

#define TEXTS 64
#define MANY_TEXTS 256 /* more rows than the engine's batches hold */
#define TEXT_LEN 1000
#define QRY_012 2012

static const char *const COUNT_TEXTS =
    "(query [:find (count ?t) :where [?e :text ?t] [(starts-with? ?t \"0\")]])";
static const char *const ENTITIES =
    "(query [:find ?e :where [?e :text ?t] [(starts-with? ?t \"0\")]])";
static const char *const COUNT_UNREAD = "(query [:find (count ?t) :where [?e :text ?t]])";
static const char *const SORTED_TEXTS = "(query [:find ?t :where [?e :text ?t] :order-by [?t]])";

/* An in-memory database with the given limit and `count` facts
 * [:tI :text "<TEXT_LEN chars>"], the texts all distinct or all equal. */
static MiniGrafDb *texts_db_of(long limit, int distinct, int count) {
    char options[64];
    snprintf(options, sizeof options, "{\"query_memory_limit\": %ld}", limit);
    MiniGrafDb *db = minigraf_open_with_options(NULL, options, NULL);
    if (!db)
        return NULL;
    static char tx[MANY_TEXTS * (TEXT_LEN + 32) + 32];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < count; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:t%d :text \"%04d%0*d\"] ", i,
                                distinct ? i : 0, TEXT_LEN - 4, 0);
    snprintf(tx + len, sizeof tx - len, "])");
    char *out = minigraf_execute(db, tx);
    minigraf_string_free(out);
    return db;
}

static MiniGrafDb *texts_db(long limit, int distinct) {
    return texts_db_of(limit, distinct, TEXTS);
}

/* The error code of `query` under `limit` (0: answered). */
static int outcome(const char *query, long limit, int distinct) {
    MiniGrafDb *db = texts_db(limit, distinct);
    if (!db)
        return -1;
    char *out = minigraf_execute(db, query);
    int code = out ? 0 : minigraf_last_error_code(db);
    minigraf_string_free(out);
    minigraf_close(db);
    return code;
}

/* The smallest limit under which `query` answers (searched up to 4 MiB). */
static long smallest_limit(const char *query, int distinct) {
    long lo = 1, hi = 4L << 20;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (outcome(query, mid, distinct) == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

TEST(texts_that_do_not_fit_fail_the_query) {
    /* One group, or rows of entities only: the rows fit in 32 KiB, the
     * 64 KB of texts the scan reads do not. */
    MiniGrafDb *db = texts_db(32 * 1024, 1);
    REQUIRE(db != NULL);
    EXPECT_ERROR(db, COUNT_TEXTS, "QRY-012");
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strstr(msg, "query memory limit of 32768 bytes exceeded in scan") != NULL);
    EXPECT_ERROR(db, ENTITIES, "QRY-012");
    /* A cursor reads its first batch of rows at open: here every text. */
    CHECK(minigraf_query(db, ENTITIES) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), QRY_012);
    minigraf_close(db);

    /* Streaming, the first batch fits and a later one does not. */
    db = texts_db_of(160 * 1024, 1, MANY_TEXTS);
    REQUIRE(db != NULL);
    MiniGrafCursor *c = minigraf_query(db, ENTITIES);
    REQUIRE(c != NULL);
    char *batch;
    size_t batches = 0;
    while ((batch = minigraf_cursor_next_batch(c, 10)) != NULL) {
        minigraf_string_free(batch);
        batches++;
    }
    CHECK(batches > 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), QRY_012);
    minigraf_cursor_free(c);
    minigraf_close(db);

    db = texts_db(1024 * 1024, 1);
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, COUNT_TEXTS, "{\"variables\":[\"(count ?t)\"],\"results\":[[64]]}");
    minigraf_close(db);
}

TEST(texts_only_counted_are_not_read) {
    MiniGrafDb *db = texts_db(32 * 1024, 1);
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, COUNT_UNREAD, "{\"variables\":[\"(count ?t)\"],\"results\":[[64]]}");
    minigraf_close(db);
}

TEST(a_query_fits_exactly_its_rows_and_texts) {
    long limit = smallest_limit(COUNT_TEXTS, 1);
    CHECK_INT_EQ(outcome(COUNT_TEXTS, limit, 1), 0);
    CHECK_INT_EQ(outcome(COUNT_TEXTS, limit - 1, 1), QRY_012);
    /* Every distinct text is counted once; one text read 64 times is held
     * (and counted) once. */
    CHECK(limit >= TEXTS * TEXT_LEN);
    long same = smallest_limit(COUNT_TEXTS, 0);
    CHECK(same < limit - (TEXTS - 1) * TEXT_LEN);
    /* A sort holds a copy of every text beside the one the query reads. */
    long sorted = smallest_limit(SORTED_TEXTS, 1);
    CHECK(sorted >= limit + TEXTS * TEXT_LEN);
    CHECK_INT_EQ(outcome(SORTED_TEXTS, sorted, 1), 0);
}

/* The error code of `query` under `limit` over MANY_TEXTS texts and one
 * [:z :one 1] (0: answered). */
static int outcome_with_one(const char *query, long limit) {
    MiniGrafDb *db = texts_db_of(limit, 1, MANY_TEXTS);
    if (!db)
        return -1;
    char *out = minigraf_execute(db, "(transact [[:z :one 1]])");
    minigraf_string_free(out);
    out = minigraf_execute(db, query);
    int code = out ? 0 : minigraf_last_error_code(db);
    minigraf_string_free(out);
    minigraf_close(db);
    return code;
}

static long smallest_limit_with_one(const char *query) {
    long lo = 1, hi = 4L << 20;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (outcome_with_one(query, mid) == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

TEST(a_hash_join_reads_its_table_once_its_input_has_a_row) {
    /* A pattern sharing no variable with the one before it is joined by
     * a hash join over all its records (a cross product). Its table is
     * read when the first input row comes: never when there is none. */
    const char *none = "(query [:find ?x :where [?e :missing ?m] [?x :text ?t]])";
    const char *one = "(query [:find ?x :where [?e :one ?m] [?x :text ?t]])";
    long with_none = smallest_limit_with_one(none), with_one = smallest_limit_with_one(one);
    /* a table entry takes more than 64 bytes */
    CHECK(with_none + MANY_TEXTS * 64 < with_one);
    CHECK_INT_EQ(outcome_with_one(none, with_none), 0);
    CHECK_INT_EQ(outcome_with_one(one, with_none), QRY_012);
}

CHECK_MAIN(TEST_ENTRY(texts_that_do_not_fit_fail_the_query),
           TEST_ENTRY(texts_only_counted_are_not_read),
           TEST_ENTRY(a_query_fits_exactly_its_rows_and_texts),
           TEST_ENTRY(a_hash_join_reads_its_table_once_its_input_has_a_row))
