/* A prepared statement keeps its :where's plan and operators from one run
 * to the next and re-opens them with the values bound then (db/prepared.h,
 * exec/query_keep.h). Every test here runs a statement many times, with
 * new values, new data, a new snapshot or another run in flight between
 * runs, and compares each answer with the same query written as text,
 * made unique by a trailing comment so that it plans anew every time (a
 * text run again keeps its plan too, db/query_cache.h). */
#include <pthread.h>

#include "support.h"

/* 60 entities :p0..:p59 with :age i, :name "n<i>" and :group (i mod 3). */
static MiniGrafDb *ages(void) {
    MiniGrafDb *db = open_memory_db();
    char tx[8192];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len,
                                "[:p%d :age %d] [:p%d :name \"n%d\"] [:p%d :group %d] ", i, i, i, i,
                                i, i % 3);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    return db;
}

/* The UUID text of entity :p<i>. */
static void uuid_of(MiniGrafDb *db, int i, char out[37]) {
    char q[200];
    snprintf(q, sizeof q, "(query [:find ?e :where [?e :name \"n%d\"]])", i);
    char *r = EXEC(db, q);
    const char *p = r ? strstr(r, "[[\"") : NULL;
    out[0] = '\0';
    if (p)
        snprintf(out, 37, "%s", p + 3);
    minigraf_string_free(r);
}

/* The text's answer planned afresh: a text seen once is not kept. */
static char *exec_fresh(MiniGrafDb *db, const char *text) {
    static int unique;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s ; fresh %d", text, unique++);
    return EXEC(db, buf);
}

/* The rows of the text's answer (minigraf_execute), sorted; NULL on error. */
static char *text_rows_sorted(MiniGrafDb *db, const char *text) {
    char *r = exec_fresh(db, text);
    const char *res = r ? strstr(r, "\"results\":") : NULL;
    char *rows = res ? json_sorted_array(res + strlen("\"results\":"), NULL) : NULL;
    minigraf_string_free(r);
    return rows;
}

/* The statement's answer as a cursor drained in batches of `batch`, rows
 * sorted, against the text's through minigraf_execute. */
static void expect_same_at(int line, MiniGrafDb *db, MiniGrafStmt *s, const char *text,
                           size_t batch) {
    MiniGrafCursor *c = minigraf_stmt_query(s);
    if (!c) {
        check_fail_str(__FILE__, line, text, minigraf_stmt_last_error(s), "a cursor");
        return;
    }
    char *rows = drain_cursor(c, batch);
    minigraf_cursor_free(c);
    char *got_rows = rows ? json_sorted_array(rows, NULL) : NULL;
    char *want_rows = text_rows_sorted(db, text);
    if (!got_rows || !want_rows || strcmp(got_rows, want_rows) != 0)
        check_fail_str(__FILE__, line, text, got_rows ? got_rows : "(none)",
                       want_rows ? want_rows : "(none)");
    free(got_rows);
    free(want_rows);
    free(rows);
    /* minigraf_stmt_execute runs the same kept plan */
    char *all = minigraf_stmt_execute(s);
    char *plain = exec_fresh(db, text);
    char *a = all ? canonical_result(all) : NULL, *p = plain ? canonical_result(plain) : NULL;
    if (!a || !p || strcmp(a, p) != 0)
        check_fail_str(__FILE__, line, text, all ? all : minigraf_stmt_last_error(s), plain);
    free(a);
    free(p);
    minigraf_string_free(all);
    minigraf_string_free(plain);
}
#define EXPECT_SAME(db, s, text, batch) expect_same_at(__LINE__, (db), (s), (text), (batch))

/* A point query bound to a new entity each run: the kept scan seeks the
 * entity bound now, not the first one. */
TEST(entity_rebound_every_run) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [$e :age ?a]])");
    REQUIRE(s);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 60; i += 7) {
            char kw[16], uuid[37], text[160];
            snprintf(kw, sizeof kw, ":p%d", i);
            uuid_of(db, i, uuid);
            CHECK_INT_EQ(minigraf_stmt_bind_entity(s, "e", uuid), 0);
            snprintf(text, sizeof text, "(query [:find ?a :where [%s :age ?a]])", kw);
            EXPECT_SAME(db, s, text, 10);
        }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* One entity bound run after run on a file database while its :age
 * changes between runs, other entities are written into the same pages
 * and checkpoints let pages be reused: an idle reader keeps its cursor
 * and the leaf's memo of its last seek (btree.c) only for the snapshot
 * they were read on, so each run sees the value written last. */
