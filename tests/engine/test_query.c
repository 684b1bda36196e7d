/* Tests of the query executor and the database object: the spec's
 * conformance scenarios language.md §8.4-§7.4 (the parts this version supports), the
 * visibility rule of language.md §7.4, matching (language.md §8.3.2), joins and representation
 * (language.md §8.4, §8.12), the write path's conversions and errors (4, 5), and the
 * executor's own checks on hand-built queries. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "check.h"
#include "db/db.h"
#include "exec/query.h"
#include "model/timestamp.h"
#include "store/store.h"

/* ---- rendering results as sorted text (row order is unspecified) -------- */

static void render_value(buf *b, const value *v) {
    char u[UUID_TEXT_LEN + 1];
    switch (v->type) {
    case VT_STRING: buf_printf(b, "\"%.*s\"", (int)v->as.str.len, v->as.str.ptr); break;
    case VT_KEYWORD: buf_printf(b, "%.*s", (int)v->as.str.len, v->as.str.ptr); break;
    case VT_INTEGER: buf_printf(b, "%" PRId64, v->as.i); break;
    case VT_FLOAT: buf_printf(b, "%gf", v->as.f); break;
    case VT_BOOLEAN: buf_puts(b, v->as.b ? "true" : "false"); break;
    case VT_REF:
        uuid_format(&v->as.ref, u);
        buf_puts(b, u);
        break;
    case VT_NULL: buf_puts(b, "nil"); break;
    case VT_LIST:
        buf_putc(b, '[');
        for (size_t i = 0; i < v->as.list.count; i++) {
            buf_puts(b, i ? " " : "");
            render_value(b, &v->as.list.items[i]);
        }
        buf_putc(b, ']');
        break;
    }
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "[a b] [c d]" with rows sorted. */
static char *render_rows(const result_set *r) {
    size_t n = result_row_count(r), cols = result_column_count(r);
    char **rows = calloc(n + 1, sizeof *rows);
    for (size_t i = 0; i < n; i++) {
        buf b;
        buf_init(&b);
        buf_putc(&b, '[');
        for (size_t c = 0; c < cols; c++) {
            if (c)
                buf_putc(&b, ' ');
            render_value(&b, &result_row(r, i)[c]);
        }
        buf_putc(&b, ']');
        rows[i] = buf_detach(&b);
    }
    qsort(rows, n, sizeof *rows, compare_strings);
    buf all;
    buf_init(&all);
    buf_puts(&all, "");
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_putc(&all, ' ');
        buf_puts(&all, rows[i]);
        free(rows[i]);
    }
    free(rows);
    return buf_detach(&all);
}

/* ---- running commands ------------------------------------------------- */

static int exec(db *d, const char *text) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    if (rc != 0 && getenv("MG_TEST_VERBOSE"))
        fprintf(stderr, "  %s -> %s\n", text, e.message);
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return rc;
}

static bool query_is(db *d, const char *text, const char *expected) {
    db_result r = {0};
    err e = {0};
    if (db_execute(d, text, strlen(text), &r, &e) != 0 || r.kind != DB_RESULT_QUERY) {
        fprintf(stderr, "  query failed: %s\n  -> %s\n", text,
                e.message ? e.message : "(not a query)");
        err_clear(&e);
        return false;
    }
    char *got = render_rows(r.rows);
    bool ok = strcmp(got, expected) == 0;
    if (!ok)
        fprintf(stderr, "  %s\n  expected: %s\n  got:      %s\n", text, expected, got);
    free(got);
    result_free(r.rows);
    return ok;
}

/* The error's full "[CODE] message" starts with `prefix`. */
static bool fails_with(db *d, const char *text, const char *prefix) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    bool ok = rc != 0 && e.message && strncmp(e.message, prefix, strlen(prefix)) == 0;
    if (!ok)
        fprintf(stderr, "  %s\n  expected error: %s\n  got: %s\n", text, prefix,
                rc ? e.message : "success");
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return ok;
}

static db *open_memory(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    err_clear(&e);
    return d;
}

#define ALICE "e340ebba-e050-5d3b-8c2e-5388ce184a79"
#define BOB "2340101d-cda1-5ebe-a64b-0d27506374ef"

/* ---- language.md §8.4 ---------------------------------------------------------------- */

