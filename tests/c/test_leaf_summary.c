/* Leaf summaries (docs/file-format.md §3): a count over one pattern adds
 * up the leaves whose summary decides them instead of decoding them
 * (store_scan_skip_leaves). Each answer is checked against the same
 * query made to go row by row (a filter clause that keeps every row,
 * which decodes every record), over enough records for hundreds of
 * leaves: triples asserted again, retracted, asserted after that, one
 * triple's history longer than a leaf, windows in the past, the future
 * and ending in the future, nils; at a sample of :as-of points (counter
 * and time) under no valid-time cut, :valid-at points and
 * :any-valid-time; in memory, in a file read back (pages checked), a
 * read-only open, a copy of a file whose last commits are only in its
 * log (a crash), and files written by the releases before leaf
 * summaries (format 4) and before child summaries (format 5), read as
 * they are and then written to. The child summaries of the branches over
 * leaves (format 6) decide whole leaves without reading them: over
 * several such branches too, a branch that does not match its leaf is
 * STG-008. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define ENTITIES 1500

static void write_batch(MiniGrafDb *db, int from, int to, int round) {
    static char cmd[ENTITIES * 160];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "(transact [");
    for (int i = from; i < to; i++)
        len += (size_t)snprintf(
            cmd + len, sizeof cmd - len, "[:e%d :group %d][:e%d :n %d][:e%d :s \"s%d\"]%s", i,
            (i / 97 + round) % 5, i, i % 50, i, i % 7, i % 61 == 0 ? "[:z :n nil]" : "");
    snprintf(cmd + len, sizeof cmd - len, "])");
    EXPECT_TRANSACT(db, cmd);
}

/* Triples asserted, retracted, and a third asserted again, side by side:
 * leaves start and end inside such groups, and start at their first
 * record (an assertion) with their last (a retraction) in the leaf. */
static void write_short_histories(MiniGrafDb *db) {
    static char cmd[200 * 40];
    for (int step = 0; step < 3; step++)
        for (int from = 0; from < 800; from += 200) {
            size_t len = (size_t)snprintf(cmd, sizeof cmd, "(%s [",
                                          step == 1 ? "retract" : "transact");
            for (int i = from; i < from + 200; i++)
                if (step < 2 || i % 3 == 0)
                    len += (size_t)snprintf(cmd + len, sizeof cmd - len, "[:h%d :v %d]", i, i % 3);
            snprintf(cmd + len, sizeof cmd - len, "])");
            expect_write_at(__FILE__, __LINE__, db, cmd, step == 1 ? "retracted" : "transacted");
        }
}

/* Everything the fast path must get right, in commit order. */
static void write_all(MiniGrafDb *db) {
    char cmd[256];
    for (int i = 0; i < ENTITIES; i += 100)
        write_batch(db, i, i + 100, 0);
    write_batch(db, 200, 400, 0); /* the same triples asserted again */
    for (int i = 0; i < ENTITIES; i += 37) {
        snprintf(cmd, sizeof cmd, "(retract [[:e%d :group %d] [:e%d :n %d]])", i, (i / 97) % 5, i,
                 i % 50);
        EXPECT_RETRACT(db, cmd);
    }
    for (int i = 0; i < ENTITIES; i += 74) { /* asserted after the retraction */
        snprintf(cmd, sizeof cmd, "(transact [[:e%d :group %d]])", i, (i / 97) % 5);
        EXPECT_TRANSACT(db, cmd);
    }
    for (int k = 0; k < 700; k++) { /* one triple's history, longer than a leaf */
        snprintf(cmd, sizeof cmd, "(%s [[:long :group 3]])", k % 2 ? "retract" : "transact");
        expect_write_at(__FILE__, __LINE__, db, cmd, k % 2 ? "retracted" : "transacted");
    }
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"}"
                        " [[:e5 :group 9] [:e900 :n 9] [:w :group 1]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2100-01-01\"} [[:e700 :group 2] [:f :group 2]])");
    EXPECT_TRANSACT(db, "(transact {:valid-to \"2100-01-01\"} [[:e1200 :group 4] [:e1300 :n 3]])");
    write_batch(db, 1000, 1100, 1); /* other groups for these entities */
    write_short_histories(db);
}

