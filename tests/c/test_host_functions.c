/* Host functions (language.md §12, §10.5, §11.2, §8.5.5): predicates as filters and
 * bindings, aggregates in :find and as windows, name clashes, failing
 * callbacks, destroy, the values a callback sees and the results it
 * gives back. Row order is never significant. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "support.h"

#define RES(vars, rows) "{\"variables\":" vars ",\"results\":" rows "}"

/* ---- the functions ------------------------------------------------------ */

/* What the callbacks of one registration did. */
typedef struct calls {
    int tests, inits, steps, finishes, releases, destroys;
    int fail_at;           /* fail the call with this number (1-based over all calls), 0 never */
    int init_failed;       /* an init failed (it made no accumulator) */
    int made;              /* calls so far */
    minigraf_value last;   /* the last value a test or step saw */
    char last_text[16384]; /* its text, copied */
    int last_nul;          /* text[text_len] was NUL */
} calls;

static int fail_now(calls *c, char *error, size_t size) {
    if (c->fail_at && ++c->made == c->fail_at) {
        snprintf(error, size, "failing on purpose");
        return 1;
    }
    return 0;
}

static void record(calls *c, const minigraf_value *v) {
    c->last = *v;
    c->last_text[0] = '\0';
    c->last_nul = 0;
    if ((v->type == MINIGRAF_TYPE_STRING || v->type == MINIGRAF_TYPE_KEYWORD) && v->text &&
        v->text_len < sizeof c->last_text) {
        memcpy(c->last_text, v->text, v->text_len + 1);
        c->last_nul = v->text[v->text_len] == '\0';
    }
}

static void count_destroy(void *user_data) {
    ((calls *)user_data)->destroys++;
}

/* email?: a string holding an '@'. */
static int email_p(void *user_data, const minigraf_value *v, int *result, char *error,
                   size_t size) {
    calls *c = user_data;
    c->tests++;
    record(c, v);
    if (fail_now(c, error, size))
        return 1;
    *result = v->type == MINIGRAF_TYPE_STRING && memchr(v->text, '@', v->text_len) != NULL;
    return 0;
}

/* big?: an integer above 100. */
static int big_p(void *user_data, const minigraf_value *v, int *result, char *error, size_t size) {
    (void)error;
    (void)size;
    if (user_data)
        ((calls *)user_data)->tests++;
    *result = v->type == MINIGRAF_TYPE_INTEGER && v->integer > 100;
    return 0;
}

static int fails_p(void *user_data, const minigraf_value *v, int *result, char *error,
                   size_t size) {
    (void)user_data;
    (void)v;
    (void)result;
    snprintf(error, size, "fails? always fails");
    return 1;
}

/* sum-int: the sum of the integers (Null ignored; anything else fails). */
static int sum_init(void *user_data, void **acc, char *error, size_t size) {
    calls *c = user_data;
    c->inits++;
    if (fail_now(c, error, size)) {
        c->init_failed++;
        return 1;
    }
    *acc = calloc(1, sizeof(int64_t));
    return *acc ? 0 : 1;
}

static int sum_step(void *user_data, void *acc, const minigraf_value *v, char *error, size_t size) {
    calls *c = user_data;
    c->steps++;
    record(c, v);
    if (fail_now(c, error, size))
        return 1;
    if (v->type == MINIGRAF_TYPE_NULL)
        return 0;
    if (v->type != MINIGRAF_TYPE_INTEGER) {
        snprintf(error, size, "sum-int: not an integer");
        return 1;
    }
    *(int64_t *)acc += v->integer;
    return 0;
}

static int sum_finish(void *user_data, void *acc, int64_t n, minigraf_value *r, char *error,
                      size_t size) {
    calls *c = user_data;
    (void)n;
    c->finishes++;
    if (fail_now(c, error, size))
        return 1;
    r->type = MINIGRAF_TYPE_INTEGER;
    r->integer = *(int64_t *)acc;
    return 0;
}

static void count_release(void *user_data, void *acc) {
    ((calls *)user_data)->releases++;
    free(acc);
}

static int reg_sum(MiniGrafDb *db, const char *name, calls *c) {
    return minigraf_register_aggregate(db, name, sum_init, sum_step, sum_finish, count_release, c,
                                       count_destroy);
}

/* ---- predicates ---------------------------------------------------------- */

static MiniGrafDb *people_db(calls *c) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:ann :mail \"ann@x.org\"] [:bob :mail \"bob.x.org\"] "
                        "[:cy :mail \"cy@y\"] [:ann :age 120] [:bob :age 7] [:cy :age 101]])");
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, c, count_destroy), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", big_p, NULL, NULL), 0);
    CHECK(minigraf_last_error(db) == NULL);
    return db;
}

TEST(predicate_filters_rows) {
    calls c = {0};
    MiniGrafDb *db = people_db(&c);
    EXPECT_EXEC(db, "(query [:find ?m :where [_ :mail ?m] [(email? ?m)]])",
                RES("[\"?m\"]", "[[\"ann@x.org\"],[\"cy@y\"]]"));
    CHECK_INT_EQ(c.tests, 3);
    EXPECT_EXEC(db, "(query [:find ?a :where [_ :age ?a] [(big? ?a)]])",
                RES("[\"?a\"]", "[[101],[120]]"));
    minigraf_close(db);
    CHECK_INT_EQ(c.destroys, 1);
}

TEST(predicate_binds_a_boolean) {
    calls c = {0};
    MiniGrafDb *db = people_db(&c);
    EXPECT_EXEC(
        db, "(query [:find ?m ?b :where [_ :mail ?m] [(email? ?m) ?b]])",
        RES("[\"?m\",\"?b\"]", "[[\"ann@x.org\",true],[\"bob.x.org\",false],[\"cy@y\",true]]"));
    /* a bound output is compared (language.md D11): only rows whose answer is false */
    EXPECT_EXEC(db,
                "(query [:find ?m :where [_ :mail ?m] [(= 1 1) ?b] [(!= ?b true) ?b2] "
                "[(email? ?m) ?f] [(= ?f false)]])",
                RES("[\"?m\"]", "[[\"bob.x.org\"]]"));
    minigraf_close(db);
}

