/* Unit tests for the built-in aggregates (language.md §10.2-§10.3, §10.4) and
 * the memory meter they charge. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"
#include "exec/aggregate.h"

static value str(const char *s) {
    return value_string(s, strlen(s));
}

/* Results may point into their arena: the last run's stays alive. */
static arena last_run;

/* Runs fn over vals[0..n) and returns the result; *code gets the error
 * code (0 on success), *msg a copy of the message. */
static agg_result run(agg_fn fn, const value *vals, size_t n, int *code, char *msg) {
    arena a;
    arena_init(&a);
    arena_free(&last_run);
    err e = {0};
    agg_result r = {0};
    agg_state *s = NULL;
    int rc = agg_new(&s, fn, &a, NULL, &e);
    for (size_t i = 0; !rc && i < n; i++)
        rc = agg_step(s, &vals[i], &e);
    if (!rc)
        rc = agg_finish(s, &r, &e);
    *code = rc;
    if (msg)
        strcpy(msg, e.message ? e.message : "");
    err_clear(&e);
    last_run = a;
    return r;
}

static bool int_result(agg_fn fn, const value *vals, size_t n, int64_t want) {
    int code;
    agg_result r = run(fn, vals, n, &code, NULL);
    return code == 0 && !r.omit_group && r.v.type == VT_INTEGER && r.v.as.i == want;
}

static bool float_result(agg_fn fn, const value *vals, size_t n, double want) {
    int code;
    agg_result r = run(fn, vals, n, &code, NULL);
    return code == 0 && r.v.type == VT_FLOAT &&
           (r.v.as.f == want || (isnan(want) && isnan(r.v.as.f)));
}

static bool error_result(agg_fn fn, const value *vals, size_t n, int want_code,
                         const char *want_msg) {
    int code;
    char msg[256];
    run(fn, vals, n, &code, msg);
    return code == want_code && strcmp(msg, want_msg) == 0;
}

#define N(a) (sizeof(a) / sizeof *(a))

static void test_names(void) {
    const char *names[] = {"count", "count-distinct", "sum", "sum-distinct", "min", "max",
                           "avg",   "collect-set"};
    for (int fn = 0; fn < AGG_HOST; fn++) {
        agg_fn found;
        CHECK(agg_lookup(names[fn], strlen(names[fn]), &found) && found == (agg_fn)fn);
        CHECK(strcmp(agg_name((agg_fn)fn), names[fn]) == 0);
    }
    agg_fn dummy;
    CHECK(!agg_lookup("rank", 4, &dummy));
    CHECK(!agg_lookup("median", 6, &dummy));
}

static void test_count_skips_nulls_and_keeps_duplicates(void) {
    value v[] = {str("x"), str("x"), value_null(), str("y"), value_boolean(true)};
    CHECK(int_result(AGG_COUNT, v, N(v), 4));
    value nulls[] = {value_null(), value_null()};
    CHECK(int_result(AGG_COUNT, nulls, N(nulls), 0));
    CHECK(int_result(AGG_COUNT, NULL, 0, 0));
}

static void test_count_distinct_uses_o3_equality(void) {
    uuid128 bob = uuid_of_keyword(":bob", 4);
    value v[] = {value_integer(1),  value_float(1.0), value_integer(1),  value_float(NAN),
                 value_float(-NAN), value_float(0.0), value_float(-0.0), value_keyword(":bob", 4),
                 value_ref(bob),    value_null(),     str("x"),          str("x")};
    /* 1, 1.0, NaN, 0.0, :bob, Ref, "x" */
    CHECK(int_result(AGG_COUNT_DISTINCT, v, N(v), 7));
    CHECK(int_result(AGG_COUNT_DISTINCT, NULL, 0, 0));
}

static void test_count_distinct_many_values(void) {
    value v[3000];
    for (int i = 0; i < 3000; i++)
        v[i] = value_integer(i % 1000);
    CHECK(int_result(AGG_COUNT_DISTINCT, v, N(v), 1000));
}

