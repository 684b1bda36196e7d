/* Unit tests for the built-in expression operators (language.md §8.5.1, every row
 * of the table), truthiness (language.md §8.5.2) and the language.md §8.5.1 examples. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "exec/expr_eval.h"

static value str(const char *s) {
    return value_string(s, strlen(s));
}

/* Applies a two-argument operator; returns the status and stores the result. */
static expr_status apply2(expr_op op, value a, value b, value *out) {
    value args[2] = {a, b};
    *out = value_null();
    return expr_apply(op, args, out);
}

static bool is_bool(expr_status st, value v, bool b) {
    return st == EXPR_OK && v.type == VT_BOOLEAN && v.as.b == b;
}

static bool is_int(expr_status st, value v, int64_t i) {
    return st == EXPR_OK && v.type == VT_INTEGER && v.as.i == i;
}

static bool is_float(expr_status st, value v, double f) {
    return st == EXPR_OK && v.type == VT_FLOAT && v.as.f == f && signbit(v.as.f) == signbit(f);
}

static void test_lookup_names_and_arity(void) {
    const char *names[] = {
        "<",       "<=",       ">",      ">=",           "=",          "!=",        "+",
        "-",       "*",        "/",      "starts-with?", "ends-with?", "contains?", "matches?",
        "string?", "integer?", "float?", "boolean?",     "nil?"};
    for (int op = 0; op < OP_HOST; op++) {
        expr_op found;
        CHECK(expr_op_lookup(names[op], strlen(names[op]), &found) && found == (expr_op)op);
        CHECK(strcmp(expr_op_name((expr_op)op), names[op]) == 0);
        CHECK(expr_op_arity((expr_op)op) == (op >= OP_IS_STRING ? 1 : 2));
    }
    expr_op dummy;
    CHECK(!expr_op_lookup("not=", 4, &dummy));
    CHECK(!expr_op_lookup("str", 3, &dummy));
    CHECK(!expr_op_lookup("<", 0, &dummy));
    CHECK(!expr_op_lookup("nosuch?", 7, &dummy));
}

static void test_ordering_operators(void) {
    value r;
    CHECK(is_bool(apply2(OP_LT, value_integer(7), value_float(7.5), &r), r, true));
    CHECK(is_bool(apply2(OP_LE, value_integer(7), value_float(7.0), &r), r, true));
    CHECK(is_bool(apply2(OP_GT, value_integer(7), value_float(7.0), &r), r, false));
    CHECK(is_bool(apply2(OP_GE, value_integer(7), value_float(7.0), &r), r, true));
    CHECK(is_bool(apply2(OP_LT, value_integer(3), value_integer(2), &r), r, false));
    CHECK(is_bool(apply2(OP_GT, value_float(INFINITY), value_integer(INT64_MAX), &r), r, true));
    CHECK(is_bool(apply2(OP_LT, str("abc"), str("abd"), &r), r, true));
    CHECK(is_bool(apply2(OP_GE, str("b"), str("abc"), &r), r, true));
    CHECK(is_bool(apply2(OP_LE, str(""), str(""), &r), r, true));
}

static void test_ordering_with_nan_is_false(void) {
    value r;
    for (int op = OP_LT; op <= OP_GE; op++) {
        CHECK(is_bool(apply2((expr_op)op, value_float(NAN), value_integer(1), &r), r, false));
        CHECK(is_bool(apply2((expr_op)op, value_float(NAN), value_float(NAN), &r), r, false));
    }
}

static void test_ordering_type_mismatch_fails(void) {
    value r;
    uuid128 u = {{1}};
    value bad[][2] = {
        {str("abc"), value_integer(10)},
        {value_integer(10), str("abc")},
        {value_boolean(false), value_boolean(true)},
        {value_keyword(":a", 2), value_keyword(":b", 2)},
        {value_null(), value_integer(1)},
        {value_ref(u), value_ref(u)},
        {str("a"), value_keyword(":a", 2)},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int op = OP_LT; op <= OP_GE; op++)
            CHECK(apply2((expr_op)op, bad[i][0], bad[i][1], &r) == EXPR_FAIL);
}

