/* Prepared queries and bind slots (language.md §13; minigraf.h's
 * "Prepared queries" block): every row of the table of slot positions,
 * every bind error, bind_json, re-execution, cursors, handles. */
#include <math.h>
#include <pthread.h>

#include "support.h"

#define API_005 5005
#define API_006 5006
#define API_007 5007
#define API_010 5010
#define API_015 5015
#define API_017 5017
#define API_018 5018

#define ALICE "e340ebba-e050-5d3b-8c2e-5388ce184a79" /* entity_id(:alice), language.md §13 */

/* The people of language.md §13, a keyword-valued and a ref-valued :friend, a few
 * value types, and a fact valid in the first half of 2023 only. */
static MiniGrafDb *people(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]"
                        " [:bob :person/name \"Bob\"] [:bob :person/age 25]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :friend :bob] [:x :score 1.5] [:x :flag true]"
                        " [:x :nothing nil] [:x :label \"a \\\"quoted\\\" text\"]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-01\"}"
                        " [[:dave :status :active]])");
    return db;
}

/* The UUID text of the entity whose :person/name is `name`. */
static void uuid_of(MiniGrafDb *db, const char *name, char out[37]) {
    char q[160];
    snprintf(q, sizeof q, "(query [:find ?e :where [?e :person/name \"%s\"]])", name);
    char *r = EXEC(db, q);
    const char *p = r ? strstr(r, "[[\"") : NULL;
    out[0] = '\0';
    if (p)
        snprintf(out, 37, "%s", p + 3);
    minigraf_string_free(r);
}

static MiniGrafStmt *prepare_at(int line, MiniGrafDb *db, const char *text) {
    MiniGrafStmt *s = minigraf_prepare(db, text);
    if (!s) {
        check_fail(__FILE__, line, text);
        fprintf(stderr, "    error: %s\n", minigraf_last_error(db));
    }
    return s;
}
#define PREPARE(db, text) prepare_at(__LINE__, (db), (text))

/* Runs the statement; compares the result (rows sorted) with `want`. */
static void expect_run_at(int line, MiniGrafStmt *s, const char *want) {
    char *got = minigraf_stmt_execute(s);
    if (!got) {
        check_fail_str(__FILE__, line, "minigraf_stmt_execute", minigraf_stmt_last_error(s), want);
        return;
    }
    char *g = canonical_result(got), *w = canonical_result(want);
    if (strcmp(g, w) != 0)
        check_fail_str(__FILE__, line, "stmt result", got, want);
    if (minigraf_stmt_last_error(s) != NULL)
        check_fail_str(__FILE__, line, "no error after success", minigraf_stmt_last_error(s), NULL);
    free(g);
    free(w);
    minigraf_string_free(got);
}
#define EXPECT_RUN(s, want) expect_run_at(__LINE__, (s), (want))

/* The statement's last error is exactly `message` with code `code`. */
static void expect_last_at(int line, MiniGrafStmt *s, int code, const char *message) {
    if (minigraf_stmt_last_error_code(s) != code)
        check_fail_int(__FILE__, line, "stmt error code", minigraf_stmt_last_error_code(s), code);
    if (message && !check_str_equal(minigraf_stmt_last_error(s), message))
        check_fail_str(__FILE__, line, "stmt error", minigraf_stmt_last_error(s), message);
}

/* A call returning an int fails with `code` and `message`. */
#define EXPECT_FAIL(call, s, code, message)                         \
    do {                                                            \
        int rc_ = (call);                                           \
        if (rc_ != (code))                                          \
            check_fail_int(__FILE__, __LINE__, #call, rc_, (code)); \
        expect_last_at(__LINE__, (s), (code), (message));           \
    } while (0)

#define EXPECT_OK(call, s)                                                                \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != 0)                                                                     \
            check_fail_str(__FILE__, __LINE__, #call, minigraf_stmt_last_error(s), NULL); \
    } while (0)

/* Execution fails with `code` and `message`. */
static void expect_run_error_at(int line, MiniGrafStmt *s, int code, const char *message) {
    char *got = minigraf_stmt_execute(s);
    if (got) {
        check_fail_str(__FILE__, line, "stmt should fail", got, message);
        minigraf_string_free(got);
        return;
    }
    expect_last_at(line, s, code, message);
}
#define EXPECT_RUN_ERROR(s, code, message) expect_run_error_at(__LINE__, (s), (code), (message))

/* The prepare of `text` fails with `code` (and `message` when not NULL). */
static void expect_prepare_error_at(int line, MiniGrafDb *db, const char *text, int code,
                                    const char *message) {
    MiniGrafStmt *s = minigraf_prepare(db, text);
    if (s) {
        check_fail(__FILE__, line, text);
        minigraf_stmt_free(s);
        return;
    }
    if (minigraf_last_error_code(db) != code)
        check_fail_int(__FILE__, line, text, minigraf_last_error_code(db), code);
    if (message && !check_str_equal(minigraf_last_error(db), message))
        check_fail_str(__FILE__, line, text, minigraf_last_error(db), message);
}
#define EXPECT_PREPARE_ERROR(db, text, code, message) \
    expect_prepare_error_at(__LINE__, (db), (text), (code), (message))

/* ---- language.md §13, verbatim ---------------------------------------------------- */

TEST(b10_prepared_query) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]"
                        " [:bob :person/name \"Bob\"] [:bob :person/age 25]])");
    MiniGrafStmt *pq = PREPARE(
        db, "(query [:find ?n :where [?e :person/age $age] [?e :person/name ?n]])");
    REQUIRE(pq);
    CHECK_STR_EQ(minigraf_last_error(db), NULL);
    EXPECT_OK(minigraf_stmt_bind_int64(pq, "age", 25), pq);
    EXPECT_RUN(pq, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    EXPECT_OK(minigraf_stmt_clear_bindings(pq), pq);
    EXPECT_RUN_ERROR(pq, API_015, "[API-015] missing bind value for slot '$age'");
    EXPECT_FAIL(minigraf_stmt_bind_tx_count(pq, "age", 1), pq, API_015,
                "[API-015] slot '$age' in value position requires Val, got TxCount");
    EXPECT_PREPARE_ERROR(db, "(query [:find ?v :where [?e $attr ?v]])", API_015,
                         "[API-015] bind slot '$attr' is not permitted in attribute position; the "
                         "query optimizer selects an index based on the attribute at prepare time "
                         "and cannot handle a parameterised attribute");
    EXPECT_PREPARE_ERROR(db, "(transact [[:a :b 1]])", API_005, NULL);
    MiniGrafStmt *pq2 = PREPARE(db, "(query [:find ?n :as-of $t :where [$e :person/name ?n]])");
    REQUIRE(pq2);
    EXPECT_OK(minigraf_stmt_bind_json(pq2, "{\"t\": {\"tx_count\": 1}, \"e\": {\"entity\": \"" ALICE
                                           "\"}}"),
              pq2);
    EXPECT_RUN(pq2, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    minigraf_stmt_free(pq);
    minigraf_stmt_free(pq2);
    minigraf_close(db);
}

/* ---- what cannot be prepared ------------------------------------------------------ */

TEST(only_queries_can_be_prepared) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_PREPARE_ERROR(db, "(transact [[:a :b 1]])", API_005,
                         "[API-005] only (query ...) commands can be prepared; got transact");
    EXPECT_PREPARE_ERROR(db, "(retract [[:a :b 1]])", API_006,
                         "[API-006] only (query ...) commands can be prepared; got retract");
    EXPECT_PREPARE_ERROR(db, "(rule [(p ?a ?b) [?a :b ?b]])", API_007,
                         "[API-007] only (query ...) commands can be prepared; got rule");
    CHECK(minigraf_prepare(db, "(query [:find ?x :where [?x :a") == NULL); /* a parse error */
    CHECK(minigraf_last_error_code(db) / 1000 == 1);
    EXPECT_PREPARE_ERROR(db, NULL, API_017, NULL);
    CHECK_INT_EQ(tx_count(db), 0); /* nothing ran */
    minigraf_close(db);
}

