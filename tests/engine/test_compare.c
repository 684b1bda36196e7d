/* Unit tests for the orders O1, O2 (language.md §6.5) and the :order-by order of
 * language.md D3. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "exec/compare.h"

static value str(const char *s) {
    return value_string(s, strlen(s));
}

static value kw(const char *s) {
    return value_keyword(s, strlen(s));
}

static value i64(int64_t i) {
    return value_integer(i);
}

static value f64(double f) {
    return value_float(f);
}

static void test_o1_numbers_promote_to_double(void) {
    value a = i64(7), b = f64(7.5), c = f64(7.0);
    CHECK(cmp_predicate(&a, &b) == CMP_O1_LESS);
    CHECK(cmp_predicate(&b, &a) == CMP_O1_GREATER);
    CHECK(cmp_predicate(&a, &c) == CMP_O1_EQUAL);
    value big = i64(9007199254740993), big_f = f64(9007199254740992.0);
    CHECK(cmp_predicate(&big, &big_f) == CMP_O1_EQUAL); /* both round to 2^53 */
    value inf = f64(INFINITY), ninf = f64(-INFINITY), max = i64(INT64_MAX);
    CHECK(cmp_predicate(&max, &inf) == CMP_O1_LESS);
    CHECK(cmp_predicate(&ninf, &max) == CMP_O1_LESS);
    value z = f64(0.0), nz = f64(-0.0), zi = i64(0);
    CHECK(cmp_predicate(&z, &nz) == CMP_O1_EQUAL);
    CHECK(cmp_predicate(&zi, &nz) == CMP_O1_EQUAL);
}

static void test_o1_strings_by_bytes(void) {
    value abc = str("abc"), abd = str("abd"), ab = str("ab"), e = str(""), up = str("Z");
    value eacute = str("\xc3\xa9"), z = str("z");
    CHECK(cmp_predicate(&abc, &abd) == CMP_O1_LESS);
    CHECK(cmp_predicate(&ab, &abc) == CMP_O1_LESS);
    CHECK(cmp_predicate(&e, &ab) == CMP_O1_LESS);
    CHECK(cmp_predicate(&abc, &abc) == CMP_O1_EQUAL);
    CHECK(cmp_predicate(&up, &ab) == CMP_O1_LESS);    /* 'Z' < 'a': bytes, not collation */
    CHECK(cmp_predicate(&z, &eacute) == CMP_O1_LESS); /* U+007A < U+00E9 */
}

static void test_o1_nan_is_unordered(void) {
    value nan = f64(NAN), one = i64(1), nan2 = f64(NAN);
    CHECK(cmp_predicate(&nan, &one) == CMP_O1_UNORDERED);
    CHECK(cmp_predicate(&one, &nan) == CMP_O1_UNORDERED);
    CHECK(cmp_predicate(&nan, &nan2) == CMP_O1_UNORDERED);
}

static void test_o1_other_pairs_are_incomparable(void) {
    value s = str("abc"), n = i64(10), t = value_boolean(true), f = value_boolean(false);
    value k = kw(":a"), k2 = kw(":b"), nil = value_null(), nan = f64(NAN);
    uuid128 u = {{0}};
    value r = value_ref(u);
    CHECK(cmp_predicate(&s, &n) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&n, &s) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&t, &f) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&k, &k2) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&nil, &nil) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&r, &r) == CMP_O1_INCOMPARABLE);
    CHECK(cmp_predicate(&s, &nan) == CMP_O1_INCOMPARABLE); /* type check before NaN */
}

static void test_o2_incomparable_and_nan_are_equal(void) {
    value a = i64(1), b = f64(1.5), s = str("x"), t = str("y"), nan = f64(NAN);
    value bt = value_boolean(true), bf = value_boolean(false), nil = value_null();
    CHECK(cmp_window(&a, &b) == -1);
    CHECK(cmp_window(&b, &a) == 1);
    CHECK(cmp_window(&s, &t) == -1);
    CHECK(cmp_window(&a, &s) == 0);
    CHECK(cmp_window(&nan, &a) == 0);
    CHECK(cmp_window(&bf, &bt) == 0);
    CHECK(cmp_window(&nil, &a) == 0);
    value one = i64(1), onef = f64(1.0);
    CHECK(cmp_window(&one, &onef) == 0);
}

