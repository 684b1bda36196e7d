/* Joins, not bodies and or-branches probed once per outer row, the rows
 * coming in entity order: each probe's cursor seeks inside the leaf the
 * previous probe left it on while the entity lies in that leaf's range
 * (storage/btree.h), else from the root. 20,000 entities, so the probed
 * attribute spans dozens of leaves and the probes of one group (every
 * tenth entity) land several to a leaf; entities without the attribute,
 * with two values, and with the value retracted sit between them. Every
 * answer is checked against the model below, also inside a write
 * transaction whose staged facts change the pages between two queries. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#define N 20000
#define GROUP 3

static bool has_base_age(int i) {
    return i % 13 != 0 && i % 19 != 0; /* never given, or retracted */
}
static bool has_extra_age(int i) {
    return i % 17 == 0 && i % 90 != 3; /* a second value, 3 */
}
/* Whether entity i has a current :age below `limit`. */
static bool age_below(int i, int limit) {
    return (has_base_age(i) && i % 90 < limit) || (has_extra_age(i) && 3 < limit);
}
static bool age_is(int i, int a) {
    return (has_base_age(i) && i % 90 == a) || (has_extra_age(i) && a == 3);
}

static void run(MiniGrafDb *db, char *tx) {
    char *out = minigraf_execute(db, tx);
    CHECK(out != NULL);
    minigraf_string_free(out);
}

/* One command over the entities i (< N) for which `pick` holds. */
static void each(MiniGrafDb *db, const char *head, const char *fmt, bool (*pick)(int)) {
    static char tx[N * 64 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(%s [", head);
    for (int i = 0; i < N; i++)
        if (pick(i))
            len += (size_t)snprintf(tx + len, sizeof tx - len, fmt, i, i % 90);
    snprintf(tx + len, sizeof tx - len, "])");
    run(db, tx);
}

static bool ages_given(int i) {
    return i % 13 != 0;
}
static bool ages_retracted(int i) {
    return i % 13 != 0 && i % 19 == 0;
}
static bool extra(int i) {
    return has_extra_age(i);
}

static void fill(MiniGrafDb *db) {
    static char tx[N * 64 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :name \"n%d\"][:p%d :group %d]",
                                i, i, i, i % 10);
    snprintf(tx + len, sizeof tx - len, "])");
    run(db, tx);
    each(db, "transact", "[:p%d :age %d]", ages_given);
    each(db, "transact", "[:p%d :age 3]", extra); /* the second argument unused */
    each(db, "retract", "[:p%d :age %d]", ages_retracted);
}

/* The names of the group's entities, each rows(i, arg) times, as a
 * result text (EXPECT_EXEC sorts the rows; projection keeps duplicates). */
static char *name_rows(int (*rows)(int, int), int arg) {
    static char out[N * 24 + 64];
    size_t len = (size_t)snprintf(out, sizeof out, "{\"variables\":[\"?n\"],\"results\":[");
    bool first = true;
    for (int i = GROUP; i < N; i += 10)
        for (int r = rows(i, arg); r > 0; r--) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s[\"n%d\"]", first ? "" : ",",
                                    i);
            first = false;
        }
    snprintf(out + len, sizeof out - len, "]}");
    return out;
}

static bool (*keep_fn)(int, int);
static int kept_once(int i, int arg) {
    return keep_fn(i, arg) ? 1 : 0;
}
/* The names of the group's entities for which keep(i, arg) holds. */
static char *names(bool (*keep)(int, int), int arg) {
    keep_fn = keep;
    return name_rows(kept_once, arg);
}

static bool no_age_below(int i, int limit) {
    return !age_below(i, limit);
}
/* The rows of [?e :age ?a] [(< ?a limit)]: one per current value. */
static int ages_below(int i, int limit) {
    return (has_base_age(i) && i % 90 < limit) + (has_extra_age(i) && 3 < limit);
}
/* no current age in [4, 50) (arg unused) */
static bool no_age_from_4_to_50(int i, int arg) {
    (void)arg;
    for (int a = 4; a < 50; a++)
        if (age_is(i, a))
            return false;
    return true;
}
static bool no_age_3(int i, int arg) {
    (void)arg;
    return !age_is(i, 3);
}
/* ages 7 or 17 (arg unused) */
static bool age_7_or_17(int i, int arg) {
    (void)arg;
    return age_is(i, 7) || age_is(i, 17);
}

#define IN_GROUP "[:find ?n :where [?e :group 3] [?e :name ?n] "

static void check_queries(MiniGrafDb *db) {
    static const int limits[] = {0, 3, 4, 10, 50, 90};
    char q[256];
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        int l = limits[k];
        snprintf(q, sizeof q, "(query " IN_GROUP "(not [?e :age ?a] [(< ?a %d)])])", l);
        EXPECT_EXEC(db, q, names(no_age_below, l));
        snprintf(q, sizeof q, "(query " IN_GROUP "(not-join [?e] [?e :age ?a] [(< ?a %d)])])", l);
        EXPECT_EXEC(db, q, names(no_age_below, l));
        snprintf(q, sizeof q,
                 "(query [:find ?n :where [?e :group 3] [?e :age ?a] [(< ?a %d)] "
                 "[?e :name ?n]])",
                 l);
        EXPECT_EXEC(db, q, name_rows(ages_below, l));
    }
    EXPECT_EXEC(db, "(query " IN_GROUP "(or [?e :age 7] [?e :age 17])])", names(age_7_or_17, 0));
    /* bodies of a pattern and several filters, one binding a variable */
    EXPECT_EXEC(db, "(query " IN_GROUP "(not [?e :age ?a] [(+ ?a 1) ?b] [(< ?b 5)])])",
                names(no_age_below, 4));
    EXPECT_EXEC(db, "(query " IN_GROUP "(not [?e :age ?a] [(< ?a 50)] [(>= ?a 4)])])",
                names(no_age_from_4_to_50, 0));
    EXPECT_EXEC(db, "(query " IN_GROUP "(not-join [?e] [?e :age ?a] [(* ?a 2) ?d] [(= ?d 6)])])",
                names(no_age_3, 0));
}

TEST(probes_in_entity_order_match_the_model) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    check_queries(db);
    minigraf_close(db);
}

