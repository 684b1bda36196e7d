/* Typed rows: minigraf_cursor_step and the column accessors. */
#include <math.h>
#include <stdbool.h>
#include <pthread.h>

#include "log_support.h"
#include "support.h"

static MiniGrafCursor *query_at(const char *file, int line, MiniGrafDb *db, const char *text) {
    MiniGrafCursor *c = minigraf_query(db, text);
    if (!c) {
        check_fail(file, line, text);
        fprintf(stderr, "    error: %s\n", minigraf_last_error(db));
    }
    return c;
}
#define QUERY(db, text) query_at(__FILE__, __LINE__, (db), (text))

/* The accessor left API-017 on the cursor. */
#define CHECK_MISUSE(c) CHECK_INT_EQ(minigraf_cursor_last_error_code(c), MINIGRAF_E_API_017)

TEST(every_type_keeps_its_type) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :s \"hello\"] [:x :k :ns/kw] [:x :i 42] [:x :f 2.5]"
                        " [:x :b true] [:y :r 1]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?s ?k ?i ?f ?b ?r :where [:x :s ?s] [:x :k ?k]"
                                  " [:x :i ?i] [:x :f ?f] [:x :b ?b] [?r :r 1]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_column_count(c), 6);
    CHECK_STR_EQ(minigraf_cursor_column_name(c, 0), "?s");
    CHECK_STR_EQ(minigraf_cursor_column_name(c, 5), "?r");
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), MINIGRAF_TYPE_STRING);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 1), MINIGRAF_TYPE_KEYWORD);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 2), MINIGRAF_TYPE_INTEGER);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 3), MINIGRAF_TYPE_FLOAT);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 4), MINIGRAF_TYPE_BOOLEAN);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 5), MINIGRAF_TYPE_REF);
    size_t len = 99;
    CHECK_STR_EQ(minigraf_cursor_column_text(c, 0, &len), "hello");
    CHECK_INT_EQ(len, 5);
    CHECK_STR_EQ(minigraf_cursor_column_text(c, 1, &len), ":ns/kw");
    CHECK_INT_EQ(len, 6);
    CHECK_STR_EQ(minigraf_cursor_column_keyword(c, 1, NULL), ":ns/kw");
    CHECK_INT_EQ(minigraf_cursor_column_int64(c, 2), 42);
    CHECK(minigraf_cursor_column_double(c, 3) == 2.5);
    CHECK_INT_EQ(minigraf_cursor_column_bool(c, 4), 1);
    const unsigned char *u = minigraf_cursor_column_uuid(c, 5);
    REQUIRE(u != NULL);
    /* :y's UUID, as the JSON form spells it */
    char *json = EXEC(db, "(query [:find ?r :where [?r :r 1]])");
    char hex[40];
    snprintf(hex, sizeof hex, "%02x%02x%02x%02x-%02x%02x-", u[0], u[1], u[2], u[3], u[4], u[5]);
    CHECK(json && strstr(json, hex) != NULL);
    minigraf_string_free(json);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0);
    CHECK_INT_EQ(minigraf_cursor_step(c), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(keyword_string_and_ref_differ) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :v \":b\"] [:c :v :b] [:d :v :b2]])");
    EXPECT_TRANSACT(db, "(transact [[:e :v :b]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e ?v :where [?e :v ?v]])");
    REQUIRE(c != NULL);
    int strings = 0, keywords = 0;
    while (minigraf_cursor_step(c) == 1) {
        int t = minigraf_cursor_column_type(c, 1);
        CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), MINIGRAF_TYPE_REF);
        if (t == MINIGRAF_TYPE_STRING) {
            strings++;
            CHECK_STR_EQ(minigraf_cursor_column_text(c, 1, NULL), ":b");
            CHECK(minigraf_cursor_column_keyword(c, 1, NULL) == NULL);
            CHECK_MISUSE(c);
        } else {
            CHECK_INT_EQ(t, MINIGRAF_TYPE_KEYWORD);
            keywords++;
        }
        CHECK(minigraf_cursor_column_text(c, 0, NULL) == NULL); /* a ref is not text */
        CHECK_MISUSE(c);
    }
    CHECK_INT_EQ(strings, 1);
    CHECK_INT_EQ(keywords, 3);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(nan_and_infinities_are_doubles) {
    MiniGrafDb *db = open_memory_db();
    /* overflowing literals are infinities; their sum is NaN (language.md §6.2) */
    char big[420], text[1000];
    memset(big, '9', 400);
    strcpy(big + 400, ".0");
    snprintf(text, sizeof text, "(transact [[:x :v %s] [:y :v -%s]])", big, big);
    EXPECT_TRANSACT(db, text);
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e ?v :where [?e :v ?v]])");
    REQUIRE(c != NULL);
    int pos = 0, neg = 0;
    while (minigraf_cursor_step(c) == 1) {
        CHECK_INT_EQ(minigraf_cursor_column_type(c, 1), MINIGRAF_TYPE_FLOAT);
        double d = minigraf_cursor_column_double(c, 1);
        CHECK(isinf(d));
        pos += d > 0;
        neg += d < 0;
    }
    CHECK(pos == 1 && neg == 1);
    minigraf_cursor_free(c);
    c = QUERY(db, "(query [:find (sum ?v) :where [?e :v ?v]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), MINIGRAF_TYPE_FLOAT);
    CHECK(isnan(minigraf_cursor_column_double(c, 0)));
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(int64_edges_are_exact) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :max 9223372036854775807] [:x :min -9223372036854775808]"
                        " [:x :zero 0]])");
    MiniGrafCursor *c = QUERY(
        db, "(query [:find ?a ?b ?z :where [:x :max ?a] [:x :min ?b] [:x :zero ?z]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK(minigraf_cursor_column_int64(c, 0) == INT64_MAX);
    CHECK(minigraf_cursor_column_int64(c, 1) == INT64_MIN);
    CHECK(minigraf_cursor_column_int64(c, 2) == 0);
    CHECK(minigraf_cursor_column_double(c, 0) == (double)INT64_MAX); /* the one conversion */
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(empty_strings_and_nul_bytes) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(t.path, NULL, &error);
    REQUIRE(w != NULL);
    const char *rec = "{\"entity\":\"e340ebba-e050-5d3b-8c2e-5388ce184a79\",\"attribute\":\":s\","
                      "\"value\":{\"type\":\"string\",\"value\":\"a\\u0000b\"},\"tx_count\":1,"
                      "\"tx_id\":1,\"valid_from\":1,\"valid_to\":9223372036854775807,"
                      "\"asserted\":true}";
    CHECK_INT_EQ(minigraf_log_writer_append(w, rec), 0);
    CHECK_INT_EQ(minigraf_log_writer_finish(w), 0);
    minigraf_log_writer_free(w);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:y :s \"\"]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?v :where [?e :s ?v]])");
    REQUIRE(c != NULL);
    int seen = 0;
    while (minigraf_cursor_step(c) == 1) {
        size_t len = 99;
        const char *s = minigraf_cursor_column_text(c, 0, &len);
        REQUIRE(s != NULL);
        if (len == 0) {
            CHECK_STR_EQ(s, "");
            seen |= 1;
        } else {
            CHECK_INT_EQ(len, 3);
            CHECK(memcmp(s, "a\0b", 3) == 0);
            seen |= 2;
        }
    }
    CHECK_INT_EQ(seen, 3);
    minigraf_cursor_free(c);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(collect_set_is_a_list_with_typed_json) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :dept \"eng\"] [:b :dept :hr] [:c :dept 3]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find (collect-set ?d) :where [?e :dept ?d]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), MINIGRAF_TYPE_LIST);
    size_t len = 0;
    const char *text = minigraf_cursor_column_text(c, 0, &len);
    CHECK_STR_EQ(text,
                 "[{\"type\":\"string\",\"value\":\"eng\"},{\"type\":\"integer\",\"value\":3},"
                 "{\"type\":\"keyword\",\"value\":\":hr\"}]");
    CHECK_INT_EQ(len, text ? strlen(text) : 0);
    CHECK_STR_EQ(minigraf_cursor_column_name(c, 0), "(collect-set ?d)");
    CHECK(minigraf_cursor_column_int64(c, 0) == 0);
    CHECK_MISUSE(c);
    CHECK_INT_EQ(minigraf_cursor_step(c), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(wrong_type_accessors_fail_with_api_017) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :s \"t\"] [:x :i 7] [:x :b false]])");
    MiniGrafCursor *c = QUERY(db,
                              "(query [:find ?s ?i ?b :where [:x :s ?s] [:x :i ?i] [:x :b ?b]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK(minigraf_cursor_column_int64(c, 0) == 0);
    CHECK_MISUSE(c);
    CHECK(strstr(minigraf_cursor_last_error(c), "String") != NULL);
    CHECK(minigraf_cursor_column_double(c, 0) == 0.0);
    CHECK_MISUSE(c);
    CHECK_INT_EQ(minigraf_cursor_column_bool(c, 1), 0);
    CHECK_MISUSE(c);
    CHECK(minigraf_cursor_column_uuid(c, 1) == NULL);
    CHECK_MISUSE(c);
    size_t len = 5;
    CHECK(minigraf_cursor_column_text(c, 1, &len) == NULL);
    CHECK_INT_EQ(len, 0);
    CHECK_MISUSE(c);
    CHECK(minigraf_cursor_column_int64(c, 2) == 0); /* a boolean is not an integer */
    CHECK_MISUSE(c);
    CHECK_INT_EQ(minigraf_cursor_column_bool(c, 2), 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0); /* success clears */
    CHECK(minigraf_cursor_column_double(c, 1) == 7.0);
    /* out of range */
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 3), -1);
    CHECK_MISUSE(c);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, -1), -1);
    CHECK(minigraf_cursor_column_name(c, 3) == NULL);
    CHECK_MISUSE(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Two cursors read in turn on one thread (each call finds the other
 * cursor remembered, and looks its own up), each accessor on the right
 * type and then on a wrong one, and the success after an error. */
TEST(two_cursors_in_turn_each_read_their_own_row) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :s \"ab\"] [:x :k :kw/x] [:x :i 7] [:x :f 1.5] "
                        "[:x :b true] [:y :s \"cd\"] [:y :k :kw/y] [:y :i 8] [:y :f 2.5] "
                        "[:y :b false]])");
    const char *q = "(query [:find ?e ?s ?k ?i ?f ?b :where [?e :s ?s] [?e :k ?k] [?e :i ?i] "
                    "[?e :f ?f] [?e :b ?b]])";
    MiniGrafCursor *c[2] = {QUERY(db, q), QUERY(db, q)};
    REQUIRE(c[0] != NULL && c[1] != NULL);
    for (int row = 0; row < 2; row++) {
        CHECK_INT_EQ(minigraf_cursor_step(c[0]), 1);
        CHECK_INT_EQ(minigraf_cursor_step(c[1]), 1);
        for (int i = 0; i < 2; i++) {
            int64_t n = minigraf_cursor_column_int64(c[i], 3);
            CHECK(n == 7 || n == 8);
            CHECK(minigraf_cursor_column_double(c[i], 4) == (n == 7 ? 1.5 : 2.5));
            CHECK(minigraf_cursor_column_double(c[i], 3) == (double)n); /* an Integer too */
            CHECK_INT_EQ(minigraf_cursor_column_bool(c[i], 5), n == 7);
            CHECK(minigraf_cursor_column_uuid(c[i], 0) != NULL);
            size_t len = 0;
            const char *s = minigraf_cursor_column_text(c[i], 1, NULL);
            CHECK(s != NULL && memcmp(s, n == 7 ? "ab" : "cd", 2) == 0);
            const char *k = minigraf_cursor_column_keyword(c[i], 2, &len);
            CHECK(k != NULL && len == 5 && memcmp(k, n == 7 ? ":kw/x" : ":kw/y", 5) == 0);
            CHECK(minigraf_cursor_column_text(c[i], 2, &len) == k); /* a Keyword's text */
            CHECK(minigraf_cursor_column_keyword(c[i], 1, &len) == NULL && len == 0);
            CHECK_MISUSE(c[i]);
            CHECK(minigraf_cursor_column_int64(c[i], 3) == n);
            CHECK_INT_EQ(minigraf_cursor_last_error_code(c[i]), 0); /* success clears */
            /* column_type too: its fast path is taken only with no error */
            CHECK(minigraf_cursor_column_keyword(c[i], 1, &len) == NULL);
            CHECK_MISUSE(c[i]);
            CHECK_INT_EQ(minigraf_cursor_column_type(c[i], 2), MINIGRAF_TYPE_KEYWORD);
            CHECK_INT_EQ(minigraf_cursor_last_error_code(c[i]), 0);
            CHECK_INT_EQ(minigraf_cursor_column_type(c[i], 6), -1);
            CHECK_MISUSE(c[i]);
            CHECK_INT_EQ(minigraf_cursor_column_type(c[i], 0), MINIGRAF_TYPE_REF);
        }
    }
    CHECK_INT_EQ(minigraf_cursor_step(c[0]), 0);
    CHECK_INT_EQ(minigraf_cursor_step(c[1]), 0);
    minigraf_cursor_free(c[0]);
    minigraf_cursor_free(c[1]);
    minigraf_close(db);
}