TEST(same_entity_every_run_across_writes_and_checkpoints) {
    temp_db_path t;
    temp_db_make_in_memory_fs(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db);
    char tx[8192];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [$e :age ?a]])");
    REQUIRE(s);
    char uuid[37];
    char *r = EXEC(db, "(query [:find ?e :where [?e :age 150]])");
    const char *p = r ? strstr(r, "[[\"") : NULL;
    REQUIRE(p);
    snprintf(uuid, sizeof uuid, "%s", p + 3);
    minigraf_string_free(r);
    const char *text = "(query [:find ?a :where [:p150 :age ?a]])";
    int age = 150;
    for (int round = 0; round < 40; round++) {
        CHECK_INT_EQ(minigraf_stmt_bind_entity(s, "e", uuid), 0);
        EXPECT_SAME(db, s, text, 4);
        EXPECT_SAME(db, s, text, 4); /* the same snapshot twice */
        char want[32];
        snprintf(want, sizeof want, "[[%d]]", age);
        MiniGrafCursor *c = minigraf_stmt_query(s);
        REQUIRE(c);
        char *rows = drain_cursor(c, 4);
        CHECK_STR_EQ(rows, want);
        free(rows);
        minigraf_cursor_free(c);
        len = (size_t)snprintf(tx, sizeof tx, "(transact [[:p150 :age %d] ", 1000 + round);
        for (int i = 0; i < 20; i++) /* new entities around :p150's records */
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:q%d_%d :age %d] ", round, i,
                                    150 + i);
        snprintf(tx + len, sizeof tx - len, "])");
        EXPECT_TRANSACT(db, tx);
        snprintf(tx, sizeof tx, "(retract [[:p150 :age %d]])", age);
        EXPECT_RETRACT(db, tx);
        age = 1000 + round;
        if (round % 4 == 3)
            CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* Two patterns and a filter, the filter's constant rebound: the kept
 * filter reads the value bound now. */
TEST(filter_constant_rebound_every_run) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(
        db, "(query [:find ?n :where [?e :group $g] [?e :age ?a] [(>= ?a $min)] [?e :name ?n]])");
    REQUIRE(s);
    for (int i = 0; i < 12; i++) {
        int g = i % 3, min = (i * 11) % 61;
        char text[200];
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", g), 0);
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "min", min), 0);
        snprintf(text, sizeof text,
                 "(query [:find ?n :where [?e :group %d] [?e :age ?a] [(>= ?a %d)] [?e :name ?n]])",
                 g, min);
        EXPECT_SAME(db, s, text, 4);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* Writes between runs: each run reads a new snapshot. */
TEST(writes_between_runs_are_seen) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db,
                                       "(query [:find ?e ?a :where [?e :group $g] [?e :age ?a]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 1), 0);
    const char *text = "(query [:find ?e ?a :where [?e :group 1] [?e :age ?a]])";
    EXPECT_SAME(db, s, text, 64);
    EXPECT_TRANSACT(db, "(transact [[:q1 :group 1] [:q1 :age 100] [:p1 :age 101]])");
    EXPECT_SAME(db, s, text, 64);
    EXPECT_RETRACT(db, "(retract [[:p4 :group 1]])");
    EXPECT_SAME(db, s, text, 64);
    minigraf_checkpoint(db);
    EXPECT_SAME(db, s, text, 64);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* A run stopped after its first row (the cursor freed mid-stream), then
 * runs with other values: nothing of the stopped run is left over. */
TEST(run_stopped_early_then_rerun) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db,
                                       "(query [:find ?e ?a :where [?e :age ?a] [(>= ?a $min)]])");
    REQUIRE(s);
    for (int i = 0; i < 5; i++) {
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "min", i), 0);
        MiniGrafCursor *c = minigraf_stmt_query(s);
        REQUIRE(c);
        char *b = minigraf_cursor_next_batch(c, 1);
        CHECK(b != NULL);
        minigraf_string_free(b);
        minigraf_cursor_free(c);
    }
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "min", 50), 0);
    EXPECT_SAME(db, s, "(query [:find ?e ?a :where [?e :age ?a] [(>= ?a 50)]])", 3);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* A second run while the first one's cursor still streams goes without
 * the kept plan; both answers are right, and so are the runs after. */
