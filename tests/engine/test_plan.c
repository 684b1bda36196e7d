/* Tests of the planner (plan/conj.h): given a query over a store, the
 * order of the clauses, each pattern's access (known positions, index)
 * and join kind. The store is a small envelope fixture (BENCHMARKS.md
 * §1): entities :p0 … :p{E-1} with :name, :age, :group, :follows and
 * :manager. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "check.h"
#include "datalog/parse.h"
#include "db/db.h"
#include "plan/conj.h"
#include "plan/explain.h"

#define ENTITIES 1200
#define BATCH 100

static int exec(db *d, const char *text) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    if (rc != 0)
        fprintf(stderr, "  %s -> %s\n", text, e.message);
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return rc;
}

static db *envelope(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    err_clear(&e);
    for (int first = 0; first < ENTITIES; first += BATCH) {
        buf b;
        buf_init(&b);
        buf_puts(&b, "(transact [");
        for (int i = first; i < first + BATCH; i++) {
            buf_printf(&b,
                       "[:p%d :name \"p%d\"] [:p%d :age %d] [:p%d :group %d] [:p%d :follows :p%d]",
                       i, i, i, i % 90, i, i % 100, i, (7919 * i + 1) % ENTITIES);
            if (i > 0)
                buf_printf(&b, " [:p%d :manager :p%d]", i, i / 10);
        }
        buf_puts(&b, "])");
        char *text = buf_detach(&b);
        CHECK(exec(d, text) == 0);
        free(text);
    }
    return d;
}

static const char *index_name(int index) {
    switch (index) {
    case TREE_EAVT: return "EAVT";
    case TREE_AEVT: return "AEVT";
    case TREE_AVET: return "AVET";
    case TREE_VAET: return "VAET";
    }
    return "?";
}

/* One conjunction's plan as text: per step "#item" and, for a pattern,
 * its join, index and known positions, e.g. "#1 nl AEVT(EA)". */
static void describe(buf *b, const plan_conj *c) {
    for (size_t step = 0; step < c->item_count; step++) {
        size_t i = c->order[step];
        const plan_item *it = &c->items[i];
        const plan_access *a = &it->access;
        buf_printf(b, "%s#%zu", step ? "; " : "", i);
        if (it->kind == PK_PATTERN || it->kind == PK_INVOKE ||
            (it->kind == PK_PSEUDO && it->correlate < 0))
            buf_printf(b, " %s %s(%s%s%s)", a->join == PLAN_JOIN_HASH ? "hash" : "nl",
                       index_name(plan_step_index(it)), a->known[0] ? "E" : "",
                       a->known[1] ? "A" : "", a->known[2] ? "V" : "");
        for (size_t k = 0; k < it->sub_count; k++) {
            buf_puts(b, " {");
            describe(b, it->subs[k].conj);
            buf_puts(b, "}");
        }
    }
}

/* A conjunction's plan as text (describe, slots_of). */
typedef void (*plan_printer)(buf *b, const plan_conj *c);

/* The plan of (query [:find `find` :where `where`]) over d, as `print`
 * has it. */
static char *print_plan(db *d, const char *find, const char *where, plan_printer print) {
    char text[1024];
    snprintf(text, sizeof text, "(query [:find %s :where %s])", find, where);
    arena a;
    arena_init(&a);
    command *cmd = NULL;
    err e = {0};
    store_reader *r = NULL;
    plan_query pq;
    buf b;
    buf_init(&b);
    if (datalog_parse(text, strlen(text), &a, &cmd, &e) != 0 ||
        store_reader_open(db_store(d), &r, &e) != 0 ||
        plan_compile_query(&cmd->as.query, r, NULL, &a, &pq, &e) != 0)
        buf_printf(&b, "error %s", e.message);
    else
        print(&b, pq.top);
    store_reader_close(r);
    err_clear(&e);
    arena_free(&a);
    return buf_detach(&b);
}

static void check_printed(db *d, const char *find, const char *where, plan_printer print,
                          const char *expected) {
    char *got = print_plan(d, find, where, print);
    bool ok = strcmp(got, expected) == 0;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s\n  expected: %s\n  got:      %s\n", where, expected, got);
    free(got);
}

static void check_plan(db *d, const char *find, const char *where, const char *expected) {
    check_printed(d, find, where, describe, expected);
}

/* A sole pattern seeks with every constant it has. */
static void test_single_patterns(db *d) {
    check_plan(d, "?a", "[:p5 :age ?a]", "#0 nl AEVT(EA)");
    check_plan(d, "?e", "[?e :name \"p7\"]", "#0 nl AVET(AV)");
    check_plan(d, "?e ?a", "[?e :age ?a]", "#0 nl AEVT(A)");
    check_plan(d, "?e", "[?e :manager :p3]", "#0 nl AVET(AV)");
    check_plan(d, "?v", "[:p5 ?a ?v]", "#0 nl EAVT(E)");
    /* A float value matches within an epsilon: no value seek. */
    check_plan(d, "?e", "[?e :age 7.0]", "#0 nl AEVT(AV)");
    check_plan(d, "?e ?a ?v", "[?e ?a ?v]", "#0 nl EAVT()");
}