TEST(no_current_row_before_first_step_and_after_end) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :i 1]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?i :where [:x :i ?i]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), -1);
    CHECK_MISUSE(c);
    CHECK_STR_EQ(minigraf_cursor_column_name(c, 0), "?i"); /* needs no row */
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    CHECK_INT_EQ(minigraf_cursor_step(c), 0);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0);
    CHECK(minigraf_cursor_column_int64(c, 0) == 0);
    CHECK_MISUSE(c);
    CHECK_INT_EQ(minigraf_cursor_step(c), 0); /* and stays at the end */
    CHECK_INT_EQ(minigraf_cursor_step(c), 0);
    CHECK(minigraf_cursor_next_batch(c, 10) == NULL);
    CHECK(minigraf_cursor_last_error(c) == NULL);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(bad_handles) {
    CHECK_INT_EQ(minigraf_cursor_step(NULL), -MINIGRAF_E_API_017);
    CHECK_INT_EQ(minigraf_cursor_column_count(NULL), 0);
    CHECK_INT_EQ(minigraf_cursor_column_type(NULL, 0), -1);
    CHECK(minigraf_cursor_column_text(NULL, 0, NULL) == NULL);
    CHECK(minigraf_cursor_column_name(NULL, 0) == NULL);
    MiniGrafDb *db = open_memory_db();
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(c != NULL);
    minigraf_cursor_free(c);
    CHECK_INT_EQ(minigraf_cursor_step(c), -MINIGRAF_E_API_018);
    CHECK(minigraf_cursor_column_uuid(c, 0) == NULL);
    minigraf_close(db);
}