TEST(two_cursors_of_one_statement) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [?e :group $g] [?e :age ?a]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 0), 0);
    MiniGrafCursor *c1 = minigraf_stmt_query(s);
    REQUIRE(c1);
    char *first = minigraf_cursor_next_batch(c1, 1);
    CHECK_STR_EQ(first, "[[0]]");
    minigraf_string_free(first);
    MiniGrafCursor *c2 = minigraf_stmt_query(s); /* same values, c1 holds the plan */
    REQUIRE(c2);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 2), 0);
    EXPECT_SAME(db, s, "(query [:find ?a :where [?e :group 2] [?e :age ?a]])", 5);
    char *rest1 = drain_cursor(c1, 7), *all2 = drain_cursor(c2, 64);
    minigraf_cursor_free(c1);
    minigraf_cursor_free(c2);
    char *s2 = all2 ? json_sorted_array(all2, NULL) : NULL;
    char *want_rows = text_rows_sorted(db, "(query [:find ?a :where [?e :group 0] [?e :age ?a]])");
    CHECK_STR_EQ(s2, want_rows);
    CHECK(rest1 && strlen(rest1) > 2);
    free(rest1);
    free(all2);
    free(s2);
    free(want_rows);
    EXPECT_SAME(db, s, "(query [:find ?a :where [?e :group 2] [?e :age ?a]])", 5);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* One value slot bound to values of every type in turn (a type can change
 * the index a pattern reads: the statement plans again). */
TEST(value_type_changes_between_runs) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :v 1] [:b :v \"1\"] [:c :v :k] [:d :v 1.5] [:e :v true]"
                        " [:f :v :a] [:g :v 2]])");
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?e :where [?e :v $v]])");
    REQUIRE(s);
    for (int round = 0; round < 2; round++) {
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "v", 1), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v 1]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_string(s, "v", "1", 1), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v \"1\"]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_keyword(s, "v", ":k"), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v :k]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_double(s, "v", 1.5), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v 1.5]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_bool(s, "v", 1), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v true]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_keyword(s, "v", ":a"), 0); /* also the ref of :a */
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v :a]])", 8);
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "v", 2), 0);
        EXPECT_SAME(db, s, "(query [:find ?e :where [?e :v 2]])", 8);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* :as-of and :valid-at slots rebound: each run reads the time it is given. */
TEST(time_slots_rebound_every_run) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :n 1]])");
    EXPECT_TRANSACT(db, "(transact [[:x :n 2]])");
    EXPECT_TRANSACT(db,
                    "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-01\"} [[:x :n 3]])");
    MiniGrafStmt *s = minigraf_prepare(
        db, "(query [:find ?v :as-of $t :valid-at $at :where [:x :n ?v]])");
    REQUIRE(s);
    for (int round = 0; round < 4; round++) /* the same kinds for three runs, then others */
        for (uint64_t t = 1; t <= 3; t++) {
            char text[200];
            CHECK_INT_EQ(minigraf_stmt_bind_tx_count(s, "t", t), 0);
            if (round % 2 == 0) {
                CHECK_INT_EQ(minigraf_stmt_bind_any_valid_time(s, "at"), 0);
                snprintf(text, sizeof text,
                         "(query [:find ?v :as-of %llu :any-valid-time :where [:x :n ?v]])",
                         (unsigned long long)t);
            } else {
                CHECK_INT_EQ(minigraf_stmt_bind_timestamp_ms(s, "at", 1675209600000),
                             0); /* 2023-02-01 */
                snprintf(
                    text, sizeof text,
                    "(query [:find ?v :as-of %llu :valid-at \"2023-02-01\" :where [:x :n ?v]])",
                    (unsigned long long)t);
            }
            EXPECT_SAME(db, s, text, 8);
        }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* Planned on an empty database, run after it grew: the statement plans
 * again for the new size, and answers alike before and after. */