TEST(predicate_inside_not_or_and_operators) {
    calls c = {0};
    MiniGrafDb *db = people_db(&c);
    EXPECT_EXEC(db, "(query [:find ?m :where [_ :mail ?m] (not [(email? ?m)])])",
                RES("[\"?m\"]", "[[\"bob.x.org\"]]"));
    EXPECT_EXEC(
        db, "(query [:find ?a :where [?e :age ?a] [?e :mail ?m] (or [(big? ?a)] [(email? ?m)])])",
        RES("[\"?a\"]", "[[101],[120]]"));
    EXPECT_TRANSACT(db, "(transact [[:dee :age 3] [:dee :mail \"d@e\"]])");
    EXPECT_EXEC(
        db, "(query [:find ?a :where [?e :age ?a] [?e :mail ?m] (or [(big? ?a)] [(email? ?m)])])",
        RES("[\"?a\"]", "[[101],[120],[3]]"));
    EXPECT_EXEC(db, "(query [:find ?a :where [_ :age ?a] [(= (big? ?a) false)]])",
                RES("[\"?a\"]", "[[7],[3]]"));
    /* a wrong type is the predicate's business: big? of a string is false */
    EXPECT_EXEC(db, "(query [:find ?m :where [_ :mail ?m] [(big? ?m)]])", RES("[\"?m\"]", "[]"));
    minigraf_close(db);
}

TEST(predicate_in_a_rule_body) {
    MiniGrafDb *db = people_db(&(calls){0});
    EXPECT_EXEC(db, "(rule [(senior ?e ?a) [?e :age ?a] [(big? ?a)]])", "{\"ok\":true}");
    EXPECT_EXEC(db, "(query [:find ?a :where (senior ?e ?a)])", RES("[\"?a\"]", "[[101],[120]]"));
    minigraf_close(db);
}

/* any-int?: every integer. */
static int any_int_p(void *user_data, const minigraf_value *v, int *result, char *error,
                     size_t size) {
    (void)user_data;
    (void)error;
    (void)size;
    *result = v->type == MINIGRAF_TYPE_INTEGER;
    return 0;
}

TEST(a_rule_body_calls_the_predicate_registered_when_it_runs) {
    /* Rule bodies' operators may be kept from one run of a query to the
     * next (a bound call's bodies seek by entity), but not a body's host
     * predicates: a run calls the one registered then. */
    MiniGrafDb *db = people_db(&(calls){0});
    EXPECT_EXEC(db, "(rule [(senior ?e ?a) [?e :age ?a] [(big? ?a)]])", "{\"ok\":true}");
    const char *bob = "(query [:find ?a :where (senior :bob ?a)])";
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, bob, RES("[\"?a\"]", "[]"));
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", NULL, NULL, NULL), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", any_int_p, NULL, NULL), 0);
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, bob, RES("[\"?a\"]", "[[7]]"));
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", NULL, NULL, NULL), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", big_p, NULL, NULL), 0);
    EXPECT_EXEC(db, bob, RES("[\"?a\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?a :where (senior ?e ?a)])", RES("[\"?a\"]", "[[101],[120]]"));
    minigraf_close(db);
}

TEST(predicate_takes_exactly_one_argument) {
    MiniGrafDb *db = people_db(&(calls){0});
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(email? ?m ?m)]])", "PRS-067");
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(email?)]])", "PRS-064");
    minigraf_close(db);
}

TEST(unregistered_root_predicate_is_qry_007_until_registered) {
    MiniGrafDb *db = people_db(&(calls){0});
    const char *q = "(query [:find ?m :where [_ :mail ?m] [(gmail? ?m)]])";
    EXPECT_ERROR(db, q, "QRY-007");
    CHECK_STR_EQ(minigraf_last_error(db), "[QRY-007] unknown predicate: 'gmail?'");
    calls g = {0};
    CHECK_INT_EQ(minigraf_register_predicate(db, "gmail?", email_p, &g, NULL), 0);
    EXPECT_EXEC(db, q, RES("[\"?m\"]", "[[\"ann@x.org\"],[\"cy@y\"]]"));
    /* the same text through a cursor, then after unregistering */
    MiniGrafCursor *cur = minigraf_query(db, q);
    REQUIRE(cur != NULL);
    CHECK_INT_EQ(minigraf_register_predicate(db, "gmail?", NULL, NULL, NULL), 0);
    char *rows = drain_cursor(cur, 1);
    CHECK(rows && strstr(rows, "ann@x.org") && strstr(rows, "cy@y"));
    free(rows);
    minigraf_cursor_free(cur);
    EXPECT_ERROR(db, q, "QRY-007");
    minigraf_close(db);
}

TEST(a_cursor_calls_every_callback_before_it_returns) {
    calls c = {0};
    MiniGrafDb *db = people_db(&c);
    MiniGrafCursor *cur = minigraf_query(db,
                                         "(query [:find ?m :where [_ :mail ?m] [(email? ?m)]])");
    REQUIRE(cur != NULL);
    CHECK_INT_EQ(c.tests, 3); /* computed whole: no callback during next_batch */
    char *rows = drain_cursor(cur, 1);
    CHECK_INT_EQ(c.tests, 3);
    CHECK(rows && strstr(rows, "ann@x.org") && strstr(rows, "cy@y") && !strstr(rows, "bob"));
    free(rows);
    minigraf_cursor_free(cur);
    minigraf_close(db);
}

/* ---- aggregates ---------------------------------------------------------- */