static void *free_cursor(void *c) {
    minigraf_cursor_free(c);
    return NULL;
}

/* The handle check remembers the last live handle per thread: a cursor
 * freed since, here or on another thread, is dead at once. */
TEST(a_cursor_freed_between_accessors_is_dead) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1] [:y :a 1]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    CHECK(minigraf_cursor_column_uuid(c, 0) != NULL);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, free_cursor, c) == 0);
    pthread_join(t, NULL);
    CHECK(minigraf_cursor_column_uuid(c, 0) == NULL);
    CHECK_INT_EQ(minigraf_cursor_step(c), -MINIGRAF_E_API_018);

    MiniGrafCursor *d = QUERY(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(d != NULL);
    CHECK_INT_EQ(minigraf_cursor_step(d), 1);
    CHECK(minigraf_cursor_column_uuid(d, 0) != NULL);
    minigraf_cursor_free(d);
    CHECK(minigraf_cursor_column_uuid(d, 0) == NULL);
    CHECK_INT_EQ(minigraf_cursor_step(d), -MINIGRAF_E_API_018);
    minigraf_close(db);
}

#define MANY_CURSORS 300 /* more than the handle check's set of recent cursors */

typedef struct many_cursors {
    MiniGrafCursor *c[MANY_CURSORS];
    int failures;
} many_cursors;