TEST(plan_made_on_an_empty_database) {
    MiniGrafDb *db = open_memory_db();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?n :where [?e :age $a] [?e :name ?n]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "a", 7), 0);
    EXPECT_SAME(db, s, "(query [:find ?n :where [?e :age 7] [?e :name ?n]])", 8);
    minigraf_close(db);
    db = ages();
    MiniGrafStmt *t = minigraf_prepare(db, "(query [:find ?n :where [?e :age $a] [?e :name ?n]])");
    REQUIRE(t);
    minigraf_stmt_free(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(t, "a", 7), 0);
    EXPECT_SAME(db, t, "(query [:find ?n :where [?e :age 7] [?e :name ?n]])", 8);
    EXPECT_TRANSACT(db, "(transact [[:z :age 7] [:z :name \"z\"]])");
    for (int i = 0; i < 200; i++) { /* grows far past the planned size */
        char tx[120];
        snprintf(tx, sizeof tx, "(transact [[:g%d :age %d] [:g%d :name \"g\"]])", i, 7 + i % 2, i);
        EXPECT_TRANSACT(db, tx);
    }
    EXPECT_SAME(db, t, "(query [:find ?n :where [?e :age 7] [?e :name ?n]])", 8);
    minigraf_stmt_free(t);
    minigraf_close(db);
}

/* True for the integer *user_data points to. */
static int equals_user_value(void *user_data, const minigraf_value *v, int *result, char *error,
                             size_t size) {
    (void)error, (void)size;
    *result = v->type == MINIGRAF_TYPE_INTEGER && v->integer == *(const int *)user_data;
    return 0;
}

/* A host predicate replaced between runs: the next run calls the new one
 * (a where that calls host functions is not kept). */
TEST(host_predicate_replaced_between_runs) {
    MiniGrafDb *db = ages();
    static const int ten = 10, twenty = 20;
    CHECK_INT_EQ(minigraf_register_predicate(db, "pick?", equals_user_value, (void *)&ten, NULL),
                 0);
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?n :where [?e :group $g] [?e :age ?a] "
                                           "[(pick? ?a)] [?e :name ?n]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 1), 0);
    char *r = minigraf_stmt_execute(s);
    CHECK_STR_EQ(r, "{\"variables\":[\"?n\"],\"results\":[[\"n10\"]]}");
    minigraf_string_free(r);
    CHECK_INT_EQ(minigraf_register_predicate(db, "pick?", NULL, NULL, NULL), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "other?", equals_user_value, (void *)&ten, NULL),
                 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "pick?", equals_user_value, (void *)&twenty, NULL),
                 0);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 2), 0);
    MiniGrafCursor *c = minigraf_stmt_query(s);
    REQUIRE(c);
    char *rows = drain_cursor(c, 4);
    CHECK_STR_EQ(rows, "[[\"n20\"]]");
    free(rows);
    minigraf_cursor_free(c);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* A file database written and checkpointed by a second handle between
 * runs (one shared store): every run reads the latest state. */
TEST(file_database_changed_by_another_handle) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db);
    EXPECT_TRANSACT(db, "(transact [[:a :age 1] [:b :age 2]])");
    MiniGrafDb *other = minigraf_open(t.path);
    REQUIRE(other);
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?e :where [?e :age $a]])");
    REQUIRE(s);
    for (int i = 0; i < 6; i++) {
        char text[100], tx[100];
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "a", 1 + i % 2), 0);
        snprintf(text, sizeof text, "(query [:find ?e :where [?e :age %d]])", 1 + i % 2);
        EXPECT_SAME(db, s, text, 8);
        snprintf(tx, sizeof tx, "(transact [[:n%d :age %d]])", i, 1 + i % 2);
        EXPECT_TRANSACT(other, tx);
        if (i == 3)
            CHECK_INT_EQ(minigraf_checkpoint(other), 0);
        EXPECT_SAME(db, s, text, 8);
    }
    minigraf_stmt_free(s);
    minigraf_close(other);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* A streaming cursor of the statement detached by a write (read into
 * memory), then freed after the next run began. */
TEST(cursor_detached_by_a_write) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [?e :group $g] [?e :age ?a]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 1), 0);
    MiniGrafCursor *c = minigraf_stmt_query(s);
    REQUIRE(c);
    char *b = minigraf_cursor_next_batch(c, 2);
    CHECK_STR_EQ(b, "[[1],[4]]");
    minigraf_string_free(b);
    EXPECT_TRANSACT(db, "(transact [[:w :group 1] [:w :age 1000]])"); /* detaches c */
    EXPECT_SAME(db, s, "(query [:find ?a :where [?e :group 1] [?e :age ?a]])", 3);
    char *rest = drain_cursor(c, 100);
    CHECK(rest && strstr(rest, "1000") == NULL && strstr(rest, "58") != NULL);
    free(rest);
    minigraf_cursor_free(c);
    EXPECT_SAME(db, s, "(query [:find ?a :where [?e :group 1] [?e :age ?a]])", 3);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

