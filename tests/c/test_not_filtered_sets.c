/* A not body of one pattern and filters on its value read once as a set
 * (exec/sub_set.h, exec/sub_range.h): the filters' comparisons select
 * stretches of AVET (integers within bounds, floats and strings checked
 * record by record), and once enough outer rows have come every later row
 * is a hash lookup. The answers must be the seeks': integers, floats and
 * strings under one attribute (language.md §6.5 O1: a comparison of a
 * string with a number fails, dropping that body row), bounds from either
 * side, filters the stretches do not decide, retractions, valid time, a
 * small outer side (probed) beside a large one (the set), not-join, an
 * or-branch holding only a not, and a rule body. */
#include <stdbool.h>
#include <stdio.h>

#include "support.h"

#define OK "{\"ok\":true}"

#define N 3000

/* Entity i's :age: an integer (i % 97) when i % 4 is 0 or 3 (retracted
 * when i % 40 == 3), i % 97 + 0.5 when 1, a string when 2; from 2999 on,
 * entities with i % 40 == 7 also have the age 1. */
typedef struct age {
    bool number;
    double v;
} age;

static age age_of(int i) {
    if (i % 4 == 2 || i % 40 == 3)
        return (age){false, 0};
    return (age){true, (i % 97) + (i % 4 == 1 ? 0.5 : 0.0)};
}

static void fill(MiniGrafDb *db) {
    static char tx[N * 96 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i++) {
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :name \"n%d\"] [:p%d :group %d] ",
                                i, i, i, i % 3);
        if (i % 4 == 1)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d.5] ", i, i % 97);
        else if (i % 4 == 2)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age \"a%d\"] ", i, i);
        else
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i % 97);
    }
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    len = (size_t)snprintf(tx, sizeof tx, "(retract [");
    for (int i = 3; i < N; i += 40)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i % 97);
    snprintf(tx + len, sizeof tx - len, "])");
    char *out = minigraf_execute(db, tx);
    CHECK(out != NULL);
    minigraf_string_free(out);
    len = (size_t)snprintf(tx, sizeof tx, "(transact {:valid-from \"2999-01-01T00:00:00Z\"} [");
    for (int i = 7; i < N; i += 40)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age 1] ", i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
}

/* The names of group 1 (or of entity `only`, when >= 0) whose visible
 * ages all fail `body` (the not removes the others). */
static char *names(bool (*body)(int i, bool later), bool later, int only) {
    static char out[N * 16 + 64];
    size_t len = (size_t)snprintf(out, sizeof out, "{\"variables\":[\"?n\"],\"results\":[");
    bool first = true;
    for (int i = 1; i < N; i += 3)
        if ((only < 0 || i == only) && !body(i, later)) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s[\"n%d\"]", first ? "" : ",",
                                    i);
            first = false;
        }
    snprintf(out + len, sizeof out - len, "]}");
    return out;
}

static bool later_one(int i, bool later) {
    return later && i % 40 == 7;
}
static bool below_ten(int i, bool later) {
    age a = age_of(i);
    return (a.number && a.v < 10) || later_one(i, later);
}
static bool ten_to_twenty_and_a_half(int i, bool later) {
    age a = age_of(i);
    (void)later;
    return a.number && a.v >= 10 && a.v < 20.5;
}
static bool above_fifty(int i, bool later) {
    age a = age_of(i);
    (void)later;
    return a.number && 50 < a.v;
}
static bool string_below_b(int i, bool later) {
    (void)later;
    return i % 4 == 2;
}
static bool below_ten_not_three(int i, bool later) {
    age a = age_of(i);
    return (a.number && a.v < 10 && a.v != 3) || later_one(i, later);
}
static bool below_ten_or_tagged(int i, bool later) {
    return below_ten(i, later) || i % 7 == 0;
}

#define GROUP_ONE "(query [:find ?n :where [?e :group 1] [?e :name ?n] "

TEST(comparisons_select_the_same_rows_as_the_seeks) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< ?a 10)])])", names(below_ten, false, -1));
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(>= ?a 10)] [(< ?a 20.5)])])",
                names(ten_to_twenty_and_a_half, false, -1));
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< 50 ?a)])])", names(above_fifty, false, -1));
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< ?a \"b\")])])",
                names(string_below_b, false, -1));
    /* a filter the stretches do not decide: checked on every record */
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< ?a 10)] [(!= ?a 3)])])",
                names(below_ten_not_three, false, -1));
    /* a comparison with a boolean always fails: nothing is removed */
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< ?a true)])])", names(later_one, false, -1));
    EXPECT_EXEC(db, GROUP_ONE "(not-join [?e] [?e :age ?a] [(< ?a 10)])])",
                names(below_ten, false, -1));
    minigraf_close(db);
}

TEST(valid_time_and_retractions_decide_membership) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db,
                "(query [:find ?n :valid-at \"2999-06-01T00:00:00Z\" :where [?e :group 1] "
                "[?e :name ?n] (not [?e :age ?a] [(< ?a 10)])])",
                names(below_ten, true, -1));
    minigraf_close(db);
}

/* One outer row is probed (the set is not worth reading for it); the
 * answer for that entity is the one the set gives among many rows. */
TEST(a_small_outer_side_is_probed_alike) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    for (int i = 1; i < 40; i += 3) {
        char q[160];
        snprintf(q, sizeof q,
                 "(query [:find ?n :where [?e :name \"n%d\"] [?e :group 1] [?e :name ?n] "
                 "(not [?e :age ?a] [(< ?a 10)])])",
                 i);
        EXPECT_EXEC(db, q, names(below_ten, false, i));
    }
    minigraf_close(db);
}

TEST(or_branch_and_rule_bodies) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    static char tx[N * 24 + 32];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i += 7)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :tag :x] ", i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    EXPECT_EXEC(db, GROUP_ONE "(not [?e :age ?a] [(< ?a 10)]) (not [?e :tag :x])])",
                names(below_ten_or_tagged, false, -1));
    EXPECT_EXEC(db, GROUP_ONE "(or-join [?e] (not [?e :age ?a] [(< ?a 10)]) [?e :nothing 1])])",
                names(below_ten, false, -1));
    EXPECT_EXEC(db, "(rule [(young ?e) [?e :group 1] (not [?e :age ?a] [(< ?a 10)])])", OK);
    EXPECT_EXEC(db, "(query [:find ?n :where (young ?e) [?e :name ?n]])",
                names(below_ten, false, -1));
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(comparisons_select_the_same_rows_as_the_seeks),
           TEST_ENTRY(valid_time_and_retractions_decide_membership),
           TEST_ENTRY(a_small_outer_side_is_probed_alike), TEST_ENTRY(or_branch_and_rule_bodies))
