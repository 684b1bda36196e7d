/* The Datalog parser against language.md §3, §4.1, §5, §8.1-§8.3 and §3. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "datalog/parse.h"

static int parse_ok(arena *a, const char *text, command **out) {
    err e = {0};
    int rc = datalog_parse(text, strlen(text), a, out, &e);
    if (rc)
        fprintf(stderr, "  unexpected error for %.60s: %s\n", text, e.message);
    err_clear(&e);
    return rc == 0;
}

/* Parsing `text` fails with `code` and a message starting with `msg`. */
static int parse_fails(const char *text, int code, const char *msg) {
    arena a;
    arena_init(&a);
    err e = {0};
    command *cmd = NULL;
    int rc = datalog_parse(text, strlen(text), &a, &cmd, &e);
    int ok = rc == code && e.code == code && e.message && strncmp(e.message, msg, strlen(msg)) == 0;
    if (!ok)
        fprintf(stderr, "  input %.70s: got %d %s\n", text, rc, e.message ? e.message : "(none)");
    err_clear(&e);
    arena_free(&a);
    return ok;
}

static void test_commands(void) {
    CHECK(parse_fails("", 1001, "[PRS-001] Unexpected end of input"));
    CHECK(parse_fails("()", 1012, "[PRS-012] Expected a list starting with a command symbol"));
    CHECK(parse_fails("[transact]", 1012, "[PRS-012]"));
    CHECK(parse_fails("\"abc", 1012, "[PRS-012]"));
    CHECK(parse_fails("(insert [[:a :b 1]])", 1011, "[PRS-011] Unknown command: insert"));
    CHECK(parse_fails("(:query [])", 1011, "[PRS-011] Unknown command: :query"));
    CHECK(parse_fails("(Query [])", 1011, "[PRS-011] Unknown command: Query"));
    CHECK(parse_fails("(42 [])", 1010, "[PRS-010] Expected command symbol"));
    CHECK(parse_fails("(\"query\" [])", 1010, "[PRS-010] Expected command symbol"));
    CHECK(parse_fails("(transact [[:e :a 1]]) (transact [[:e :a 2]])", 1076,
                      "[PRS-076] Unexpected trailing input"));
}