static void test_count_distinct_copies_strings(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    agg_state *s;
    CHECK(agg_new(&s, AGG_COUNT_DISTINCT, &a, NULL, &e) == 0);
    char buf[8];
    for (int i = 0; i < 3; i++) {
        strcpy(buf, i == 2 ? "aa" : i == 1 ? "bb" : "aa");
        value v = value_string(buf, 2);
        CHECK(agg_step(s, &v, &e) == 0);
        strcpy(buf, "zz"); /* the caller reuses its buffer */
    }
    agg_result r;
    CHECK(agg_finish(s, &r, &e) == 0 && r.v.as.i == 2);
    arena_free(&a);
}

static void test_sum_integers(void) {
    value v[] = {value_integer(50), value_null(), value_integer(50), value_integer(40)};
    CHECK(int_result(AGG_SUM, v, N(v), 140));
    value nulls[] = {value_null()};
    CHECK(int_result(AGG_SUM, nulls, N(nulls), 0));
    CHECK(int_result(AGG_SUM, NULL, 0, 0));
}

static void test_sum_saturates(void) {
    value up[] = {value_integer(INT64_MAX), value_integer(1)};
    CHECK(int_result(AGG_SUM, up, N(up), INT64_MAX));
    value down[] = {value_integer(INT64_MIN), value_integer(-5)};
    CHECK(int_result(AGG_SUM, down, N(down), INT64_MIN));
    /* Saturation happens at each step, as a saturating fold. */
    value back[] = {value_integer(INT64_MAX), value_integer(1), value_integer(-5)};
    CHECK(int_result(AGG_SUM, back, N(back), INT64_MAX - 5));
}

static void test_sum_with_a_float_is_a_double_sum(void) {
    value v[] = {value_integer(10), value_float(0.5)};
    CHECK(float_result(AGG_SUM, v, N(v), 10.5));
    value order[] = {value_float(1e16), value_integer(1), value_integer(1)};
    CHECK(float_result(AGG_SUM, order, N(order), (1e16 + 1.0) + 1.0)); /* input order */
    value late[] = {value_integer(INT64_MAX), value_integer(INT64_MAX), value_float(0.0)};
    CHECK(float_result(AGG_SUM, late, N(late), 2.0 * 9223372036854775807.0));
    value inf[] = {value_float(INFINITY), value_float(-INFINITY)};
    CHECK(float_result(AGG_SUM, inf, N(inf), NAN)); /* allowed in sum results */
    value z[] = {value_float(-0.0)};
    CHECK(float_result(AGG_SUM, z, N(z), 0.0));
}

static void test_sum_rejects_non_numbers(void) {
    value v[] = {value_integer(50), value_null(), str("lots")};
    CHECK(error_result(AGG_SUM, v, N(v), ERR(INT, 41),
                       "[INT-041] sum: expected Integer, Float, or Null, got String"));
    value b[] = {value_boolean(true)};
    CHECK(error_result(AGG_SUM, b, N(b), ERR(INT, 41),
                       "[INT-041] sum: expected Integer, Float, or Null, got Boolean"));
    value k[] = {value_keyword(":k", 2)};
    CHECK(error_result(AGG_SUM_DISTINCT, k, N(k), ERR(INT, 41),
                       "[INT-041] sum: expected Integer, Float, or Null, got Keyword"));
}

static void test_sum_distinct(void) {
    value v[] = {value_integer(50), value_integer(50), value_integer(40)};
    CHECK(int_result(AGG_SUM_DISTINCT, v, N(v), 90));
    value mixed[] = {value_integer(1), value_float(1.0), value_integer(1), value_float(0.5)};
    CHECK(float_result(AGG_SUM_DISTINCT, mixed, N(mixed), 2.5)); /* 1 and 1.0 distinct */
    value zeros[] = {value_float(-0.0), value_float(0.0)};
    CHECK(float_result(AGG_SUM_DISTINCT, zeros, N(zeros), -0.0)); /* one value, first kept */
    CHECK(int_result(AGG_SUM_DISTINCT, NULL, 0, 0));
}

