/* Unit tests for the per-database rule registry (language.md §9.1, §9.5). */
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "datalog/parse.h"
#include "datalog/print.h"
#include "rules/registry.h"

/* Parses `text` in a scratch arena, registers it, frees the arena: the
 * registry must not keep pointers into it. */
static int register_text(rules_registry *r, const char *text, err *e) {
    arena a;
    arena_init(&a);
    command *c = NULL;
    int rc = datalog_parse(text, strlen(text), &a, &c, e);
    if (rc == 0)
        rc = rules_register(r, &c->as.rule, e);
    arena_free(&a); /* ASan catches any pointer the registry kept */
    return rc;
}

static bool prints_as(const ast_rule *rule, const char *want) {
    command c = {.kind = CMD_RULE, .as.rule = *rule};
    buf b;
    buf_init(&b);
    datalog_print(&c, &b);
    bool same = b.data && strcmp(b.data, want) == 0;
    buf_free(&b);
    return same;
}

static void registering_keeps_a_copy_in_order(void) {
    rules_registry *r = NULL;
    err e = {0};
    CHECK(rules_registry_new(&r, &e) == 0);
    const rules_program *empty = rules_acquire(r);
    CHECK(empty->count == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y) [?x :edge ?y]])", &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y)\n  [?x :edge ?z]\n  (reach ?z ?y)])", &e) == 0);
    CHECK(register_text(r, "(rule [(m ?s) [?s :t ?s] [(matches? ?s \"^a+$\")]])", &e) == 0);
    const rules_program *p = rules_acquire(r);
    CHECK(p->count == 3);
    CHECK(prints_as(p->rules[0], "(rule [(reach ?x ?y) [?x :edge ?y]])"));
    CHECK(prints_as(p->rules[1], "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])"));
    CHECK(p->rules[2]->body.items[1].as.expr.expr.regex != NULL);
    CHECK(p->strata->pred_count == 2);
    CHECK(empty->count == 0); /* an old snapshot does not change */
    rules_release(r, empty);
    rules_release(r, p);
    rules_registry_free(r);
}

static void same_rule_twice_is_kept_once(void) {
    rules_registry *r = NULL;
    err e = {0};
    CHECK(rules_registry_new(&r, &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y) [?x :edge ?y]])", &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?x ?y)   [?x   :edge ?y]])", &e) == 0);
    CHECK(register_text(r, "(rule [(reach ?a ?b) [?a :edge ?b]])", &e) == 0); /* renamed: new */
    const rules_program *p = rules_acquire(r);
    CHECK(p->count == 2);
    rules_release(r, p);
    rules_registry_free(r);
}

static void unstratifiable_rule_is_not_kept(void) {
    /* language.md §9.5 */
    rules_registry *r = NULL;
    err e = {0};
    CHECK(rules_registry_new(&r, &e) == 0);
    CHECK(register_text(r, "(rule [(p ?x) [?x :edge _] (not (q ?x))])", &e) == 0);
    const rules_program *before = rules_acquire(r);
    CHECK(register_text(r, "(rule [(q ?x) [?x :edge _] (not (p ?x))])", &e) == ERR(INT, 54));
    CHECK(e.message && strcmp(e.message, "[INT-054] unstratifiable: predicate 'q' is involved "
                                         "in a negative cycle through 'p'") == 0);
    err_clear(&e);
    const rules_program *after = rules_acquire(r);
    CHECK(after == before && after->count == 1);
    CHECK(register_text(r, "(rule [(q ?x) [?x :edge _]])", &e) == 0);
    const rules_program *last = rules_acquire(r);
    CHECK(last->count == 2);
    uint32_t p = stratify_find(last->strata, "p", 1), q = stratify_find(last->strata, "q", 1);
    CHECK(last->strata->preds[p].stratum == 1 && last->strata->preds[q].stratum == 0);
    rules_release(r, before);
    rules_release(r, after);
    rules_release(r, last);
    rules_registry_free(r);
}

int main(void) {
    registering_keeps_a_copy_in_order();
    same_rule_twice_is_kept_once();
    unstratifiable_rule_is_not_kept();
    return CHECK_DONE();
}