typedef struct drainer {
    MiniGrafCursor *c;
    char *rows;
} drainer;

static void *drain_and_free(void *arg) {
    drainer *d = arg;
    d->rows = drain_cursor(d->c, 3);
    minigraf_cursor_free(d->c);
    return NULL;
}

/* Cursors drained and freed on another thread while the statement runs
 * again on this one: each run takes the kept plan when no cursor holds
 * it, and goes without it when one does. */
TEST(cursors_freed_on_another_thread) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [?e :group $g] [?e :age ?a]])");
    REQUIRE(s);
    const char *want[3] = {"(query [:find ?a :where [?e :group 0] [?e :age ?a]])",
                           "(query [:find ?a :where [?e :group 1] [?e :age ?a]])",
                           "(query [:find ?a :where [?e :group 2] [?e :age ?a]])"};
    for (int i = 0; i < 30; i++) {
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", i % 3), 0);
        drainer d = {minigraf_stmt_query(s), NULL};
        REQUIRE(d.c);
        pthread_t t;
        pthread_create(&t, NULL, drain_and_free, &d);
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", (i + 1) % 3), 0);
        EXPECT_SAME(db, s, want[(i + 1) % 3], 5);
        pthread_join(t, NULL);
        char *got = d.rows ? json_sorted_array(d.rows, NULL) : NULL;
        char *rows = text_rows_sorted(db, want[i % 3]);
        CHECK_STR_EQ(got, rows);
        free(got);
        free(rows);
        free(d.rows);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* An attribute no fact had when the statement was planned: each run
 * resolves it anew, so the facts written later are found. */
TEST(attribute_written_after_the_plan) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(
        db, "(query [:find ?e ?c :where [?e :group $g] [?e :color ?c]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", 1), 0);
    const char *text = "(query [:find ?e ?c :where [?e :group 1] [?e :color ?c]])";
    EXPECT_SAME(db, s, text, 8);
    EXPECT_TRANSACT(db,
                    "(transact [[:p1 :color \"red\"] [:p4 :color \"blue\"] [:p5 :color \"x\"]])");
    EXPECT_SAME(db, s, text, 8);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* An entity bound before it is stored: absent run after run (the
 * reader's memo of its last entity holds the absence for that snapshot
 * only), then found once written, then found again. */
TEST(entity_written_after_the_plan) {
    MiniGrafDb *scratch = open_memory_db();
    EXPECT_TRANSACT(scratch, "(transact [[:newbie :x 1]])");
    char *r = EXEC(scratch, "(query [:find ?e :where [?e :x 1]])");
    const char *p = r ? strstr(r, "[[\"") : NULL;
    REQUIRE(p);
    char uuid[37];
    snprintf(uuid, sizeof uuid, "%s", p + 3);
    minigraf_string_free(r);
    minigraf_close(scratch);
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db, "(query [:find ?a :where [$e :age ?a]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_entity(s, "e", uuid), 0);
    const char *text = "(query [:find ?a :where [:newbie :age ?a]])";
    EXPECT_SAME(db, s, text, 8);
    EXPECT_SAME(db, s, text, 8);
    EXPECT_TRANSACT(db, "(transact [[:newbie :age 7]])");
    for (int i = 0; i < 2; i++) {
        MiniGrafCursor *c = minigraf_stmt_query(s);
        REQUIRE(c);
        char *rows = drain_cursor(c, 8);
        CHECK_STR_EQ(rows, "[[7]]");
        free(rows);
        minigraf_cursor_free(c);
    }
    EXPECT_SAME(db, s, text, 8);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

static int stop_now(void *user_data) {
    (void)user_data;
    return 1;
}

/* A kept run stopped by the progress handler fails with API-013, and the
 * statement runs whole once the handler is gone. */
TEST(kept_run_stopped_by_the_progress_handler) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(db,
                                       "(query [:find ?e ?a :where [?e :age ?a] [(>= ?a $min)]])");
    REQUIRE(s);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "min", 10), 0);
    const char *text = "(query [:find ?e ?a :where [?e :age ?a] [(>= ?a 10)]])";
    EXPECT_SAME(db, s, text, 8); /* planned and kept */
    CHECK_INT_EQ(minigraf_progress_handler(db, 1, stop_now, NULL), 0);
    CHECK(minigraf_stmt_query(s) == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_stmt_last_error_code(s)), "API-013");
    CHECK(minigraf_stmt_execute(s) == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_stmt_last_error_code(s)), "API-013");
    CHECK_INT_EQ(minigraf_progress_handler(db, 1, NULL, NULL), 0);
    EXPECT_SAME(db, s, text, 8);
    EXPECT_SAME(db, s, text, 8);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* Under a small query_memory_limit, many runs of a kept statement: each
 * run's meter starts from what the kept operators hold, not from what
 * the runs before it charged. */
