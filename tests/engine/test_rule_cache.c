/* Unit tests for the rule evaluation state kept across queries
 * (exec/rule_cache.h): which query is served the state of an earlier one. */
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "datalog/parse.h"
#include "datalog/print.h"
#include "exec/rule_cache.h"
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

int main(void) {
    same_query_same_snapshot_is_served();
    anything_else_is_not();
    return CHECK_DONE();
}