static void test_transact(void) {
    arena a;
    arena_init(&a);
    command *c;
    CHECK(parse_ok(&a, "(transact [[:alice :person/name \"Alice\"] [:alice :age 30]])", &c));
    CHECK(c->kind == CMD_TRANSACT && c->as.write.count == 2);
    CHECK(!c->as.write.has_valid_from && !c->as.write.has_valid_to);
    CHECK(edn_is_keyword(c->as.write.facts[0].e, ":alice"));
    CHECK(edn_is_keyword(c->as.write.facts[0].a, ":person/name"));
    CHECK(c->as.write.facts[1].v->kind == EDN_INTEGER && c->as.write.facts[1].v->as.i == 30);
    CHECK(parse_ok(&a, "(transact [])", &c) && c->as.write.count == 0);
    CHECK(parse_ok(&a,
                   "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"}\n"
                   "  [[:carol :emp/status :active] [:x :y 1 {:valid-to \"2024-01-01\"}]])",
                   &c));
    const ast_write *w = &c->as.write;
    CHECK(w->has_valid_from && w->valid_from == 1672531200000 && w->has_valid_to &&
          w->valid_to == 1688083200000);
    CHECK(!w->facts[0].has_valid_from && !w->facts[0].has_valid_to);
    CHECK(!w->facts[1].has_valid_from && w->facts[1].has_valid_to &&
          w->facts[1].valid_to == 1704067200000);
    CHECK(parse_ok(&a, "(transact {} [[:a :b 1 {}]])", &c) && !c->as.write.has_valid_from &&
          !c->as.write.facts[0].has_valid_to);
    /* Repeated key: the last one wins. Conversion of E/A/V is not the parser's. */
    CHECK(parse_ok(&a,
                   "(transact [[\"s\" 1 ?v {:valid-from \"2020-01-01\" :valid-from "
                   "\"2024-01-15T10:00:00Z\"}]])",
                   &c) &&
          c->as.write.facts[0].valid_from == 1705312800000);
    arena_free(&a);

    CHECK(parse_fails("(transact)", 1041, "[PRS-041] Transact requires a vector of facts"));
    CHECK(parse_fails("(transact {:valid-from \"2023-01-01\"})", 1048,
                      "[PRS-048] Transact with options requires a facts vector after the map"));
    CHECK(parse_fails("(transact (:a :b 1))", 1042,
                      "[PRS-042] Transact argument must be a vector of facts"));
    CHECK(parse_fails("(transact {} {})", 1042, "[PRS-042]"));
    CHECK(parse_fails("(transact [(:a :b 1)])", 1045,
                      "[PRS-045] Each fact must be a vector [e a v] or [e a v {opts}]"));
    CHECK(parse_fails("(transact [[:alice :person/name]])", 1046,
                      "[PRS-046] Fact must have at least 3 elements (E A V), got 2"));
    CHECK(parse_fails("(transact [[:a :b 1 2]])", 1047,
                      "[PRS-047] Optional 4th element of a fact must be a map {:valid-from ... "
                      ":valid-to ...}, got Integer(2)"));
    CHECK(parse_fails("(transact [[:a :b 1 {} 5]])", 1047, "[PRS-047] A fact has at most 4"));
    CHECK(parse_fails("(transact {:valid-from 5} [])", 1019, "[PRS-019]"));
    CHECK(parse_fails("(transact [[:a :b 1 {:valid-to :x}]])", 1020, "[PRS-020]"));
    CHECK(parse_fails("(transact {:valid-at \"2020-01-01\"} [])", 1077,
                      "[PRS-077] Unknown key in valid-time map: Keyword(:valid-at); expected "
                      ":valid-from or :valid-to"));
    CHECK(parse_fails("(transact [[:a :b 1 {:valid-from \"2023-02-30\"}]])", 1075,
                      "[PRS-075] invalid date '2023-02-30'"));
    CHECK(
        parse_fails("(transact {:valid-to \"2024-01-15T10:00:00+01:00\"} [])", 1075,
                    "[PRS-075] timezone offsets are not supported; use UTC (Z) timestamps only."));
    CHECK(parse_fails("(transact [[:e :a 1]] extra)", 1076,
                      "[PRS-076] Unexpected trailing argument(s) in (transact ...)"));
    CHECK(parse_fails("(transact [[#uuid \"nope\" :a 1]])", 1072, "[PRS-072] Invalid UUID"));
    CHECK(parse_fails("(transact [[#ref \"550e8400-e29b-41d4-a716-446655440000\" :a 1]])", 1073,
                      "[PRS-073] Unknown tagged literal: #ref"));
    CHECK(parse_fails("(transact [[:a :n 99999999999999999999]])", 1076,
                      "[PRS-076] Integer literal out of range: 99999999999999999999"));
}

static void test_retract(void) {
    arena a;
    arena_init(&a);
    command *c;
    CHECK(parse_ok(&a, "(retract [[:alice :age 30] [:bob :age 25]])", &c));
    CHECK(c->kind == CMD_RETRACT && c->as.write.count == 2 && c->as.write.facts[1].v->as.i == 25);
    CHECK(parse_ok(&a, "(retract [])", &c) && c->as.write.count == 0);
    arena_free(&a);
    CHECK(parse_fails("(retract)", 1043, "[PRS-043] Retract requires a vector of facts"));
    CHECK(parse_fails("(retract {} [])", 1044, "[PRS-044] Retract argument must be a vector"));
    CHECK(parse_fails("(retract [:a])", 1045, "[PRS-045] Each fact must be a vector [e a v]"));
    CHECK(parse_fails("(retract [[:alice :person/name \"A\" \"x\"]])", 1077,
                      "[PRS-077] Pattern must have exactly 3 elements (E A V), got 4"));
    CHECK(parse_fails("(retract [[:a :b 1 {}]])", 1077, "[PRS-077] Pattern must have exactly 3"));
    CHECK(parse_fails("(retract [] [])", 1076, "[PRS-076] Unexpected trailing argument(s)"));
}