/* On another thread: every cursor's current row, then the odd ones freed. */
static void *read_then_free_odd(void *arg) {
    many_cursors *m = arg;
    for (int i = 0; i < MANY_CURSORS; i++)
        if (minigraf_cursor_column_int64(m->c[i], 0) != i % 10)
            m->failures++;
    for (int i = 1; i < MANY_CURSORS; i += 2)
        minigraf_cursor_free(m->c[i]);
    return NULL;
}

/* Cursors that share a slot of the set of recent ones (handles.h) take
 * turns: each reads its own row, and a freed one is dead at once, on the
 * thread that freed it and on another. */
TEST(more_cursors_than_remembered_ones_each_read_their_own_row) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :i 0] [:x :i 1] [:x :i 2] [:x :i 3] [:x :i 4] [:x :i 5]"
                        " [:x :i 6] [:x :i 7] [:x :i 8] [:x :i 9]])");
    static many_cursors m;
    for (int i = 0; i < MANY_CURSORS; i++) {
        char q[96];
        snprintf(q, sizeof q, "(query [:find ?i :where [:x :i ?i] [(= ?i %d)]])", i % 10);
        REQUIRE((m.c[i] = QUERY(db, q)) != NULL);
    }
    for (int i = 0; i < MANY_CURSORS; i++)
        CHECK_INT_EQ(minigraf_cursor_step(m.c[i]), 1);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < MANY_CURSORS; i++)
            CHECK(minigraf_cursor_column_int64(m.c[i], 0) == i % 10);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, read_then_free_odd, &m) == 0);
    pthread_join(t, NULL);
    CHECK_INT_EQ(m.failures, 0);
    for (int i = 0; i < MANY_CURSORS; i++) {
        if (i % 2) {
            CHECK(minigraf_cursor_column_int64(m.c[i], 0) == 0);
            CHECK_INT_EQ(minigraf_cursor_step(m.c[i]), -MINIGRAF_E_API_018);
            continue;
        }
        CHECK(minigraf_cursor_column_int64(m.c[i], 0) == i % 10);
        CHECK_INT_EQ(minigraf_cursor_last_error_code(m.c[i]), 0);
        CHECK_INT_EQ(minigraf_cursor_step(m.c[i]), 0);
        minigraf_cursor_free(m.c[i]);
        CHECK_INT_EQ(minigraf_cursor_step(m.c[i]), -MINIGRAF_E_API_018);
    }
    minigraf_close(db);
}

/* No address is taken for a cursor by the set of recent ones (an empty
 * slot holds an address that maps to the next slot, handles.h): every
 * 64-byte step of the first 16 KiB of addresses, NULL included, fails
 * with a code, before a cursor is remembered, while one is, and after it
 * is freed (its slot emptied again). */
static void check_low_addresses_are_not_cursors(void) {
    for (uintptr_t p = 0; p < 256u * 64u; p += 64) {
        MiniGrafCursor *bad = (MiniGrafCursor *)p;
        int code = p ? -MINIGRAF_E_API_018 : -MINIGRAF_E_API_017;
        CHECK_INT_EQ(minigraf_cursor_step(bad), code);
        CHECK(minigraf_cursor_column_int64(bad, 0) == 0);
        CHECK(minigraf_cursor_column_uuid(bad, 0) == NULL);
        CHECK(minigraf_cursor_column_text(bad, 0, NULL) == NULL);
    }
}