static MiniGrafDb *sales_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:s1 :dept \"a\"] [:s1 :amt 10] [:s2 :dept \"a\"] [:s2 :amt 10] "
                    "[:s3 :dept \"b\"] [:s3 :amt 5] [:s4 :dept \"b\"] [:s4 :amt nil] "
                    "[:s5 :dept \"c\"] [:s5 :amt nil] [:s1 :day 1] [:s2 :day 2] [:s3 :day 3] "
                    "[:s4 :day 4] [:s5 :day 5]])");
    return db;
}

TEST(aggregate_in_find_groups_like_a_builtin) {
    calls c = {0};
    MiniGrafDb *db = sales_db();
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    EXPECT_EXEC(db, "(query [:find (sum-int ?x) :where [_ :amt ?x]])",
                RES("[\"(sum-int ?x)\"]", "[[25]]"));
    CHECK_INT_EQ(c.inits, 1);
    CHECK_INT_EQ(c.steps, 3); /* the two Nulls are not stepped */
    CHECK_INT_EQ(c.releases, c.inits);
    /* grouped: dept c has only a Null → Null, and no callback for it */
    c = (calls){0};
    EXPECT_EXEC(db, "(query [:find ?d (sum-int ?x) :where [?s :dept ?d] [?s :amt ?x]])",
                RES("[\"?d\",\"(sum-int ?x)\"]", "[[\"a\",20],[\"b\",5],[\"c\",null]]"));
    CHECK_INT_EQ(c.inits, 2);
    CHECK_INT_EQ(c.finishes, 2);
    CHECK_INT_EQ(c.releases, 2);
    /* :with: the sale joins the key, so each a-sale is its own group */
    EXPECT_EXEC(
        db,
        "(query [:find ?d (sum-int ?x) :with ?s :where [?s :dept ?d] [?s :amt ?x] [(= ?d \"a\")]])",
        RES("[\"?d\",\"(sum-int ?x)\"]", "[[\"a\",10],[\"a\",10]]"));
    /* beside built-ins */
    EXPECT_EXEC(db,
                "(query [:find ?d (count ?x) (sum-int ?x) (sum ?x) :where [?s :dept ?d] [?s :amt "
                "?x] [(= ?d \"a\")]])",
                RES("[\"?d\",\"(count ?x)\",\"(sum-int ?x)\",\"(sum ?x)\"]", "[[\"a\",2,20,20]]"));
    minigraf_close(db);
    CHECK_INT_EQ(c.destroys, 1);
}

TEST(aggregate_over_no_solutions_has_no_rows_and_calls_nothing) {
    calls c = {0};
    MiniGrafDb *db = sales_db();
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    EXPECT_EXEC(db, "(query [:find (sum-int ?x) :where [_ :nothing ?x]])",
                RES("[\"(sum-int ?x)\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find (sum-int ?x) :where [:s5 :amt ?x]])",
                RES("[\"(sum-int ?x)\"]", "[[null]]"));
    CHECK_INT_EQ(c.inits + c.steps + c.finishes + c.releases, 0);
    minigraf_close(db);
}

TEST(aggregate_as_a_window) {
    calls c = {0};
    MiniGrafDb *db = sales_db();
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    EXPECT_EXEC(
        db,
        "(query [:find ?t ?x (sum-int ?x :over (:order-by ?t)) :where [?s :day ?t] [?s :amt ?x]])",
        RES("[\"?t\",\"?x\",\"(sum-int ?x :over ...)\"]",
            "[[1,10,10],[2,10,20],[3,5,25],[4,null,25],[5,null,25]]"));
    CHECK_INT_EQ(c.inits, 1);
    CHECK_INT_EQ(c.steps, 5); /* Nulls are stepped in a window */
    CHECK_INT_EQ(c.finishes, 5);
    CHECK_INT_EQ(c.releases, 1);
    c = (calls){0};
    EXPECT_EXEC(db,
                "(query [:find ?d ?t (sum-int ?x :over (:partition-by ?d :order-by ?t :desc)) "
                ":where [?s :dept ?d] [?s :day ?t] [?s :amt ?x]])",
                RES("[\"?d\",\"?t\",\"(sum-int ?x :over ...)\"]",
                    "[[\"a\",1,20],[\"a\",2,10],[\"b\",3,5],[\"b\",4,0],[\"c\",5,0]]"));
    CHECK_INT_EQ(c.inits, 3);
    CHECK_INT_EQ(c.releases, 3);
    /* after aggregation: over the group rows */
    EXPECT_EXEC(db,
                "(query [:find ?d (count ?s) (sum-int ?d2 :over (:order-by ?d)) :where [?s :dept "
                "?d] [?s :day ?d2]])",
                RES("[\"?d\",\"(count ?s)\",\"(sum-int ?d2 :over ...)\"]",
                    "[[\"a\",2,0],[\"b\",2,0],[\"c\",1,0]]"));
    /* a window after aggregation may read a collect-set column: a list,
     * which a minigraf_value cannot carry */
    EXPECT_ERROR(db,
                 "(query [:find ?d (collect-set ?t) (sum-int ?t :over (:order-by ?d)) :where [?s "
                 ":dept ?d] [?s :day ?t]])",
                 "API-016");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-016] aggregate function 'sum-int' cannot take a list (collect-set) value");
    EXPECT_ERROR(db, "(query [:find ?t (nosuch ?t :over (:order-by ?t)) :where [_ :day ?t]])",
                 "QRY-011");
    EXPECT_ERROR(db, "(query [:find (nosuch ?t) :where [_ :day ?t]])", "QRY-010");
    minigraf_close(db);
}

/* ---- names ---------------------------------------------------------------- */