/* The selective pattern first, whatever the source order; the next one
 * seeks through the variable it binds (index-nested-loop). */
static void test_order_by_selectivity(db *d) {
    const char *join_2 = "#0 nl AEVT(EA); #1 nl AEVT(EA)";
    check_plan(d, "?n", "[:p5 :follows ?f] [?f :name ?n]", join_2);
    check_plan(d, "?n", "[?f :name ?n] [:p5 :follows ?f]", "#1 nl AEVT(EA); #0 nl AEVT(EA)");
    check_plan(d, "?s ?n", "[:p50 :manager ?b] [?s :manager ?b] [?s :name ?n]",
               "#0 nl AEVT(EA); #1 nl AVET(AV); #2 nl AEVT(EA)");
    check_plan(d, "?s ?n", "[?s :name ?n] [?s :manager ?b] [:p50 :manager ?b]",
               "#2 nl AEVT(EA); #1 nl AVET(AV); #0 nl AEVT(EA)");
    /* 12 records of :group 3 against one :name. */
    check_plan(d, "?g", "[?e :group ?g] [?e :name \"p5\"]", "#1 nl AVET(AV); #0 nl AEVT(EA)");
    check_plan(d, "?e", "[?e :age 7] [?e :group 3]", "#1 nl AVET(AV); #0 nl AEVT(EAV)");
}

/* A hash join when neither the entity nor the value can seek: a value
 * known only as an entity's Ref (keywords naming it match too, E4), or
 * nothing shared at all (a cross product). */
static void test_hash_joins(db *d) {
    check_plan(d, "?x", "[?e :group 3] [?x :follows ?e]", "#0 nl AVET(AV); #1 hash AEVT(AV)");
    check_plan(d, "?n ?a", "[:p5 :name ?n] [?x :age ?a]", "#0 nl AEVT(EA); #1 hash AEVT(A)");
    /* Known as a stored value, the value seeks. */
    check_plan(d, "?s", "[:p50 :manager ?b] [?s :manager ?b]", "#0 nl AEVT(EA); #1 nl AVET(AV)");
}

/* Filters run as soon as their inputs are bound; sub-conjunctions are
 * planned with the outer variables they take as known. */
static void test_filters_and_subs(db *d) {
    check_plan(d, "?e", "[?e :group 3] [?e :age ?a] [(< ?a 10)]",
               "#0 nl AVET(AV); #1 nl AEVT(EA); #2");
    check_plan(d, "?e", "[?e :group 3] (not [?e :age 5])", "#0 nl AVET(AV); #1 {#0 nl AEVT(EAV)}");
    check_plan(d, "?e", "[?e :group 3] (or [?e :age 5] [?e :age 6])",
               "#0 nl AVET(AV); #1 {#0 nl AEVT(EAV)} {#0 nl AEVT(EAV)}");
}

/* A constant the store has never seen selects nothing: it goes first. */
static void test_unknown_constants(db *d) {
    check_plan(d, "?n", "[?e :name ?n] [?e :nickname \"x\"]", "#1 nl AVET(AV); #0 nl AEVT(EA)");
    check_plan(d, "?a", "[?e :age ?a] [:nobody :name ?n] [?e :name ?n]",
               "#1 nl AEVT(EA); #2 nl AVET(AV); #0 nl AEVT(EA)");
}

/* Rule plans (plan_compile_body with a derived-rows hint): a delta of
 * `delta_rows` rows read by the invocation of :boss, a demand relation
 * :d of `demand_rows` rows. */
typedef struct rule_sizes {
    size_t delta_rows, demand_rows;
} rule_sizes;

static size_t fake_derived_rows(const void *ctx, const plan_item *it, bool *instead) {
    const rule_sizes *sz = ctx;
    const value *a = &it->pc.pattern->a.constant;
    if (it->kind != PK_INVOKE || a->type != VT_KEYWORD)
        return 0;
    if (a->as.str.len == 5 && memcmp(a->as.str.ptr, ":boss", 5) == 0) {
        *instead = true;
        return sz->delta_rows;
    }
    return sz->demand_rows;
}

static char *rule_plan_of(db *d, const char *rule, rule_sizes sz) {
    arena a;
    arena_init(&a);
    command *cmd = NULL;
    err e = {0};
    store_reader *r = NULL;
    plan_conj *c = NULL;
    plan_hint hint = {fake_derived_rows, &sz, NULL, NULL};
    buf b;
    buf_init(&b);
    if (datalog_parse(rule, strlen(rule), &a, &cmd, &e) != 0 ||
        store_reader_open(db_store(d), &r, &e) != 0 ||
        plan_compile_body(&cmd->as.rule.body, false, r, &hint, &a, &c, &e) != 0)
        buf_printf(&b, "error %s", e.message);
    else
        describe(&b, c);
    store_reader_close(r);
    err_clear(&e);
    arena_free(&a);
    return buf_detach(&b);
}