static void test_b1_basic_facts_joins_keyword_references(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30] [:alice "
                  ":friend :bob]"
                  " [:bob :person/name \"Bob\"] [:bob :person/age 25]])") == 0);
    CHECK(query_is(
        d, "(query [:find ?name ?age :where [?e :person/name ?name] [?e :person/age ?age]])",
        "[\"Alice\" 30] [\"Bob\" 25]"));
    CHECK(query_is(d, "(query [:find ?e :where [?e :person/name \"Alice\"]])", "[" ALICE "]"));
    CHECK(query_is(d, "(query [:find ?f :where [:alice :friend ?f]])", "[:bob]"));
    CHECK(query_is(d, "(query [:find ?n :where [:alice :friend ?f] [?f :person/name ?n]])",
                   "[\"Bob\"]"));
    CHECK(query_is(d, "(query [:find ?e :where [?e :friend #uuid \"" BOB "\"]])", "[" ALICE "]"));
    CHECK(query_is(d, "(query [:find ?e :where [?e :person/age 30.0]])", ""));
    CHECK(query_is(d, "(query [:find ?x :where [?e :no/such ?x]])", ""));
    CHECK(fails_with(d, "(query [:find ?x])",
                     "[PRS-077] query has no :where clause, rules, or aggregates"));
    CHECK(fails_with(d, "(query [])", "[PRS-077]"));
    /* language.md D12: the representation comes from the first clause in source order. */
    CHECK(query_is(d, "(query [:find ?f :where [:alice :friend ?f] [?f :person/name ?n]])",
                   "[:bob]"));
    CHECK(query_is(d, "(query [:find ?f :where [?f :person/name \"Bob\"] [:alice :friend ?f]])",
                   "[" BOB "]"));
    db_close(d);
}

/* ---- language.md §7.4 ---------------------------------------------------------------- */

static void test_b2_transaction_time_and_retraction(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:k :v 1]])") == 0);
    CHECK(exec(d, "(retract [[:k :v 1]])") == 0);
    CHECK(exec(d, "(transact [[:k :v 2]])") == 0);
    CHECK(db_tx_count(d) == 3);
    CHECK(query_is(d, "(query [:find ?v :where [:k :v ?v]])", "[2]"));
    CHECK(query_is(d, "(query [:find ?v :as-of 1 :where [:k :v ?v]])", "[1]"));
    CHECK(query_is(d, "(query [:find ?v :as-of 2 :where [:k :v ?v]])", ""));
    CHECK(query_is(d, "(query [:find ?v :as-of 0 :where [:k :v ?v]])", ""));
    CHECK(fails_with(d, "(query [:find ?v :as-of -1 :where [:k :v ?v]])", "[PRS-015]"));
    CHECK(query_is(d, "(query [:find ?t :any-valid-time :where [:k :v ?v] [:k :db/tx-count ?t]])",
                   "[3]"));
    CHECK(fails_with(
        d, "(query [:find ?t :where [:k :v ?v] [:k :db/tx-count ?t]])",
        "[QRY-013] temporal pseudo-attributes :db/valid-from, :db/valid-to, :db/tx-count, "
        "and :db/tx-id require :any-valid-time; add :any-valid-time to your query"));
    CHECK(exec(d, "(retract [[:k :v 99]])") == 0);
    CHECK(db_tx_count(d) == 4);
    CHECK(exec(d, "(transact [])") == 0);
    CHECK(db_tx_count(d) == 5);
    db_close(d);
}

static void test_retraction_is_exact_and_reassertion_revives(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:a :n 30] [:a :n 30.0] [:a :r :bob] [:a :r #uuid \"" BOB "\"]])") ==
          0);
    CHECK(exec(d, "(retract [[:a :n 30.0] [:a :r :bob]])") == 0);
    CHECK(query_is(d, "(query [:find ?v :where [:a :n ?v]])", "[30]"));
    CHECK(query_is(d, "(query [:find ?v :where [:a :r ?v]])", "[" BOB "]"));
    CHECK(exec(d, "(transact [[:a :n 30.0]])") == 0);
    CHECK(query_is(d, "(query [:find ?v :where [:a :n ?v]])", "[30] [30f]"));
    CHECK(query_is(d, "(query [:find ?v :as-of 2 :where [:a :n ?v]])", "[30]"));
    db_close(d);
}

/* ---- language.md §7.4 ---------------------------------------------------------------- */

