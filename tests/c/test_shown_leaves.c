/* Scans that take a leaf's records as visible from its summary
 * (store_scan_see_leaves: every record its own group, an assertion valid
 * forever, all passing the view), all but the leaf's last, whose group
 * may go on into the next leaf. Each answer, read row by row through the
 * typed step API, is checked against a model of the commits: thousands
 * of triples over many leaves, some retracted, some asserted again after
 * that, some replaced by another value, some in a closed window in the
 * past and some from a point in the future; at :as-of points (counter
 * and time) between the commits, at :valid-at points, under
 * :any-valid-time; in memory and in a file read back. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define PLAIN 4000   /* :p0 .. : one value each, some replaced by a second */
#define WINDOWED 300 /* :q (2020 to 2021) and :r (from 2100) */
#define VALUES (2 * PLAIN + 2 * WINDOWED)
#define EVENTS 64000
#define POINTS 10

/* A value's window: from its commit on, 2020-01-01 to 2021-01-01, or
 * from 2100-01-01 on. */
enum { W_NOW, W_PAST, W_FUTURE };

typedef struct event {
    int value; /* the value's index: its integer below */
    bool asserted;
    uint64_t tx; /* the commit's counter */
} event;

typedef struct model {
    event ev[EVENTS];
    size_t count;
    uint8_t window[VALUES];
    uint64_t points[POINTS]; /* counters after each phase */
    size_t npoints;
} model;

static model m;

/* The integer the value of index `k` stores (distinct for every k). */
static int value_of(int k) {
    return k * 7 + 3;
}

static int plain_second(int i) {
    return PLAIN + i;
}

/* Appends the triple of `entity` and value `k` to cmd[0..*len), and the
 * event to the model (the commit to come is the next counter). */
static void add(MiniGrafDb *db, char *cmd, size_t *len, size_t cap, const char *entity, int k,
                bool asserted) {
    *len += (size_t)snprintf(cmd + *len, cap - *len, "[%s :v %d]", entity, value_of(k));
    m.ev[m.count++] = (event){k, asserted, tx_count(db) + 1};
}

/* One commit of the values of `kind` for entities from..to that `pick`
 * takes (NULL: all): their first value, or the second (`second`). */
static void commit(MiniGrafDb *db, const char *opts, int kind, int from, int to, bool (*pick)(int),
                   bool asserted, bool second) {
    static char cmd[PLAIN * 48];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "(%s %s[", asserted ? "transact" : "retract",
                                  opts);
    size_t before = m.count;
    char entity[32];
    for (int i = from; i < to; i++) {
        if (pick && !pick(i))
            continue;
        int k = kind == W_NOW    ? (second ? plain_second(i) : i)
                : kind == W_PAST ? 2 * PLAIN + i
                                 : 2 * PLAIN + WINDOWED + i;
        snprintf(entity, sizeof entity, ":%c%d", "pqr"[kind], i);
        m.window[k] = (uint8_t)kind;
        add(db, cmd, &len, sizeof cmd, entity, k, asserted);
    }
    snprintf(cmd + len, sizeof cmd - len, "])");
    if (m.count > before)
        expect_write_at(__FILE__, __LINE__, db, cmd, asserted ? "transacted" : "retracted");
}

/* The histories below stay among entities 1500 to 2500: the leaves
 * around keep one record a group, which the scans mark. */
static bool inside(int i) {
    return i >= 1500 && i < 2500;
}
static bool every_97th(int i) {
    return inside(i) && i % 97 == 5;
}
static bool every_194th(int i) {
    return inside(i) && i % 194 == 5;
}
static bool every_89th(int i) {
    return inside(i) && i % 89 == 7;
}
static bool every_613th(int i) {
    return inside(i) && i % 613 == 11;
}
/* Single retractions among the marked leaves: one in the upper half of a
 * full leaf splits it there (btree_leaf.c split_point), so that the left
 * leaf, still one record a group, ends with the assertion whose group
 * goes on into the next leaf, and must not be marked. */
static bool scattered(int i) {
    return i == 137 || i == 1291 || i == 3533;
}

static void point(MiniGrafDb *db) {
    m.points[m.npoints++] = tx_count(db);
}

static void write_all(MiniGrafDb *db) {
    memset(&m, 0, sizeof m);
    EXPECT_TRANSACT(db, "(transact [[:t1 :tag 1] [:t2 :tag 2]])"); /* check_cross's */
    for (int i = 0; i < PLAIN; i++) /* appends: each leaf full when the next opens */
        commit(db, "", W_NOW, i, i + 1, NULL, true, false);
    point(db);
    commit(db, "", W_NOW, 0, PLAIN, scattered, false, false);
    point(db);
    commit(db, "", W_NOW, 0, PLAIN, every_97th, false, false); /* retracted */
    point(db);
    commit(db, "", W_NOW, 0, PLAIN, every_194th, true, false); /* asserted again */
    commit(db, "", W_NOW, 0, PLAIN, every_89th, false, false); /* replaced */
    commit(db, "", W_NOW, 0, PLAIN, every_89th, true, true);
    point(db);
    commit(db, "{:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} ", W_PAST, 0, WINDOWED, NULL,
           true, false);
    commit(db, "{:valid-from \"2100-01-01\"} ", W_FUTURE, 0, WINDOWED, NULL, true, false);
    point(db);
    for (int round = 0; round < 3; round++) /* one value's history, many records */
        commit(db, "", W_NOW, 0, PLAIN, every_613th, round % 2 == 1, false);
    point(db);
}

