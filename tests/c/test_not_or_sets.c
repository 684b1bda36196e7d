/* A one-pattern not body or or-branch read once as a set of entities
 * (exec/sub_set.h): once enough outer rows have come, every later row is
 * a hash lookup instead of a seek. The answers must be the ones the seeks
 * give: visibility (retractions, valid time), E2 entity matching of a
 * keyword, `_` and variables of the body's own, or-join, and a set that
 * does not fit the query's memory limit. 3,000 entities, 1,000 outer rows
 * per query, bodies of a few hundred records: the set is read after a few
 * dozen probes. */
#include <stdbool.h>
#include <stdio.h>

#include "support.h"

#define N 3000

static bool flag_true(int i) {
    return i % 5 == 0 && i % 50 != 0;
} /* 50s retracted */
static bool flag_true_later(int i) {
    return flag_true(i) || (i % 5 == 2 && i % 4 == 0);
}
static bool has_flag(int i) {
    return flag_true(i) || i % 5 == 1;
} /* or :flag false */
static bool tag_x(int i) {
    return i % 7 == 0;
}

static bool not_flag_true(int i) {
    return !flag_true(i);
}
static bool not_flag_true_later(int i) {
    return !flag_true_later(i);
}
static bool no_flag(int i) {
    return !has_flag(i);
}
static bool flag_or_tag(int i) {
    return flag_true(i) || tag_x(i);
}
static bool any(int i) {
    (void)i;
    return true;
}

static void add(MiniGrafDb *db, const char *head, const char *fmt, int (*pick)(int)) {
    static char tx[N * 48 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(%s [", head);
    for (int i = 0; i < N; i++)
        if (pick(i))
            len += (size_t)snprintf(tx + len, sizeof tx - len, fmt, i, i);
    snprintf(tx + len, sizeof tx - len, "])");
    char *out = minigraf_execute(db, tx);
    CHECK(out != NULL);
    minigraf_string_free(out);
}

static int all(int i) {
    (void)i;
    return 1;
}
static int fives(int i) {
    return i % 5 == 0;
}
static int fives_plus_one(int i) {
    return i % 5 == 1;
}
static int fiftieths(int i) {
    return i % 50 == 0;
}
static int sevenths(int i) {
    return i % 7 == 0;
}
static int later(int i) {
    return i % 5 == 2 && i % 4 == 0;
}
static int group_one(int i) {
    return i % 3 == 1;
}

static void fill(MiniGrafDb *db) {
    add(db, "transact", "[:p%d :name \"n%d\"] ", all);
    static char tx[N * 24 + 32];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :group %d] ", i, i % 3);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    add(db, "transact", "[:p%d :flag true]", fives);
    add(db, "transact", "[:p%d :flag false]", fives_plus_one);
    add(db, "transact", "[:p%d :tag :x]", sevenths);
    add(db, "retract", "[:p%d :flag true]", fiftieths);
    add(db, "transact {:valid-from \"2999-01-01T00:00:00Z\"}", "[:p%d :flag true]", later);
    add(db, "transact", "[:hub :knows :p%d]", group_one);
}

/* The names of group 1 for which `keep` holds, as a result text. */
static char *names(bool (*keep)(int)) {
    static char out[N * 16 + 64];
    size_t len = (size_t)snprintf(out, sizeof out, "{\"variables\":[\"?n\"],\"results\":[");
    bool first = true;
    for (int i = 1; i < N; i += 3)
        if (keep(i)) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s[\"n%d\"]", first ? "" : ",",
                                    i);
            first = false;
        }
    snprintf(out + len, sizeof out - len, "]}");
    return out;
}

#define GROUP_ONE "[:find ?n :where [?e :group 1] [?e :name ?n] "

TEST(not_over_many_rows_matches_the_seeks) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db, "(query " GROUP_ONE "(not [?e :flag true])])", names(not_flag_true));
    EXPECT_EXEC(db, "(query " GROUP_ONE "(not [?e :flag _])])", names(no_flag));
    EXPECT_EXEC(db, "(query " GROUP_ONE "(not [?e :flag ?f])])", names(no_flag));
    EXPECT_EXEC(db, "(query " GROUP_ONE "(not-join [?e] [?e :flag true])])", names(not_flag_true));
    minigraf_close(db);
}

TEST(valid_time_and_retractions_decide_membership) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(
        db,
        "(query [:find ?n :valid-at \"2999-06-01T00:00:00Z\" :where [?e :group 1] [?e :name ?n] "
        "(not [?e :flag true])])",
        names(not_flag_true_later));
    minigraf_close(db);
}

TEST(or_branches_over_many_rows_match_the_seeks) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db, "(query " GROUP_ONE "(or [?e :flag true] [?e :tag :x])])", names(flag_or_tag));
    EXPECT_EXEC(db, "(query " GROUP_ONE "(or-join [?e] [?e :flag true] [?e :tag :x])])",
                names(flag_or_tag));
    /* a branch of two clauses is probed, the other read as a set */
    EXPECT_EXEC(db, "(query " GROUP_ONE "(or (and [?e :flag true] [?e :name _]) [?e :tag :x])])",
                names(flag_or_tag));
    minigraf_close(db);
}

/* ?k holds keywords (:p1, :p4, ...): they name the entities (E2). */
TEST(a_keyword_names_its_entity_in_the_set) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db,
                "(query [:find ?n :where [:hub :knows ?k] [?k :name ?n] (not [?k :flag true])])",
                names(not_flag_true));
    EXPECT_EXEC(db,
                "(query [:find ?n :where [:hub :knows ?k] [?k :name ?n] (or [?k :flag true] [?k "
                ":tag :x])])",
                names(flag_or_tag));
    minigraf_close(db);
}

/* A set that would leave less than itself of the query's memory limit
 * (3,000 entities: a table of 64 KiB) is not read: the rows are probed
 * and the answer is the same (at 150,000 bytes the seeks fit, the set
 * does not; at 100,000 the query fails with QRY-012 either way). */
TEST(a_set_past_the_memory_limit_falls_back_to_seeks) {
    const char *q = "(query " GROUP_ONE "(or-join [?e] [?e :group _] [?e :nothing 1])])";
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 150000}", NULL);
    REQUIRE(db != NULL);
    fill(db);
    EXPECT_EXEC(db, q, names(any));
    EXPECT_EXEC(db, "(query " GROUP_ONE "(not [?e :name _])])",
                "{\"variables\":[\"?n\"],\"results\":[]}");
    minigraf_close(db);
    db = open_memory_db();
    fill(db);
    EXPECT_EXEC(db, q, names(any));
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(not_over_many_rows_matches_the_seeks),
           TEST_ENTRY(valid_time_and_retractions_decide_membership),
           TEST_ENTRY(or_branches_over_many_rows_match_the_seeks),
           TEST_ENTRY(a_keyword_names_its_entity_in_the_set),
           TEST_ENTRY(a_set_past_the_memory_limit_falls_back_to_seeks))