static void test_min_max_integers_floats_strings(void) {
    value i[] = {value_integer(30), value_null(), value_integer(10), value_integer(20)};
    CHECK(int_result(AGG_MIN, i, N(i), 10));
    CHECK(int_result(AGG_MAX, i, N(i), 30));
    value f[] = {value_float(2.5), value_float(-INFINITY), value_float(1e300)};
    CHECK(float_result(AGG_MIN, f, N(f), -INFINITY));
    CHECK(float_result(AGG_MAX, f, N(f), 1e300));
    int code;
    value s[] = {str("eng"), str("eng"), str("hr"), str("Zed"), str("\xc3\xa9t\xc3\xa9")};
    agg_result r = run(AGG_MIN, s, N(s), &code, NULL);
    CHECK(code == 0 && r.v.type == VT_STRING && r.v.as.str.len == 3 &&
          memcmp(r.v.as.str.ptr, "Zed", 3) == 0);
    r = run(AGG_MAX, s, N(s), &code, NULL);
    CHECK(code == 0 && r.v.as.str.len == 5 && memcmp(r.v.as.str.ptr, "\xc3\xa9t\xc3\xa9", 5) == 0);
}

static void test_min_max_nan_and_zero(void) {
    value first[] = {value_float(NAN), value_float(1.0)};
    CHECK(float_result(AGG_MIN, first, N(first), NAN)); /* a leading NaN stays */
    value later[] = {value_float(1.0), value_float(NAN), value_float(3.0)};
    CHECK(float_result(AGG_MAX, later, N(later), 3.0)); /* NaN never replaces */
    value z[] = {value_float(0.0), value_float(-0.0)};
    CHECK(float_result(AGG_MIN, z, N(z), 0.0)); /* equal: the first stays */
}

static void test_min_max_all_null_omits_group(void) {
    int code;
    value nulls[] = {value_null(), value_null()};
    agg_result r = run(AGG_MAX, nulls, N(nulls), &code, NULL);
    CHECK(code == 0 && r.omit_group);
    r = run(AGG_MIN, NULL, 0, &code, NULL);
    CHECK(code == 0 && r.omit_group);
}

static void test_min_max_type_errors(void) {
    value mixed[] = {value_integer(1), value_null(), value_float(2.0)};
    CHECK(error_result(AGG_MIN, mixed, N(mixed), ERR(INT, 42),
                       "[INT-042] min: cannot compare Integer and Float values"));
    value sn[] = {str("a"), value_integer(1)};
    CHECK(error_result(AGG_MAX, sn, N(sn), ERR(INT, 42),
                       "[INT-042] max: cannot compare String and Integer values"));
    value b[] = {value_boolean(true)};
    CHECK(error_result(AGG_MAX, b, N(b), ERR(INT, 43),
                       "[INT-043] max: expected Integer, Float, String, or Null, got Boolean"));
    value kk[] = {value_keyword(":a", 2), value_keyword(":b", 2)};
    CHECK(error_result(AGG_MIN, kk, N(kk), ERR(INT, 43),
                       "[INT-043] min: expected Integer, Float, String, or Null, got Keyword"));
    uuid128 u = {{0}};
    value r[] = {value_ref(u)};
    CHECK(error_result(AGG_MIN, r, N(r), ERR(INT, 43),
                       "[INT-043] min: expected Integer, Float, String, or Null, got Ref"));
    value bi[] = {value_boolean(true), value_integer(1)}; /* mixed types reported first */
    CHECK(error_result(AGG_MIN, bi, N(bi), ERR(INT, 42),
                       "[INT-042] min: cannot compare Boolean and Integer values"));
}

static void test_avg(void) {
    value v[] = {value_integer(50), value_integer(50), value_integer(40)};
    CHECK(float_result(AGG_AVG, v, N(v), 46.666666666666664));
    value mixed[] = {value_integer(1), str("x"), value_float(2.0), value_null(),
                     value_boolean(true)};
    CHECK(float_result(AGG_AVG, mixed, N(mixed), 1.5));
    int code;
    value none[] = {str("x"), value_null()};
    agg_result r = run(AGG_AVG, none, N(none), &code, NULL);
    CHECK(code == 0 && !r.omit_group && r.v.type == VT_NULL);
    value big[] = {value_integer(INT64_MAX), value_integer(INT64_MAX)};
    CHECK(float_result(AGG_AVG, big, N(big), 9223372036854775807.0));
}

