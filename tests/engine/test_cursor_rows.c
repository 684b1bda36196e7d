/* db_cursor_read_rows (db.h), the blocks typed rows read ahead with, beside
 * rows read one at a time: the same rows in the same order, block by block,
 * for a streamed answer (its first row read at open included), a
 * computed one, a :limit, a cursor read into memory half-way (a rule
 * registration) and a memory limit reached half-way; and the texts of a
 * query's constants, decoded only when a row outputs them. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cursor_each.h"
#include "db/db.h"
#include "exec/result.h"

/* The rows seen, as text: "<value>|<value>|...;" per row. */
typedef struct seen {
    char *text;
    size_t len, cap;
    size_t columns, rows;
} seen;

static void put(seen *s, const char *piece, size_t n) {
    if (s->len + n + 1 > s->cap) {
        s->cap = (s->len + n + 1) * 2;
        s->text = realloc(s->text, s->cap);
    }
    memcpy(s->text + s->len, piece, n);
    s->len += n;
    s->text[s->len] = '\0';
}

static void put_value(seen *s, const value *v) {
    char num[64];
    switch (v->type) {
    case VT_STRING:
    case VT_KEYWORD: put(s, v->as.str.ptr, v->as.str.len); break;
    case VT_INTEGER:
        put(s, num, (size_t)snprintf(num, sizeof num, "%lld", (long long)v->as.i));
        break;
    case VT_REF:
        put(s, num,
            (size_t)snprintf(num, sizeof num, "ref%02x%02x", v->as.ref.bytes[14],
                             v->as.ref.bytes[15]));
        break;
    default: put(s, "?", 1); break;
    }
}

static void see_row(void *ctx, const value *row) {
    seen *s = ctx;
    CHECK(!row[0].stored); /* rows come decoded */
    for (size_t c = 0; c < s->columns; c++) {
        put_value(s, &row[c]);
        put(s, c + 1 < s->columns ? "|" : ";", 1);
    }
    s->rows++;
}

static void see_rows(void *ctx, value *rows, size_t n) {
    seen *s = ctx;
    for (size_t i = 0; i < n; i++)
        see_row(ctx, rows + i * s->columns);
}

static db_cursor *open_query(db *d, const char *q) {
    db_cursor *c = NULL;
    err e = {0};
    CHECK(db_cursor_open(d, q, strlen(q), &c, &e) == 0);
    err_clear(&e);
    return c;
}

/* Every row one at a time (blocks of one row), `per` rows a call. */
static seen read_by_row(db *d, const char *q, size_t per) {
    db_cursor *c = open_query(d, q);
    seen s = {.columns = result_column_count(db_cursor_columns(c))};
    int rc = 0;
    err e = {0};
    while (cursor_read_each(c, per, see_row, &s, &rc, &e) == per && rc == 0)
        ;
    CHECK(rc == 0);
    db_cursor_free(c);
    err_clear(&e);
    return s;
}

/* Every row by db_cursor_read_rows, `per` at a time; *blocks counts the
 * calls that gave rows. */
static seen read_by_block(db_cursor *c, size_t per, int *rc, err *e) {
    seen s = {.columns = result_column_count(db_cursor_columns(c))};
    value *buf = malloc((per * s.columns + 1) * sizeof *buf);
    size_t n;
    while ((n = db_cursor_read_rows(c, buf, per, see_rows, &s, rc, e)) == per && *rc == 0)
        ;
    free(buf);
    return s;
}

static void exec(db *d, const char *text) {
    db_result out = {0};
    err e = {0};
    CHECK(db_execute(d, text, strlen(text), &out, &e) == 0);
    if (out.kind == DB_RESULT_QUERY)
        result_free(out.rows);
    err_clear(&e);
}

/* 300 entities with a text, a keyword, a number and a ref. */
static void seed(db *d) {
    size_t cap = 300 * 160;
    char *tx = malloc(cap);
    size_t len = (size_t)snprintf(tx, cap, "(transact [");
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(tx + len, cap - len,
                                "[:e%d :s \"text %d\"] [:e%d :k :kw/k%d] [:e%d :n %d] "
                                "[:e%d :r #uuid \"00000000-0000-4000-8000-%012d\"]",
                                i, i, i, i, i, i, i, i);
    snprintf(tx + len, cap - len, "])");
    exec(d, tx);
    free(tx);
}

/* A database in memory with seed()'s facts. */
static db *seeded_db(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    err_clear(&e);
    if (d)
        seed(d);
    return d;
}

static const char *STREAMED = "(query [:find ?e ?s ?k ?n ?r :where [?e :s ?s] [?e :k ?k] "
                              "[?e :n ?n] [?e :r ?r]])";

/* Both texts alike (NULL: no rows). */
static bool same_text(const seen *a, const seen *b) {
    return a->rows == b->rows && (a->rows == 0 || strcmp(a->text, b->text) == 0);
}

