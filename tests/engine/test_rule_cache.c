/* Unit tests for the rule evaluation state kept across queries
 * (exec/rule_cache.h): which query is served the state of an earlier one. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "check.h"
#include "datalog/parse.h"
#include "datalog/print.h"
#include "db/db.h"
#include "exec/query.h"
#include "exec/rule_cache.h"
#include "org_db.h"
#include "rules/registry.h"

static int register_text(rules_registry *r, const char *text, err *e) {
    arena a;
    arena_init(&a);
    command *c = NULL;
    int rc = datalog_parse(text, strlen(text), &a, &c, e);
    if (rc == 0)
        rc = rules_register(r, &c->as.rule, e);
    arena_free(&a);
    return rc;
}

/* The state's own copy of the query, read after the caller's arena is
 * gone (ASan), prints as its key. */
static bool prints_as_key(const rule_cache *c) {
    command cmd = {.kind = CMD_QUERY, .as.query = *c->q};
    buf b;
    buf_init(&b);
    datalog_print(&cmd, &b);
    bool same = b.data && strcmp(b.data, c->key) == 0;
    buf_free(&b);
    return same;
}

/* Takes the state for `text` (parsed into a scratch arena freed right
 * away: the state must not borrow from the query), marks it and gives
 * it back to be kept; true when it was an earlier query's (marked). */
static bool served(rules_registry *r, const char *text, bool magic, rule_cache_snapshot snap) {
    arena a;
    arena_init(&a);
    command *c = NULL;
    err e = {0};
    rule_cache *rc = NULL;
    const rules_program *p = rules_acquire(r);
    CHECK(datalog_parse(text, strlen(text), &a, &c, &e) == 0);
    CHECK(rule_cache_take(r, p, &c->as.query, magic, snap, &rc, &e) == 0);
    arena_free(&a);
    CHECK(rc != NULL && rc->q != NULL && prints_as_key(rc));
    bool kept = rc->rewrite_done;
    rc->rewrite_done = true; /* what a query's evaluation does */
    rule_cache_give_back(r, p, rc, true);
    rules_release(r, p);
    return kept;
}

static void same_query_same_snapshot_is_served(void) {
    rules_registry *r = NULL;
    err e = {0};
    CHECK(rules_registry_new(&r, &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y) [?x :edge ?y]])", &e) == 0);
    rule_cache_snapshot s = {3, 1};
    const char *q = "(query [:find ?y :where (reach :a ?y)])";
    CHECK(!served(r, q, true, s));
    CHECK(served(r, "(query [:find ?y   :where (reach :a ?y)])", true, s));
    rules_registry_free(r);
}