static void test_query_sections(void) {
    arena a;
    arena_init(&a);
    command *c;
    CHECK(parse_ok(&a, "(query [:find ?n ?a :where [?e :person/name ?n] [?e :age ?a]])", &c));
    const ast_query *q = &c->as.query;
    CHECK(c->kind == CMD_QUERY && q->find_count == 2 && q->where_count == 2);
    CHECK(q->find[0].kind == TERM_VAR && q->find[0].name_len == 2 &&
          memcmp(q->find[0].name, "?n", 2) == 0);
    CHECK(q->as_of == AS_OF_NONE && q->valid == VALID_NOW);
    /* Order-free, interleaved and repeated sections; last :as-of wins. */
    CHECK(parse_ok(
        &a, "(query [:where [?e :a ?x] :find ?x :as-of 3 ?e :where [?e :b ?y] :as-of 5])", &c));
    q = &c->as.query;
    CHECK(q->find_count == 2 && q->where_count == 2 && q->as_of == AS_OF_COUNTER &&
          q->as_of_value == 5);
    CHECK(parse_ok(&a, "(query [:find ?x :as-of \"2024-01-15T10:00:00Z\" :where [?x :a 1]])", &c));
    CHECK(c->as.query.as_of == AS_OF_TIME && c->as.query.as_of_value == 1705312800000);
    CHECK(parse_ok(&a, "(query [:find ?x :as-of 0 :where [?x :a 1]])", &c) &&
          c->as.query.as_of == AS_OF_COUNTER && c->as.query.as_of_value == 0);
    CHECK(parse_ok(&a, "(query [:find ?x :valid-at \"2023-03-01\" :where [?x :a 1]])", &c));
    CHECK(c->as.query.valid == VALID_AT && c->as.query.valid_at == 1677628800000);
    CHECK(parse_ok(&a, "(query [:find ?x :valid-at :any-valid-time :where [?x :a 1]])", &c) &&
          c->as.query.valid == VALID_ANY);
    CHECK(parse_ok(&a, "(query [:find ?x :any-valid-time :where [?x :a 1]])", &c) &&
          c->as.query.valid == VALID_ANY);
    CHECK(parse_ok(&a,
                   "(query [:find ?x :any-valid-time :valid-at \"1969-12-31\" :where [?x :a 1]])",
                   &c) &&
          c->as.query.valid == VALID_AT && c->as.query.valid_at == -86400000);
    /* No :where: left for the executor to report. */
    CHECK(parse_ok(&a, "(query [])", &c) && c->as.query.where_count == 0);
    CHECK(parse_ok(&a, "(query [:find ?x])", &c) && c->as.query.find_count == 1 &&
          c->as.query.where_count == 0);
    CHECK(parse_ok(&a, "(query [:find :where [?x :a 1]])", &c) && c->as.query.find_count == 0);
    CHECK(parse_ok(&a, "(query [:find ?x ?x :where [?x :a 1]])", &c) &&
          c->as.query.find_count == 2);
    arena_free(&a);

    CHECK(parse_fails("(query)", 1013, "[PRS-013] Query requires a map argument"));
    CHECK(parse_fails("(query {:find [?x] :where [[?x :a 1]]})", 1077,
                      "[PRS-077] Query argument must be a vector"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1]] :max-results 5)", 1076,
                      "[PRS-076] Unexpected trailing argument(s) in (query ...)"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :as-of])", 1014, "[PRS-014]"));
    CHECK(parse_fails("(query [:find ?x :as-of -1 :where [?x :a 1]])", 1015,
                      "[PRS-015] :as-of counter must be non-negative, got -1"));
    CHECK(parse_fails("(query [:find ?x :as-of 1.5 :where [?x :a 1]])", 1016, "[PRS-016]"));
    CHECK(parse_fails("(query [:find ?x :as-of :where [?x :a 1]])", 1016, "[PRS-016]"));
    CHECK(parse_fails("(query [:find ?x :as-of \"2024-01-15T10:00:00\" :where [?x :a 1]])", 1075,
                      "[PRS-075] invalid UTC timestamp '2024-01-15T10:00:00'"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :valid-at])", 1017, "[PRS-017]"));
    CHECK(parse_fails("(query [:find ?x :valid-at 5 :where [?x :a 1]])", 1018, "[PRS-018]"));
    CHECK(parse_fails("(query [:find ?x :valid-at :now :where [?x :a 1]])", 1018, "[PRS-018]"));
    CHECK(parse_fails("(query [:find ?x :in $ ?y :where [?x :a 1]])", 1076,
                      "[PRS-076] Bind slot '$' must be followed"));
    CHECK(parse_fails("(query [:find ?x :in ?y :where [?x :a 1]])", 1061,
                      "[PRS-061] Unexpected element in query: Symbol(?y)"));
    CHECK(parse_fails("(query [?x :find ?x :where [?x :a 1]])", 1061,
                      "[PRS-061] Unexpected element in query: Symbol(?x)"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a 1] :frobnicate])", 1077,
                      "[PRS-077] Unknown section keyword in query: :frobnicate"));
    CHECK(parse_fails("(query [:find ?x :where [?x :a :b] :max-results 0])", 1077,
                      "[PRS-077] :max-results must be >= 1, got 0"));
}