static void test_collect_set_is_distinct_and_o3_sorted(void) {
    int code;
    value v[] = {value_float(1.0), str("b"),         value_integer(2),       value_null(),
                 value_integer(1), str("a"),         value_keyword(":k", 2), value_boolean(false),
                 value_integer(2), value_float(NAN), value_float(NAN),       str("b")};
    agg_result r = run(AGG_COLLECT_SET, v, N(v), &code, NULL);
    CHECK(code == 0 && r.item_count == 8 && r.v.type == VT_NULL);
    if (r.item_count == 8) {
        CHECK(r.items[0].type == VT_STRING && r.items[0].as.str.ptr[0] == 'a');
        CHECK(r.items[1].type == VT_STRING && r.items[1].as.str.ptr[0] == 'b');
        CHECK(r.items[2].type == VT_INTEGER && r.items[2].as.i == 1);
        CHECK(r.items[3].type == VT_INTEGER && r.items[3].as.i == 2);
        CHECK(r.items[4].type == VT_FLOAT && r.items[4].as.f == 1.0);
        CHECK(r.items[5].type == VT_FLOAT && isnan(r.items[5].as.f));
        CHECK(r.items[6].type == VT_BOOLEAN);
        CHECK(r.items[7].type == VT_KEYWORD);
    }
    value nulls[] = {value_null()};
    r = run(AGG_COLLECT_SET, nulls, N(nulls), &code, NULL);
    CHECK(code == 0 && !r.omit_group && r.item_count == 0);
}

/* language.md §10.3: only an all-count find without plain variables gives one row. */
static void test_empty_input_rule(void) {
    agg_fn one[] = {AGG_COUNT}, two[] = {AGG_COUNT, AGG_COUNT_DISTINCT};
    agg_fn sum[] = {AGG_SUM}, mix[] = {AGG_COUNT, AGG_MAX}, host[] = {AGG_HOST};
    agg_fn avg[] = {AGG_AVG}, set[] = {AGG_COLLECT_SET};
    value row[2] = {value_null(), value_null()};
    CHECK(agg_empty_input_row(one, 1, 0, row) && row[0].type == VT_INTEGER && row[0].as.i == 0);
    CHECK(agg_empty_input_row(two, 2, 0, row) && row[1].type == VT_INTEGER && row[1].as.i == 0);
    CHECK(agg_empty_input_row(two, 2, 0, NULL));
    CHECK(!agg_empty_input_row(one, 1, 1, row)); /* grouped */
    CHECK(!agg_empty_input_row(sum, 1, 0, row));
    CHECK(!agg_empty_input_row(mix, 2, 0, row));
    CHECK(!agg_empty_input_row(host, 1, 0, row));
    CHECK(!agg_empty_input_row(avg, 1, 0, row));
    CHECK(!agg_empty_input_row(set, 1, 0, row));
}

/* language.md §10.4: salaries 50, 50, 40 and departments "eng", "eng", "hr". */
static void test_b7_examples(void) {
    value sal[] = {value_integer(50), value_integer(50), value_integer(40)};
    value dept[] = {str("eng"), str("eng"), str("hr")};
    CHECK(int_result(AGG_SUM_DISTINCT, sal, N(sal), 90));
    CHECK(int_result(AGG_COUNT_DISTINCT, sal, N(sal), 2));
    CHECK(int_result(AGG_COUNT, sal, N(sal), 3));
    int code;
    agg_result mn = run(AGG_MIN, dept, N(dept), &code, NULL);
    CHECK(code == 0 && mn.v.as.str.len == 3 && memcmp(mn.v.as.str.ptr, "eng", 3) == 0);
    agg_result mx = run(AGG_MAX, dept, N(dept), &code, NULL);
    CHECK(code == 0 && mx.v.as.str.len == 2 && memcmp(mx.v.as.str.ptr, "hr", 2) == 0);
    CHECK(float_result(AGG_AVG, sal, N(sal), 46.666666666666664));
    value with_lots[] = {value_integer(50), value_integer(50), value_integer(40), str("lots")};
    CHECK(error_result(AGG_SUM, with_lots, N(with_lots), ERR(INT, 41),
                       "[INT-041] sum: expected Integer, Float, or Null, got String"));
    /* language.md §10.4 */
    value amt[] = {value_integer(10), value_float(0.5)};
    CHECK(float_result(AGG_SUM, amt, N(amt), 10.5));
    value ages[] = {value_integer(25), value_integer(30)};
    CHECK(int_result(AGG_SUM, ages, N(ages), 55));
}