TEST(probes_in_a_file_match_the_model) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"synchronous\": \"normal\"}", NULL);
    REQUIRE(db != NULL);
    fill(db);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    check_queries(db);
    minigraf_close(db);
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", NULL);
    REQUIRE(db != NULL);
    check_queries(db);
    minigraf_close(db);
    temp_db_remove(&t);
}

static int staged_limit; /* entities of the group below it lost their ages */
static bool staged_no_age_below(int i, int limit) {
    return i < staged_limit || !age_below(i, limit);
}

/* Staged retractions change the leaves a probe's cursor read in the
 * query before: the next query must see them. */
TEST(probes_after_staged_writes_see_them) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    MiniGrafTx *tx = minigraf_begin_write(db);
    REQUIRE(tx != NULL);
    const char *q = "(query " IN_GROUP "(not [?e :age ?a] [(< ?a 50)])])";
    staged_limit = 0;
    EXPECT_TX_EXEC(tx, q, names(staged_no_age_below, 50));
    static const int steps[] = {400, 4000, 12000};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        static char cmd[65536];
        size_t len = (size_t)snprintf(cmd, sizeof cmd, "(retract [");
        for (int i = staged_limit + GROUP - staged_limit % 10; i < steps[k]; i += 10) {
            if (has_base_age(i) && len + 64 < sizeof cmd)
                len += (size_t)snprintf(cmd + len, sizeof cmd - len, "[:p%d :age %d]", i, i % 90);
            if (has_extra_age(i) && len + 64 < sizeof cmd)
                len += (size_t)snprintf(cmd + len, sizeof cmd - len, "[:p%d :age 3]", i);
        }
        snprintf(cmd + len, sizeof cmd - len, "])");
        REQUIRE(len + 64 < sizeof cmd);
        char *out = minigraf_tx_execute(tx, cmd);
        REQUIRE(out != NULL);
        minigraf_string_free(out);
        staged_limit = steps[k];
        EXPECT_TX_EXEC(tx, q, names(staged_no_age_below, 50));
    }
    CHECK(minigraf_tx_rollback(tx) == 0);
    minigraf_tx_free(tx);
    EXPECT_EXEC(db, q, names(no_age_below, 50));
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(probes_in_entity_order_match_the_model),
           TEST_ENTRY(probes_in_a_file_match_the_model),
           TEST_ENTRY(probes_after_staged_writes_see_them))