TEST(empty_slots_of_the_recent_cursors_match_no_address) {
    check_low_addresses_are_not_cursors();
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    check_low_addresses_are_not_cursors();
    CHECK(minigraf_cursor_column_uuid(c, 0) != NULL);
    minigraf_cursor_free(c);
    check_low_addresses_are_not_cursors();
    minigraf_close(db);
}

/* A pointer into a live cursor is not that cursor. */
TEST(a_pointer_inside_a_live_cursor_is_not_a_cursor) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e :where [?e :a 1]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    CHECK(minigraf_cursor_column_uuid(c, 0) != NULL);
    for (int off = 1; off < 8; off++) {
        MiniGrafCursor *inside = (MiniGrafCursor *)((char *)c + off);
        CHECK(minigraf_cursor_column_uuid(inside, 0) == NULL);
        CHECK_INT_EQ(minigraf_cursor_step(inside), -MINIGRAF_E_API_018);
    }
    CHECK(minigraf_cursor_column_uuid(c, 0) != NULL);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(step_on_error_returns_minus_the_code_every_time) {
    MiniGrafDb *db = NULL;
    REQUIRE(minigraf_open_v2(NULL, "{\"query_memory_limit\":300000}", &db, NULL) == 0);
    for (int b = 0; b < 20; b++) {
        char text[40000] = "(transact [";
        size_t n = strlen(text);
        for (int i = 0; i < 500; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "[:e%d :name \"name-%d-long-text\"]",
                                  b * 500 + i, b * 500 + i);
        snprintf(text + n, sizeof text - n, "])");
        char *r = EXEC(db, text);
        minigraf_string_free(r);
    }
    /* A streaming cursor that a write makes keep its rest: the rest
     * exceeds the limit (QRY-012), met by a later step. */
    MiniGrafCursor *c = QUERY(db, "(query [:find ?e ?n :where [?e :name ?n]])");
    REQUIRE(c != NULL);
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    EXPECT_TRANSACT(db, "(transact [[:z :name \"z\"]])");
    int rc, rows = 1;
    while ((rc = minigraf_cursor_step(c)) == 1)
        rows++;
    CHECK_INT_EQ(rc, -MINIGRAF_E_QRY_012);
    CHECK(rows < 10000);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), MINIGRAF_E_QRY_012);
    CHECK(strncmp(minigraf_cursor_last_error(c), "[QRY-012] ", 10) == 0);
    CHECK(minigraf_cursor_column_type(c, 0) == -1);
    CHECK_INT_EQ(minigraf_cursor_step(c), -MINIGRAF_E_QRY_012);
    CHECK(strncmp(minigraf_cursor_last_error(c), "[QRY-012] ", 10) == 0);
    CHECK(minigraf_cursor_next_batch(c, 10) == NULL);
    CHECK_INT_EQ(minigraf_cursor_last_error_code(c), MINIGRAF_E_QRY_012);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Rows 0..n-1 of `:find ?i`, with step and next_batch interleaved. */
static void mixed_reading(MiniGrafDb *db, const char *query, int n) {
    MiniGrafCursor *c = QUERY(db, query);
    REQUIRE(c != NULL);
    int seen = 0;
    long sum = 0;
    CHECK_INT_EQ(minigraf_cursor_step(c), 1);
    int64_t first = minigraf_cursor_column_int64(c, 0);
    sum += first;
    seen++;
    char *b = minigraf_cursor_next_batch(c, 3); /* the three rows after the current one */
    REQUIRE(b != NULL);
    CHECK_INT_EQ(minigraf_cursor_column_int64(c, 0), first); /* the current row stays */
    for (const char *p = b + 1; *p && *p != ']';) {
        sum += strtol(p + 1, NULL, 10);
        seen++;
        p = strchr(p, ']') + 1;
        if (*p == ',')
            p++;
    }
    minigraf_string_free(b);
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        sum += minigraf_cursor_column_int64(c, 0);
        seen++;
        if (seen == 40) { /* a batch in the middle of the read-ahead */
            char *rest = minigraf_cursor_next_batch(c, 5);
            REQUIRE(rest != NULL);
            for (const char *p = rest + 1; *p && *p != ']';) {
                sum += strtol(p + 1, NULL, 10);
                seen++;
                p = strchr(p, ']') + 1;
                if (*p == ',')
                    p++;
            }
            minigraf_string_free(rest);
        }
    }
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(seen, n);
    CHECK_INT_EQ(sum, (long)n * (n - 1) / 2);
    CHECK(minigraf_cursor_next_batch(c, 10) == NULL);
    minigraf_cursor_free(c);
}

TEST(mixing_step_and_next_batch_shares_the_position) {
    MiniGrafDb *db = open_memory_db();
    char text[20000] = "(transact [";
    size_t len = strlen(text);
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "[:e%d :i %d]", i, i);
    snprintf(text + len, sizeof text - len, "])");
    EXPECT_TRANSACT(db, text);
    mixed_reading(db, "(query [:find ?i :where [?e :i ?i]])", 300);                /* streams */
    mixed_reading(db, "(query [:find ?i :where [?e :i ?i] :order-by [?i]])", 300); /* whole */
    minigraf_close(db);
}

