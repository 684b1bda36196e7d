/* Records a scan takes as visible from their leaf's summary, written by
 * the stored scan straight into the rows' slots (store_scan_fill_rows,
 * fact_run_fill_rows), hold every type of value as the records do:
 * integers (negative too), floats, strings, keywords, booleans, Refs and
 * nil, at each position a pattern binds (E and V, E alone, all three of
 * a pattern with no constant: EAVT), where one attribute's records end
 * inside a leaf, with some values retracted (their leaves then read
 * record by record) and :as-of before that; in memory and in a file read
 * back. Each answer is read through the typed step API and checked
 * value by value against the values written. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define ENTITIES 3000
#define PER_COMMIT 100
#define KINDS 7

/* A few, in two leaves' reach: the others stay marked. */
static bool retracted(int i) {
    return i >= 1500 && i < 1600 && i % 50 == 7;
}

/* The literal of entity i's :w value (its type by i % KINDS). */
static void value_text(int i, char *out, size_t cap) {
    switch (i % KINDS) {
    case 0: snprintf(out, cap, "%d", i * 3 - 5000); break;
    case 1: snprintf(out, cap, "%d.25", i); break;
    case 2: snprintf(out, cap, "\"s%d\"", i); break;
    case 3: snprintf(out, cap, ":kw%d", i); break;
    case 4: snprintf(out, cap, "%s", (i / KINDS) % 2 ? "true" : "false"); break;
    case 5: snprintf(out, cap, "#uuid \"20000000-0000-4000-8000-%012x\"", i); break;
    default: snprintf(out, cap, "nil"); break;
    }
}

/* Entity i: #uuid "10000000-...-<i>". */
static void entity_text(int i, char *out, size_t cap) {
    snprintf(out, cap, "#uuid \"10000000-0000-4000-8000-%012x\"", i);
}

/* The index a UUID written by the two above carries (its last 6 bytes),
 * or -1 when its first byte is not `tag`. */
static int uuid_index(const unsigned char *u, unsigned char tag) {
    if (!u || u[0] != tag)
        return -1;
    long i = 0;
    for (int b = 10; b < 16; b++)
        i = i << 8 | u[b];
    return i < ENTITIES ? (int)i : -1;
}

static void write_all(MiniGrafDb *db) {
    static char cmd[PER_COMMIT * 160];
    char e[64], v[64];
    for (int from = 0; from < ENTITIES; from += PER_COMMIT) {
        size_t len = (size_t)snprintf(cmd, sizeof cmd, "(transact [");
        for (int i = from; i < from + PER_COMMIT; i++) {
            entity_text(i, e, sizeof e);
            value_text(i, v, sizeof v);
            len += (size_t)snprintf(cmd + len, sizeof cmd - len, "[%s :k %d] [%s :w %s]", e, i, e,
                                    v);
        }
        snprintf(cmd + len, sizeof cmd - len, "])");
        EXPECT_TRANSACT(db, cmd);
    }
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "(retract [");
    for (int i = 0; i < ENTITIES; i++)
        if (retracted(i)) {
            entity_text(i, e, sizeof e);
            value_text(i, v, sizeof v);
            len += (size_t)snprintf(cmd + len, sizeof cmd - len, "[%s :w %s]", e, v);
        }
    snprintf(cmd + len, sizeof cmd - len, "])");
    EXPECT_RETRACT(db, cmd);
}

/* Whether column `col` of the current row holds entity i's :w value. */
static bool value_is(MiniGrafCursor *c, int col, int i) {
    int type = minigraf_cursor_column_type(c, col);
    char want[64];
    size_t len = 0;
    const char *text;
    switch (i % KINDS) {
    case 0:
        return type == MINIGRAF_TYPE_INTEGER &&
               minigraf_cursor_column_int64(c, col) == i * 3 - 5000;
    case 1: return type == MINIGRAF_TYPE_FLOAT && minigraf_cursor_column_double(c, col) == i + 0.25;
    case 2:
    case 3:
        snprintf(want, sizeof want, i % KINDS == 2 ? "s%d" : ":kw%d", i);
        text = minigraf_cursor_column_text(c, col, &len);
        return type == (i % KINDS == 2 ? MINIGRAF_TYPE_STRING : MINIGRAF_TYPE_KEYWORD) && text &&
               len == strlen(want) && memcmp(text, want, len) == 0;
    case 4:
        return type == MINIGRAF_TYPE_BOOLEAN &&
               minigraf_cursor_column_bool(c, col) == ((i / KINDS) % 2 == 1);
    case 5:
        return type == MINIGRAF_TYPE_REF &&
               uuid_index(minigraf_cursor_column_uuid(c, col), 0x20) == i;
    default: return type == MINIGRAF_TYPE_NULL;
    }
}