TEST(builtin_names_are_refused) {
    static const char *preds[] = {
        "string?",    "integer?",  "float?",   "boolean?", "nil?", "starts-with?",
        "ends-with?", "contains?", "matches?", "<",        "="};
    static const char *aggs[] = {"count", "count-distinct", "sum",  "sum-distinct", "min", "max",
                                 "avg",   "collect-set",    "rank", "row-number",   "lag", "lead"};
    MiniGrafDb *db = open_memory_db();
    calls c = {0};
    char want[96];
    for (size_t i = 0; i < sizeof preds / sizeof *preds; i++) {
        CHECK_INT_EQ(minigraf_register_predicate(db, preds[i], email_p, &c, count_destroy), 5021);
        snprintf(want, sizeof want, "[API-021] predicate '%s' is already registered", preds[i]);
        CHECK_STR_EQ(minigraf_last_error(db), want);
    }
    for (size_t i = 0; i < sizeof aggs / sizeof *aggs; i++) {
        CHECK_INT_EQ(reg_sum(db, aggs[i], &c), 5021);
        snprintf(want, sizeof want, "[API-021] aggregate function '%s' is already registered",
                 aggs[i]);
        CHECK_STR_EQ(minigraf_last_error(db), want);
    }
    /* a failed registration still gives user_data back */
    CHECK_INT_EQ(c.destroys, (int)(sizeof preds / sizeof *preds + sizeof aggs / sizeof *aggs));
    /* (- ?x) is a host predicate call (language.md §8.5.1), so "-" may be one */
    CHECK_INT_EQ(minigraf_register_predicate(db, "-", big_p, NULL, NULL), 0);
    EXPECT_TRANSACT(db, "(transact [[:a :n 500] [:b :n 5]])");
    EXPECT_EXEC(db, "(query [:find ?n :where [_ :n ?n] [(- ?n)]])", RES("[\"?n\"]", "[[500]]"));
    /* the built-in's own name works as before */
    EXPECT_EXEC(db, "(query [:find (count ?n) :where [_ :n ?n]])",
                RES("[\"(count ?n)\"]", "[[2]]"));
    minigraf_close(db);
}

TEST(host_names_clash_until_unregistered) {
    MiniGrafDb *db = open_memory_db();
    calls p = {0}, a = {0}, x = {0};
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, &p, count_destroy), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, &x, count_destroy), 5021);
    CHECK_STR_EQ(minigraf_last_error(db), "[API-021] predicate 'email?' is already registered");
    CHECK_INT_EQ(reg_sum(db, "email?", &x), 5021);
    CHECK_STR_EQ(minigraf_last_error(db), "[API-021] predicate 'email?' is already registered");
    CHECK_INT_EQ(reg_sum(db, "sum-int", &a), 0);
    CHECK_INT_EQ(reg_sum(db, "sum-int", &x), 5021);
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-021] aggregate function 'sum-int' is already registered");
    CHECK_INT_EQ(minigraf_register_predicate(db, "sum-int", email_p, &x, count_destroy), 5021);
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-021] aggregate function 'sum-int' is already registered");
    CHECK_INT_EQ(x.destroys, 4);
    /* unregistering runs destroy once and frees the name */
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", NULL, NULL, NULL), 0);
    CHECK_INT_EQ(p.destroys, 1);
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", NULL, NULL, NULL), 5017);
    CHECK_STR_EQ(minigraf_last_error(db), "[API-017] no predicate 'email?' is registered");
    CHECK_INT_EQ(minigraf_register_aggregate(db, "sum-int", NULL, NULL, NULL, NULL, NULL, NULL), 0);
    CHECK_INT_EQ(a.destroys, 1);
    CHECK_INT_EQ(reg_sum(db, "email?", &a), 0); /* the name is free for either kind */
    minigraf_close(db);
    CHECK_INT_EQ(p.destroys, 1);
    CHECK_INT_EQ(a.destroys, 2);
}

TEST(bad_arguments_are_api_017) {
    MiniGrafDb *db = open_memory_db();
    calls c = {0};
    CHECK_INT_EQ(minigraf_register_predicate(NULL, "x?", email_p, &c, count_destroy), 5017);
    CHECK_INT_EQ(minigraf_register_predicate(db, NULL, email_p, &c, count_destroy), 5017);
    CHECK_INT_EQ(minigraf_register_predicate(db, "", email_p, &c, count_destroy), 5017);
    CHECK_INT_EQ(minigraf_register_predicate(db, "\xff?", email_p, &c, count_destroy), 5017);
    CHECK_INT_EQ(
        minigraf_register_aggregate(db, "agg", sum_init, NULL, sum_finish, NULL, &c, count_destroy),
        5017);
    CHECK_INT_EQ(minigraf_register_aggregate(NULL, "agg", sum_init, sum_step, sum_finish, NULL, &c,
                                             count_destroy),
                 5017);
    CHECK_INT_EQ(c.destroys, 6);
    minigraf_close(db);
}

/* ---- failures ------------------------------------------------------------ */

TEST(a_failing_predicate_stops_the_query_with_api_016) {
    MiniGrafDb *db = people_db(&(calls){0});
    CHECK_INT_EQ(minigraf_register_predicate(db, "fails?", fails_p, NULL, NULL), 0);
    const char *q = "(query [:find ?m :where [_ :mail ?m] [(fails? ?m)]])";
    EXPECT_ERROR(db, q, "API-016");
    CHECK_INT_EQ(minigraf_last_error_code(db), 5016);
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-016] predicate 'fails?' failed: fails? always fails");
    /* nested, in a binding, inside not: still an error, not a dropped row */
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(fails? ?m) ?b]])", "API-016");
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] (not [(fails? ?m)])])", "API-016");
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(= (fails? ?m) true)]])", "API-016");
    CHECK(minigraf_query(db, q) == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), 5016);
    /* no row, no call */
    EXPECT_EXEC(db, "(query [:find ?m :where [_ :nothing ?m] [(fails? ?m)]])",
                RES("[\"?m\"]", "[]"));
    /* the database goes on */
    EXPECT_EXEC(db, "(query [:find ?a :where [_ :age ?a] [(big? ?a)]])",
                RES("[\"?a\"]", "[[101],[120]]"));
    minigraf_close(db);
}

