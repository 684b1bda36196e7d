/* Tests of the cache of parsed query texts (db/query_cache.h) and of the
 * database's use of it: hits and misses, least-recently-used eviction, the
 * byte budget, errors never kept, answers that follow the data and the
 * rules though the text is cached, and parsed queries shared by cursors
 * (also on several threads, and after eviction or the database's close),
 * and the plans kept with the entries. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cursor_each.h"
#include "datalog/parse.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "db/query_cache.h"
#include "exec/result.h"

static const char *POINT = "(query [:find ?a :where [:p1 :age ?a]])";

static int parse(query_cache *c, const char *text, parsed_query **out) {
    err e = {0};
    int rc = query_cache_parse(c, text, strlen(text), out, &e);
    err_clear(&e);
    return rc;
}

/* A text is kept the second time it is seen, then shared. */
static void test_hits_and_misses(void) {
    query_cache *c = query_cache_new();
    parsed_query *once, *a, *b, *other;
    CHECK(parse(c, POINT, &once) == 0);
    CHECK(parsed_query_command(once)->kind == CMD_QUERY);
    query_cache_stats s = query_cache_get_stats(c);
    CHECK(s.hits == 0 && s.misses == 1 && s.entries == 0 && s.bytes == 0);
    CHECK(parse(c, POINT, &a) == 0);
    s = query_cache_get_stats(c);
    CHECK(s.hits == 0 && s.misses == 2 && s.entries == 1 && s.bytes > strlen(POINT));
    CHECK(parse(c, POINT, &b) == 0);
    CHECK(a == b && a != once); /* one parsed query, shared */
    s = query_cache_get_stats(c);
    CHECK(s.hits == 1 && s.misses == 2 && s.entries == 1);

    /* The key is the exact text: a space more is another one. */
    const char *spaced = "(query [:find ?a :where [:p1 :age  ?a]])";
    CHECK(parse(c, spaced, &other) == 0);
    parsed_query_release(other);
    CHECK(parse(c, spaced, &other) == 0);
    CHECK(other != a);
    s = query_cache_get_stats(c);
    CHECK(s.hits == 1 && s.misses == 4 && s.entries == 2);
    parsed_query_release(once);
    parsed_query_release(a);
    parsed_query_release(b);
    parsed_query_release(other);
    query_cache_free(c);
}

/* Parses `text` twice, so that it is kept. */
static void parse_twice(query_cache *c, const char *text) {
    for (int i = 0; i < 2; i++) {
        parsed_query *p = NULL;
        CHECK(parse(c, text, &p) == 0);
        parsed_query_release(p);
    }
}

static void query_text(char *out, size_t size, int i) {
    snprintf(out, size, "(query [:find ?a :where [:p%d :age ?a]])", i);
}

/* The least recently used goes first; a hit makes an entry the newest. */
static void test_eviction(void) {
    query_cache *c = query_cache_new();
    char text[96];
    parsed_query *p;
    for (int i = 0; i < QUERY_CACHE_ENTRIES; i++) {
        query_text(text, sizeof text, i);
        parse_twice(c, text);
    }
    query_cache_stats s = query_cache_get_stats(c);
    CHECK(s.entries == QUERY_CACHE_ENTRIES && s.misses == 2 * QUERY_CACHE_ENTRIES);
    query_text(text, sizeof text, 0);
    CHECK(parse(c, text, &p) == 0); /* p0 is now the newest, p1 the oldest */
    parsed_query_release(p);
    query_text(text, sizeof text, QUERY_CACHE_ENTRIES);
    parse_twice(c, text); /* evicts p1 */
    s = query_cache_get_stats(c);
    CHECK(s.entries == QUERY_CACHE_ENTRIES && s.misses == 2 * QUERY_CACHE_ENTRIES + 2);
    CHECK(s.hits == 1);

    query_text(text, sizeof text, 0);
    CHECK(parse(c, text, &p) == 0);
    parsed_query_release(p);
    CHECK(query_cache_get_stats(c).hits == 2);
    query_text(text, sizeof text, 1);
    CHECK(parse(c, text, &p) == 0);
    parsed_query_release(p);
    CHECK(query_cache_get_stats(c).misses == 2 * QUERY_CACHE_ENTRIES + 3);
    query_cache_free(c);
}

/* A query of more than an eighth of the byte budget is parsed, not kept. */
static void test_byte_budget(void) {
    query_cache *c = query_cache_new();
    size_t n = QUERY_CACHE_BYTES / 8 / 8 + 1; /* clauses of 8+ bytes */
    char *text = malloc(n * 24 + 64);
    size_t len = (size_t)sprintf(text, "(query [:find ?a :where ");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "[:p1 :age ?a]");
    sprintf(text + len, "])");
    parsed_query *p;
    parse_twice(c, text);
    CHECK(parse(c, text, &p) == 0);
    CHECK(parsed_query_command(p)->as.query.body.count == n);
    parsed_query_release(p);
    query_cache_stats s = query_cache_get_stats(c);
    CHECK(s.entries == 0 && s.bytes == 0 && s.misses == 3);
    free(text);
    query_cache_free(c);
}