static const char *const shapes[][2] = {
    {"(count ?v)", "[?e ?a ?v]"},        {"(count ?e)", "[?e ?a _]"},
    {"?g (count ?e)", "[?e :group ?g]"}, {"?a (count ?e)", "[?e ?a _]"},
    {"(count ?v)", "[?e :n ?v]"},        {"?v (count ?e)", "[?e :n ?v]"},
    {"(count ?e)", "[?e :group 3]"},     {"(count ?v)", "[:long ?a ?v]"},
    {"?e (count ?v)", "[?e :group ?v]"}, {"?v (count ?e)", "[?e :v ?v]"},
};

static void compare(MiniGrafDb *db, const char *find, const char *cut, const char *where) {
    char fast[512], slow[512];
    snprintf(fast, sizeof fast, "(query [:find %s %s:where %s])", find, cut, where);
    snprintf(slow, sizeof slow, "(query [:find %s %s:where %s [(= 1 1)]])", find, cut, where);
    char *want = EXEC(db, slow);
    if (want)
        EXPECT_EXEC(db, fast, want);
    minigraf_string_free(want);
}

/* Every shape at a sample of :as-of points, under each valid-time cut. */
static void compare_all(MiniGrafDb *db) {
    static const char *const valid[] = {"", ":any-valid-time ", ":valid-at \"2020-06-01\" ",
                                        ":valid-at \"2200-01-01\" ", ":as-of \"2200-01-01\" "};
    uint64_t last = tx_count(db);
    char cut[128];
    for (uint64_t t = 0; t <= last + 1; t += t < 20 || t + 3 > last ? 1 : 61)
        for (size_t v = 0; v < sizeof valid / sizeof *valid; v++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                if (t == last + 1)
                    snprintf(cut, sizeof cut, "%s", valid[v]);
                else
                    snprintf(cut, sizeof cut, ":as-of %llu %s", (unsigned long long)t, valid[v]);
                compare(db, shapes[s][0], cut, shapes[s][1]);
            }
}

TEST(counted_leaves_match_rows_in_memory) {
    MiniGrafDb *db = open_memory_db();
    write_all(db);
    compare_all(db);
    minigraf_close(db);
}

TEST(counted_leaves_match_rows_read_from_a_file) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 3000}", NULL);
    REQUIRE(db != NULL);
    write_all(db); /* checkpoints along the way: leaves written, then changed */
    compare_all(db);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    compare_all(db); /* every leaf read from the file, its summary checked */
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"history_index\": true}", NULL);
    REQUIRE(db != NULL);
    compare_all(db);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* The file and log copied while the database is open, its last commits
 * only in the log: what a crash leaves. The copy replays them. */
TEST(counted_leaves_match_rows_after_a_crash) {
    temp_db_path t, c;
    temp_db_make_in_memory_fs(&t);
    temp_db_make_in_memory_fs(&c);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"full\", \"wal_checkpoint_threshold\": 0}", NULL);
    REQUIRE(db != NULL);
    write_all(db);
    CHECK(minigraf_checkpoint(db) == 0);
    write_batch(db, 0, 300, 2); /* only in the log */
    EXPECT_RETRACT(db, "(retract [[:e10 :n 10]])");
    char wal[600], cwal[600];
    snprintf(wal, sizeof wal, "%s.wal", t.path);
    snprintf(cwal, sizeof cwal, "%s.wal", c.path);
    copy_file(t.path, c.path);
    copy_file(wal, cwal);
    minigraf_close(db);
    db = minigraf_open(c.path);
    REQUIRE(db != NULL);
    compare_all(db);
    minigraf_close(db);
    temp_db_remove(&t);
    temp_db_remove(&c);
}