/* A demand-guarded closure's delta round: reading the small delta first
 * would pair it with every demanded entity (a cross product), so the
 * demand goes first and every later step probes; when the step after
 * the delta is a join, not a cross product, the delta still goes first. */
static void test_rule_plans(db *d) {
    const char *guarded = "(rule [(boss ?x ?b) (d ?x) [?x :manager ?m] (boss ?m ?b)])";
    char *got = rule_plan_of(d, guarded, (rule_sizes){5, 6});
    const char *want = "#0 nl AEVT(A); #1 nl AEVT(EA); #2 nl AEVT(EA)";
    CHECK(strcmp(got, want) == 0);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  expected: %s\n  got:      %s\n", want, got);
    free(got);
    const char *plain = "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])";
    got = rule_plan_of(d, plain, (rule_sizes){5, 0});
    want = "#1 nl AEVT(A); #0 nl AVET(AV)";
    CHECK(strcmp(got, want) == 0);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  expected: %s\n  got:      %s\n", want, got);
    free(got);
}

/* store_index_for, the one choice of index that scans make and explain
 * reports: each set of fixed positions, its order and its key fields. */
static void test_index_for(void) {
    static const struct {
        store_fixed f;
        int order, fields;
    } cases[] = {
        {{0}, TREE_EAVT, 0},
        {{.e = true}, TREE_EAVT, 1},
        {{.e = true, .a = true}, TREE_AEVT, 2}, /* the same records as EAVT */
        {{.e = true, .a = true, .v = true}, TREE_AEVT, 3},
        {{.a = true}, TREE_AEVT, 1},
        {{.a = true, .v = true}, TREE_AVET, 2},
        {{.a = true, .v = true, .v_ref = true}, TREE_AVET, 2},
        {{.v = true}, TREE_EAVT, 0},
        {{.v = true, .v_ref = true}, TREE_VAET, 1},
        {{.e = true, .v = true, .v_ref = true}, TREE_EAVT, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fields = -1;
        CHECK(store_index_for(cases[i].f, &fields) == cases[i].order);
        CHECK(fields == cases[i].fields);
        CHECK(store_index_for(cases[i].f, NULL) == cases[i].order);
    }
}

/* The positions of each pattern (source order) that fill a slot, e.g.
 * "#0 v; #1 ev": plan_drop_unread leaves none to a variable nothing
 * reads. */
static void slots_of(buf *b, const plan_conj *c) {
    const char *sep = "";
    for (size_t i = 0; i < c->item_count; i++) {
        const plan_item *it = &c->items[i];
        if (it->kind != PK_PATTERN)
            continue;
        buf_printf(b, "%s#%zu ", sep, i);
        for (int pos = 0; pos < 3; pos++)
            if (it->slot[pos] >= 0)
                buf_printf(b, "%c", "eav"[pos]);
        sep = "; ";
    }
}

static void check_slots(db *d, const char *find, const char *where, const char *expected) {
    check_printed(d, find, where, slots_of, expected);
}

/* A variable that occurs once, in one pattern position, and that no
 * other clause, :find spec, :with or :order-by key reads fills no slot;
 * every other keeps its slot. */
static void test_unread_variables(db *d) {
    check_slots(d, "(count ?v)", "[?e ?a ?v]", "#0 v");
    check_slots(d, "?e ?a ?v", "[?e ?a ?v]", "#0 eav");
    check_slots(d, "?e", "[?e :age ?a]", "#0 e");
    check_slots(d, "(count ?v) :with ?e", "[?e :age ?v]", "#0 ev");
    check_slots(d, "?e", "[?e :age ?a] [(> ?a 30)]", "#0 ev");
    check_slots(d, "?e", "[?e :age ?a] (not [?e :group 3])", "#0 e");
    check_slots(d, "(count ?e)", "[?e :age ?a] (not-join [?a] [?x :age ?a] [?x :group 3])",
                "#0 ev");
    check_slots(d, "(count ?a)", "[?e :age ?a] (not [?x :group 3])", "#0 v");
    check_slots(d, "?g", "[?x :follows ?x] [?y :group ?g]", "#0 ev; #1 v");
    check_slots(d, "?x", "[?x :follows ?y] [?x :group _]", "#0 e; #1 e");
    check_slots(d, "?n", "[?e :name ?n] [?e :age ?a]", "#0 ev; #1 e");
    check_slots(d, "?e ?a :order-by [?a]", "[?e :age ?a] [?f :age ?b]", "#0 ev; #1 ");
    check_slots(d, "?e (rank :over (:partition-by ?g :order-by ?a))", "[?e :age ?a] [?e :group ?g]",
                "#0 ev; #1 ev");
}

int main(void) {
    test_index_for();
    db *d = envelope();
    test_rule_plans(d);
    test_single_patterns(d);
    test_order_by_selectivity(d);
    test_hash_joins(d);
    test_filters_and_subs(d);
    test_unknown_constants(d);
    test_unread_variables(d);
    db_close(d);
    return CHECK_DONE();
}