static void test_find(void) {
    CHECK(parse_fails("(query [:find _ :where [?x :a 1]])", 1077,
                      "[PRS-077] Expected variable or aggregate expression in :find clause, got "
                      "Symbol(_)"));
    /* :a is read as a section keyword with nothing in it. */
    CHECK(parse_fails("(query [:find :a :where [?x :a 1]])", 1077,
                      "[PRS-077] Unknown section keyword in query: :a"));
    CHECK(parse_fails("(query [:find 1 :where [?x :a 1]])", 1077,
                      "[PRS-077] Expected variable or aggregate expression in :find clause, got "
                      "Integer(1)"));
    CHECK(parse_fails("(query [:find $x :where [?x :a 1]])", 1077, "[PRS-077] Expected variable"));
    CHECK(parse_fails("(query [:find (count ?x ?y) :where [?x :a ?y]])", 1024, "[PRS-024]"));
    CHECK(parse_fails("(query [:find () :where [?x :a ?y]])", 1024, "[PRS-024]"));
    CHECK(parse_fails("(query [:find (1 ?x) :where [?x :a ?y]])", 1025, "[PRS-025]"));
    CHECK(parse_fails("(query [:find (count x) :where [?x :a ?y]])", 1026, "[PRS-026]"));
    CHECK(parse_fails("(query [:find ?y :where [?x :a 1]])", 1080,
                      "[PRS-080] variable ?y in :find is not bound"));
    CHECK(parse_fails("(query [:find ?_x :where [?_x :a 1]])", 1080, "[PRS-080]"));
}

static int term_is(const term *t, term_kind k) {
    return t->kind == k;
}

static void test_patterns_terms(void) {
    arena a;
    arena_init(&a);
    command *c;
    CHECK(
        parse_ok(&a,
                 "(query [:find ?e :where [?e :a/b \"s\"] [?e _ 42] [?_w ?_z 1.5] [?e :k true]"
                 " [?e :k nil] [?e :k :bob] [#uuid \"550e8400-e29b-41d4-a716-446655440000\" :k ?e]"
                 " [?e :k foo] [?e :k [1]] [?e :k (f)] [?e :k {}] [?e :db/valid-from ?e]])",
                 &c));
    const ast_pattern *p = c->as.query.where;
    CHECK(c->as.query.where_count == 12);
    CHECK(term_is(&p[0].e, TERM_VAR) && p[0].e.name_len == 2);
    CHECK(term_is(&p[0].a, TERM_CONST) && p[0].a.constant.type == VT_KEYWORD &&
          p[0].a.constant.as.str.len == 4);
    CHECK(p[0].v.constant.type == VT_STRING && memcmp(p[0].v.constant.as.str.ptr, "s", 1) == 0);
    CHECK(term_is(&p[1].a, TERM_WILDCARD) && p[1].v.constant.type == VT_INTEGER &&
          p[1].v.constant.as.i == 42);
    CHECK(term_is(&p[2].e, TERM_WILDCARD) && term_is(&p[2].a, TERM_WILDCARD) &&
          p[2].v.constant.type == VT_FLOAT && p[2].v.constant.as.f == 1.5);
    CHECK(p[3].v.constant.type == VT_BOOLEAN && p[3].v.constant.as.b);
    CHECK(p[4].v.constant.type == VT_NULL);
    CHECK(p[5].v.constant.type == VT_KEYWORD);
    CHECK(term_is(&p[6].e, TERM_CONST) && p[6].e.constant.type == VT_REF &&
          p[6].e.constant.as.ref.bytes[0] == 0x55);
    for (int i = 7; i <= 10; i++)
        CHECK(term_is(&p[i].v, TERM_NEVER));
    CHECK(term_is(&p[11].a, TERM_CONST)); /* pseudo-attribute: attribute position is fine */
    arena_free(&a);

    CHECK(parse_fails("(query [:find ?e :where [?e :a]])", 1077,
                      "[PRS-077] Pattern must have exactly 3 elements (E A V), got 2"));
    CHECK(parse_fails("(query [:find ?e :where []])", 1077,
                      "[PRS-077] Pattern must have exactly 3 elements (E A V), got 0"));
    CHECK(parse_fails("(query [:find ?n :where [?e :a $]])", 1076,
                      "[PRS-076] Bind slot '$' must be followed by an identifier (e.g. $entity)"));
    CHECK(parse_fails("(query [:find ?e :where [:db/valid-from :a ?e]])", 1077,
                      "[PRS-077] pseudo-attribute :db/valid-from is not valid in entity position"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a :db/tx-id]])", 1077,
                      "[PRS-077] pseudo-attribute :db/tx-id is not valid in value position"));
}