static void test_equality_is_strict(void) {
    value r;
    uuid128 u = {{1}};
    CHECK(is_bool(apply2(OP_EQ, value_integer(7), value_float(7.0), &r), r, false));
    CHECK(is_bool(apply2(OP_NE, value_integer(7), value_float(7.0), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, value_integer(7), value_integer(7), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, value_float(NAN), value_float(NAN), &r), r, false));
    CHECK(is_bool(apply2(OP_NE, value_float(NAN), value_float(NAN), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, value_float(0.0), value_float(-0.0), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, str("a"), value_keyword("a", 1), &r), r, false));
    CHECK(is_bool(apply2(OP_EQ, value_keyword(":kw", 3), value_keyword(":kw", 3), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, value_null(), value_null(), &r), r, true));
    CHECK(is_bool(apply2(OP_EQ, value_ref(u), value_ref(u), &r), r, true));
    CHECK(is_bool(apply2(OP_NE, value_boolean(true), value_integer(1), &r), r, true));
}

static void test_integer_arithmetic(void) {
    value r;
    CHECK(is_int(apply2(OP_ADD, value_integer(2), value_integer(3), &r), r, 5));
    CHECK(is_int(apply2(OP_SUB, value_integer(0), value_integer(7), &r), r, -7));
    CHECK(is_int(apply2(OP_MUL, value_integer(-4), value_integer(6), &r), r, -24));
    CHECK(is_int(apply2(OP_DIV, value_integer(7), value_integer(2), &r), r, 3));
    CHECK(is_int(apply2(OP_DIV, value_integer(-7), value_integer(2), &r), r, -3));
    CHECK(is_int(apply2(OP_DIV, value_integer(7), value_integer(-2), &r), r, -3));
    CHECK(is_int(apply2(OP_DIV, value_integer(-7), value_integer(-2), &r), r, 3));
}

static void test_integer_overflow_wraps(void) {
    value r;
    CHECK(is_int(apply2(OP_ADD, value_integer(INT64_MAX), value_integer(1), &r), r, INT64_MIN));
    CHECK(is_int(apply2(OP_SUB, value_integer(INT64_MIN), value_integer(1), &r), r, INT64_MAX));
    CHECK(is_int(apply2(OP_MUL, value_integer(INT64_MAX), value_integer(2), &r), r, -2));
    CHECK(is_int(apply2(OP_MUL, value_integer(INT64_MIN), value_integer(-1), &r), r, INT64_MIN));
    CHECK(is_int(apply2(OP_SUB, value_integer(0), value_integer(INT64_MIN), &r), r, INT64_MIN));
    CHECK(is_int(apply2(OP_DIV, value_integer(INT64_MIN), value_integer(-1), &r), r, INT64_MIN));
    CHECK(is_int(apply2(OP_DIV, value_integer(INT64_MIN), value_integer(1), &r), r, INT64_MIN));
    CHECK(is_int(apply2(OP_DIV, value_integer(5), value_integer(-1), &r), r, -5));
    CHECK(is_int(apply2(OP_MUL, value_integer(INT64_MIN), value_integer(INT64_MIN), &r), r, 0));
}

static void test_float_arithmetic(void) {
    value r;
    CHECK(is_float(apply2(OP_MUL, value_integer(7), value_float(2.5), &r), r, 17.5));
    CHECK(is_float(apply2(OP_ADD, value_float(0.5), value_integer(10), &r), r, 10.5));
    CHECK(is_float(apply2(OP_SUB, value_float(1.0), value_float(1.0), &r), r, 0.0));
    CHECK(is_float(apply2(OP_DIV, value_integer(7), value_float(2.0), &r), r, 3.5));
    CHECK(is_float(apply2(OP_DIV, value_float(7.0), value_integer(2), &r), r, 3.5));
    CHECK(is_float(apply2(OP_MUL, value_float(-0.0), value_integer(1), &r), r, -0.0));
    CHECK(is_float(apply2(OP_DIV, value_float(1.0), value_float(INFINITY), &r), r, 0.0));
}