/* A fixture of an older format (tests/c/fixtures/README.md) read as it
 * is (count over every record: `count`), then written to, then read
 * again from the file. */
static void check_old_file(const char *name, int count) {
    char fixture[512], want[128];
    snprintf(fixture, sizeof fixture, "%s/tests/c/fixtures/%s", MINIGRAF_SOURCE_DIR, name);
    snprintf(want, sizeof want, "{\"variables\":[\"(count ?v)\"],\"results\":[[%d]]}", count);
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    copy_file(fixture, t.path);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, "(query [:find (count ?v) :where [?e ?a ?v]])", want);
    compare_all(db);
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    write_all(db);
    compare_all(db);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    compare_all(db);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* Format 4: its leaves have no summary and are decoded; leaves written
 * after the upgrade have one. */
TEST(format_4_file_is_counted_by_decoding) {
    check_old_file("summary-v4.graph", 4498);
}

/* Format 5: leaves with and without summaries under branches without
 * child summaries. */
TEST(format_5_file_is_counted_from_its_leaves) {
    check_old_file("summary-v5.graph", 7496);
}

/* The file's pages, the newest header's root of tree `tree` in *root. */
static uint8_t *read_pages(const char *path, size_t *size, int tree, uint32_t *root) {
    FILE *f = fopen(path, "rb");
    static uint8_t file[1 << 24];
    *size = f ? fread(file, 1, sizeof file, f) : 0;
    if (f)
        fclose(f);
    int slot = file_le(file + 16, 8) >= file_le(file + FILE_PAGE + 16, 8) ? 0 : 1;
    *root = (uint32_t)file_le(file + slot * FILE_PAGE + 56 + 4 * tree, 4);
    return file;
}

/* The branches over leaves of the tree at `root` that keep child
 * summaries (kind 2, flag 1), found by walking it; the first in *first. */
static int summed_branches(const uint8_t *file, size_t size, uint32_t root, uint32_t *first) {
    const uint8_t *page = file + (size_t)root * FILE_PAGE;
    if ((size_t)(root + 1) * FILE_PAGE > size || page[0] != 2)
        return 0;
    if (page[1] == 1) {
        if (*first == 0)
            *first = root;
        return 1;
    }
    int n = 0;
    for (uint64_t i = 0; i < file_le(page + 2, 2); i++)
        n += summed_branches(file, size, (uint32_t)file_le(page + 4 + i * 66 + 62, 4), first);
    return n;
}

/* The child summaries of all zero bytes (unknown) in the branches over
 * leaves of the tree at `root`, whose leaves all keep a summary. */
static int unknown_child_sums(const uint8_t *file, size_t size, uint32_t root) {
    static const uint8_t zero[22];
    const uint8_t *page = file + (size_t)root * FILE_PAGE;
    if ((size_t)(root + 1) * FILE_PAGE > size || page[0] != 2)
        return 0;
    int n = 0;
    for (uint64_t i = 0; i < file_le(page + 2, 2); i++)
        if (page[1] == 1)
            n += memcmp(page + 4 + i * 88 + 66, zero, sizeof zero) == 0;
        else
            n += unknown_child_sums(file, size, (uint32_t)file_le(page + 4 + i * 66 + 62, 4));
    return n;
}

static void write_wide(MiniGrafDb *db) {
    write_all(db);
    for (int round = 0; round < 4; round++)
        for (int i = 2000; i < 8000; i += ENTITIES)
            write_batch(db, i, i + ENTITIES, round);
    char cmd[128];
    for (int k = 0; k < 1500; k++) { /* a history across leaves in the middle of the tree */
        snprintf(cmd, sizeof cmd, "(%s [[:e5000 :n 0]])", k % 2 ? "transact" : "retract");
        expect_write_at(__FILE__, __LINE__, db, cmd, k % 2 ? "transacted" : "retracted");
    }
}