/* Marks the names "n<i>" of a batch's rows in `seen`: how many rows. */
static int mark_names(const char *batch, int *seen, int n) {
    int rows = 0;
    for (const char *p = strstr(batch, "\"n"); p; p = strstr(p + 1, "\"n")) {
        int i = atoi(p + 2);
        if (i >= 0 && i < n)
            seen[i]++;
        rows++;
    }
    return rows;
}

TEST(batches_across_engine_blocks_keep_the_stepped_row) {
    enum { N = 700 };
    MiniGrafDb *db = open_memory_db();
    char text[40000] = "(transact [";
    size_t len = strlen(text);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "[:e%d :name \"n%d\"]", i, i);
    snprintf(text + len, sizeof text - len, "])");
    EXPECT_TRANSACT(db, text);
    const char *queries[] = {"(query [:find ?n :where [?e :name ?n]])", /* streams */
                             "(query [:find ?n (row-number :over (:order-by ?n)) "
                             ":where [?e :name ?n]])"}; /* computed whole */
    for (int q = 0; q < 2; q++) {
        MiniGrafCursor *c = QUERY(db, queries[q]);
        REQUIRE(c != NULL);
        int seen[N] = {0}, rows = 0;
        while (rows < N) {
            REQUIRE(minigraf_cursor_step(c) == 1);
            size_t n;
            const char *name = minigraf_cursor_column_text(c, 0, &n);
            REQUIRE(name != NULL && n >= 2);
            char held[8];
            snprintf(held, sizeof held, "%.*s", (int)n, name);
            seen[atoi(held + 1)]++;
            rows++;
            /* 1, 64, 65, 200 rows: within one engine block, and across */
            size_t want = rows % 4 == 1 ? 1 : rows % 4 == 2 ? 64 : rows % 4 == 3 ? 65 : 200;
            char *b = minigraf_cursor_next_batch(c, want);
            if (!b)
                break;
            rows += mark_names(b, seen, N);
            minigraf_string_free(b);
            CHECK(minigraf_cursor_column_text(c, 0, NULL) == name); /* still the stepped row */
            CHECK(strncmp(name, held, strlen(held)) == 0);
        }
        CHECK_INT_EQ(rows, N);
        for (int i = 0; i < N; i++)
            CHECK_INT_EQ(seen[i], 1);
        CHECK_INT_EQ(minigraf_cursor_step(c), 0);
        CHECK(minigraf_cursor_next_batch(c, 10) == NULL);
        CHECK_INT_EQ(minigraf_cursor_last_error_code(c), 0);
        minigraf_cursor_free(c);
    }
    minigraf_close(db);
}

TEST(rows_survive_writes_and_close) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n \"alpha\"] [:b :n \"beta\"] [:c :n \"gamma\"]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?n :where [?e :n ?n]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    size_t len;
    const char *t = minigraf_cursor_column_text(c, 0, &len);
    char copy[16];
    snprintf(copy, sizeof copy, "%s", t);
    EXPECT_TRANSACT(db, "(transact [[:d :n \"delta\"]])");
    CHECK_STR_EQ(minigraf_cursor_column_text(c, 0, NULL), copy); /* still valid */
    minigraf_close(db);
    CHECK_STR_EQ(minigraf_cursor_column_text(c, 0, NULL), copy);
    int rows = 1;
    while (minigraf_cursor_step(c) == 1)
        rows++;
    CHECK_INT_EQ(rows, 3); /* the answer of the moment it opened */
    minigraf_cursor_free(c);
}

TEST(materialised_cursor_steps_like_a_streaming_one) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :g 1] [:b :g 1] [:c :g 2]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?g (count ?e) :where [?e :g ?g] :order-by [?g]])");
    REQUIRE(c != NULL);
    CHECK_STR_EQ(minigraf_cursor_column_name(c, 1), "(count ?e)");
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK(minigraf_cursor_column_int64(c, 0) == 1 && minigraf_cursor_column_int64(c, 1) == 2);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK(minigraf_cursor_column_int64(c, 0) == 2 && minigraf_cursor_column_int64(c, 1) == 1);
    CHECK_INT_EQ(minigraf_cursor_step(c), 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(null_values_have_type_null) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n nil]])");
    MiniGrafCursor *c = QUERY(db, "(query [:find ?x :where [:a :n ?x]])");
    REQUIRE(c != NULL);
    REQUIRE(minigraf_cursor_step(c) == 1);
    CHECK_INT_EQ(minigraf_cursor_column_type(c, 0), MINIGRAF_TYPE_NULL);
    CHECK(minigraf_cursor_column_text(c, 0, NULL) == NULL);
    CHECK_MISUSE(c);
    CHECK(minigraf_cursor_column_int64(c, 0) == 0);
    CHECK_MISUSE(c);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* An answer whose texts fill several of the reader's text blocks, read to
 * the end by step and by JSON batches: the last block of rows still
 * borrows the reader's texts when the stream reaches its end, so the end
 * must not free them before they are copied out (ASan: a use after free
 * in keep_rows before finish_next_rows deferred the close). */