/* Errors are parsed again each time (same message), and only queries are
 * kept. */
static void test_errors_and_other_commands(void) {
    query_cache *c = query_cache_new();
    const char *bad = "(query [:find ?a :where [:p1 :age ?b]])";
    err first = {0}, second = {0};
    parsed_query *p = NULL;
    CHECK(query_cache_parse(c, bad, strlen(bad), &p, &first) != 0);
    CHECK(query_cache_parse(c, bad, strlen(bad), &p, &second) == first.code);
    CHECK(first.message && second.message && strcmp(first.message, second.message) == 0);
    err_clear(&first);
    err_clear(&second);
    const char *rule = "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)]])";
    parse_twice(c, rule);
    CHECK(parse(c, rule, &p) == 0 && parsed_query_command(p)->kind == CMD_RULE);
    parsed_query_release(p);
    query_cache_stats s = query_cache_get_stats(c);
    CHECK(s.entries == 0 && s.misses == 5 && s.hits == 0);
    query_cache_free(c);
}

static int exec(db *d, const char *text) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return rc;
}

static long rows(db *d, const char *text) {
    result_set *rs = NULL;
    err e = {0};
    long n = db_query(d, text, strlen(text), &rs, &e) == 0 ? (long)result_row_count(rs) : -1;
    result_free(rs);
    err_clear(&e);
    return n;
}

/* A cached text sees later writes and later rules: the cache holds only
 * the parse. API-012 for a non-query comes every time. */
static void test_answers_follow_data_and_rules(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    CHECK(exec(d, "(transact [[:p1 :age 30] [:p2 :age 12]])") == 0);
    const char *adults = "(query [:find ?p :where (adult ?p)])";
    CHECK(rows(d, adults) == 0); /* no such rule yet */
    CHECK(exec(d, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)]])") == 0);
    CHECK(rows(d, adults) == 1);
    CHECK(exec(d, "(transact [[:p3 :age 40]])") == 0);
    CHECK(rows(d, adults) == 2);
    CHECK(exec(d, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 10)]])") == 0);
    CHECK(rows(d, adults) == 3);
    query_cache_stats s = db_query_cache_stats(d);
    CHECK(s.hits == 2 && s.entries == 1);

    const char *write = "(transact [[:p4 :age 1]])";
    result_set *rs = NULL;
    for (int i = 0; i < 2; i++) {
        CHECK(db_query(d, write, strlen(write), &rs, &e) == ERR(API, 12));
        err_clear(&e);
    }
    CHECK(rows(d, "(query [:find ?p :where [?p :age 1]])") == 0); /* nothing was written */
    db_close(d);
}

/* db_execute runs a repeated query text from the cache too (what a
 * binding's execute() does); a write is parsed each time and skips the
 * cache (no miss counted) unless a comment hides its head, and a text too
 * large to keep skips the cache. */
static void test_execute_uses_the_cache(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    const char *write = "(transact [[:p1 :age 30]])";
    CHECK(exec(d, write) == 0 && exec(d, write) == 0);
    CHECK(exec(d, " ,( retract [[:p1 :age 30]])") == 0);
    query_cache_stats s = db_query_cache_stats(d);
    CHECK(s.entries == 0 && s.hits == 0 && s.misses == 0);
    CHECK(exec(d, "; a comment\n(transact [[:p1 :age 30]])") == 0);
    const char *q = "(query [:find ?a :where [:p1 :age ?a]])";
    for (int i = 0; i < 4; i++)
        CHECK(exec(d, q) == 0);
    s = db_query_cache_stats(d);
    CHECK(s.entries == 1 && s.hits == 2 && s.misses == 3);

    size_t big = QUERY_CACHE_BYTES / 8 + 64;
    char *text = malloc(big + 1);
    CHECK(text != NULL);
    int n = snprintf(text, big + 1, "%s", q);
    memset(text + n - 1, ' ', big - (size_t)n); /* the same query, padded */
    memcpy(text + big - 1, ")", 2);
    for (int i = 0; i < 2; i++)
        CHECK(exec(d, text) == 0);
    s = db_query_cache_stats(d);
    CHECK(s.entries == 1 && s.hits == 2 && s.misses == 3);
    free(text);
    db_close(d);
}

typedef struct reader_job {
    db *d;
    long rows; /* read after the join */
} reader_job;

static void ignore_row(void *ctx, const value *row) {
    (void)ctx;
    (void)row;
}

static void *read_cursors(void *arg) {
    reader_job *j = arg;
    j->rows = 0;
    for (int i = 0; i < 200; i++) {
        db_cursor *c = NULL;
        err e = {0};
        int rc = 0;
        if (db_cursor_open(j->d, POINT, strlen(POINT), &c, &e) == 0)
            j->rows += (long)cursor_read_each(c, 10, ignore_row, NULL, &rc, &e);
        err_clear(&e);
        db_cursor_free(c);
    }
    return NULL;
}

/* Each thread keeps the query in its own part of the cache (three threads:
 * three parts), parsed twice and then found; cursors keep theirs after it
 * is evicted and after the database closes. */