TEST(memory_limit_holds_run_after_run) {
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 65536}", NULL);
    REQUIRE(db);
    char tx[8192];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len,
                                "[:p%d :name \"name number %d\"] [:p%d :group %d] ", i, i, i,
                                i % 3);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    MiniGrafStmt *s = minigraf_prepare(db,
                                       "(query [:find ?n :where [?e :group $g] [?e :name ?n]])");
    REQUIRE(s);
    const char *want[3] = {"(query [:find ?n :where [?e :group 0] [?e :name ?n]])",
                           "(query [:find ?n :where [?e :group 1] [?e :name ?n]])",
                           "(query [:find ?n :where [?e :group 2] [?e :name ?n]])"};
    char *rows[3];
    for (int g = 0; g < 3; g++)
        rows[g] = text_rows_sorted(db, want[g]);
    for (int i = 0; i < 1500; i++) {
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", i % 3), 0);
        MiniGrafCursor *c = minigraf_stmt_query(s);
        if (!c) {
            check_fail_str(__FILE__, __LINE__, "run", minigraf_stmt_last_error(s), "a cursor");
            break;
        }
        char *got = drain_cursor(c, 7);
        minigraf_cursor_free(c);
        char *sorted = got ? json_sorted_array(got, NULL) : NULL;
        CHECK_STR_EQ(sorted, rows[i % 3]);
        free(sorted);
        free(got);
    }
    for (int g = 0; g < 3; g++)
        free(rows[g]);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* :limit and :offset on a kept streaming :find side: every run counts its
 * rows from the start again. */
TEST(limit_counts_from_the_start_every_run) {
    MiniGrafDb *db = ages();
    MiniGrafStmt *s = minigraf_prepare(
        db,
        "(query [:find ?a :where [?e :group $g] [?e :age ?a] [(>= ?a $min)] :offset 1 :limit 3])");
    REQUIRE(s);
    for (int i = 0; i < 12; i++) {
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "g", i % 3), 0);
        CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "min", i < 6 ? 0 : 50), 0);
        MiniGrafCursor *c = minigraf_stmt_query(s);
        REQUIRE(c);
        char *rows = drain_cursor(c, 2);
        minigraf_cursor_free(c);
        int n = 0; /* rows: one '[' each after the outer one */
        for (const char *p = rows ? rows + 1 : ""; *p; p++)
            n += *p == '[';
        /* 20 ages per group; >= 50: 3 in groups 0 and 1, 4 in group 2 (:offset 1) */
        CHECK_INT_EQ(n, i < 6 ? 3 : i % 3 == 2 ? 3 : 2);
        free(rows);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(entity_rebound_every_run),
           TEST_ENTRY(same_entity_every_run_across_writes_and_checkpoints),
           TEST_ENTRY(filter_constant_rebound_every_run), TEST_ENTRY(writes_between_runs_are_seen),
           TEST_ENTRY(run_stopped_early_then_rerun), TEST_ENTRY(two_cursors_of_one_statement),
           TEST_ENTRY(value_type_changes_between_runs), TEST_ENTRY(time_slots_rebound_every_run),
           TEST_ENTRY(plan_made_on_an_empty_database),
           TEST_ENTRY(host_predicate_replaced_between_runs),
           TEST_ENTRY(file_database_changed_by_another_handle),
           TEST_ENTRY(cursor_detached_by_a_write), TEST_ENTRY(cursors_freed_on_another_thread),
           TEST_ENTRY(attribute_written_after_the_plan), TEST_ENTRY(entity_written_after_the_plan),
           TEST_ENTRY(kept_run_stopped_by_the_progress_handler),
           TEST_ENTRY(memory_limit_holds_run_after_run),
           TEST_ENTRY(limit_counts_from_the_start_every_run))