static void test_float_infinities_survive(void) {
    value r;
    CHECK(is_float(apply2(OP_MUL, value_float(1e308), value_float(10.0), &r), r, INFINITY));
    CHECK(is_float(apply2(OP_SUB, value_float(-1e308), value_float(1e308), &r), r, -INFINITY));
    CHECK(is_float(apply2(OP_ADD, value_float(INFINITY), value_integer(1), &r), r, INFINITY));
    CHECK(is_float(apply2(OP_DIV, value_float(1e308), value_float(1e-308), &r), r, INFINITY));
}

static void test_nan_results_fail(void) {
    value r;
    CHECK(apply2(OP_ADD, value_float(INFINITY), value_float(-INFINITY), &r) == EXPR_FAIL);
    CHECK(apply2(OP_SUB, value_float(INFINITY), value_float(INFINITY), &r) == EXPR_FAIL);
    CHECK(apply2(OP_MUL, value_float(INFINITY), value_integer(0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_float(INFINITY), value_float(INFINITY), &r) == EXPR_FAIL);
    CHECK(apply2(OP_ADD, value_float(NAN), value_integer(1), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_integer(1), value_float(NAN), &r) == EXPR_FAIL);
}

static void test_division_by_zero_fails(void) {
    value r;
    CHECK(apply2(OP_DIV, value_integer(7), value_integer(0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_integer(0), value_integer(0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_integer(7), value_float(0.0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_float(7.0), value_float(-0.0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_float(7.0), value_integer(0), &r) == EXPR_FAIL);
    CHECK(apply2(OP_DIV, value_float(INFINITY), value_float(0.0), &r) == EXPR_FAIL);
}

static void test_arithmetic_on_non_numbers_fails(void) {
    value r;
    value bad[] = {str("1"), value_boolean(true), value_null(), value_keyword(":a", 2)};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        for (int op = OP_ADD; op <= OP_DIV; op++) {
            CHECK(apply2((expr_op)op, bad[i], value_integer(1), &r) == EXPR_FAIL);
            CHECK(apply2((expr_op)op, value_float(1.0), bad[i], &r) == EXPR_FAIL);
        }
    }
}

static void test_string_tests(void) {
    value r;
    CHECK(is_bool(apply2(OP_STARTS_WITH, str("abc"), str("ab"), &r), r, true));
    CHECK(is_bool(apply2(OP_STARTS_WITH, str("abc"), str("bc"), &r), r, false));
    CHECK(is_bool(apply2(OP_STARTS_WITH, str("ab"), str("abc"), &r), r, false));
    CHECK(is_bool(apply2(OP_STARTS_WITH, str("abc"), str(""), &r), r, true));
    CHECK(is_bool(apply2(OP_ENDS_WITH, str("abc"), str("bc"), &r), r, true));
    CHECK(is_bool(apply2(OP_ENDS_WITH, str("abc"), str("ab"), &r), r, false));
    CHECK(is_bool(apply2(OP_ENDS_WITH, str(""), str(""), &r), r, true));
    CHECK(is_bool(apply2(OP_CONTAINS, str("hello world"), str("o w"), &r), r, true));
    CHECK(is_bool(apply2(OP_CONTAINS, str("hello"), str("hello!"), &r), r, false));
    CHECK(is_bool(apply2(OP_CONTAINS, str("aaab"), str("aab"), &r), r, true));
    CHECK(is_bool(apply2(OP_CONTAINS, str(""), str(""), &r), r, true));
    CHECK(is_bool(apply2(OP_CONTAINS, str("abc"), str("C"), &r), r, false)); /* bytes */
    CHECK(is_bool(apply2(OP_CONTAINS, str("caf\xc3\xa9"), str("\xa9"), &r), r, true));
    value embedded = value_string("a\0b", 3), part = value_string("\0b", 2);
    CHECK(is_bool(apply2(OP_ENDS_WITH, embedded, part, &r), r, true));
}

static void test_string_tests_need_two_strings(void) {
    value r;
    for (int op = OP_STARTS_WITH; op <= OP_CONTAINS; op++) {
        CHECK(apply2((expr_op)op, str("abc"), value_integer(1), &r) == EXPR_FAIL);
        CHECK(apply2((expr_op)op, value_keyword(":abc", 4), str(":a"), &r) == EXPR_FAIL);
        CHECK(apply2((expr_op)op, value_null(), str(""), &r) == EXPR_FAIL);
    }
}

static void test_matches_is_left_to_the_regex_module(void) {
    value r;
    CHECK(apply2(OP_MATCHES, str("abc"), str("^a.c$"), &r) == EXPR_NOT_BUILTIN);
}

static void test_type_tests(void) {
    uuid128 u = {{0}};
    value samples[] = {str("s"),     value_integer(1),       value_float(NAN), value_boolean(false),
                       value_null(), value_keyword(":k", 2), value_ref(u)};
    /* samples[i] answers true to op OP_IS_STRING + i (keyword and ref: none). */
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        for (int op = OP_IS_STRING; op <= OP_IS_NIL; op++) {
            value r;
            expr_status st = expr_apply((expr_op)op, &samples[i], &r);
            CHECK(is_bool(st, r, (size_t)(op - OP_IS_STRING) == i));
        }
    }
}

static void test_truthiness(void) {
    value t = value_boolean(true), f = value_boolean(false);
    CHECK(expr_truthy(&t));
    CHECK(!expr_truthy(&f));
    value i0 = value_integer(0), i1 = value_integer(-1), imin = value_integer(INT64_MIN);
    CHECK(!expr_truthy(&i0));
    CHECK(expr_truthy(&i1));
    CHECK(expr_truthy(&imin));
    value z = value_float(0.0), nz = value_float(-0.0), nan = value_float(NAN);
    value tiny = value_float(5e-324), inf = value_float(-INFINITY);
    CHECK(!expr_truthy(&z));
    CHECK(!expr_truthy(&nz));
    CHECK(expr_truthy(&nan));
    CHECK(expr_truthy(&tiny));
    CHECK(expr_truthy(&inf));
    uuid128 u = {{1}};
    value s = str("true"), e = str(""), k = value_keyword(":true", 5), r = value_ref(u);
    value nil = value_null();
    CHECK(!expr_truthy(&s));
    CHECK(!expr_truthy(&e));
    CHECK(!expr_truthy(&k));
    CHECK(!expr_truthy(&r));
    CHECK(!expr_truthy(&nil));
}

/* language.md §8.5.1 with [:m :i 7] [:m :f language.md §2.5] [:m :s "abc"] [:m :k :kw]. */
static void test_b9_examples(void) {
    value i = value_integer(7), f = value_float(2.5), s = str("abc"), k = value_keyword(":kw", 3);
    value r;
    CHECK(is_int(apply2(OP_DIV, i, value_integer(2), &r), r, 3));
    CHECK(is_int(apply2(OP_SUB, value_integer(0), i, &r), r, -7));
    CHECK(is_float(apply2(OP_MUL, i, f, &r), r, 17.5));
    CHECK(apply2(OP_DIV, i, value_integer(0), &r) == EXPR_FAIL);
    CHECK(is_bool(apply2(OP_EQ, i, value_float(7.0), &r), r, false));
    CHECK(is_bool(apply2(OP_LT, i, value_float(7.5), &r), r, true));
    CHECK(apply2(OP_LT, s, value_integer(10), &r) == EXPR_FAIL);
    CHECK(is_bool(apply2(OP_LT, s, str("abd"), &r), r, true) && expr_truthy(&r));
    CHECK(is_bool(apply2(OP_EQ, k, value_keyword(":kw", 3), &r), r, true));
    CHECK(is_bool(expr_apply(OP_IS_STRING, &s, &r), r, true) && expr_truthy(&r));
}

int main(void) {
    test_lookup_names_and_arity();
    test_ordering_operators();
    test_ordering_with_nan_is_false();
    test_ordering_type_mismatch_fails();
    test_equality_is_strict();
    test_integer_arithmetic();
    test_integer_overflow_wraps();
    test_float_arithmetic();
    test_float_infinities_survive();
    test_nan_results_fail();
    test_division_by_zero_fails();
    test_arithmetic_on_non_numbers_fails();
    test_string_tests();
    test_string_tests_need_two_strings();
    test_matches_is_left_to_the_regex_module();
    test_type_tests();
    test_truthiness();
    test_b9_examples();
    return CHECK_DONE();
}