TEST(attribute_slot_refused_everywhere) {
    MiniGrafDb *db = open_memory_db();
    const char *texts[] = {
        "(query [:find ?v :where [?e $a ?v]])",
        "(query [:find ?e :where [?e :n ?v] (not [?e $a 1])])",
        "(query [:find ?e :where [?e :n ?v] (not-join [?e] [?e $a 1])])",
        "(query [:find ?e :where [?e :n ?v] (or [?e $a 1] [?e :m 2])])",
        "(query [:find ?e :where [?e :n ?v] (or-join [?e] (and [?e :m 2] [?e $a 1]))])",
        "(query [:find ?e :where [?e :n ?v] (or (and [?e :m 2] (not [?e $a 1])) [?e :k 1])])",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        EXPECT_PREPARE_ERROR(db, texts[i], API_015,
                             "[API-015] bind slot '$a' is not permitted in attribute position; the "
                             "query optimizer selects an index based on the attribute at prepare "
                             "time and cannot handle a parameterised attribute");
    minigraf_close(db);
}

/* ---- the table of language.md §13: each position, what it takes, what it refuses ------- */

TEST(entity_position_takes_entity_only) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where [$e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_entity(s, "e", ALICE), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    const char *want = "[API-015] slot '$e' in entity position requires Entity, got ";
    char msg[128];
    snprintf(msg, sizeof msg, "%sVal", want);
    EXPECT_FAIL(minigraf_stmt_bind_keyword(s, "e", ":alice"), s, API_015, msg);
    EXPECT_FAIL(minigraf_stmt_bind_string(s, "e", "Alice", 5), s, API_015, msg);
    EXPECT_FAIL(minigraf_stmt_bind_json(
                    s, "{\"e\": {\"val\": {\"type\": \"ref\", \"value\": \"" ALICE "\"}}}"),
                s, API_015, msg);
    snprintf(msg, sizeof msg, "%sTxCount", want);
    EXPECT_FAIL(minigraf_stmt_bind_tx_count(s, "e", 1), s, API_015, msg);
    snprintf(msg, sizeof msg, "%sTimestamp", want);
    EXPECT_FAIL(minigraf_stmt_bind_timestamp_ms(s, "e", 0), s, API_015, msg);
    snprintf(msg, sizeof msg, "%sAnyValidTime", want);
    EXPECT_FAIL(minigraf_stmt_bind_any_valid_time(s, "e"), s, API_015, msg);
    /* a refused bind leaves the earlier binding */
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    /* an entity with no facts: no rows, like the literal #uuid */
    EXPECT_OK(minigraf_stmt_bind_entity(s, "e", "00000000-0000-4000-8000-000000000000"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_FAIL(minigraf_stmt_bind_entity(s, "e", "not-a-uuid"), s, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_entity(s, "e", NULL), s, API_017, NULL);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(value_position_takes_every_val) {
    MiniGrafDb *db = people();
    char bob[37];
    uuid_of(db, "Bob", bob);
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?e :where [?x ?a $v] [?x :person/name ?e]])");
    /* the attribute is a variable: value position alone */
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "v", 25), s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Bob\"]]}");
    EXPECT_OK(minigraf_stmt_bind_string(s, "v", "Alice", 5), s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Alice\"]]}");
    /* Val(keyword :bob) matches the stored keyword, Val(ref bob) too (E4) */
    EXPECT_OK(minigraf_stmt_bind_keyword(s, "v", ":bob"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Alice\"]]}");
    char json[160];
    snprintf(json, sizeof json, "{\"v\": {\"val\": {\"type\": \"ref\", \"value\": \"%s\"}}}", bob);
    EXPECT_OK(minigraf_stmt_bind_json(s, json), s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Alice\"]]}");
    minigraf_stmt_free(s);

    MiniGrafStmt *t = PREPARE(db, "(query [:find ?a :where [:x ?a $v]])");
    REQUIRE(t);
    EXPECT_OK(minigraf_stmt_bind_double(t, "v", 1.5), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[[\":score\"]]}");
    EXPECT_OK(minigraf_stmt_bind_int64(t, "v", 1), t); /* 1 never matches 1.5 or true */
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[]}");
    EXPECT_OK(minigraf_stmt_bind_bool(t, "v", 1), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[[\":flag\"]]}");
    EXPECT_OK(minigraf_stmt_bind_null(t, "v"), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[[\":nothing\"]]}");
    EXPECT_OK(minigraf_stmt_bind_string(t, "v", "a \"quoted\" text", 15), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[[\":label\"]]}");
    EXPECT_OK(minigraf_stmt_bind_double(t, "v", NAN), t); /* NaN never matches */
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[]}");

    const char *want = "[API-015] slot '$v' in value position requires Val, got ";
    char msg[128];
    snprintf(msg, sizeof msg, "%sEntity", want);
    EXPECT_FAIL(minigraf_stmt_bind_entity(t, "v", ALICE), t, API_015, msg);
    snprintf(msg, sizeof msg, "%sTxCount", want);
    EXPECT_FAIL(minigraf_stmt_bind_tx_count(t, "v", 1), t, API_015, msg);
    snprintf(msg, sizeof msg, "%sTimestamp", want);
    EXPECT_FAIL(minigraf_stmt_bind_timestamp_ms(t, "v", 1), t, API_015, msg);
    snprintf(msg, sizeof msg, "%sAnyValidTime", want);
    EXPECT_FAIL(minigraf_stmt_bind_any_valid_time(t, "v"), t, API_015, msg);
    minigraf_stmt_free(t);
    minigraf_close(db);
}

/* A keyword bound in value position matches a stored ref, like the literal. */
TEST(keyword_val_matches_stored_ref) {
    MiniGrafDb *db = people();
    char bob[37], tx[160];
    uuid_of(db, "Bob", bob);
    snprintf(tx, sizeof tx, "(transact [[:carol :likes #uuid \"%s\"]])", bob);
    EXPECT_TRANSACT(db, tx);
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?w :where [?w :likes $v]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_keyword(s, "v", ":bob"), s);
    char *lit = EXEC(db, "(query [:find ?w :where [?w :likes :bob]])");
    char *got = minigraf_stmt_execute(s);
    CHECK_STR_EQ(got, lit);
    CHECK(got && strstr(got, "\"results\":[[\"") != NULL);
    minigraf_string_free(lit);
    minigraf_string_free(got);
    EXPECT_FAIL(minigraf_stmt_bind_keyword(s, "v", "bob"), s, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_keyword(s, "v", ":a b"), s, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_keyword(s, "v", ":a] [?w :x"), s, API_017, NULL);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(rule_argument_takes_val_only) {
    MiniGrafDb *db = people();
    EXPECT_EXEC(db, "(rule [(friend-of ?a ?b) [?a :friend ?b]])", "{\"ok\":true}");
    MiniGrafStmt *s = PREPARE(db,
                              "(query [:find ?n :where (friend-of $x ?y) [?y :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_json(s, "{\"x\": {\"val\": {\"type\": \"ref\", \"value\": \"" ALICE
                                         "\"}}}"),
              s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    EXPECT_OK(minigraf_stmt_bind_keyword(s, "x", ":alice"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    EXPECT_OK(minigraf_stmt_bind_keyword(s, "x", ":bob"), s); /* re-bound: no stale rule answer */
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_FAIL(minigraf_stmt_bind_entity(s, "x", ALICE), s, API_015,
                "[API-015] slot '$x' in value position requires Val, got Entity");
    EXPECT_FAIL(minigraf_stmt_bind_timestamp_ms(s, "x", 5), s, API_015,
                "[API-015] slot '$x' in value position requires Val, got Timestamp");
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* minigraf_stmt_bind_ref: Val(Ref(uuid)), the typed form of bind_json's
 * {"val": {"type": "ref", ...}}, for value positions, rule arguments and
 * expressions; an entity position refuses it. */
TEST(bind_ref_binds_an_entity_as_a_value) {
    MiniGrafDb *db = people();
    char bob[37], tx[160];
    uuid_of(db, "Bob", bob);
    snprintf(tx, sizeof tx, "(transact [[:carol :likes #uuid \"%s\"] [:dave :likes :alice]])", bob);
    EXPECT_TRANSACT(db, tx);
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?w :where [?x :likes $v] [?x :person/name ?w]])");
    REQUIRE(s);
    EXPECT_TRANSACT(db,
                    "(transact [[:carol :person/name \"Carol\"] [:dave :person/name \"Dave\"]])");
    EXPECT_OK(minigraf_stmt_bind_ref(s, "v", bob), s);
    EXPECT_RUN(s, "{\"variables\":[\"?w\"],\"results\":[[\"Carol\"]]}");
    /* a stored keyword entity is matched by its UUID, as the literal #uuid is */
    EXPECT_OK(minigraf_stmt_bind_ref(s, "$v", ALICE), s);
    EXPECT_RUN(s, "{\"variables\":[\"?w\"],\"results\":[[\"Dave\"]]}");
    char json[160];
    snprintf(json, sizeof json, "{\"v\": {\"val\": {\"type\": \"ref\", \"value\": \"%s\"}}}", bob);
    char *typed = (minigraf_stmt_bind_ref(s, "v", bob), minigraf_stmt_execute(s));
    char *from_json = (minigraf_stmt_bind_json(s, json), minigraf_stmt_execute(s));
    CHECK_STR_EQ(typed, from_json);
    minigraf_string_free(typed);
    minigraf_string_free(from_json);
    EXPECT_FAIL(minigraf_stmt_bind_ref(s, "v", "not-a-uuid"), s, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_ref(s, "v", NULL), s, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_ref(s, NULL, bob), s, API_017, NULL);
    /* a refused bind leaves the earlier binding (bob, from the JSON) */
    EXPECT_RUN(s, "{\"variables\":[\"?w\"],\"results\":[[\"Carol\"]]}");
    minigraf_stmt_free(s);

    EXPECT_EXEC(db, "(rule [(friend-of ?a ?b) [?a :friend ?b]])", "{\"ok\":true}");
    MiniGrafStmt *r = PREPARE(db,
                              "(query [:find ?n :where (friend-of $x ?y) [?y :person/name ?n]])");
    REQUIRE(r);
    EXPECT_OK(minigraf_stmt_bind_ref(r, "x", ALICE), r);
    EXPECT_RUN(r, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    minigraf_stmt_free(r);

    MiniGrafStmt *e = PREPARE(db, "(query [:find ?n :where [$e :person/name ?n]])");
    REQUIRE(e);
    EXPECT_FAIL(minigraf_stmt_bind_ref(e, "e", ALICE), e, API_015,
                "[API-015] slot '$e' in entity position requires Entity, got Val");
    minigraf_stmt_free(e);

    MiniGrafStmt *x = PREPARE(db, "(query [:find ?n :where [?y :person/name ?n] [(= ?y $who)]])");
    REQUIRE(x);
    EXPECT_OK(minigraf_stmt_bind_ref(x, "who", bob), x);
    EXPECT_RUN(x, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    minigraf_stmt_free(x);

    CHECK_INT_EQ(minigraf_stmt_bind_ref(NULL, "v", bob), API_017);
    MiniGrafStmt *dead = PREPARE(db, "(query [:find ?w :where [?w :likes $v]])");
    REQUIRE(dead);
    minigraf_stmt_free(dead);
    CHECK_INT_EQ(minigraf_stmt_bind_ref(dead, "v", bob), API_018);
    minigraf_close(db);
}

TEST(expression_argument_takes_val_only) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(
        db, "(query [:find ?n :where [?e :person/age ?a] [(>= ?a $min)] [?e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "min", 26), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    EXPECT_OK(minigraf_stmt_bind_double(s, "min", 20.5), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"],[\"Bob\"]]}");
    EXPECT_OK(minigraf_stmt_bind_string(s, "min", "x", 1), s); /* a failed comparison drops rows */
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    const char *kinds[] = {"Entity", "TxCount", "Timestamp", "AnyValidTime"};
    for (int i = 0; i < 4; i++) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "[API-015] slot '$min' in expression position requires Val, got %s", kinds[i]);
        int rc = i == 0   ? minigraf_stmt_bind_entity(s, "min", ALICE)
                 : i == 1 ? minigraf_stmt_bind_tx_count(s, "min", 1)
                 : i == 2 ? minigraf_stmt_bind_timestamp_ms(s, "min", 1)
                          : minigraf_stmt_bind_any_valid_time(s, "min");
        CHECK_INT_EQ(rc, API_015);
        expect_last_at(__LINE__, s, API_015, msg);
    }
    /* a binding form with a slot argument */
    MiniGrafStmt *b = PREPARE(db, "(query [:find ?n ?b :where [?e :person/age ?a] [(+ ?a $d) ?b] "
                                  "[?e :person/name ?n]])");
    REQUIRE(b);
    EXPECT_OK(minigraf_stmt_bind_int64(b, "d", 100), b);
    EXPECT_RUN(b, "{\"variables\":[\"?n\",\"?b\"],\"results\":[[\"Alice\",130],[\"Bob\",125]]}");
    minigraf_stmt_free(b);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(as_of_takes_tx_count_or_timestamp) {
    MiniGrafDb *db = open_memory_db();
    uint64_t ms1 = EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    EXPECT_TRANSACT(db, "(transact [[:a :n 2]])");
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?v :as-of $t :where [:a :n ?v]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_tx_count(s, "t", 1), s);
    EXPECT_RUN(s, "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    EXPECT_OK(minigraf_stmt_bind_tx_count(s, "t", 0), s);
    EXPECT_RUN(s, "{\"variables\":[\"?v\"],\"results\":[]}");
    EXPECT_OK(minigraf_stmt_bind_tx_count(s, "t", UINT64_MAX), s);
    EXPECT_RUN(s, "{\"variables\":[\"?v\"],\"results\":[[1],[2]]}");
    EXPECT_OK(minigraf_stmt_bind_timestamp_ms(s, "t", (int64_t)ms1), s);
    char *lit_text = malloc(200);
    snprintf(lit_text, 200, "(query [:find ?v :as-of %llu :where [:a :n ?v]])", 1ULL);
    char *want = EXEC(db, lit_text); /* the timestamp of tx 1 sees what counter 1 sees, or more */
    char *got = minigraf_stmt_execute(s);
    CHECK(got && strstr(got, "[1]") != NULL);
    minigraf_string_free(want);
    minigraf_string_free(got);
    free(lit_text);
    EXPECT_OK(minigraf_stmt_bind_timestamp_ms(s, "t", 0), s);
    EXPECT_RUN(s, "{\"variables\":[\"?v\"],\"results\":[]}");
    const char *kinds[] = {"Entity", "Val", "AnyValidTime"};
    for (int i = 0; i < 3; i++) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "[API-015] slot '$t' in :as-of position requires TxCount or Timestamp, got %s",
                 kinds[i]);
        int rc = i == 0   ? minigraf_stmt_bind_entity(s, "t", ALICE)
                 : i == 1 ? minigraf_stmt_bind_int64(s, "t", 1)
                          : minigraf_stmt_bind_any_valid_time(s, "t");
        CHECK_INT_EQ(rc, API_015);
        expect_last_at(__LINE__, s, API_015, msg);
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(valid_at_takes_timestamp_or_any_valid_time) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?s :valid-at $t :where [:dave :status ?s]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_timestamp_ms(s, "t", 1677628800000), s); /* 2023-03-01 */
    EXPECT_RUN(s, "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    EXPECT_OK(minigraf_stmt_bind_timestamp_ms(s, "t", 1704067200000), s); /* 2024-01-01 */
    EXPECT_RUN(s, "{\"variables\":[\"?s\"],\"results\":[]}");
    EXPECT_OK(minigraf_stmt_bind_any_valid_time(s, "t"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    const char *kinds[] = {"Entity", "Val", "TxCount"};
    for (int i = 0; i < 3; i++) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "[API-015] slot '$t' in :valid-at position requires Timestamp or AnyValidTime, "
                 "got %s",
                 kinds[i]);
        int rc = i == 0   ? minigraf_stmt_bind_entity(s, "t", ALICE)
                 : i == 1 ? minigraf_stmt_bind_string(s, "t", "2023-03-01", 10)
                          : minigraf_stmt_bind_tx_count(s, "t", 1);
        CHECK_INT_EQ(rc, API_015);
        expect_last_at(__LINE__, s, API_015, msg);
    }
    minigraf_stmt_free(s);
    /* pseudo-attributes need :any-valid-time: a bound one counts */
    MiniGrafStmt *p = PREPARE(
        db, "(query [:find ?f :valid-at $t :where [:dave :status _] [:dave :db/valid-from ?f]])");
    REQUIRE(p);
    EXPECT_OK(minigraf_stmt_bind_any_valid_time(p, "t"), p);
    EXPECT_RUN(p, "{\"variables\":[\"?f\"],\"results\":[[1672531200000]]}");
    minigraf_stmt_free(p);
    minigraf_close(db);
}

/* One slot in several places: each use checks the value. */
TEST(slot_used_twice_checked_per_use) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(
        db, "(query [:find ?n :where [?e :person/age $v] [(> $v 20)] [?e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "v", 30), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    minigraf_stmt_free(s);
    MiniGrafStmt *t = PREPARE(db, "(query [:find ?n :where [$x :person/name ?n] [?y :friend $x]])");
    REQUIRE(t);
    EXPECT_FAIL(minigraf_stmt_bind_entity(t, "x", ALICE), t, API_015,
                "[API-015] slot '$x' in value position requires Val, got Entity");
    EXPECT_FAIL(minigraf_stmt_bind_keyword(t, "x", ":bob"), t, API_015,
                "[API-015] slot '$x' in entity position requires Entity, got Val");
    minigraf_stmt_free(t);
    minigraf_close(db);
}

/* ---- missing and extra binds ---------------------------------------------------------- */

TEST(missing_and_extra_binds) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(
        db, "(query [:find ?n :where [?e :person/age $age] [?e :person/name $name] "
            "[?e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_RUN_ERROR(s, API_015, "[API-015] missing bind value for slot '$age'");
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "age", 30), 0);
    EXPECT_RUN_ERROR(s, API_015, "[API-015] missing bind value for slot '$name'");
    CHECK(minigraf_stmt_query(s) == NULL);
    expect_last_at(__LINE__, s, API_015, "[API-015] missing bind value for slot '$name'");
    /* names the query lacks are ignored, by every setter and by bind_json */
    EXPECT_OK(minigraf_stmt_bind_entity(s, "nope", ALICE), s);
    EXPECT_OK(minigraf_stmt_bind_tx_count(s, "zzz", 3), s);
    EXPECT_OK(minigraf_stmt_bind_json(
                  s, "{\"name\": {\"val\": \"Alice\"}, \"other\": {\"tx_count\": 1}}"),
              s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    /* a leading '$' is accepted */
    EXPECT_OK(minigraf_stmt_bind_int64(s, "$age", 25), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_FAIL(minigraf_stmt_bind_int64(s, NULL, 1), s, API_017, NULL);
    EXPECT_OK(minigraf_stmt_clear_bindings(s), s);
    EXPECT_RUN_ERROR(s, API_015, "[API-015] missing bind value for slot '$age'");
    minigraf_stmt_free(s);
    /* a query without slots prepares and runs */
    MiniGrafStmt *t = PREPARE(db, "(query [:find ?n :where [:bob :person/name ?n]])");
    REQUIRE(t);
    EXPECT_OK(minigraf_stmt_bind_json(t, "{}"), t);
    EXPECT_RUN(t, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    minigraf_stmt_free(t);
    minigraf_close(db);
}

/* ---- bind_json ---------------------------------------------------------------------- */

TEST(bind_json_value_forms) {
    MiniGrafDb *db = people();
    MiniGrafStmt *t = PREPARE(db, "(query [:find ?a :where [:x ?a $v]])");
    REQUIRE(t);
    struct {
        const char *json, *want;
    } cases[] = {
        {"{\"v\": {\"val\": 1.5}}", "[[\":score\"]]"},
        {"{\"v\": {\"val\": 15e-1}}", "[[\":score\"]]"},
        {"{\"v\": {\"val\": true}}", "[[\":flag\"]]"},
        {"{\"v\": {\"val\": null}}", "[[\":nothing\"]]"},
        {"{\"v\": {\"val\": \"a \\\"quoted\\\" text\"}}", "[[\":label\"]]"},
        {"{\"v\": {\"val\": {\"type\": \"float\", \"value\": 1.5}}}", "[[\":score\"]]"},
        {"{\"v\": {\"val\": {\"type\": \"boolean\", \"value\": true}}}", "[[\":flag\"]]"},
        {"{\"v\": {\"val\": {\"type\": \"null\", \"value\": null}}}", "[[\":nothing\"]]"},
        {"{\"v\": {\"val\": {\"type\": \"string\", \"value\": \"a \\\"quoted\\\" text\"}}}",
         "[[\":label\"]]"},
        {"{\"v\": {\"val\": {\"type\": \"float\", \"value\": \"NaN\"}}}", "[]"},
        {"{\"v\": {\"val\": 1}}", "[]"}, /* an integer: never a float */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (minigraf_stmt_bind_json(t, cases[i].json) != 0) {
            check_fail_str(__FILE__, __LINE__, cases[i].json, minigraf_stmt_last_error(t), NULL);
            continue;
        }
        char want[128];
        snprintf(want, sizeof want, "{\"variables\":[\"?a\"],\"results\":%s}", cases[i].want);
        EXPECT_RUN(t, want);
    }
    minigraf_stmt_free(t);
    /* integers and keywords, typed and plain */
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?e :where [?x ?a $v] [?x :person/name ?e]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_json(s, "{\"v\": {\"val\": 25}}"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Bob\"]]}");
    EXPECT_OK(
        minigraf_stmt_bind_json(s, "{\"v\": {\"val\": {\"type\": \"integer\", \"value\": 30}}}"),
        s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Alice\"]]}");
    EXPECT_OK(minigraf_stmt_bind_json(
                  s, "{\"v\": {\"val\": {\"type\": \"keyword\", \"value\": \":bob\"}}}"),
              s);
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[[\"Alice\"]]}");
    EXPECT_OK(minigraf_stmt_bind_json(s, "{\"v\": {\"val\": \":bob\"}}"), s); /* a plain string */
    EXPECT_RUN(s, "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_stmt_free(s);
    /* timestamps and any_valid_time */
    MiniGrafStmt *v = PREPARE(
        db, "(query [:find ?s :valid-at $t :as-of $c :where [:dave :status ?s]])");
    REQUIRE(v);
    EXPECT_OK(minigraf_stmt_bind_json(
                  v, "{\"t\": {\"timestamp\": 1677628800000}, \"c\": {\"tx_count\": 3}}"),
              v);
    EXPECT_RUN(v, "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    EXPECT_OK(minigraf_stmt_bind_json(v, "{\"c\": {\"tx_count\": 2}}"), v); /* before dave's tx */
    EXPECT_RUN(v, "{\"variables\":[\"?s\"],\"results\":[]}");
    EXPECT_OK(
        minigraf_stmt_bind_json(
            v, "{\"t\": {\"any_valid_time\": true}, \"c\": {\"timestamp\": 9007199254740993}}"),
        v);
    EXPECT_RUN(v, "{\"variables\":[\"?s\"],\"results\":[[\":active\"]]}");
    minigraf_stmt_free(v);
    minigraf_close(db);
}

TEST(bind_json_malformed) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db,
                              "(query [:find ?n :where [$e :person/name ?n] [?e :person/age $a]])");
    REQUIRE(s);
    const char *bad[] = {
        "",
        "{",
        "[]",
        "{\"e\": 1}",
        "{\"e\": {}}",
        "{\"e\": {\"entity\": \"" ALICE "\", \"val\": 1}}",
        "{\"e\": {\"entity\": \"nope\"}}",
        "{\"e\": {\"entity\": 5}}",
        "{\"e\": {\"uuid\": \"" ALICE "\"}}",
        "{\"a\": {\"val\": [1]}}",
        "{\"a\": {\"val\": {\"type\": \"integer\", \"value\": \"1\"}}}",
        "{\"a\": {\"val\": {\"type\": \"decimal\", \"value\": 1}}}",
        "{\"a\": {\"val\": {\"value\": 1}}}",
        "{\"a\": {\"val\": 99999999999999999999}}",
        "{\"a\": {\"tx_count\": -1}}",
        "{\"a\": {\"tx_count\": 1.5}}",
        "{\"a\": {\"timestamp\": \"2023-01-01\"}}",
        "{\"a\": {\"any_valid_time\": false}}",
        "{\"a\": {\"val\": {\"type\": \"keyword\", \"value\": \"x\"}}}",
        "{\"a\": {\"val\": 1},}",
        "{\"a\": {\"val\": 1}} x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = minigraf_stmt_bind_json(s, bad[i]);
        if (rc != API_017)
            check_fail_str(__FILE__, __LINE__, bad[i], minigraf_stmt_last_error(s), "API-017");
        const char *msg = minigraf_stmt_last_error(s);
        CHECK(msg && strncmp(msg, "[API-017] ", 10) == 0);
    }
    EXPECT_FAIL(minigraf_stmt_bind_json(s, NULL), s, API_017, NULL);
    /* all or nothing: a good member with a bad one binds neither */
    EXPECT_FAIL(minigraf_stmt_bind_json(s, "{\"e\": {\"entity\": \"" ALICE
                                           "\"}, \"a\": {\"tx_count\": 1}}"),
                s, API_015, "[API-015] slot '$a' in value position requires Val, got TxCount");
    EXPECT_RUN_ERROR(s, API_015, "[API-015] missing bind value for slot '$e'");
    EXPECT_OK(
        minigraf_stmt_bind_json(s, "{\"e\": {\"entity\": \"" ALICE "\"}, \"a\": {\"val\": 30}}"),
        s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* ---- running again: the database as it is now; rules registered later ----------- */

TEST(rerun_sees_new_writes) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(
        db, "(query [:find ?n :where [?e :person/age $age] [?e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "age", 40), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    EXPECT_TRANSACT(db, "(transact [[:eve :person/name \"Eve\"] [:eve :person/age 40]])");
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Eve\"]]}");
    EXPECT_RETRACT(db, "(retract [[:eve :person/age 40]])");
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}");
    for (int i = 0; i < 50; i++) { /* many runs, alternating values */
        EXPECT_OK(minigraf_stmt_bind_int64(s, "age", i % 2 ? 25 : 30), s);
        EXPECT_RUN(s, i % 2 ? "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}"
                            : "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    }
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(rules_registered_after_prepare_apply) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where (knows $x ?y) [?y :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_keyword(s, "x", ":alice"), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[]}"); /* no rule, no :knows facts */
    EXPECT_EXEC(db, "(rule [(knows ?a ?b) [?a :friend ?b]])", "{\"ok\":true}");
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}");
    EXPECT_EXEC(db,
                "(rule [(knows ?a ?b) [?a :person/name \"Alice\"] [?b :person/name \"Alice\"]])",
                "{\"ok\":true}");
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"],[\"Bob\"]]}");
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* ---- cursors ------------------------------------------------------------------------ */

TEST(cursor_from_statement) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where [?e :person/age ?a] [(>= ?a $min)] "
                                  "[?e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "min", 26), s);
    MiniGrafCursor *c = minigraf_stmt_query(s);
    REQUIRE(c);
    CHECK_STR_EQ(minigraf_stmt_last_error(s), NULL);
    char *vars = minigraf_cursor_vars(c);
    CHECK_STR_EQ(vars, "[\"?n\"]");
    minigraf_string_free(vars);
    /* re-binding and even freeing the statement leave the open cursor alone */
    EXPECT_OK(minigraf_stmt_bind_int64(s, "min", 0), s);
    MiniGrafCursor *all = minigraf_stmt_query(s);
    REQUIRE(all);
    EXPECT_OK(minigraf_stmt_clear_bindings(s), s);
    minigraf_stmt_free(s);
    char *rows = drain_cursor(c, 1);
    CHECK_STR_EQ(rows, "[[\"Alice\"]]");
    free(rows);
    minigraf_cursor_free(c);
    rows = drain_cursor(all, 10);
    char *sorted = rows ? json_sorted_array(rows, NULL) : NULL;
    CHECK_STR_EQ(sorted, "[[\"Alice\"],[\"Bob\"]]");
    free(sorted);
    free(rows);
    minigraf_cursor_free(all);
    minigraf_close(db);
}

/* A streaming cursor from a statement, then a write: the cursor keeps its answer. */
TEST(cursor_from_statement_survives_writes) {
    MiniGrafDb *db = open_memory_db();
    char tx[64];
    for (int i = 0; i < 300; i++) {
        snprintf(tx, sizeof tx, "(transact [[:p%d :n %d]])", i, i % 3);
        EXPECT_TRANSACT(db, tx);
    }
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?e :where [?e :n $v]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "v", 1), s);
    MiniGrafCursor *c = minigraf_stmt_query(s);
    REQUIRE(c);
    char *first = minigraf_cursor_next_batch(c, 10);
    CHECK(first != NULL);
    minigraf_string_free(first);
    EXPECT_TRANSACT(db, "(transact [[:extra :n 1]])");
    EXPECT_OK(minigraf_stmt_bind_int64(s, "v", 2), s);
    size_t rows = 10;
    char *b;
    while ((b = minigraf_cursor_next_batch(c, 7)) != NULL) {
        for (const char *p = b + 1; *p; p++)
            rows += *p == '[';
        minigraf_string_free(b);
    }
    CHECK_INT_EQ(rows, 100);
    minigraf_cursor_free(c);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* Binding while a cursor holds the statement's parse copies it: the string
 * bound before stays the statement's, the cursor keeps its own. */
TEST(rebinding_under_open_cursors_keeps_strings) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db,
                              "(query [:find ?a :where [?e :person/name $n] [?e :person/age ?a] "
                              "[(>= ?a $min)]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_string(s, "n", "Alice", 5), s);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "min", 0), s);
    MiniGrafCursor *c1 = minigraf_stmt_query(s);
    REQUIRE(c1);
    EXPECT_OK(minigraf_stmt_bind_int64(s, "min", 1), s); /* copies the parse: "Alice" moves along */
    EXPECT_RUN(s, "{\"variables\":[\"?a\"],\"results\":[[30]]}");
    MiniGrafCursor *c2 = minigraf_stmt_query(s);
    REQUIRE(c2);
    EXPECT_OK(minigraf_stmt_bind_string(s, "n", "Bob", 3), s); /* a second copy */
    EXPECT_RUN(s, "{\"variables\":[\"?a\"],\"results\":[[25]]}");
    minigraf_cursor_free(c1);
    EXPECT_OK(minigraf_stmt_clear_bindings(s), s);
    EXPECT_OK(minigraf_stmt_bind_json(s, "{\"min\": {\"val\": 0}, \"n\": {\"val\": \"Alice\"}}"),
              s);
    EXPECT_RUN(s, "{\"variables\":[\"?a\"],\"results\":[[30]]}");
    minigraf_stmt_free(s);
    char *rows = drain_cursor(c2, 10);
    CHECK_STR_EQ(rows, "[[30]]");
    free(rows);
    minigraf_cursor_free(c2);
    minigraf_close(db);
}

/* ---- handles ------------------------------------------------------------------------ */

static int is_adult(void *user_data, const minigraf_value *v, int *result, char *error,
                    size_t size) {
    (void)user_data, (void)error, (void)size;
    *result = v->type == MINIGRAF_TYPE_INTEGER && v->integer >= 28;
    return 0;
}

/* Host functions registered after prepare apply to the statement's next
 * run, and unregistering them makes the run fail as an unknown predicate. */
TEST(host_functions_registered_after_prepare_apply) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(
        db, "(query [:find ?n :where [?e :person/age ?a] [(adult? ?a)] [?e :person/name ?n]])");
    REQUIRE(s);
    CHECK(minigraf_stmt_execute(s) == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_stmt_last_error_code(s)), "QRY-007");
    CHECK_INT_EQ(minigraf_register_predicate(db, "adult?", is_adult, NULL, NULL), 0);
    char *json = minigraf_stmt_execute(s);
    CHECK_STR_EQ(json, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    minigraf_string_free(json);
    CHECK_INT_EQ(minigraf_register_predicate(db, "adult?", NULL, NULL, NULL), 0);
    CHECK(minigraf_stmt_execute(s) == NULL);
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_stmt_last_error_code(s)), "QRY-007");
    minigraf_stmt_free(s);
    minigraf_close(db);
}

TEST(null_and_dead_handles) {
    CHECK(minigraf_prepare(NULL, "(query [:find ?x :where [?x :a 1]])") == NULL);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(NULL, "x", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_entity(NULL, "x", ALICE), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_entity(NULL, "x", "bad"), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_keyword(NULL, "x", ":a"), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_string(NULL, "x", "a", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_double(NULL, "x", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_bool(NULL, "x", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_null(NULL, "x"), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_tx_count(NULL, "x", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_timestamp_ms(NULL, "x", 1), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_any_valid_time(NULL, "x"), API_017);
    CHECK_INT_EQ(minigraf_stmt_bind_json(NULL, "{}"), API_017);
    CHECK_INT_EQ(minigraf_stmt_clear_bindings(NULL), API_017);
    CHECK(minigraf_stmt_execute(NULL) == NULL);
    CHECK(minigraf_stmt_query(NULL) == NULL);
    CHECK(minigraf_stmt_last_error(NULL) == NULL); /* as every *_last_error(NULL) */
    CHECK_INT_EQ(minigraf_stmt_last_error_code(NULL), API_017);
    minigraf_stmt_free(NULL);

    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where [$e :person/name ?n]])");
    REQUIRE(s);
    minigraf_stmt_free(s);
    minigraf_stmt_free(s); /* harmless */
    CHECK_INT_EQ(minigraf_stmt_bind_entity(s, "e", ALICE), API_018);
    CHECK_INT_EQ(minigraf_stmt_bind_json(s, "{}"), API_018);
    CHECK_INT_EQ(minigraf_stmt_clear_bindings(s), API_018);
    CHECK(minigraf_stmt_execute(s) == NULL);
    CHECK(minigraf_stmt_query(s) == NULL);
    CHECK(strncmp(minigraf_stmt_last_error(s), "[API-018]", 9) == 0);
    CHECK_INT_EQ(minigraf_stmt_last_error_code(s), API_018);
    /* a string with an embedded NUL and invalid UTF-8 */
    MiniGrafStmt *t = PREPARE(db, "(query [:find ?a :where [:x ?a $v]])");
    REQUIRE(t);
    EXPECT_OK(minigraf_stmt_bind_string(t, "v", "a\0b", 3), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[]}");
    EXPECT_FAIL(minigraf_stmt_bind_string(t, "v", "\xff", 1), t, API_017, NULL);
    EXPECT_FAIL(minigraf_stmt_bind_string(t, "v", NULL, 1), t, API_017, NULL);
    EXPECT_OK(minigraf_stmt_bind_string(t, "v", NULL, 0), t);
    EXPECT_RUN(t, "{\"variables\":[\"?a\"],\"results\":[]}");
    minigraf_stmt_free(t);
    minigraf_close(db);
}

TEST(database_closed_before_statement) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where [$e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_entity(s, "e", ALICE), s);
    MiniGrafCursor *c = minigraf_stmt_query(s);
    REQUIRE(c);
    minigraf_close(db);
    CHECK(minigraf_stmt_execute(s) == NULL);
    expect_last_at(__LINE__, s, API_018, NULL);
    CHECK(minigraf_stmt_query(s) == NULL);
    CHECK_INT_EQ(minigraf_stmt_last_error_code(s), API_018);
    CHECK_INT_EQ(minigraf_stmt_bind_int64(s, "e", 1), API_018);
    CHECK_INT_EQ(minigraf_stmt_bind_entity(s, "e", ALICE), API_018);
    CHECK_INT_EQ(minigraf_stmt_bind_json(s, "{}"), API_018);
    CHECK_INT_EQ(minigraf_stmt_clear_bindings(s), API_018);
    const char *msg = minigraf_stmt_last_error(s);
    CHECK(msg && strncmp(msg, "[API-018] ", 10) == 0);
    /* the cursor opened before the close still gives its answer */
    char *rows = drain_cursor(c, 10);
    CHECK_STR_EQ(rows, "[[\"Alice\"]]");
    free(rows);
    minigraf_cursor_free(c);
    minigraf_stmt_free(s);
    minigraf_stmt_free(s);
}

/* Plain execution keeps refusing slots (language.md D6), prepared or not. */
TEST(plain_execution_still_refuses_slots) {
    MiniGrafDb *db = people();
    MiniGrafStmt *s = PREPARE(db, "(query [:find ?n :where [$e :person/name ?n]])");
    REQUIRE(s);
    EXPECT_OK(minigraf_stmt_bind_entity(s, "e", ALICE), s);
    EXPECT_RUN(s, "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}");
    EXPECT_ERROR(db, "(query [:find ?n :where [$e :person/name ?n]])", "API-010");
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?n :where [$e :person/name ?n]])");
    CHECK(c == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), API_010);
    minigraf_stmt_free(s);
    minigraf_close(db);
}

/* Two statements on two threads (one each), on one database. */
typedef struct worker {
    MiniGrafDb *db;
    int age;
    int failures;
} worker;

static void *run_worker(void *arg) {
    worker *w = arg;
    MiniGrafStmt *s = minigraf_prepare(
        w->db, "(query [:find ?n :where [?e :person/age $a] [?e :person/name ?n]])");
    if (!s) {
        w->failures++;
        return NULL;
    }
    const char *want = w->age == 25 ? "{\"variables\":[\"?n\"],\"results\":[[\"Bob\"]]}"
                                    : "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"]]}";
    for (int i = 0; i < 200; i++) {
        char *r = NULL;
        if (minigraf_stmt_bind_int64(s, "a", w->age) != 0 || !(r = minigraf_stmt_execute(s)) ||
            strcmp(r, want) != 0)
            w->failures++;
        minigraf_string_free(r);
    }
    minigraf_stmt_free(s);
    return NULL;
}

TEST(statements_on_two_threads) {
    MiniGrafDb *db = people();
    worker w[2] = {{db, 25, 0}, {db, 30, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, run_worker, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_INT_EQ(w[0].failures, 0);
    CHECK_INT_EQ(w[1].failures, 0);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(b10_prepared_query), TEST_ENTRY(only_queries_can_be_prepared),
           TEST_ENTRY(attribute_slot_refused_everywhere),
           TEST_ENTRY(entity_position_takes_entity_only),
           TEST_ENTRY(value_position_takes_every_val), TEST_ENTRY(keyword_val_matches_stored_ref),
           TEST_ENTRY(rule_argument_takes_val_only),
           TEST_ENTRY(bind_ref_binds_an_entity_as_a_value),
           TEST_ENTRY(expression_argument_takes_val_only),
           TEST_ENTRY(as_of_takes_tx_count_or_timestamp),
           TEST_ENTRY(valid_at_takes_timestamp_or_any_valid_time),
           TEST_ENTRY(slot_used_twice_checked_per_use), TEST_ENTRY(missing_and_extra_binds),
           TEST_ENTRY(bind_json_value_forms), TEST_ENTRY(bind_json_malformed),
           TEST_ENTRY(rerun_sees_new_writes), TEST_ENTRY(rules_registered_after_prepare_apply),
           TEST_ENTRY(cursor_from_statement), TEST_ENTRY(cursor_from_statement_survives_writes),
           TEST_ENTRY(rebinding_under_open_cursors_keeps_strings),
           TEST_ENTRY(host_functions_registered_after_prepare_apply),
           TEST_ENTRY(null_and_dead_handles), TEST_ENTRY(database_closed_before_statement),
           TEST_ENTRY(plain_execution_still_refuses_slots), TEST_ENTRY(statements_on_two_threads))