TEST(every_accumulator_is_released_when_an_aggregate_fails) {
    MiniGrafDb *db = sales_db();
    calls c = {0};
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    const char *grouped = "(query [:find ?d (sum-int ?x) :where [?s :dept ?d] [?s :amt ?x]])";
    const char *window = "(query [:find ?t (sum-int ?x :over (:partition-by ?d :order-by ?t)) "
                         ":where [?s :dept ?d] [?s :day ?t] [?s :amt ?x]])";
    const char *texts[] = {grouped, window};
    for (int q = 0; q < 2; q++) {
        int failures = 0;
        for (int at = 1; at <= 16; at++) {
            c = (calls){.fail_at = at};
            char *got = minigraf_execute(db, texts[q]);
            if (got) {
                minigraf_string_free(got);
                CHECK(c.made < at); /* every call came before the failing one */
            } else {
                failures++;
                CHECK_INT_EQ(minigraf_last_error_code(db), 5016);
                const char *msg = minigraf_last_error(db);
                CHECK(msg && strstr(msg, "aggregate function 'sum-int' failed in ") &&
                      strstr(msg, ": failing on purpose"));
            }
            CHECK_INT_EQ(c.releases, c.inits - c.init_failed);
        }
        /* grouped: 2 inits, 3 steps, 2 finishes; window: 3 partitions,
         * 5 steps and 5 finishes */
        CHECK_INT_EQ(failures, q == 0 ? 7 : 13);
    }
    /* a type error from step */
    EXPECT_TRANSACT(db, "(transact [[:s6 :dept \"a\"] [:s6 :amt \"ten\"]])");
    c = (calls){0};
    EXPECT_ERROR(db, grouped, "API-016");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-016] aggregate function 'sum-int' failed in step: sum-int: not an integer");
    CHECK_INT_EQ(c.releases, c.inits);
    EXPECT_EXEC(db, "(query [:find (count ?x) :where [_ :amt ?x]])",
                RES("[\"(count ?x)\"]", "[[4]]"));
    minigraf_close(db);
}

/* An init that fails leaves no accumulator: the releases equal the inits
 * that succeeded. */
TEST(a_failed_init_makes_no_accumulator) {
    MiniGrafDb *db = sales_db();
    calls c = {.fail_at = 1};
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    EXPECT_ERROR(db, "(query [:find (sum-int ?x) :where [_ :amt ?x]])", "API-016");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[API-016] aggregate function 'sum-int' failed in init: failing on purpose");
    CHECK_INT_EQ(c.inits, 1);
    CHECK_INT_EQ(c.steps, 0);
    CHECK_INT_EQ(c.releases, 0);
    minigraf_close(db);
}

static int long_message(void *user_data, const minigraf_value *v, int *result, char *error,
                        size_t size) {
    (void)user_data;
    (void)v;
    (void)result;
    CHECK(size >= MINIGRAF_HOST_ERROR_SIZE);
    CHECK(error[0] == '\0');
    memset(error, 'x', size);                /* no NUL at all */
    memcpy(error + size - 3, "\xc3\xa9", 2); /* a multi-byte char cut at the end */
    return 1;
}

static int silent_failure(void *user_data, const minigraf_value *v, int *result, char *error,
                          size_t size) {
    (void)user_data;
    (void)v;
    (void)result;
    (void)error;
    (void)size;
    return -1;
}

TEST(failure_messages_are_made_safe) {
    MiniGrafDb *db = people_db(&(calls){0});
    CHECK_INT_EQ(minigraf_register_predicate(db, "long?", long_message, NULL, NULL), 0);
    CHECK_INT_EQ(minigraf_register_predicate(db, "silent?", silent_failure, NULL, NULL), 0);
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(long? ?m)]])", "API-016");
    const char *msg = minigraf_last_error(db);
    CHECK(msg && strlen(msg) < 2 * MINIGRAF_HOST_ERROR_SIZE && strstr(msg, "failed: xxxx"));
    EXPECT_ERROR(db, "(query [:find ?m :where [_ :mail ?m] [(silent? ?m)]])", "API-016");
    CHECK_STR_EQ(minigraf_last_error(db), "[API-016] predicate 'silent?' failed");
    minigraf_close(db);
}

/* ---- destroy --------------------------------------------------------------- */

TEST(destroy_runs_once_on_close) {
    calls p = {0}, a = {0};
    MiniGrafDb *db = open_memory_db();
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, &p, count_destroy), 0);
    CHECK_INT_EQ(reg_sum(db, "sum-int", &a), 0);
    EXPECT_TRANSACT(db, "(transact [[:a :m \"a@b\"] [:a :n 3]])");
    EXPECT_EXEC(db, "(query [:find ?m :where [_ :m ?m] [(email? ?m)]])",
                RES("[\"?m\"]", "[[\"a@b\"]]"));
    EXPECT_EXEC(db, "(query [:find (sum-int ?n) :where [_ :n ?n]])",
                RES("[\"(sum-int ?n)\"]", "[[3]]"));
    CHECK_INT_EQ(p.destroys + a.destroys, 0);
    minigraf_close(db);
    CHECK_INT_EQ(p.destroys, 1);
    CHECK_INT_EQ(a.destroys, 1);
}

/* ---- values ------------------------------------------------------------------ */

static void expect_seen(MiniGrafDb *db, calls *c, const char *fact_value, int type) {
    char text[20100];
    snprintf(text, sizeof text, "(transact [[:v :x %s]])", fact_value);
    EXPECT_TRANSACT(db, text);
    c->tests = 0;
    char *got = EXEC(db, "(query [:find ?x :where [:v :x ?x] [(email? ?x)]])");
    minigraf_string_free(got);
    CHECK_INT_EQ(c->tests, 1);
    CHECK_INT_EQ(c->last.type, type);
    snprintf(text, sizeof text, "(retract [[:v :x %s]])", fact_value);
    EXPECT_RETRACT(db, text);
}