/* Leaves counted from several branches over them (format 6), the
 * groups at the branches' ends crossing into the next branch's leaves. */
TEST(counted_children_match_rows_across_branches) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 20000}", NULL);
    REQUIRE(db != NULL);
    write_wide(db);
    minigraf_close(db);
    size_t size;
    uint32_t root, first = 0;
    uint8_t *file = read_pages(t.path, &size, 0, &root);
    CHECK(summed_branches(file, size, root, &first) >= 3); /* EAVT */
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    static const char *const cuts[] = {"",
                                       ":as-of 40 ",
                                       ":as-of 2000 ",
                                       ":as-of 4000 ",
                                       ":valid-at \"2020-06-01\" ",
                                       ":any-valid-time "};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            compare(db, shapes[s][0], cuts[c], shapes[s][1]);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* One fact a commit: the writer leaves the child summary of the leaf
 * it appends to unknown (the branch over it is not written again for
 * every commit), and counts then read that leaf; a checkpoint rebuilds
 * them, so that the file holds none (releases before would take one as
 * damage). */
TEST(unknown_child_sums_are_rebuilt_by_checkpoints) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 2500}", NULL);
    REQUIRE(db != NULL);
    char cmd[128];
    for (int i = 0; i < 3000; i++) {
        snprintf(cmd, sizeof cmd, "(transact [[:u%d :n %d]])", i, i % 50);
        EXPECT_TRANSACT(db, cmd);
        if (i % 1000 == 999)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                compare(db, shapes[s][0], "", shapes[s][1]);
    }
    minigraf_close(db);
    size_t size;
    uint32_t root, first = 0;
    for (int tree = 0; tree < 3; tree++) { /* EAVT, AEVT, AVET */
        uint8_t *file = read_pages(t.path, &size, tree, &root);
        CHECK(summed_branches(file, size, root, &first) >= 1);
        CHECK(unknown_child_sums(file, size, root) == 0);
    }
    temp_db_remove(&t);
}

/* A branch whose child summary says another thing than its leaf (the
 * page resealed): STG-008 when the leaf is read. */
TEST(damaged_child_summary_is_stg_008) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"synchronous\": \"normal\"}", NULL);
    REQUIRE(db != NULL);
    write_all(db);
    minigraf_close(db);
    size_t size;
    uint32_t root, at = 0;
    uint8_t *file = read_pages(t.path, &size, 0, &root);
    REQUIRE(summed_branches(file, size, root, &at) >= 1);
    uint8_t *page = file + (size_t)at * FILE_PAGE;
    page[4 + 62 + 4 + 2]++; /* entry 0's count of shown groups (format 6: 88-byte entries) */
    file_page_seal(page, at);
    FILE *f = fopen(t.path, "r+b");
    REQUIRE(f != NULL);
    CHECK(fseek(f, (long)at * FILE_PAGE, SEEK_SET) == 0 &&
          fwrite(page, 1, FILE_PAGE, f) == FILE_PAGE);
    CHECK(fclose(f) == 0);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    EXPECT_ERROR(db, "(query [:find (count ?v) :where [?e ?a ?v] [(= 1 1)]])", "STG-008");
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(counted_leaves_match_rows_in_memory),
           TEST_ENTRY(counted_leaves_match_rows_read_from_a_file),
           TEST_ENTRY(counted_leaves_match_rows_after_a_crash),
           TEST_ENTRY(format_4_file_is_counted_by_decoding),
           TEST_ENTRY(format_5_file_is_counted_from_its_leaves),
           TEST_ENTRY(counted_children_match_rows_across_branches),
           TEST_ENTRY(unknown_child_sums_are_rebuilt_by_checkpoints),
           TEST_ENTRY(damaged_child_summary_is_stg_008))