static void test_b3_valid_time(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol "
                  ":emp/status :active]])") == 0);
    CHECK(exec(d, "(transact {:valid-from \"2023-06-30\"} [[:carol :emp/status :alumni]])") == 0);
    CHECK(query_is(d, "(query [:find ?s :valid-at \"2023-03-01\" :where [:carol :emp/status ?s]])",
                   "[:active]"));
    CHECK(query_is(d, "(query [:find ?s :valid-at \"2023-06-30\" :where [:carol :emp/status ?s]])",
                   "[:alumni]"));
    CHECK(query_is(d, "(query [:find ?s :where [:carol :emp/status ?s]])", "[:alumni]"));
    CHECK(query_is(d, "(query [:find ?s :any-valid-time :where [:carol :emp/status ?s]])",
                   "[:active] [:alumni]"));
    CHECK(query_is(d, "(query [:find ?s :valid-at :any-valid-time :where [:carol :emp/status ?s]])",
                   "[:active] [:alumni]"));
    CHECK(fails_with(
        d,
        "(query [:find ?s :valid-at \"2023-03-01T10:00:00+02:00\" :where [:carol :emp/status ?s]])",
        "[")); /* timezone offsets are rejected (by the parser) */
    CHECK(query_is(
        d, "(query [:find ?s :as-of 1 :valid-at \"2024-01-01\" :where [:carol :emp/status ?s]])",
        ""));
    CHECK(query_is(
        d, "(query [:find ?s :as-of 2 :valid-at \"2024-01-01\" :where [:carol :emp/status ?s]])",
        "[:alumni]"));
    CHECK(query_is(
        d,
        "(query [:find ?s :valid-at \"2022-12-31T23:59:59.999Z\" :where [:carol :emp/status ?s]])",
        ""));
    CHECK(query_is(d, "(query [:find ?s :valid-at \"2023-01-01\" :where [:carol :emp/status ?s]])",
                   "[:active]"));
    db_close(d);
}

static void test_new_window_replaces_old_one_v3(void) {
    db *d = open_memory();
    CHECK(
        exec(d, "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} [[:x :s :on]])") ==
        0);
    CHECK(exec(d, "(transact {:valid-from \"2022-01-01\"} [[:x :s :on]])") == 0);
    CHECK(query_is(d, "(query [:find ?s :valid-at \"2020-06-01\" :where [:x :s ?s]])", ""));
    CHECK(query_is(d, "(query [:find ?s :valid-at \"2020-06-01\" :as-of 1 :where [:x :s ?s]])",
                   "[:on]"));
    CHECK(query_is(d, "(query [:find ?s :any-valid-time :where [:x :s ?s]])", "[:on]"));
    CHECK(query_is(d, "(query [:find ?s :where [:x :s ?s]])", "[:on]"));
    db_close(d);
}

static void test_as_of_timestamp(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact {:valid-from \"2020-01-01\"} [[:x :n 1]])") == 0);
    CHECK(query_is(d, "(query [:find ?n :as-of \"2020-01-01\" :where [:x :n ?n]])", ""));
    CHECK(query_is(d, "(query [:find ?n :as-of \"2999-01-01\" :where [:x :n ?n]])", "[1]"));
    db_close(d);
}

/* ---- matching and joins ------------------------------------------------- */

static void test_multi_valued_attributes_and_bag_semantics(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:alice :tag \"x\"] [:alice :tag \"y\"] [:p1 :name \"Alice\"] [:p2 "
                  ":name \"Alice\"]])") == 0);
    CHECK(query_is(d, "(query [:find ?t :where [:alice :tag ?t]])", "[\"x\"] [\"y\"]"));
    CHECK(query_is(d, "(query [:find ?n :where [?e :name ?n]])", "[\"Alice\"] [\"Alice\"]"));
    CHECK(exec(d, "(transact [[:alice :age 30]])") == 0);
    CHECK(exec(d, "(transact [[:alice :age 31]])") == 0); /* no cardinality-one */
    CHECK(query_is(d, "(query [:find ?a :where [:alice :age ?a]])", "[30] [31]"));
    CHECK(query_is(d, "(query [:find ?e ?e :where [?e :age 31]])", "[" ALICE " " ALICE "]"));
    CHECK(query_is(d, "(query [:find :where [?e :age 31]])", "[]"));
    db_close(d);
}