static void anything_else_is_not(void) {
    rules_registry *r = NULL;
    err e = {0};
    CHECK(rules_registry_new(&r, &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y) [?x :edge ?y]])", &e) == 0);
    rule_cache_snapshot s = {3, 1};
    const char *q = "(query [:find ?y :where (reach :a ?y)])";
    CHECK(!served(r, q, true, s));
    /* each differs from the query just before it */
    const char *others[] = {"(query [:find ?y :where (reach :b ?y)])",
                            "(query [:find ?y :as-of 2 :where (reach :b ?y)])",
                            "(query [:find ?y :valid-at \"2020-01-01\" :where (reach :b ?y)])",
                            "(query [:find ?y :any-valid-time :where (reach :b ?y)])"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        CHECK(!served(r, others[i], true, s));
    CHECK(!served(r, q, true, s));
    CHECK(!served(r, q, false, s)); /* the magic option */
    CHECK(!served(r, q, true, s));
    CHECK(!served(r, q, true, (rule_cache_snapshot){4, 1})); /* a commit */
    CHECK(!served(r, q, true, (rule_cache_snapshot){4, 2})); /* a checkpoint */
    CHECK(served(r, q, true, (rule_cache_snapshot){4, 2}));
    /* a new rule: a new program, which keeps nothing yet */
    CHECK(register_text(r, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", &e) == 0);
    const rules_program *p = rules_acquire(r);
    CHECK(rules_take_kept(r, p) == NULL);
    rules_release(r, p);
    rules_registry_free(r); /* frees the state the old program kept */
}

/* ---- operators kept from one query to the next --------------------------------- */

/* Runs `text` with a memory limit: 0, or the error code; *rows its rows. */
static int query_limited(db *d, const char *text, size_t limit, size_t *rows) {
    arena a;
    arena_init(&a);
    command *c = NULL;
    err e = {0};
    result_set *r = NULL;
    CHECK(datalog_parse(text, strlen(text), &a, &c, &e) == 0);
    query_rules qr = {.registry = db_rules(d), .magic = true};
    int rc = query_execute_rules(db_store(d), &qr, &c->as.query, clock_now_ms(), limit, &r, &e);
    *rows = r ? result_row_count(r) : 0;
    result_free(r);
    err_clear(&e);
    arena_free(&a);
    return rc;
}

/* The kept state of d's rules (taken: the caller gives it back). */
static rule_cache *take_kept(db *d, const rules_program **p) {
    *p = rules_acquire(db_rules(d));
    return (rule_cache *)rules_take_kept(db_rules(d), *p);
}

static void give_kept(db *d, const rules_program *p, rule_cache *c) {
    rules_keep(db_rules(d), p, c ? &c->base : NULL);
    rules_release(db_rules(d), p);
}

/* The operators of each kept plan, in order, into ops (at most n). */
static size_t kept_operators(rule_cache *c, op **ops, size_t n) {
    size_t k = 0;
    for (size_t i = 0; c && i < c->plan_count && k < n; i++)
        if (c->plans[i]->pipe.root)
            ops[k++] = c->plans[i]->pipe.root;
    return k;
}

static void repeated_query_opens_the_same_operators(void) {
    db *d = org_db(false);
    const char *q = "(query [:find ?b :where (boss :p63 ?b)])";
    size_t rows = 0;
    CHECK(query_limited(d, q, 0, &rows) == 0 && rows == 6);
    const rules_program *p;
    rule_cache *c = take_kept(d, &p);
    op *first[32], *again[32];
    size_t n = kept_operators(c, first, 32);
    CHECK(c && n > 0 && c->baseline > 0);
    /* and the records its bodies read of each :manager entity */
    size_t tables = c ? c->tables.count : 0;
    CHECK(tables >= 6 && c->tables.kept_bytes > 0 && c->baseline > c->tables.kept_bytes);
    for (size_t i = 0; c && i < c->plan_count; i++)
        CHECK(!c->plans[i]->pipe.root || c->plans[i]->reusable);
    give_kept(d, p, c);
    CHECK(query_limited(d, q, 0, &rows) == 0 && rows == 6);
    c = take_kept(d, &p);
    CHECK(kept_operators(c, again, 32) == n && memcmp(first, again, n * sizeof *first) == 0);
    CHECK(c && c->tables.count == tables);
    give_kept(d, p, c);
    /* a commit: the state is not served, the answer follows the store */
    run(d, "(transact [[:p0 :manager :root]])");
    CHECK(query_limited(d, q, 0, &rows) == 0 && rows == 7);
    CHECK(query_limited(d, q, 0, &rows) == 0 && rows == 7);
    db_close(d);
}

/* The smallest memory limit `q` runs within (none under 1 MiB: 0),
 * cold (nothing kept) or after a first run. */
static size_t least_limit(db *d, const char *q, bool cold) {
    size_t lo = 1, hi = (size_t)1 << 20, rows;
    if (query_limited(d, q, hi, &rows) != 0)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cold) {
            const rules_program *p;
            rule_cache *c = take_kept(d, &p);
            if (c)
                c->base.free(&c->base);
            give_kept(d, p, NULL);
        } else {
            CHECK(query_limited(d, q, 0, &rows) == 0);
        }
        int rc = query_limited(d, q, mid, &rows);
        CHECK(rc == 0 || rc == ERR(QRY, 12));
        if (rc == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The kept operators count against a repeated query's limit as built
 * ones count against a first query's: the same least limit (the second
 * query's delta rounds join :manager by a hash join). */
static void kept_operators_count_against_the_limit(void) {
    const char *qs[] = {"(query [:find ?b :where (boss :p63 ?b)])",
                        "(query [:find ?x ?b :where (boss ?x ?b)])"};
    for (size_t i = 0; i < 2; i++) {
        db *d = org_db(false);
        size_t cold = least_limit(d, qs[i], true), warm = least_limit(d, qs[i], false);
        CHECK(cold > 0 && warm > 0);
        CHECK(warm <= cold && warm + warm / 8 >= cold);
        db_close(d);
    }
}

/* The bytes the operators kept for q's next run hold (besides the
 * stored patterns' tables kept for it, which follow the limit). */
static size_t kept_baseline(db *d) {
    const rules_program *p;
    rule_cache *c = take_kept(d, &p);
    size_t bytes = c ? c->baseline - c->tables.kept_bytes : SIZE_MAX;
    give_kept(d, p, c);
    return bytes;
}

/* A kept hash join holds no table between queries (op_sub_rest): the
 * kept operators hold as much after a run whose hash join (the delta
 * rounds' on :manager) read its own table, past the kept tables' budget
 * of a quarter of the limit, as after one whose table the cache kept. */
static void kept_hash_join_holds_no_table(void) {
    db *d = org_db(false);
    const char *q = "(query [:find ?x ?b :where (boss ?x ?b)])";
    size_t rows, limit = least_limit(d, q, true);
    CHECK(query_limited(d, q, 0, &rows) == 0 && rows > 63);
    size_t unlimited = kept_baseline(d);
    CHECK(query_limited(d, q, limit, &rows) == 0);
    CHECK(unlimited != SIZE_MAX && kept_baseline(d) == unlimited);
    db_close(d);
}

int main(void) {
    repeated_query_opens_the_same_operators();
    kept_operators_count_against_the_limit();
    kept_hash_join_holds_no_table();
    same_query_same_snapshot_is_served();
    anything_else_is_not();
    return CHECK_DONE();
}
