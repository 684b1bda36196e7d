/* Whether a not body of one pattern and filters is read as a set at the
 * first outer row or probed row by row (exec/sub_set.h): read at once
 * when the plan expects more outer rows than reading the body's stretches
 * costs in probes, the stretches' records counted from the tree's child
 * summaries (store_count_value_range). A host predicate in the body sees
 * which way was taken: a set runs it on every visible record of the
 * stretch, probes only on the outer rows' records. The answers are the
 * same both ways, under retractions, :as-of and :valid-at. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#define N 8000

/* Entity i: :group i % 8, :age i % 100 (retracted when i % 400 == 1),
 * also :age 0 valid from 2999 on when i % 400 == 25, :team 1 when
 * in_team(i). The ages below 20 (the body's stretch) span several
 * leaves of AVET; those of the outer rows, a fifth of them. */
static bool in_team(int i) {
    return i % 8 == 1 && i < 240 && i % 100 < 20;
}

static void fill(MiniGrafDb *db) {
    static char tx[N * 96 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i++) {
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :group %d] [:p%d :age %d] ", i,
                                i % 8, i, i % 100);
        if (in_team(i))
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :team 1] ", i);
    }
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    len = (size_t)snprintf(tx, sizeof tx, "(retract [");
    for (int i = 1; i < N; i += 400)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i % 100);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_RETRACT(db, tx);
    len = (size_t)snprintf(tx, sizeof tx, "(transact {:valid-from \"2999-01-01T00:00:00Z\"} [");
    for (int i = 25; i < N; i += 400)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age 0] ", i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
}

typedef enum view { NOW, BEFORE_RETRACT, LATER } view;

/* Entity i's visible ages below 20 under `v`. */
static int young_ages(int i, view v) {
    int n = i % 100 < 20 && (v == BEFORE_RETRACT || i % 400 != 1);
    return n + (v == LATER && i % 400 == 25);
}

static const char *const view_clause[] = {
    [NOW] = "", [BEFORE_RETRACT] = ":as-of 1 ", [LATER] = ":valid-at \"2999-06-01T00:00:00Z\" "};

static int seen_calls;
static int seen(void *user_data, const minigraf_value *value, int *result, char *error,
                size_t error_size) {
    (void)user_data, (void)value, (void)error, (void)error_size;
    seen_calls++;
    *result = 1;
    return 0;
}

/* The count of `outer` entities with no young age under `v`, and the
 * predicate's calls it took. */
static void expect_kept(MiniGrafDb *db, const char *outer, view v, bool (*in)(int), int calls) {
    int kept = 0;
    for (int i = 0; i < N; i++)
        kept += in(i) && young_ages(i, v) == 0;
    char q[256], want[96];
    snprintf(q, sizeof q,
             "(query [:find (count ?e) %s:where %s (not [?e :age ?a] [(< ?a 20)] [(seen? ?a)])])",
             view_clause[v], outer);
    snprintf(want, sizeof want, "{\"variables\":[\"(count ?e)\"],\"results\":[[%d]]}", kept);
    seen_calls = 0;
    EXPECT_EXEC(db, q, want);
    CHECK_INT_EQ(seen_calls, calls);
}

static bool group_one(int i) {
    return i % 8 == 1;
}

/* Visible records of the stretch, every group's. */
static int stretch_records(view v) {
    int n = 0;
    for (int i = 0; i < N; i++)
        n += young_ages(i, v);
    return n;
}

/* The outer rows' visible records in the stretch. */
static int probed_records(bool (*in)(int), view v) {
    int n = 0;
    for (int i = 0; i < N; i++)
        n += in(i) ? young_ages(i, v) : 0;
    return n;
}

static MiniGrafDb *open_filled(temp_db_path *t) {
    temp_db_make(t);
    MiniGrafDb *db = minigraf_open(t->path);
    if (!db) {
        check_fail(__FILE__, __LINE__, "open");
        exit(1);
    }
    fill(db);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0); /* the child summaries settled */
    CHECK_INT_EQ(minigraf_register_predicate(db, "seen?", seen, NULL, NULL), 0);
    return db;
}

TEST(many_outer_rows_read_the_stretch_at_once) {
    temp_db_path t;
    MiniGrafDb *db = open_filled(&t);
    for (view v = NOW; v <= LATER; v++)
        expect_kept(db, "[?e :group 1]", v, group_one, stretch_records(v));
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(few_outer_rows_are_probed) {
    temp_db_path t;
    MiniGrafDb *db = open_filled(&t);
    for (view v = NOW; v <= LATER; v++)
        expect_kept(db, "[?e :team 1]", v, in_team, probed_records(in_team, v));
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(many_outer_rows_read_the_stretch_at_once),
           TEST_ENTRY(few_outer_rows_are_probed))