static void test_repeated_variable_in_one_pattern_is_strict(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:a :self :a] [:b :self #uuid "
                  "\"9f1d2640-cbed-5dbd-8614-24c5d9f2daf7\"]])") == 0);
    CHECK(query_is(d, "(query [:find ?x :where [?x :self ?x]])",
                   "[9f1d2640-cbed-5dbd-8614-24c5d9f2daf7]"));
    /* across patterns, E2 joins keyword and ref */
    CHECK(
        query_is(d, "(query [:find ?x :where [?x :self _] [_ :self ?x]])",
                 "[9f1d2640-cbed-5dbd-8614-24c5d9f2daf7] [ddac7794-6537-5d40-a911-e7998b77f717]"));
    CHECK(query_is(d, "(query [:find ?x :where [_ :self ?x] [?x :self _]])",
                   "[9f1d2640-cbed-5dbd-8614-24c5d9f2daf7] [:a]"));
    db_close(d);
}

static void test_constant_matching_e4(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:a :f 0.30000000000000004] [:a :i 1] [:a :b true] [:a :z nil] [:a "
                  ":s \":bob\"]"
                  " [:a :k :bob]])") == 0);
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a 0.3]])", "[:f]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a 1]])", "[:i]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a true]])", "[:b]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a nil]])", "[:z]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a :bob]])", "[:k]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a #uuid \"" BOB "\"]])", "[:k]"));
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a \":bob\"]])", "[:s]"));
    CHECK(query_is(
        d, "(query [:find ?v :where [#uuid \"ddac7794-6537-5d40-a911-e7998b77f717\" :i ?v]])",
        "[1]"));
    CHECK(query_is(d, "(query [:find ?v :where [\"a\" :i ?v]])", ""));
    CHECK(query_is(d, "(query [:find ?v :where [:a \":i\" ?v]])", ""));
    /* E4 in attribute position: a #uuid constant matches the attribute keyword it names */
    CHECK(query_is(
        d, "(query [:find ?v :where [:a #uuid \"8f39052f-803f-5f98-9625-2f7b2a4fcf2f\" ?v]])",
        "[1]"));
    CHECK(query_is(d, "(query [:find ?v :where [:a :i ?v] [foo :i ?v]])", ""));
    CHECK(query_is(d, "(query [:find ?v :where [:a ?_x ?v] [?_x :i ?v]])", "[1]")); /* no join */
    CHECK(query_is(d, "(query [:find ?a :where [:a ?a ?_v] [:a :i 1]])",
                   "[:b] [:f] [:i] [:k] [:s] [:z]"));
    db_close(d);
}

static void test_variable_attribute_and_full_scans(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:a :x 1] [:b :y 1] [:c :x 2]])") == 0);
    CHECK(query_is(d, "(query [:find ?e ?a :where [?e ?a 1] [?e :x _]])",
                   "["
                   "ddac7794-6537-5d40-a911-e7998b77f717 :x]"));
    CHECK(query_is(d, "(query [:find ?v :where [_ _ ?v]])", "[1] [1] [2]"));
    CHECK(query_is(d, "(query [:find ?a1 :where [:a ?a1 ?v] [:b ?a2 ?v]])", "[:x]"));
    db_close(d);
}

/* ---- write path --------------------------------------------------------- */

static void test_write_conversion_errors_write_nothing(void) {
    db *d = open_memory();
    CHECK(fails_with(
        d, "(transact [[\"alice\" :n 1]])",
        "[INT-001] invalid entity: Expected keyword or UUID for entity, got String(\"alice\")"));
    CHECK(fails_with(d, "(transact [[:a :ok 1] [42 :n 1]])", "[INT-001]"));
    CHECK(fails_with(d, "(transact [[:a \"n\" 1]])", "[API-003] attribute must be a keyword"));
    CHECK(fails_with(d, "(transact [[:a :db/tx-count 1]])", "[API-004]"));
    CHECK(fails_with(d, "(retract [[:a :db/valid-from 1]])", "[API-004]"));
    CHECK(fails_with(d, "(transact [[:a :n ?x]])", "[INT-002] invalid value: Cannot convert"));
    CHECK(fails_with(d, "(transact [[:a :n [1 2]]])", "[INT-002]"));
    CHECK(fails_with(d, "(retract [[:a :n {}]])", "[INT-002]"));
    CHECK(fails_with(d,
                     "(transact {:valid-from \"2024-01-01\" :valid-to \"2023-01-01\"} [[:a :n 1]])",
                     "[API-019]"));
    CHECK(fails_with(d,
                     "(transact [[:a :n 1 {:valid-from \"2024-01-01\" :valid-to \"2024-01-01\"}]])",
                     "[API-019]"));
    CHECK(fails_with(d, "(transact [[:a :n 1 {:valid-to \"2020-01-01\"}]])", "[API-019]"));
    CHECK(fails_with(d,
                     "(transact [[:a :n 1 {:valid-from \"2020-01-01\"}] [:a :n 1 {:valid-from "
                     "\"2021-01-01\"}]])",
                     "[API-011]"));
    CHECK(db_tx_count(d) == 0);
    CHECK(query_is(d, "(query [:find ?a ?v :where [_ ?a ?v]])", ""));
    db_close(d);
}