static void test_d3_interleaves_integers_and_floats(void) {
    value one = i64(1), onehalf = f64(1.5), two = i64(2), onef = f64(1.0);
    CHECK(cmp_order_by(&one, &onehalf) < 0);
    CHECK(cmp_order_by(&onehalf, &two) < 0);
    CHECK(cmp_order_by(&two, &onehalf) > 0);
    /* O3 would put every Integer first. */
    CHECK(value_compare_total(&two, &onehalf) < 0);
    /* Tie rule: equal value, Integer first. */
    CHECK(cmp_order_by(&one, &onef) < 0);
    CHECK(cmp_order_by(&onef, &one) > 0);
    value zi = i64(0), nz = f64(-0.0), z = f64(0.0);
    CHECK(cmp_order_by(&zi, &nz) < 0);
    CHECK(cmp_order_by(&nz, &z) == 0);
}

static void test_d3_exact_for_large_integers(void) {
    value big = i64(9007199254740993), big_f = f64(9007199254740992.0);
    CHECK(cmp_order_by(&big_f, &big) < 0); /* exact, not via double */
    CHECK(cmp_order_by(&big, &big_f) > 0);
    value max = i64(INT64_MAX), two63 = f64(9223372036854775808.0);
    CHECK(cmp_order_by(&max, &two63) < 0);
    value min = i64(INT64_MIN), m63 = f64(-9223372036854775808.0), below = f64(-1e19);
    CHECK(cmp_order_by(&min, &m63) < 0); /* equal value: Integer first */
    CHECK(cmp_order_by(&below, &min) < 0);
    value neg = i64(-1), nhalf = f64(-0.5), nbig = f64(-1.5);
    CHECK(cmp_order_by(&neg, &nhalf) < 0);
    CHECK(cmp_order_by(&nbig, &neg) < 0);
}

static void test_d3_infinities_and_nan(void) {
    value inf = f64(INFINITY), ninf = f64(-INFINITY), nan = f64(NAN), max = i64(INT64_MAX);
    value min = i64(INT64_MIN), t = value_boolean(false), s = str("z");
    CHECK(cmp_order_by(&max, &inf) < 0);
    CHECK(cmp_order_by(&ninf, &min) < 0);
    CHECK(cmp_order_by(&inf, &nan) < 0);
    CHECK(cmp_order_by(&max, &nan) < 0);
    CHECK(cmp_order_by(&nan, &max) > 0);
    value nan2 = f64(-NAN);
    CHECK(cmp_order_by(&nan, &nan2) == 0);
    /* The other ranks stay those of O3. */
    CHECK(cmp_order_by(&s, &min) < 0);
    CHECK(cmp_order_by(&nan, &t) < 0);
    value k = kw(":a"), nil = value_null();
    CHECK(cmp_order_by(&t, &k) < 0);
    CHECK(cmp_order_by(&k, &nil) < 0);
}

/* language.md D3 must be a total order: check transitivity and antisymmetry on a mixed
 * sample, exhaustively. */
static void test_d3_is_a_total_order(void) {
    value v[] = {i64(INT64_MIN),
                 f64(-INFINITY),
                 f64(-1e300),
                 i64(-3),
                 f64(-2.5),
                 f64(-0.0),
                 i64(0),
                 f64(0.0),
                 f64(1e-300),
                 i64(1),
                 f64(1.0),
                 f64(1.5),
                 i64(9007199254740993),
                 f64(9007199254740992.0),
                 i64(INT64_MAX),
                 f64(9223372036854775808.0),
                 f64(INFINITY),
                 f64(NAN),
                 str(""),
                 str("a"),
                 value_boolean(false),
                 value_boolean(true),
                 kw(":k"),
                 value_null()};
    size_t n = sizeof v / sizeof *v;
    int bad = 0;
    for (size_t a = 0; a < n; a++) {
        for (size_t b = 0; b < n; b++) {
            int ab = cmp_order_by(&v[a], &v[b]), ba = cmp_order_by(&v[b], &v[a]);
            if ((ab > 0) != (ba < 0) || (ab == 0) != (ba == 0))
                bad++;
            for (size_t c = 0; c < n; c++)
                if (ab <= 0 && cmp_order_by(&v[b], &v[c]) <= 0 && cmp_order_by(&v[a], &v[c]) > 0)
                    bad++;
        }
    }
    CHECK(bad == 0);
}

int main(void) {
    test_o1_numbers_promote_to_double();
    test_o1_strings_by_bytes();
    test_o1_nan_is_unordered();
    test_o1_other_pairs_are_incomparable();
    test_o2_incomparable_and_nan_are_equal();
    test_d3_interleaves_integers_and_floats();
    test_d3_exact_for_large_integers();
    test_d3_infinities_and_nan();
    test_d3_is_a_total_order();
    return CHECK_DONE();
}
