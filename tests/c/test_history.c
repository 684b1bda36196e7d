/* Reads of one entity-attribute over long histories (issue 18): a query
 * with the entity and the attribute bound reads the history index; the
 * same records read through the EAVT order (the attribute left a
 * variable and filtered) must come out the same, at every :as-of point,
 * under :valid-at and :any-valid-time, with retractions, windows, several
 * values at once and explicit write transactions, in memory and in a
 * file after a checkpoint and a reopen. The index is opt-in (the open
 * option history_index): without it no tree is kept and the answers are
 * the same; a file records the choice; turning it on for a file builds
 * it. A file of format version 3 (tests/c/fixtures) is read as it is
 * read-only, becomes version 4 at a read-write open, and gains the index
 * only when asked. */
#include "support.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENTITIES 3
#define ATTRS 2
#define STEPS 400

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static unsigned rnd(unsigned n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static const char *const dates[] = {"2019-01-01", "2020-01-01", "2021-01-01", "2022-01-01",
                                    "2023-01-01"};

/* One random statement about (:e<i> :a<j>): values from a small pool (so
 * groups recur), of two types, some with windows. */
static void statement(char *out, size_t size) {
    unsigned e = rnd(ENTITIES), a = rnd(ATTRS), v = rnd(6);
    char value[16];
    if (v < 4)
        snprintf(value, sizeof value, "%u", v);
    else
        snprintf(value, sizeof value, "\"s%u\"", v);
    unsigned kind = rnd(10);
    if (kind < 4) {
        snprintf(out, size, "(retract [[:e%u :a%u %s]])", e, a, value);
    } else if (kind < 7) {
        snprintf(out, size, "(transact [[:e%u :a%u %s]])", e, a, value);
    } else {
        unsigned from = rnd(4);
        unsigned to = from + 1 + rnd(4 - from);
        if (rnd(3) == 0)
            snprintf(out, size, "(transact {:valid-from \"%s\"} [[:e%u :a%u %s]])", dates[from], e,
                     a, value);
        else
            snprintf(out, size, "(transact {:valid-from \"%s\" :valid-to \"%s\"} [[:e%u :a%u %s]])",
                     dates[from], dates[to], e, a, value);
    }
}

#define WITH_INDEX "{\"history_index\": true}"

static MiniGrafDb *open_indexed_memory(void) {
    return minigraf_open_with_options(NULL, WITH_INDEX, NULL);
}

/* What minigraf_stats says of the index. */
static bool keeps_history(MiniGrafDb *db) {
    char *stats = minigraf_stats(db);
    CHECK(stats != NULL);
    if (!stats)
        return false;
    bool on = strstr(stats, "\"history_index\":true") != NULL;
    CHECK(on || strstr(stats, "\"history_index\":false") != NULL);
    minigraf_string_free(stats);
    return on;
}

static void run(MiniGrafDb *db, const char *text) {
    char *r = EXEC(db, text);
    minigraf_string_free(r);
}

/* A random history: single statements and explicit write transactions
 * of several. */
static void write_history(MiniGrafDb *db, int steps) {
    char text[160];
    for (int i = 0; i < steps; i++) {
        if (rnd(8) != 0) {
            statement(text, sizeof text);
            run(db, text);
            continue;
        }
        MiniGrafTx *tx = minigraf_begin_write(db);
        REQUIRE(tx != NULL);
        for (unsigned n = 2 + rnd(3); n > 0; n--) {
            statement(text, sizeof text);
            char *r = minigraf_tx_execute(tx, text);
            CHECK(r != NULL);
            minigraf_string_free(r);
        }
        CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
        minigraf_tx_free(tx);
    }
}

/* The time options of a query: as-of point (<0: none), valid-time choice. */
static void options(char *out, size_t size, long as_of, int valid) {
    char cut[32] = "";
    if (as_of >= 0)
        snprintf(cut, sizeof cut, ":as-of %ld ", as_of);
    const char *vt = valid == 0 ? "" : valid == 1 ? ":any-valid-time " : NULL;
    if (vt)
        snprintf(out, size, "%s%s", cut, vt);
    else
        snprintf(out, size, "%s:valid-at \"%s\" ", cut, dates[valid - 2]);
}

#define VALID_CHOICES (2 + 5)

/* The history index's answer and the EAVT order's for (:e<e> :a<a>). */
static void compare_one(MiniGrafDb *db, unsigned e, unsigned a, const char *opts, bool pseudo) {
    char fast[400], slow[400];
    if (pseudo) { /* the record's metadata, read through correlation */
        snprintf(fast, sizeof fast,
                 "(query [:find ?v ?t ?f :any-valid-time %s:order-by [?v] :where [:e%u :a%u ?v] "
                 "[:e%u :db/tx-count ?t] [:e%u :db/valid-from ?f]])",
                 opts, e, a, e, e);
        snprintf(slow, sizeof slow,
                 "(query [:find ?v ?t ?f :any-valid-time %s:order-by [?v] :where [:e%u ?x ?v] "
                 "[(= ?x :a%u)] [:e%u :db/tx-count ?t] [:e%u :db/valid-from ?f]])",
                 opts, e, a, e, e);
    } else {
        snprintf(fast, sizeof fast, "(query [:find ?v %s:order-by [?v] :where [:e%u :a%u ?v]])",
                 opts, e, a);
        snprintf(slow, sizeof slow,
                 "(query [:find ?v %s:order-by [?v] :where [:e%u ?x ?v] [(= ?x :a%u)]])", opts, e,
                 a);
    }
    char *want = EXEC(db, slow);
    char *got = EXEC(db, fast);
    if (want && got && strcmp(want, got) != 0)
        check_fail_str(__FILE__, __LINE__, fast, got, want);
    minigraf_string_free(want);
    minigraf_string_free(got);
}

/* Every pair at every as-of point (every `stride`-th), each valid-time choice. */
static void compare_all(MiniGrafDb *db, long stride) {
    long last = (long)tx_count(db);
    char opts[96];
    for (long t = -1; t <= last; t += (t < 0 ? 1 : stride)) {
        for (int valid = 0; valid < VALID_CHOICES; valid++) {
            options(opts, sizeof opts, t, valid);
            for (unsigned e = 0; e < ENTITIES; e++)
                for (unsigned a = 0; a < ATTRS; a++)
                    compare_one(db, e, a, opts, false);
        }
        options(opts, sizeof opts, t, 0);
        compare_one(db, rnd(ENTITIES), rnd(ATTRS), t < 0 ? "" : opts, true);
    }
}

TEST(history_reads_match_the_eavt_order_in_memory) {
    MiniGrafDb *db = open_indexed_memory();
    REQUIRE(db != NULL);
    CHECK(keeps_history(db));
    write_history(db, STEPS);
    compare_all(db, 1);
    minigraf_close(db);
}

TEST(history_reads_match_after_checkpoint_and_reopen) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"history_index\": true}", NULL);
    REQUIRE(db != NULL);
    write_history(db, STEPS / 2);
    compare_all(db, 3); /* pages not checkpointed yet */
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    write_history(db, STEPS / 2); /* on top of the checkpoint, in the log */
    minigraf_close(db);
    db = minigraf_open(t.path); /* the file says it keeps the index */
    REQUIRE(db != NULL);
    CHECK(keeps_history(db));
    compare_all(db, 3);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* Reads inside an explicit write transaction see its staged records. */