TEST(every_type_reaches_the_callback) {
    calls c = {0};
    MiniGrafDb *db = open_memory_db();
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, &c, NULL), 0);
    expect_seen(db, &c, "\"a b@\"", MINIGRAF_TYPE_STRING);
    CHECK_INT_EQ(c.last.text_len, 4);
    CHECK(memcmp(c.last_text, "a b@", 5) == 0 && c.last_nul);
    expect_seen(db, &c, ":ns/kw", MINIGRAF_TYPE_KEYWORD);
    CHECK_STR_EQ(c.last_text, ":ns/kw");
    CHECK(c.last_nul);
    expect_seen(db, &c, "9223372036854775807", MINIGRAF_TYPE_INTEGER);
    CHECK(c.last.integer == INT64_MAX);
    expect_seen(db, &c, "-9223372036854775808", MINIGRAF_TYPE_INTEGER);
    CHECK(c.last.integer == INT64_MIN);
    expect_seen(db, &c, "-0.5", MINIGRAF_TYPE_FLOAT);
    CHECK(c.last.real == -0.5);
    expect_seen(db, &c, "true", MINIGRAF_TYPE_BOOLEAN);
    CHECK_INT_EQ(c.last.boolean, 1);
    expect_seen(db, &c, "false", MINIGRAF_TYPE_BOOLEAN);
    CHECK_INT_EQ(c.last.boolean, 0);
    expect_seen(db, &c, "nil", MINIGRAF_TYPE_NULL);
    expect_seen(db, &c, "#uuid \"00112233-4455-6677-8899-aabbccddeeff\"", MINIGRAF_TYPE_REF);
    static const uint8_t want_uuid[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                          0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    CHECK(memcmp(c.last.uuid, want_uuid, 16) == 0);
    /* an entity bound by a pattern is a Ref; the reserved words are zero */
    c.tests = 0;
    minigraf_string_free(EXEC(db, "(query [:find ?e :where [?e :y _] [(email? ?e)]])"));
    EXPECT_TRANSACT(db, "(transact [[:w :y 1]])");
    minigraf_string_free(EXEC(db, "(query [:find ?e :where [?e :y _] [(email? ?e)]])"));
    CHECK_INT_EQ(c.last.type, MINIGRAF_TYPE_REF);
    CHECK(c.last.reserved[0] == 0 && c.last.reserved[3] == 0 && c.last.integer == 0);
    /* NaN from arithmetic cannot be made (NaN results drop rows), but a
     * float infinity can */
    char huge[400] = "(transact [[:v :big 1"; /* 1e308: the lexer has no exponents */
    for (int i = 0; i < 308; i++)
        strcat(huge, "0");
    strcat(huge, ".0]])");
    EXPECT_TRANSACT(db, huge);
    c.tests = 0;
    minigraf_string_free(
        EXEC(db, "(query [:find ?y :where [:v :big ?f] [(* ?f 10.0) ?y] [(email? ?y)]])"));
    CHECK_INT_EQ(c.tests, 1);
    CHECK(c.last.type == MINIGRAF_TYPE_FLOAT && isinf(c.last.real) && c.last.real > 0);
    /* a big string */
    char *big = malloc(12001);
    memset(big, 'q', 12000);
    big[12000] = '\0';
    char text[12100];
    snprintf(text, sizeof text, "\"%s@\"", big);
    expect_seen(db, &c, text, MINIGRAF_TYPE_STRING);
    CHECK_INT_EQ(c.last.text_len, 12001);
    CHECK(c.last_nul && c.last_text[12000] == '@' && c.last_text[0] == 'q');
    free(big);
    minigraf_close(db);
}

/* NaN cannot come from arithmetic (a NaN result drops the row, language.md §8.5.1), but
 * a stored one (written through the log writer) reaches the callback. */