TEST(texts_of_the_last_block_outlive_the_end_of_the_stream) {
    enum { N = 3000 };
    MiniGrafDb *db = open_memory_db();
    size_t cap = (size_t)N * 120 + 64, len = 0;
    char *text = malloc(cap);
    REQUIRE(text != NULL);
    len += (size_t)snprintf(text + len, cap - len, "(transact [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len, "[:e%d :n %d] [:e%d :s \"%060d\"] ", i, i, i,
                                i);
    snprintf(text + len, cap - len, "])");
    EXPECT_TRANSACT(db, text);
    free(text);
    const char *q = "(query [:find ?n ?s :where [?e :n ?n] [?e :s ?s]])";
    MiniGrafCursor *c = QUERY(db, q);
    REQUIRE(c != NULL);
    int rows = 0, bad = 0;
    char want[64];
    while (minigraf_cursor_step(c) == 1) {
        snprintf(want, sizeof want, "%060lld", (long long)minigraf_cursor_column_int64(c, 0));
        bad += strcmp(minigraf_cursor_column_text(c, 1, NULL), want) != 0;
        rows++;
    }
    CHECK_INT_EQ(rows, N);
    CHECK_INT_EQ(bad, 0);
    minigraf_cursor_free(c);
    c = QUERY(db, q);
    REQUIRE(c != NULL);
    char *batch = minigraf_cursor_next_batch(c, N + 1);
    REQUIRE(batch != NULL);
    snprintf(want, sizeof want, "\"%060d\"", N - 1);
    CHECK(strstr(batch, want) != NULL);
    minigraf_string_free(batch);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* Rows of numbers, read ahead whole, then rows of long texts, read ahead
 * a chunk at a time from then on: every row holds its own value, each
 * text valid until the next step. */
TEST(long_texts_after_rows_of_numbers_keep_their_rows) {
    enum { NUMBERS = 2000, TEXTS = 600, LONG = 3000 };
    MiniGrafDb *db = open_memory_db();
    size_t cap = (size_t)TEXTS * (LONG + 64) + 64, len;
    char *text = malloc(cap), *want = malloc(LONG + 1);
    REQUIRE(text != NULL && want != NULL);
    len = (size_t)snprintf(text, cap, "(transact [");
    for (int i = 0; i < NUMBERS; i++)
        len += (size_t)snprintf(text + len, cap - len, "[:e%d :k %d] [:e%d :m %d] ", i, i, i, i);
    snprintf(text + len, cap - len, "])");
    EXPECT_TRANSACT(db, text);
    memset(want, 'x', LONG);
    want[LONG] = '\0';
    len = (size_t)snprintf(text, cap, "(transact [");
    for (int i = NUMBERS; i < NUMBERS + TEXTS; i++)
        len += (size_t)snprintf(text + len, cap - len, "[:e%d :k %d] [:e%d :m \"%05d%s\"] ", i, i,
                                i, i, want + 5);
    snprintf(text + len, cap - len, "])");
    EXPECT_TRANSACT(db, text);
    MiniGrafCursor *c = QUERY(db, "(query [:find ?k ?v :where [?e :m ?v] [?e :k ?k]])");
    REQUIRE(c != NULL);
    int rows = 0, bad = 0;
    while (minigraf_cursor_step(c) == 1) {
        int64_t k = minigraf_cursor_column_int64(c, 0);
        rows++;
        if (k < NUMBERS) {
            bad += minigraf_cursor_column_type(c, 1) != MINIGRAF_TYPE_INTEGER ||
                   minigraf_cursor_column_int64(c, 1) != k;
            continue;
        }
        size_t got = 0;
        const char *v = minigraf_cursor_column_text(c, 1, &got);
        char head[8];
        snprintf(head, sizeof head, "%05d", (int)k);
        bad += !v || got != LONG || memcmp(v, head, 5) != 0 || memcmp(v + 5, want + 5, LONG - 5);
    }
    CHECK_INT_EQ(rows, NUMBERS + TEXTS);
    CHECK_INT_EQ(bad, 0);
    minigraf_cursor_free(c);
    free(text);
    free(want);
    minigraf_close(db);
}

/* Entities with known UUIDs (their number in the last 12 digits), each
 * naming the next as a Ref and holding a text: the dictionary's pages
 * hold their UUIDs between the texts, and a block of rows resolves its
 * entities from one page while the Refs they name lie in others. */
#define LINKED 700

static void linked_uuid(char *out, size_t size, int i) {
    snprintf(out, size, "#uuid \"00000000-0000-4000-8000-%012d\"", i);
}

static MiniGrafDb *linked_db(void) {
    MiniGrafDb *db = open_memory_db();
    size_t cap = (size_t)LINKED * 256;
    char *text = malloc(cap);
    size_t used = (size_t)snprintf(text, cap, "(transact [");
    for (int i = 0; i < LINKED; i++) {
        char e[64], next[64];
        linked_uuid(e, sizeof e, i);
        linked_uuid(next, sizeof next, (i + 1) % LINKED);
        used += (size_t)snprintf(text + used, cap - used,
                                 "[%s :next %s] [%s :name \"entity number %d\"] [%s :i %d]", e,
                                 next, e, i, e, i);
    }
    snprintf(text + used, cap - used, "])");
    EXPECT_TRANSACT(db, text);
    free(text);
    return db;
}

/* The number in a linked entity's UUID, or -1. */
static int linked_number(const unsigned char *u) {
    if (!u)
        return -1;
    char hex[13];
    for (int i = 0; i < 6; i++)
        snprintf(hex + 2 * i, 3, "%02x", u[10 + i]);
    return atoi(hex);
}

/* Steps through `query` on the linked entities: every row passes `ok`
 * and there is one per entity. */
static void check_linked_rows(const char *file, int line, const char *query,
                              bool (*ok)(MiniGrafCursor *c, bool *seen)) {
    MiniGrafDb *db = linked_db();
    MiniGrafCursor *c = query_at(file, line, db, query);
    static bool seen[LINKED];
    memset(seen, 0, sizeof seen);
    int rows = 0, bad = 0;
    while (c && minigraf_cursor_step(c) == 1) {
        bad += !ok(c, seen);
        rows++;
    }
    CHECK(c != NULL);
    CHECK_INT_EQ(c ? minigraf_cursor_last_error_code(c) : -1, 0);
    CHECK_INT_EQ(rows, LINKED);
    CHECK_INT_EQ(bad, 0);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

/* ?e ?f: a new entity, and the one it names. */
static bool names_the_next(MiniGrafCursor *c, bool *seen) {
    int e = linked_number(minigraf_cursor_column_uuid(c, 0));
    int f = linked_number(minigraf_cursor_column_uuid(c, 1));
    if (e < 0 || e >= LINKED || seen[e] || f != (e + 1) % LINKED)
        return false;
    seen[e] = true;
    return true;
}

/* ?n ?e ?i: the entity's own text and number. */
static bool has_its_text_and_number(MiniGrafCursor *c, bool *seen) {
    char want[64];
    int e = linked_number(minigraf_cursor_column_uuid(c, 1));
    snprintf(want, sizeof want, "entity number %d", e);
    const char *name = minigraf_cursor_column_text(c, 0, NULL);
    if (e < 0 || e >= LINKED || seen[e] || !name || strcmp(name, want) != 0 ||
        minigraf_cursor_column_int64(c, 2) != e)
        return false;
    seen[e] = true;
    return true;
}

TEST(refs_of_many_dictionary_pages_resolve_in_blocks) {
    check_linked_rows(__FILE__, __LINE__, "(query [:find ?e ?f :where [?e :next ?f]])",
                      names_the_next);
}

TEST(refs_between_texts_and_integers_keep_their_rows) {
    check_linked_rows(__FILE__, __LINE__,
                      "(query [:find ?n ?e ?i :where [?e :name ?n] [?e :i ?i]])",
                      has_its_text_and_number);
}

CHECK_MAIN(TEST_ENTRY(every_type_keeps_its_type), TEST_ENTRY(keyword_string_and_ref_differ),
           TEST_ENTRY(nan_and_infinities_are_doubles), TEST_ENTRY(int64_edges_are_exact),
           TEST_ENTRY(empty_strings_and_nul_bytes),
           TEST_ENTRY(collect_set_is_a_list_with_typed_json),
           TEST_ENTRY(wrong_type_accessors_fail_with_api_017),
           TEST_ENTRY(two_cursors_in_turn_each_read_their_own_row),
           TEST_ENTRY(no_current_row_before_first_step_and_after_end), TEST_ENTRY(bad_handles),
           TEST_ENTRY(a_cursor_freed_between_accessors_is_dead),
           TEST_ENTRY(more_cursors_than_remembered_ones_each_read_their_own_row),
           TEST_ENTRY(a_pointer_inside_a_live_cursor_is_not_a_cursor),
           TEST_ENTRY(empty_slots_of_the_recent_cursors_match_no_address),
           TEST_ENTRY(step_on_error_returns_minus_the_code_every_time),
           TEST_ENTRY(mixing_step_and_next_batch_shares_the_position),
           TEST_ENTRY(batches_across_engine_blocks_keep_the_stepped_row),
           TEST_ENTRY(rows_survive_writes_and_close),
           TEST_ENTRY(materialised_cursor_steps_like_a_streaming_one),
           TEST_ENTRY(null_values_have_type_null),
           TEST_ENTRY(texts_of_the_last_block_outlive_the_end_of_the_stream),
           TEST_ENTRY(long_texts_after_rows_of_numbers_keep_their_rows),
           TEST_ENTRY(refs_of_many_dictionary_pages_resolve_in_blocks),
           TEST_ENTRY(refs_between_texts_and_integers_keep_their_rows))