TEST(history_reads_inside_a_write_transaction) {
    MiniGrafDb *db = open_indexed_memory();
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:k :n 1] [:k :n 2]])");
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx != NULL);
    char *r = minigraf_tx_execute(tx, "(retract [[:k :n 1]])");
    minigraf_string_free(r);
    r = minigraf_tx_execute(tx, "(transact [[:k :n 3]])");
    minigraf_string_free(r);
    MiniGrafCursor *c = minigraf_tx_query(tx,
                                          "(query [:find ?v :order-by [?v] :where [:k :n ?v]])");
    REQUIRE(c != NULL);
    char *all = drain_cursor(c, 10);
    CHECK_STR_EQ(all, "[[2],[3]]");
    free(all);
    minigraf_cursor_free(c);
    CHECK_INT_EQ(minigraf_tx_commit(tx), 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, "(query [:find ?v :order-by [?v] :where [:k :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[2],[3]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :order-by [?v] :where [:k :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1],[2]]}");
    minigraf_close(db);
}

/* One value replaced 2,000 times, beside one asserted first and never
 * retracted: the walk back passes every version, the answer is exact. */
TEST(history_keeps_an_old_value_beside_a_long_history) {
    MiniGrafDb *db = open_indexed_memory();
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:k :tag \"old\"] [:k :n 0]])");
    char text[96];
    for (int v = 1; v <= 2000; v++) {
        snprintf(text, sizeof text, "(retract [[:k :n %d]])", v - 1);
        run(db, text);
        snprintf(text, sizeof text, "(transact [[:k :n %d] [:k :tag \"t%d\"]])", v, v % 3);
        run(db, text);
    }
    EXPECT_EXEC(db, "(query [:find ?v :where [:k :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[2000]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1000 :where [:k :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1001 :where [:k :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[500]]}");
    EXPECT_EXEC(db, "(query [:find ?v :order-by [?v] :where [:k :tag ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[\"old\"],[\"t0\"],[\"t1\"],[\"t2\"]]}");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :order-by [?v] :where [:k :tag ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[\"old\"]]}");
    minigraf_close(db);
}