TEST(nan_reaches_the_callback) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(t.path, NULL, &error);
    REQUIRE(w != NULL);
    CHECK_INT_EQ(minigraf_log_writer_append(
                     w, "{\"entity\":\"00112233-4455-6677-8899-aabbccddeeff\","
                        "\"attribute\":\":x\",\"value\":{\"type\":\"float\",\"value\":\"NaN\"},"
                        "\"tx_count\":1,\"tx_id\":1717000000123,\"valid_from\":1717000000123,"
                        "\"valid_to\":9223372036854775807,\"asserted\":true}"),
                 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    calls c = {0};
    CHECK_INT_EQ(minigraf_register_predicate(db, "email?", email_p, &c, NULL), 0);
    minigraf_string_free(EXEC(db, "(query [:find ?x :where [_ :x ?x] [(email? ?x)]])"));
    CHECK_INT_EQ(c.tests, 1);
    CHECK(c.last.type == MINIGRAF_TYPE_FLOAT && isnan(c.last.real));
    CHECK_INT_EQ(reg_sum(db, "sum-int", &c), 0);
    EXPECT_ERROR(db, "(query [:find (sum-int ?x) :where [_ :x ?x]])", "API-016");
    CHECK(c.last.type == MINIGRAF_TYPE_FLOAT && isnan(c.last.real));
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- results ------------------------------------------------------------------ */

/* join-text: the values' texts joined by ',' (text in the accumulator,
 * handed out by finish, freed by release). */
typedef struct text_acc {
    char *data;
    size_t len;
} text_acc;

static int join_init(void *user_data, void **acc, char *error, size_t size) {
    (void)user_data;
    (void)error;
    (void)size;
    *acc = calloc(1, sizeof(text_acc));
    return *acc ? 0 : 1;
}

static int join_step(void *user_data, void *acc, const minigraf_value *v, char *error,
                     size_t size) {
    (void)user_data;
    (void)error;
    (void)size;
    text_acc *t = acc;
    const char *s = v->type == MINIGRAF_TYPE_STRING ? v->text : "?";
    size_t n = v->type == MINIGRAF_TYPE_STRING ? v->text_len : 1;
    t->data = realloc(t->data, t->len + n + 2);
    if (t->len)
        t->data[t->len++] = ',';
    memcpy(t->data + t->len, s, n);
    t->len += n;
    return 0;
}

static int join_finish(void *user_data, void *acc, int64_t n, minigraf_value *r, char *error,
                       size_t size) {
    (void)n;
    (void)error;
    (void)size;
    text_acc *t = acc;
    const char *kind = user_data;
    r->type = kind && strcmp(kind, "keyword") == 0 ? MINIGRAF_TYPE_KEYWORD : MINIGRAF_TYPE_STRING;
    r->text = t->data;
    r->text_len = t->len;
    if (kind && strcmp(kind, "bad-utf8") == 0)
        r->text = "\xff";
    if (kind && strcmp(kind, "list") == 0)
        r->type = MINIGRAF_TYPE_LIST;
    if (kind && strcmp(kind, "ref") == 0) {
        memset(r, 0, sizeof *r);
        r->type = MINIGRAF_TYPE_REF;
        memset(r->uuid, 0xab, 16);
    }
    return 0;
}

static void join_release(void *user_data, void *acc) {
    (void)user_data;
    text_acc *t = acc;
    memset(t->data, '#', t->len); /* the library copied it before */
    free(t->data);
    free(t);
}

static void reg_join(MiniGrafDb *db, const char *name, const char *kind) {
    CHECK_INT_EQ(minigraf_register_aggregate(db, name, join_init, join_step, join_finish,
                                             join_release, (void *)kind, NULL),
                 0);
}

TEST(finish_returns_text_the_library_copies) {
    MiniGrafDb *db = open_memory_db();
    reg_join(db, "join", NULL);
    reg_join(db, "join-kw", "keyword");
    reg_join(db, "bad-utf8", "bad-utf8");
    reg_join(db, "bad-type", "list");
    reg_join(db, "uuid-of", "ref");
    EXPECT_TRANSACT(db, "(transact [[:a :t \"x\"] [:b :t \"y\"] [:a :n 1] [:b :n 2]])");
    EXPECT_EXEC(db, "(query [:find (join ?s) :where [_ :t ?s]])",
                RES("[\"(join ?s)\"]", "[[\"x,y\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s (join ?s) :where [_ :t ?s]])",
                RES("[\"?s\",\"(join ?s)\"]", "[[\"x\",\"x\"],[\"y\",\"y\"]]"));
    /* a window: one text per row, each a copy */
    EXPECT_EXEC(db,
                "(query [:find ?n (join ?s :over (:order-by ?n)) :where [?e :t ?s] [?e :n ?n]])",
                RES("[\"?n\",\"(join ?s :over ...)\"]", "[[1,\"x\"],[2,\"x,y\"]]"));
    EXPECT_EXEC(db, "(query [:find (uuid-of ?s) :where [_ :t ?s]])",
                RES("[\"(uuid-of ?s)\"]", "[[\"abababab-abab-abab-abab-abababababab\"]]"));
    EXPECT_ERROR(db, "(query [:find (bad-utf8 ?s) :where [_ :t ?s]])", "API-016");
    CHECK_STR_EQ(minigraf_last_error(db), "[API-016] aggregate function 'bad-utf8' failed in "
                                          "finish: finish returned text that is not valid UTF-8");
    EXPECT_ERROR(db, "(query [:find (bad-type ?s) :where [_ :t ?s]])", "API-016");
    minigraf_close(db);
}

TEST(a_keyword_result_stays_a_keyword) {
    MiniGrafDb *db = open_memory_db();
    reg_join(db, "join-kw", "keyword");
    EXPECT_TRANSACT(db, "(transact [[:a :t \":x\"]])");
    EXPECT_EXEC(db, "(query [:find (join-kw ?s) :where [_ :t ?s]])",
                RES("[\"(join-kw ?s)\"]", "[[\":x\"]]"));
    MiniGrafCursor *cur = minigraf_query(db, "(query [:find (join-kw ?s) :where [_ :t ?s]])");
    REQUIRE(cur != NULL);
    CHECK_INT_EQ(minigraf_cursor_set_format(cur, MINIGRAF_FORMAT_TYPED), 0);
    char *b = minigraf_cursor_next_batch(cur, 10);
    CHECK_STR_EQ(b, "[[{\"type\":\"keyword\",\"value\":\":x\"}]]");
    minigraf_string_free(b);
    minigraf_cursor_free(cur);
    EXPECT_TRANSACT(db, "(transact [[:b :u \"no-colon\"]])");
    EXPECT_ERROR(db, "(query [:find (join-kw ?s) :where [_ :u ?s]])", "API-016");
    minigraf_close(db);
}

/* ---- databases and threads ---------------------------------------------------- */

TEST(a_read_only_database_may_register) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 500] [:b :n 5]])");
    minigraf_close(db);
    char *error = NULL;
    db = minigraf_open_with_options(t.path, "{\"read_only\":true}", &error);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(minigraf_register_predicate(db, "big?", big_p, NULL, NULL), 0);
    EXPECT_EXEC(db, "(query [:find ?n :where [_ :n ?n] [(big? ?n)]])", RES("[\"?n\"]", "[[500]]"));
    minigraf_close(db);
    /* not persisted */
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_ERROR(db, "(query [:find ?n :where [_ :n ?n] [(big? ?n)]])", "QRY-007");
    minigraf_close(db);
    temp_db_remove(&t);
}

typedef struct race {
    MiniGrafDb *db;
    int done;
    int ok, unknown, other;
} race;

static void *query_loop(void *arg) {
    race *r = arg;
    for (int i = 0; i < 300; i++) {
        char *got = minigraf_execute(r->db, "(query [:find ?n :where [_ :n ?n] [(big? ?n)]])");
        if (got)
            r->ok++;
        else if (minigraf_last_error_code(r->db) == 2007)
            r->unknown++;
        else
            r->other++;
        minigraf_string_free(got);
    }
    return NULL;
}