static void test_write_windows_and_duplicates(void) {
    db *d = open_memory();
    CHECK(
        exec(
            d,
            "(transact {:valid-from \"2020-01-01\"} [[:a :n 1 {:valid-to \"2021-01-01\"}] [:a :m 2]"
            " [:a :n 1 {:valid-to \"2021-01-01\"}] [:a :m 2]])") == 0);
    CHECK(query_is(d, "(query [:find ?v :valid-at \"2020-06-01\" :where [:a _ ?v]])", "[1] [2]"));
    CHECK(query_is(d, "(query [:find ?v :valid-at \"2022-06-01\" :where [:a _ ?v]])", "[2]"));
    CHECK(query_is(d, "(query [:find ?v :valid-at \"2019-06-01\" :where [:a _ ?v]])", ""));
    CHECK(query_is(d, "(query [:find ?v :any-valid-time :where [:a _ ?v]])",
                   "[1] [2]")); /* collapsed */
    db_close(d);
}

static void test_db_query_and_read_only(void) {
    db *d = NULL;
    err e = {0};
    db_options o;
    db_options_default(&o);
    o.store.read_only = true;
    CHECK(db_open(NULL, &o, &d, &e) == 0);
    CHECK(fails_with(d, "(transact [[:x :n 1]])", "[API-014]"));
    CHECK(fails_with(d, "(retract [[:x :n 1]])", "[API-014]"));
    CHECK(db_tx_count(d) == 0);
    CHECK(db_checkpoint(d, &e) == 0);
    db_close(d);

    d = open_memory();
    result_set *rs = NULL;
    const char *t = "(transact [[:x :n 1]])";
    CHECK(db_query(d, t, strlen(t), &rs, &e) == ERR(API, 12));
    CHECK(e.message &&
          strcmp(e.message, "[API-012] query() accepts only (query ...) commands; got transact") ==
              0);
    CHECK(db_tx_count(d) == 0);
    const char *q = "(query [:find ?n :where [:x :n ?n]])";
    CHECK(db_query(d, q, strlen(q), &rs, &e) == 0);
    if (rs) {
        size_t len;
        CHECK(result_row_count(rs) == 0 && strcmp(result_column_name(rs, 0, &len), "?n") == 0 &&
              len == 2);
        result_free(rs);
    }
    err_clear(&e);
    db_close(d);
}

static void test_file_database_reopens(void) {
    char path[] = "/tmp/mg_query_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    unlink(path);
    db *d = NULL;
    err e = {0};
    CHECK(db_open(path, NULL, &d, &e) == 0);
    CHECK(
        exec(d,
             "(transact [[:alice :name \"Alice\"] [:alice :friend :bob] [:bob :name \"Bob\"]])") ==
        0);
    CHECK(exec(d, "(retract [[:alice :friend :bob]])") == 0);
    CHECK(exec(d, "(transact [])") == 0);
    CHECK(db_checkpoint(d, &e) == 0);
    db_close(d);
    db_options o;
    db_options_default(&o);
    o.store.read_only = true;
    CHECK(db_open(path, &o, &d, &e) == 0);
    if (d) {
        CHECK(db_tx_count(d) == 3);
        CHECK(query_is(d, "(query [:find ?n :where [?e :name ?n]])", "[\"Alice\"] [\"Bob\"]"));
        CHECK(query_is(d, "(query [:find ?f :where [:alice :friend ?f]])", ""));
        CHECK(query_is(d, "(query [:find ?f :as-of 1 :where [:alice :friend ?f]])", "[:bob]"));
        CHECK(fails_with(d, "(transact [[:x :n 1]])", "[API-014]"));
        db_close(d);
    }
    err_clear(&e);
    unlink(path);
}