/* ---- a file of format version 3 --------------------------------------- */

static uint64_t le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A field of the newest header slot (pages 0 and 1). */
static uint64_t header_field(const char *path, int offset, int size) {
    static unsigned char b[8192];
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, b, sizeof b) == (ssize_t)sizeof b);
    if (fd >= 0)
        close(fd);
    const unsigned char *newest = le(b + 4096 + 16, 8) > le(b + 16, 8) ? b + 4096 : b;
    return le(newest + offset, size);
}

static unsigned file_version(const char *path) {
    return (unsigned)header_field(path, 8, 4);
}

/* The header's flags (docs/file-format.md §2): bit 0, the history index. */
static unsigned file_flags(const char *path) {
    return (unsigned)header_field(path, 112, 4);
}

#define V1(x) "{\"variables\":[\"?v\"],\"results\":[" x "]}"

/* The answers the fixture (tests/c/fixtures/README.md) holds. */
static void check_fixture_answers(MiniGrafDb *db) {
    EXPECT_EXEC(db, "(query [:find ?v :where [:hot :counter ?v]])", V1("[20]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 21 :where [:hot :counter ?v]])", V1("[10]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 20 :where [:hot :counter ?v]])", V1(""));
    EXPECT_EXEC(db, "(query [:find ?v :order-by [?v] :where [:t :tag ?v]])",
                V1("[\"a\"],[\"b\"],[\"c\"]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 43 :where [:t :tag ?v]])", V1("[\"b\"]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 42 :order-by [?v] :where [:t :tag ?v]])",
                V1("[\"a\"],[\"b\"]"));
    EXPECT_EXEC(db, "(query [:find ?v :valid-at \"2020-06-01\" :where [:w :status ?v]])", V1(""));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 46 :valid-at \"2020-06-01\" :where [:w :status ?v]])",
                V1("[\":active\"]"));
    EXPECT_EXEC(db,
                "(query [:find ?v :valid-at \"2022-06-01\" :order-by [?v] :where [:w :status ?v]])",
                V1("[\":active\"],[\":inactive\"]"));
    EXPECT_EXEC(db, "(query [:find ?v :where [:w :status ?v]])", V1("[\":inactive\"]"));
}

TEST(format_3_file_is_read_then_migrated) {
    char fixture[512];
    snprintf(fixture, sizeof fixture, "%s/tests/c/fixtures/history-v3.graph", MINIGRAF_SOURCE_DIR);
    temp_db_path t;
    temp_db_make(&t);
    copy_file(fixture, t.path);
    CHECK_INT_EQ(file_version(t.path), 3);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    check_fixture_answers(db); /* no history index: the EAVT order */
    minigraf_close(db);
    CHECK_INT_EQ(file_version(t.path), 3); /* read-only changes nothing */
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(file_version(t.path), 6); /* upgraded, without the index */
    CHECK_INT_EQ(file_flags(t.path), 0);
    CHECK(!keeps_history(db));
    check_fixture_answers(db);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, WITH_INDEX, NULL);
    REQUIRE(db != NULL);
    CHECK(keeps_history(db));
    CHECK_INT_EQ(file_flags(t.path), 1);
    check_fixture_answers(db);
    EXPECT_TRANSACT(db, "(transact [[:hot :counter 21]])");
    EXPECT_EXEC(db, "(query [:find ?v :order-by [?v] :where [:hot :counter ?v]])", V1("[20],[21]"));
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, "(query [:find ?v :as-of 21 :where [:hot :counter ?v]])", V1("[10]"));
    EXPECT_EXEC(db, "(query [:find ?v :order-by [?v] :where [:hot :counter ?v]])", V1("[20],[21]"));
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- the index is opt-in ------------------------------------------------ */

/* Every (E, A) read of `a` and `b` at every as-of point and valid-time
 * choice gives the same answer. */
static void same_answers(MiniGrafDb *a, MiniGrafDb *b) {
    CHECK_INT_EQ(tx_count(a), tx_count(b));
    char opts[96], text[256];
    for (long t = -1; t <= (long)tx_count(a); t++)
        for (int valid = 0; valid < VALID_CHOICES; valid++) {
            options(opts, sizeof opts, t, valid);
            for (unsigned e = 0; e < ENTITIES; e++)
                for (unsigned at = 0; at < ATTRS; at++) {
                    snprintf(text, sizeof text,
                             "(query [:find ?v %s:order-by [?v] :where [:e%u :a%u ?v]])", opts, e,
                             at);
                    char *want = EXEC(a, text), *got = EXEC(b, text);
                    if (want && got && strcmp(want, got) != 0)
                        check_fail_str(__FILE__, __LINE__, text, got, want);
                    minigraf_string_free(want);
                    minigraf_string_free(got);
                }
        }
}

/* The same random history, written to a database with the index and to
 * one without (the default), answers the same. */
TEST(without_the_option_no_index_and_the_same_answers) {
    MiniGrafDb *plain = open_memory_db(), *indexed = open_indexed_memory();
    REQUIRE(plain != NULL && indexed != NULL);
    CHECK(!keeps_history(plain));
    CHECK(keeps_history(indexed));
    uint64_t seed = rng_state;
    write_history(plain, STEPS);
    rng_state = seed;
    write_history(indexed, STEPS);
    same_answers(plain, indexed);
    compare_all(plain, 7);
    minigraf_close(plain);
    minigraf_close(indexed);
}

static uint64_t pages(MiniGrafDb *db) {
    char *stats = minigraf_stats(db);
    CHECK(stats != NULL);
    if (!stats)
        return 0;
    const char *p = strstr(stats, "\"pages\":");
    uint64_t n = p ? strtoull(p + 8, NULL, 10) : 0;
    minigraf_string_free(stats);
    return n;
}

/* A file made without the option records no index (flags 0, fewer pages
 * than the same history with it); one made with it records it, and
 * later opens follow the file whatever they ask (false never drops it). */
TEST(the_choice_is_persisted_in_the_file) {
    temp_db_path plain_path, indexed_path;
    temp_db_make(&plain_path);
    temp_db_make(&indexed_path);
    MiniGrafDb *plain = minigraf_open(plain_path.path);
    MiniGrafDb *indexed = minigraf_open_with_options(indexed_path.path, WITH_INDEX, NULL);
    REQUIRE(plain != NULL && indexed != NULL);
    uint64_t seed = rng_state;
    write_history(plain, STEPS);
    rng_state = seed;
    write_history(indexed, STEPS);
    CHECK_INT_EQ(minigraf_checkpoint(plain), 0);
    CHECK_INT_EQ(minigraf_checkpoint(indexed), 0);
    CHECK(pages(plain) < pages(indexed));
    minigraf_close(plain);
    minigraf_close(indexed);
    CHECK_INT_EQ(file_version(plain_path.path), 6);
    CHECK_INT_EQ(file_flags(plain_path.path), 0);
    CHECK_INT_EQ(file_flags(indexed_path.path), 1);
    plain = minigraf_open(plain_path.path);
    indexed = minigraf_open_with_options(indexed_path.path, "{\"history_index\": false}", NULL);
    REQUIRE(plain != NULL && indexed != NULL);
    CHECK(!keeps_history(plain));
    CHECK(keeps_history(indexed));
    same_answers(plain, indexed);
    EXPECT_TRANSACT(indexed, "(transact [[:e0 :a0 99]])");
    minigraf_close(indexed);
    CHECK_INT_EQ(file_flags(indexed_path.path), 1);
    minigraf_close(plain);
    temp_db_remove(&plain_path);
    temp_db_remove(&indexed_path);
}

/* A file without the index: a read-only open asking for it reads without
 * it; a read-write open asking for it builds it, the answers stay the
 * same, and later opens keep it. Another handle on the open file cannot
 * ask for it (STG-025). */
TEST(turning_the_option_on_builds_the_index) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    write_history(db, STEPS);
    char *msg = NULL;
    MiniGrafDb *other = NULL;
    CHECK_INT_EQ(minigraf_open_v2(t.path, WITH_INDEX, &other, &msg), MINIGRAF_E_STG_025);
    CHECK(msg != NULL && strstr(msg, "history index") != NULL);
    minigraf_string_free(msg);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true, \"history_index\": true}", NULL);
    REQUIRE(db != NULL);
    CHECK(!keeps_history(db));
    compare_all(db, 9);
    minigraf_close(db);
    CHECK_INT_EQ(file_flags(t.path), 0);
    db = minigraf_open_with_options(t.path, WITH_INDEX, NULL);
    REQUIRE(db != NULL);
    CHECK(keeps_history(db));
    CHECK_INT_EQ(file_flags(t.path), 1);
    compare_all(db, 1);
    write_history(db, STEPS / 4); /* on top of the built index */
    compare_all(db, 5);
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    CHECK(keeps_history(db));
    compare_all(db, 5);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* An export (a log writer underneath) makes its file with the index when
 * asked, and without it by default; both answer as the source. */
TEST(export_takes_the_option) {
    MiniGrafDb *src = open_memory_db();
    REQUIRE(src != NULL);
    write_history(src, STEPS / 2);
    temp_db_path with, without;
    temp_db_make(&with);
    temp_db_make(&without);
    CHECK_INT_EQ(minigraf_export(src, with.path, WITH_INDEX), 0);
    CHECK_INT_EQ(minigraf_export(src, without.path, NULL), 0);
    CHECK_INT_EQ(file_flags(with.path), 1);
    CHECK_INT_EQ(file_flags(without.path), 0);
    MiniGrafDb *a = minigraf_open(with.path), *b = minigraf_open(without.path);
    REQUIRE(a != NULL && b != NULL);
    CHECK(keeps_history(a));
    CHECK(!keeps_history(b));
    same_answers(src, a);
    same_answers(src, b);
    minigraf_close(a);
    minigraf_close(b);
    minigraf_close(src);
    temp_db_remove(&with);
    temp_db_remove(&without);
}

CHECK_MAIN(TEST_ENTRY(history_reads_match_the_eavt_order_in_memory),
           TEST_ENTRY(history_reads_match_after_checkpoint_and_reopen),
           TEST_ENTRY(history_reads_inside_a_write_transaction),
           TEST_ENTRY(history_keeps_an_old_value_beside_a_long_history),
           TEST_ENTRY(format_3_file_is_read_then_migrated),
           TEST_ENTRY(without_the_option_no_index_and_the_same_answers),
           TEST_ENTRY(the_choice_is_persisted_in_the_file),
           TEST_ENTRY(turning_the_option_on_builds_the_index), TEST_ENTRY(export_takes_the_option))