static void test_shared_by_cursors(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    CHECK(exec(d, "(transact [[:p1 :age 30]])") == 0);
    reader_job jobs[3] = {{d, 0}, {d, 0}, {d, 0}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&t[i], NULL, read_cursors, &jobs[i]) == 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].rows == 200);
    }
    query_cache_stats s = db_query_cache_stats(d);
    CHECK(s.hits + s.misses == 600 && s.entries == 3 && s.misses == 6); /* not the transact */

    db_cursor *held = NULL;
    CHECK(db_cursor_open(d, POINT, strlen(POINT), &held, &e) == 0);
    char text[96];
    for (int i = 0; i < QUERY_CACHE_ENTRIES; i++) { /* evicts POINT */
        query_text(text, sizeof text, 100 + i);
        CHECK(rows(d, text) == 0 && rows(d, text) == 0);
    }
    s = db_query_cache_stats(d); /* this thread's part full, the others' POINT */
    CHECK(s.entries >= QUERY_CACHE_ENTRIES && s.entries <= QUERY_CACHE_ENTRIES + 3);
    CHECK(exec(d, "(transact [[:p1 :age 31]])") == 0); /* the cursor reads its rest first */
    db_close(d);
    int rc = 0;
    CHECK(cursor_read_each(held, 10, ignore_row, NULL, &rc, &e) == 1 && rc == 0);
    db_cursor_free(held);
}

/* The plan kept with `text`'s entry, or NULL (no entry, or nothing kept);
 * *busy: a run holds it. */
static const solution_stream *kept_plan(db *d, const char *text, bool *busy) {
    parsed_query *pq = NULL;
    err e = {0};
    CHECK(db_parse_query(d, text, strlen(text), &pq, &e) == 0);
    query_keep *k = pq ? parsed_query_keep(pq) : NULL;
    const solution_stream *where = k ? k->where : NULL;
    *busy = k && atomic_load(&k->busy);
    parsed_query_release(pq);
    return where;
}

/* A text run again keeps its plan with its entry, through db_query,
 * db_execute and a cursor; a cursor holds it until it is freed; a text
 * run once, and a rule's query, keep none; pseudo-attribute patterns are
 * kept. */
static void test_plans_kept_with_entries(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    CHECK(exec(d, "(transact [[:p1 :age 30] [:p1 :friend :p2] [:p2 :age 12]])") == 0);
    CHECK(exec(d, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)]])") == 0);
    bool busy = false;
    const char *by_query = "(query [:find ?a :where [:p1 :friend ?f] [?f :age ?a]])";
    CHECK(rows(d, by_query) == 1 && rows(d, by_query) == 1);
    CHECK(kept_plan(d, by_query, &busy) != NULL && !busy);
    /* pseudo-attributes too: a text's constants never change (language.md D16) */
    const char *pseudo = "(query [:find ?a ?t :any-valid-time :where [:p1 :friend ?f] [?f :age "
                         "?a] [?f :db/tx-count ?t]])";
    CHECK(rows(d, pseudo) == 1 && rows(d, pseudo) == 1);
    CHECK(kept_plan(d, pseudo, &busy) != NULL && !busy);
    const char *by_execute = "(query [:find ?a :where [:p2 :age ?a]])";
    CHECK(exec(d, by_execute) == 0 && exec(d, by_execute) == 0);
    CHECK(kept_plan(d, by_execute, &busy) != NULL && !busy);

    const char *by_cursor = "(query [:find ?p ?a :where [?p :age ?a]])";
    CHECK(rows(d, by_cursor) == 2); /* kept from here */
    db_cursor *c = NULL;
    CHECK(db_cursor_open(d, by_cursor, strlen(by_cursor), &c, &e) == 0);
    CHECK(kept_plan(d, by_cursor, &busy) != NULL && busy);
    db_cursor_free(c);
    CHECK(kept_plan(d, by_cursor, &busy) != NULL && !busy);

    const char *once = "(query [:find ?a :where [:p1 :age ?a]])";
    CHECK(rows(d, once) == 1);
    parsed_query *pq = NULL;
    CHECK(db_parse_query(d, once, strlen(once), &pq, &e) == 0); /* seen twice: kept now */
    CHECK(pq && parsed_query_keep(pq) != NULL);
    parsed_query_release(pq);
    const char *fresh = "(query [:find ?p :where [?p :age 12]])";
    CHECK(db_parse_query(d, fresh, strlen(fresh), &pq, &e) == 0);
    CHECK(pq && parsed_query_keep(pq) == NULL); /* a text seen once */
    parsed_query_release(pq);

    const char *rule = "(query [:find ?p :where (adult ?p)])";
    CHECK(rows(d, rule) == 1 && rows(d, rule) == 1 && rows(d, rule) == 1);
    CHECK(kept_plan(d, rule, &busy) == NULL);
    db_close(d);
}

int main(void) {
    test_hits_and_misses();
    test_eviction();
    test_byte_budget();
    test_errors_and_other_commands();
    test_answers_follow_data_and_rules();
    test_execute_uses_the_cache();
    test_shared_by_cursors();
    test_plans_kept_with_entries();
    return CHECK_DONE();
}