static void check_same(const char *q, size_t per) {
    db *d = seeded_db();
    err e = {0};
    seen want = read_by_row(d, q, 1);
    db_cursor *c = open_query(d, q);
    int rc = 0;
    seen got = read_by_block(c, per, &rc, &e);
    CHECK(rc == 0);
    CHECK(same_text(&want, &got));
    /* after the end: nothing more, no error */
    value spare[8];
    CHECK(db_cursor_read_rows(c, spare, 1, see_rows, &got, &rc, &e) == 0 && rc == 0);
    db_cursor_free(c);
    free(want.text);
    free(got.text);
    db_close(d);
    err_clear(&e);
}

static void test_streamed_rows_by_block_as_by_row(void) {
    check_same(STREAMED, 1); /* the row read at open, alone */
    check_same(STREAMED, 7);
    check_same(STREAMED, 300);
    check_same(STREAMED, 1000);
}

static void test_computed_and_limited_rows_by_block_as_by_row(void) {
    check_same("(query [:find ?s ?n :where [?e :s ?s] [?e :n ?n] :order-by [?n :desc]])", 13);
    check_same("(query [:find (count ?e) :where [?e :n ?n]])", 4);
    check_same("(query [:find ?s :where [?e :s ?s] :offset 5 :limit 20])", 6);
    check_same("(query [:find ?s :where [?e :s ?s] :limit 0])", 6); /* no row */
}

/* Rows laid out as the :find's columns are copied a run at a time: the
 * runs end at the blocks', the offset's and the limit's bounds as rows
 * taken one by one do. */
static void test_runs_of_rows_by_block_as_by_row(void) {
    const char *in_order = "(query [:find ?e ?n :where [?e :n ?n]";
    const char *tails[] = {"])",           " :offset 70 :limit 100])", " :offset 64])",
                           " :limit 65])", " :offset 299 :limit 5])",  " :offset 300])"};
    size_t pers[] = {1, 7, 64, 300};
    for (size_t t = 0; t < sizeof tails / sizeof *tails; t++)
        for (size_t p = 0; p < sizeof pers / sizeof *pers; p++) {
            char q[160];
            snprintf(q, sizeof q, "%s%s", in_order, tails[t]);
            check_same(q, pers[p]);
        }
    check_same("(query [:find ?n ?e :where [?e :n ?n] :offset 3])", 50); /* not in order */
}

/* A rule registration reads the rest of a streaming cursor into memory:
 * block reads go on with the same rows. */
static void test_rows_read_into_memory_half_way(void) {
    db *d = seeded_db();
    err e = {0};
    seen want = read_by_row(d, STREAMED, 50);
    db_cursor *c = open_query(d, STREAMED);
    seen got = {.columns = 5};
    value buf[5 * 40];
    int rc = 0;
    CHECK(db_cursor_read_rows(c, buf, 40, see_rows, &got, &rc, &e) == 40 && rc == 0);
    exec(d, "(rule [(named ?e) [?e :s ?s]])");
    size_t n;
    while ((n = db_cursor_read_rows(c, buf, 40, see_rows, &got, &rc, &e)) == 40 && rc == 0)
        ;
    CHECK(rc == 0 && got.rows == 300);
    CHECK(same_text(&want, &got));
    db_cursor_free(c);
    free(want.text);
    free(got.text);
    db_close(d);
    err_clear(&e);
}

/* Decoding the texts crosses the query's memory limit part-way: the rows
 * before it, then the error. */
static void test_memory_limit_after_some_rows(void) {
    db_options o;
    db_options_default(&o);
    o.query_memory_limit = 6000;
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, &o, &d, &e) == 0);
    seed(d);
    db_cursor *c = open_query(d, "(query [:find ?s :where [?e :s ?s]])");
    int rc = 0;
    seen got = read_by_block(c, 16, &rc, &e);
    CHECK(rc == ERR(QRY, 12) && e.code == ERR(QRY, 12));
    CHECK(got.rows > 0 && got.rows < 300);
    db_cursor_free(c);
    free(got.text);
    db_close(d);
    err_clear(&e);
}

/* A query's constants are looked up in the dictionary but their texts are
 * not decoded then: a record that carries one decodes it when a column
 * outputs it (the value, the attribute, the entity's own keyword). */
static void test_constants_decoded_when_output(void) {
    db *d = seeded_db();
    err e = {0};
    const char *q[] = {"(query [:find ?a ?v :where [:e7 ?a ?v] [(= ?v \"text 7\")]])",
                       "(query [:find ?a ?k :where [?e ?a \"text 8\"] [?e :k ?k]])",
                       "(query [:find ?k ?s :where [?e :k :kw/k9] [?e :k ?k] [?e :s ?s]])"};
    const char *want[] = {":s|text 7;", ":s|:kw/k8;", ":kw/k9|text 9;"};
    for (int i = 0; i < 3; i++) {
        seen got = read_by_row(d, q[i], 10);
        CHECK(got.rows == 1 && got.text && strcmp(got.text, want[i]) == 0);
        free(got.text);
    }
    db_close(d);
    err_clear(&e);
}

int main(void) {
    test_streamed_rows_by_block_as_by_row();
    test_computed_and_limited_rows_by_block_as_by_row();
    test_runs_of_rows_by_block_as_by_row();
    test_rows_read_into_memory_half_way();
    test_memory_limit_after_some_rows();
    test_constants_decoded_when_output();
    return CHECK_DONE();
}