/* ---- the executor on hand-built queries -------------------------------- */

static term var(const char *name) {
    term t = {.kind = TERM_VAR, .name = name, .name_len = strlen(name)};
    return t;
}

static term constant(value v) {
    term t = {.kind = TERM_CONST, .constant = v};
    return t;
}

static term kind_only(term_kind k, const char *name) {
    term t = {.kind = k, .name = name, .name_len = name ? strlen(name) : 0};
    return t;
}

static store *sample_store(void) {
    store *s = NULL;
    err e = {0};
    store_open_memory(false, &s, &e);
    fact f = {.entity = uuid_of_keyword(":a", 2),
              .attribute = value_keyword(":n", 2),
              .v = value_integer(1),
              .tx_count = 1,
              .tx_id = 10,
              .valid_from = 10,
              .valid_to = VALID_TO_FOREVER,
              .asserted = true};
    CHECK(store_commit(s, &f, 1, &e) == 0);
    return s;
}

static int run(store *s, ast_query *q, result_set **out, err *e) {
    *out = NULL;
    return query_execute(s, q, 100, out, e);
}

static void test_executor_checks(void) {
    store *s = sample_store();
    err e = {0};
    result_set *r = NULL;
    term find[1] = {var("?v")};
    ast_pattern p = {var("?e"), constant(value_keyword(":n", 2)), var("?v")};
    ast_clause cl = {.kind = CL_PATTERN};
    ast_query q = {.find = find, .find_count = 1, .body = {&cl, 1}};
#define SYNC_PATTERN() (cl.as.pattern = p)
    SYNC_PATTERN();

    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == 0 && r && result_row_count(r) == 1);
    result_free(r);

    p.v = kind_only(TERM_SLOT, "x");
    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == ERR(API, 10) && r == NULL);

    p.v = kind_only(TERM_NEVER, NULL);
    find[0] = var("?e");
    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == 0 && r && result_row_count(r) == 0);
    result_free(r);

    /* PRS-080 is the parser's (tests/c/test_parse_errors.c); an AST that
     * skipped it gets rows only for solutions binding every :find
     * variable: none. */
    find[0] = var("?zzz");
    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == 0 && r && result_row_count(r) == 0);
    result_free(r);

    p.v = var("?v");
    p.a = constant(value_keyword(":db/valid-to", 12));
    find[0] = var("?v");
    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == ERR(QRY, 13));

    q.body.count = 0;
    SYNC_PATTERN();
    CHECK(run(s, &q, &r, &e) == ERR(PRS, 77));

    /* The default valid-time point is the `now` given to the executor,
     * never earlier than the newest commit the snapshot holds (a `now`
     * read before a commit landed, or a clock that stepped back, would
     * hide it: language.md §7.3). A later explicit :valid-from stays
     * hidden until then. */
    fact later = {.entity = uuid_of_keyword(":b", 2),
                  .attribute = value_keyword(":n", 2),
                  .v = value_integer(2),
                  .tx_count = 2,
                  .tx_id = 10,
                  .valid_from = 50,
                  .valid_to = VALID_TO_FOREVER,
                  .asserted = true};
    CHECK(store_commit(s, &later, 1, &e) == 0);
    q.body.count = 1;
    p.a = constant(value_keyword(":n", 2));
    SYNC_PATTERN();
    CHECK(query_execute(s, &q, 9, &r, &e) == 0 && result_row_count(r) == 1);
    result_free(r);
    CHECK(query_execute(s, &q, 49, &r, &e) == 0 && result_row_count(r) == 1);
    result_free(r);
    CHECK(query_execute(s, &q, 50, &r, &e) == 0 && result_row_count(r) == 2);
    result_free(r);
    err_clear(&e);
    store_close(s);
}

#undef SYNC_PATTERN

/* Two keyword spellings of one UUID are each E2-equal to the Ref, but not
 * to each other (E1 between keywords): every pair must agree, so no order
 * of evaluation can join them. */