static void test_meter_counts_and_limits_aggregates(void) {
    arena a;
    arena_init(&a);
    meter m;
    meter_init(&m, 0);
    err e = {0};
    agg_state *s;
    CHECK(agg_new(&s, AGG_COUNT_DISTINCT, &a, &m, &e) == 0);
    size_t start = agg_bytes(s);
    CHECK(start > 0 && m.used == start);
    for (int i = 0; i < 100; i++) {
        value v = value_integer(i);
        CHECK(agg_step(s, &v, &e) == 0);
    }
    CHECK(agg_bytes(s) > start + 100 * sizeof(value));
    CHECK(m.used == agg_bytes(s) && a.bytes_used == agg_bytes(s));
    value dup = value_integer(5);
    size_t before = agg_bytes(s);
    CHECK(agg_step(s, &dup, &e) == 0 && agg_bytes(s) == before); /* nothing new retained */
    arena_free(&a);

    meter_init(&m, 2048);
    CHECK(agg_new(&s, AGG_COLLECT_SET, &a, &m, &e) == 0);
    int rc = 0;
    for (int i = 0; !rc && i < 1000; i++) {
        value v = value_integer(i);
        rc = agg_step(s, &v, &e);
    }
    CHECK(rc == ERR(QRY, 12));
    CHECK(e.message &&
          strcmp(e.message, "[QRY-012] query memory limit of 2048 bytes exceeded in aggregate") ==
              0);
    CHECK(m.used <= 2048 && m.used == agg_bytes(s));
    err_clear(&e);
    arena_free(&a);
}

static void test_meter_basics(void) {
    meter m;
    err e = {0};
    meter_init(&m, 100);
    CHECK(meter_charge(&m, 60, "scan", &e) == 0 && m.used == 60);
    CHECK(meter_charge(&m, 40, "scan", &e) == 0 && m.used == 100); /* at the limit is fine */
    CHECK(meter_charge(&m, 1, "hash join", &e) == ERR(QRY, 12) && m.used == 100);
    CHECK(strcmp(e.message, "[QRY-012] query memory limit of 100 bytes exceeded in hash join") ==
          0);
    err_clear(&e);
    meter_release(&m, 70);
    CHECK(m.used == 30 && m.peak == 100);
    CHECK(meter_charge(&m, SIZE_MAX, "sort", &e) == ERR(QRY, 12) && m.used == 30);
    err_clear(&e);
    meter_release(&m, 1000);
    CHECK(m.used == 0);
    meter_init(&m, 0); /* unlimited */
    CHECK(meter_charge(&m, SIZE_MAX / 2, "x", &e) == 0);
    CHECK(meter_charge(&m, SIZE_MAX, "x", &e) == ERR(QRY, 12)); /* no wrap-around */
    err_clear(&e);
    CHECK(meter_charge(NULL, 5, "x", &e) == 0);
    meter_release(NULL, 5);
}

int main(void) {
    test_names();
    test_count_skips_nulls_and_keeps_duplicates();
    test_count_distinct_uses_o3_equality();
    test_count_distinct_many_values();
    test_count_distinct_copies_strings();
    test_sum_integers();
    test_sum_saturates();
    test_sum_with_a_float_is_a_double_sum();
    test_sum_rejects_non_numbers();
    test_sum_distinct();
    test_min_max_integers_floats_strings();
    test_min_max_nan_and_zero();
    test_min_max_all_null_omits_group();
    test_min_max_type_errors();
    test_avg();
    test_collect_set_is_distinct_and_o3_sorted();
    test_empty_input_rule();
    test_b7_examples();
    test_meter_counts_and_limits_aggregates();
    test_meter_basics();
    arena_free(&last_run);
    return CHECK_DONE();
}