static void test_where_other_clauses(void) {
    CHECK(
        parse_fails("(query [:find ?e :where ()])", 1050, "[PRS-050] Empty list in :where clause"));
    CHECK(parse_fails("(query [:find ?e :where 42])", 1060, "[PRS-060]"));
    CHECK(parse_fails("(query [:find ?e :where :a])", 1077, "[PRS-077] Unknown section keyword"));
    CHECK(parse_fails("(query [:find ?e :where \"s\"])", 1060, "[PRS-060]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a ?v] [() ?w]])", 1062, "[PRS-062]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a ?v] [(1 ?v)]])", 1063,
                      "[PRS-063] expression head must be a symbol, got Integer(1)"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a ?v] [(+ ?v 1) ?w ?z]])", 1068, "[PRS-068]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a ?v] [(+ ?v 1) 5]])", 1069, "[PRS-069]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a ?v] (not)])", 1052, "[PRS-052]"));
    CHECK(parse_fails("(query [:find ?e :where (or)])", 1053, "[PRS-053]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (not-join [?e])])", 1059, "[PRS-059]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or-join [?e])])", 1054, "[PRS-054]"));
    CHECK(parse_fails("(query [:find ?e :where [?e :a 1] (or-join ?e [?e :b 1])])", 1055,
                      "[PRS-055]"));
    CHECK(parse_fails("(query [:find ?e :where (and [?e :a 1])])", 1080, "[PRS-080]"));
    CHECK(parse_fails("(query [:find ?e :where (:kw ?e)])", 1077,
                      "[PRS-077] Rule invocation must start with predicate name (symbol), got "
                      "Keyword(:kw)"));
}

static void test_memory_on_error_paths(void) {
    /* Every prefix of a valid command fails or succeeds without leaking
     * (run under ASan/LSan). */
    const char *text = "(transact {:valid-from \"2023-01-01\"} [[:a :b \"x\" {:valid-to "
                       "\"2024-01-01\"}] [#uuid \"550e8400-e29b-41d4-a716-446655440000\" :c 1.5]])";
    size_t n = strlen(text);
    int failures = 0;
    for (size_t len = 0; len <= n; len++) {
        arena a;
        arena_init(&a);
        err e = {0};
        command *c;
        int rc = datalog_parse(text, len, &a, &c, &e);
        if ((rc == 0) != (len == n) || (rc != 0 && !e.message))
            failures++;
        err_clear(&e);
        arena_free(&a);
    }
    CHECK(failures == 0);
}

/* Only the head is looked at, and only blanks may come before it. */
static void test_looks_like_write(void) {
    static const char *yes[] = {"(transact [[:p :a 1]])", " ,\n\t( retract [[:p :a 1]])",
                                "(transact", "(retract]"};
    static const char *no[] = {"(query [:find ?a :where [?e :a ?a]])",
                               "(rule [(r ?x) [?x :a 1]])",
                               "; c\n(transact [[:p :a 1]])",
                               "[transact]",
                               "(transac",
                               "",
                               "("};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        CHECK(datalog_looks_like_write(yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        CHECK(!datalog_looks_like_write(no[i], strlen(no[i])));
    CHECK(!datalog_looks_like_write("(transact", 8)); /* the length bounds it, not a NUL */
}

int main(void) {
    test_commands();
    test_looks_like_write();
    test_transact();
    test_retract();
    test_query_sections();
    test_find();
    test_patterns_terms();
    test_where_other_clauses();
    test_memory_on_error_paths();
    return CHECK_DONE();
}