/* Whether column `col` of the current row names attribute `name`. */
static bool attribute_is(MiniGrafCursor *c, int col, const char *name) {
    size_t len = 0;
    const char *text = minigraf_cursor_column_text(c, col, &len);
    return text && len == strlen(name) && memcmp(text, name, len) == 0;
}

/* Runs `find` (`cut` before :where) and checks its rows: columns of
 * entity, attribute (-1: none) and value (-1: none), the value always
 * entity i's :w value unless the attribute is :k. Every :w record
 * visible (all of them before the retraction, `all`) comes once, and
 * each :k record once when the attribute is read. */
static void check(MiniGrafDb *db, const char *find, const char *where, const char *cut, int ecol,
                  int acol, int vcol, bool all) {
    static unsigned char seen[2][ENTITIES];
    char q[256];
    snprintf(q, sizeof q, "(query [:find %s %s:where %s])", find, cut, where);
    memset(seen, 0, sizeof seen);
    MiniGrafCursor *c = minigraf_query(db, q);
    REQUIRE(c != NULL);
    size_t wrong = 0, rows = 0;
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        int i = uuid_index(minigraf_cursor_column_uuid(c, ecol), 0x10);
        rows++;
        if (i < 0) {
            wrong++;
            continue;
        }
        bool k = acol >= 0 && attribute_is(c, acol, ":k");
        if (acol >= 0 && !k && !attribute_is(c, acol, ":w"))
            wrong++;
        else if (k && vcol >= 0 && minigraf_cursor_column_int64(c, vcol) != i)
            wrong++;
        else if (!k && vcol >= 0 && !value_is(c, vcol, i))
            wrong++;
        else if (seen[k][i]++)
            wrong++;
    }
    CHECK_INT_EQ(rc, 0);
    minigraf_cursor_free(c);
    size_t want = 0;
    for (int i = 0; i < ENTITIES; i++)
        want += (all || !retracted(i)) + (acol >= 0);
    if (rows != want || wrong)
        fprintf(stderr, "%s: %zu rows (want %zu), %zu wrong\n", q, rows, want, wrong);
    CHECK_INT_EQ(rows, want);
    CHECK_INT_EQ(wrong, 0);
}

static void check_all(MiniGrafDb *db, uint64_t before) {
    char cut[64];
    snprintf(cut, sizeof cut, ":as-of %llu ", (unsigned long long)before);
    for (int view = 0; view < 2; view++) {
        const char *at = view ? cut : "";
        check(db, "?e ?v", "[?e :w ?v]", at, 0, -1, 1, view);
        check(db, "?v ?e", "[?e :w ?v]", at, 1, -1, 0, view);
        check(db, "?e", "[?e :w _]", at, 0, -1, -1, view);
        check(db, "?e ?a ?v", "[?e ?a ?v]", at, 0, 1, 2, view);
    }
}

TEST(values_in_memory_match_the_writes) {
    MiniGrafDb *db = open_memory_db();
    write_all(db);
    check_all(db, tx_count(db) - 1);
    minigraf_close(db);
}

TEST(values_of_a_file_read_back_match_the_writes) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"synchronous\": \"normal\"}", NULL);
    REQUIRE(db != NULL);
    write_all(db);
    uint64_t before = tx_count(db) - 1;
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    check_all(db, before);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(values_in_memory_match_the_writes),
           TEST_ENTRY(values_of_a_file_read_back_match_the_writes))