static void test_e2_pairs_checked_pairwise(void) {
    db *d = open_memory();
    CHECK(exec(d, "(transact [[:x :p :550e8400-e29b-41d4-a716-446655440000]"
                  " [:y :p :550e8400e29b41d4a716446655440000]"
                  " [:550e8400-e29b-41d4-a716-446655440000 :name \"N\"]])") == 0);
    CHECK(query_is(d, "(query [:find ?n :where [:x :p ?r] [?r :name ?n] [:y :p ?r]])", ""));
    CHECK(query_is(d, "(query [:find ?n :where [?r :name ?n] [:x :p ?r] [:y :p ?r]])", ""));
    CHECK(query_is(d, "(query [:find ?n :where [:x :p ?r] [?r :name ?n]])", "[\"N\"]"));
    CHECK(query_is(d, "(query [:find ?n :where [:y :p ?r] [?r :name ?n]])", "[\"N\"]"));
    db_close(d);
}

static void test_larger_join_uses_indexes_consistently(void) {
    db *d = open_memory();
    buf b;
    buf_init(&b);
    buf_puts(&b, "(transact [");
    for (int i = 0; i < 300; i++)
        buf_printf(&b, "[:p%d :age %d] [:p%d :name \"n%d\"] [:p%d :boss :p%d] ", i, i % 7, i, i, i,
                   i / 2);
    buf_puts(&b, "])");
    CHECK(exec(d, b.data) == 0);
    buf_free(&b);
    CHECK(query_is(d,
                   "(query [:find ?n :where [?e :age 6] [?e :boss ?b] [?b :name ?n] [?b :age 3]])",

                   "[\"n10\"] [\"n101\"] [\"n108\"] [\"n115\"] [\"n122\"] [\"n129\"] [\"n136\"] "
                   "[\"n143\"] [\"n17\"] [\"n24\"] [\"n3\"] [\"n31\"] [\"n38\"] [\"n45\"] "
                   "[\"n52\"] [\"n59\"] [\"n66\"] [\"n73\"] [\"n80\"] [\"n87\"] [\"n94\"]"));
    CHECK(query_is(d,
                   "(query [:find ?n :where [?b :age 3] [?b :name ?n] [?e :boss ?b] [?e :age 6]])",

                   "[\"n10\"] [\"n101\"] [\"n108\"] [\"n115\"] [\"n122\"] [\"n129\"] [\"n136\"] "
                   "[\"n143\"] [\"n17\"] [\"n24\"] [\"n3\"] [\"n31\"] [\"n38\"] [\"n45\"] "
                   "[\"n52\"] [\"n59\"] [\"n66\"] [\"n73\"] [\"n80\"] [\"n87\"] [\"n94\"]"));
    db_close(d);
}

/* One handle shared by threads: every call is serialised by the db lock.
 * (The CHECK counters are not thread-safe, so threads count failures.) */
typedef struct worker {
    db *d;
    int failures;
} worker;

static void *worker_thread(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 50; i++) {
        w->failures += exec(w->d, "(transact [[:t :n 1]])") != 0;
        w->failures += exec(w->d, "(query [:find ?v :where [:t :n ?v]])") != 0;
    }
    return NULL;
}

static void test_shared_handle_across_threads(void) {
    db *d = open_memory();
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){d, 0};
        CHECK(pthread_create(&th[i], NULL, worker_thread, &w[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].failures == 0);
    }
    CHECK(db_tx_count(d) == 200);
    CHECK(query_is(d, "(query [:find ?v :where [:t :n ?v]])",
                   "[1]")); /* duplicates share one triple */
    CHECK(query_is(d, "(query [:find ?v :as-of 137 :where [:t :n ?v]])", "[1]"));
    db_close(d);
}

int main(void) {
    test_b1_basic_facts_joins_keyword_references();
    test_b2_transaction_time_and_retraction();
    test_retraction_is_exact_and_reassertion_revives();
    test_b3_valid_time();
    test_new_window_replaces_old_one_v3();
    test_as_of_timestamp();
    test_multi_valued_attributes_and_bag_semantics();
    test_repeated_variable_in_one_pattern_is_strict();
    test_constant_matching_e4();
    test_variable_attribute_and_full_scans();
    test_write_conversion_errors_write_nothing();
    test_write_windows_and_duplicates();
    test_db_query_and_read_only();
    test_file_database_reopens();
    test_executor_checks();
    test_e2_pairs_checked_pairwise();
    test_larger_join_uses_indexes_consistently();
    test_shared_handle_across_threads();
    return CHECK_DONE();
}