/* Is a value of window `w` valid at the point (0: now; 1: 2020-06-01;
 * 2: 2200-01-01; 3: any)? */
static bool holds(int w, int valid) {
    switch (w) {
    case W_NOW: return valid != 1;
    case W_PAST: return valid == 1 || valid == 3;
    default: return valid >= 2;
    }
}

/* The values visible at counter `at`, under valid-time point `valid`. */
static size_t expected(uint64_t at, int valid, bool *seen) {
    static int8_t last[VALUES];
    memset(last, -1, sizeof last);
    for (size_t i = 0; i < m.count; i++)
        if (m.ev[i].tx <= at)
            last[m.ev[i].value] = m.ev[i].asserted;
    size_t n = 0;
    for (int k = 0; k < VALUES; k++) {
        seen[k] = last[k] == 1 && holds(m.window[k], valid);
        n += seen[k];
    }
    return n;
}

static void check_view(MiniGrafDb *db, const char *cut, uint64_t at, int valid) {
    static const char *const valid_text[] = {"", ":valid-at \"2020-06-01\" ",
                                             ":valid-at \"2200-01-01\" ", ":any-valid-time "};
    static bool want[VALUES], got[VALUES];
    char q[256];
    snprintf(q, sizeof q, "(query [:find ?e ?v %s%s:where [?e :v ?v]])", cut, valid_text[valid]);
    size_t n = expected(at, valid, want), rows = 0, wrong = 0;
    memset(got, 0, sizeof got);
    MiniGrafCursor *c = minigraf_query(db, q);
    REQUIRE(c != NULL);
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        int64_t v = minigraf_cursor_column_int64(c, 1);
        int k = (int)((v - 3) / 7);
        bool known = v >= 3 && (v - 3) % 7 == 0 && k < VALUES;
        if (!known || !want[k] || got[k])
            wrong++;
        else
            got[k] = true;
        rows++;
    }
    CHECK_INT_EQ(rc, 0);
    minigraf_cursor_free(c);
    if (rows != n || wrong)
        fprintf(stderr, "%s: %zu rows (want %zu), %zu unexpected\n", q, rows, n, wrong);
    CHECK_INT_EQ(rows, n);
    CHECK_INT_EQ(wrong, 0);
}

/* The view's values as the second step of a cross product: each row of
 * the :v scan carries the :tag row before it (the rows of a stretch of
 * marked records pushed at once, op_scan.c plain_stretch). */
static void check_cross(MiniGrafDb *db, const char *cut, uint64_t at) {
    static bool want[VALUES], got[2][VALUES];
    char q[256];
    snprintf(q, sizeof q, "(query [:find ?g ?v %s:where [?t :tag ?g] [?e :v ?v]])", cut);
    size_t n = expected(at, 0, want), rows = 0, wrong = 0;
    memset(got, 0, sizeof got);
    MiniGrafCursor *c = minigraf_query(db, q);
    REQUIRE(c != NULL);
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        int64_t g = minigraf_cursor_column_int64(c, 0), v = minigraf_cursor_column_int64(c, 1);
        int k = (int)((v - 3) / 7);
        bool known = (g == 1 || g == 2) && v >= 3 && (v - 3) % 7 == 0 && k < VALUES;
        if (!known || !want[k] || got[g - 1][k])
            wrong++;
        else
            got[g - 1][k] = true;
        rows++;
    }
    CHECK_INT_EQ(rc, 0);
    minigraf_cursor_free(c);
    if (rows != 2 * n || wrong)
        fprintf(stderr, "%s: %zu rows (want %zu), %zu unexpected\n", q, rows, 2 * n, wrong);
    CHECK_INT_EQ(rows, 2 * n);
    CHECK_INT_EQ(wrong, 0);
}

static void check_all(MiniGrafDb *db) {
    check_cross(db, "", UINT64_MAX);
    char at[64];
    snprintf(at, sizeof at, ":as-of %llu ", (unsigned long long)m.points[2]);
    check_cross(db, at, m.points[2]);
    char cut[64];
    for (int valid = 0; valid < 4; valid++) {
        check_view(db, "", UINT64_MAX, valid);
        for (size_t p = 0; p < m.npoints; p++) {
            snprintf(cut, sizeof cut, ":as-of %llu ", (unsigned long long)m.points[p]);
            check_view(db, cut, m.points[p], valid);
        }
    }
    for (int valid = 0; valid < 4; valid++) /* a cut by time after every commit */
        check_view(db, ":as-of \"2200-01-01\" ", UINT64_MAX, valid);
}

TEST(scans_in_memory_match_the_model) {
    MiniGrafDb *db = open_memory_db();
    write_all(db);
    check_all(db);
    minigraf_close(db);
}

TEST(scans_of_a_file_read_back_match_the_model) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"synchronous\": \"normal\"}", NULL);
    REQUIRE(db != NULL);
    write_all(db);
    check_all(db);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    check_all(db);
    check_all(db); /* again: the reader's cursor kept where the last scan ended */
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(scans_in_memory_match_the_model),
           TEST_ENTRY(scans_of_a_file_read_back_match_the_model))