/* For functions that two threads use at once: the query thread calls the
 * predicate, and its destroy may run there too (when its query still held
 * the registration), so what they share is atomic. */
static int big_shared(void *user_data, const minigraf_value *v, int *result, char *error,
                      size_t size) {
    (void)user_data, (void)error, (void)size;
    *result = v->type == MINIGRAF_TYPE_INTEGER && v->integer > 100;
    return 0;
}

static void count_destroy_shared(void *user_data) {
    atomic_fetch_add((atomic_int *)user_data, 1);
}

TEST(registering_while_another_thread_queries) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 500] [:b :n 5]])");
    race r = {.db = db};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, query_loop, &r) == 0);
    atomic_int destroys = 0;
    int regs = 0;
    for (int i = 0; i < 300; i++) {
        if (minigraf_register_predicate(db, "big?", big_shared, &destroys, count_destroy_shared) ==
            0)
            regs++;
        minigraf_register_predicate(db, "big?", NULL, NULL, NULL);
    }
    pthread_join(th, NULL);
    CHECK_INT_EQ(r.ok + r.unknown, 300);
    CHECK_INT_EQ(r.other, 0);
    CHECK_INT_EQ(regs, 300);
    CHECK_INT_EQ(atomic_load(&destroys), 300);
    minigraf_close(db);
}

/* A predicate that, at its first call, lets the main thread unregister it
 * and waits until that is done: the query goes on with it, and its destroy
 * runs when that query ends, on the query's thread. */
typedef struct held {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stage; /* 1: in the callback; 2: unregistered */
    int destroys;
    pthread_t destroyed_on;
    MiniGrafDb *db;
    char *result;
} held;

static int held_p(void *user_data, const minigraf_value *v, int *result, char *error, size_t size) {
    held *h = user_data;
    pthread_mutex_lock(&h->mu);
    if (h->stage == 0) {
        h->stage = 1;
        pthread_cond_broadcast(&h->cv);
        while (h->stage != 2)
            pthread_cond_wait(&h->cv, &h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return big_p(NULL, v, result, error, size);
}

static void held_destroy(void *user_data) {
    held *h = user_data;
    h->destroys++;
    h->destroyed_on = pthread_self();
}

static void *held_query(void *arg) {
    held *h = arg;
    h->result = minigraf_execute(h->db, "(query [:find ?n :where [_ :n ?n] [(held? ?n)]])");
    return NULL;
}

TEST(unregistering_during_a_query_destroys_when_it_ends) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 500] [:b :n 5] [:c :n 200]])");
    held h = {.db = db};
    pthread_mutex_init(&h.mu, NULL);
    pthread_cond_init(&h.cv, NULL);
    CHECK_INT_EQ(minigraf_register_predicate(db, "held?", held_p, &h, held_destroy), 0);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, held_query, &h) == 0);
    pthread_mutex_lock(&h.mu);
    while (h.stage != 1)
        pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    CHECK_INT_EQ(minigraf_register_predicate(db, "held?", NULL, NULL, NULL), 0);
    CHECK_INT_EQ(h.destroys, 0); /* the running query still holds it */
    /* the name is free again at once; later queries do not see the old one */
    EXPECT_ERROR(db, "(query [:find ?n :where [_ :n ?n] [(held? ?n)]])", "QRY-007");
    pthread_mutex_lock(&h.mu);
    h.stage = 2;
    pthread_cond_broadcast(&h.cv);
    pthread_mutex_unlock(&h.mu);
    pthread_join(th, NULL);
    CHECK_INT_EQ(h.destroys, 1);
    CHECK(pthread_equal(h.destroyed_on, th));
    REQUIRE(h.result != NULL);
    char *got = canonical_result(h.result);
    CHECK_STR_EQ(got, "{\"variables\":[\"?n\"],\"results\":[[200],[500]]}");
    free(got);
    minigraf_string_free(h.result);
    minigraf_close(db);
    CHECK_INT_EQ(h.destroys, 1);
    pthread_cond_destroy(&h.cv);
    pthread_mutex_destroy(&h.mu);
}

CHECK_MAIN(TEST_ENTRY(predicate_filters_rows), TEST_ENTRY(predicate_binds_a_boolean),
           TEST_ENTRY(predicate_inside_not_or_and_operators), TEST_ENTRY(predicate_in_a_rule_body),
           TEST_ENTRY(a_rule_body_calls_the_predicate_registered_when_it_runs),
           TEST_ENTRY(predicate_takes_exactly_one_argument),
           TEST_ENTRY(unregistered_root_predicate_is_qry_007_until_registered),
           TEST_ENTRY(a_cursor_calls_every_callback_before_it_returns),
           TEST_ENTRY(aggregate_in_find_groups_like_a_builtin),
           TEST_ENTRY(aggregate_over_no_solutions_has_no_rows_and_calls_nothing),
           TEST_ENTRY(aggregate_as_a_window), TEST_ENTRY(builtin_names_are_refused),
           TEST_ENTRY(host_names_clash_until_unregistered), TEST_ENTRY(bad_arguments_are_api_017),
           TEST_ENTRY(a_failing_predicate_stops_the_query_with_api_016),
           TEST_ENTRY(every_accumulator_is_released_when_an_aggregate_fails),
           TEST_ENTRY(a_failed_init_makes_no_accumulator),
           TEST_ENTRY(failure_messages_are_made_safe), TEST_ENTRY(destroy_runs_once_on_close),
           TEST_ENTRY(every_type_reaches_the_callback), TEST_ENTRY(nan_reaches_the_callback),
           TEST_ENTRY(finish_returns_text_the_library_copies),
           TEST_ENTRY(a_keyword_result_stays_a_keyword),
           TEST_ENTRY(a_read_only_database_may_register),
           TEST_ENTRY(registering_while_another_thread_queries),
           TEST_ENTRY(unregistering_during_a_query_destroys_when_it_ends))
