/* Built-in expression operators (language.md §8.5.1) and truthiness (language.md §8.5.2). */
#include "exec/expr_eval.h"

#include <math.h>
#include <string.h>

#include "exec/compare.h"

static const struct {
    const char *name;
    int arity;
} expr_ops[OP_HOST] = {
    [OP_LT] = {"<", 2},
    [OP_LE] = {"<=", 2},
    [OP_GT] = {">", 2},
    [OP_GE] = {">=", 2},
    [OP_EQ] = {"=", 2},
    [OP_NE] = {"!=", 2},
    [OP_ADD] = {"+", 2},
    [OP_SUB] = {"-", 2},
    [OP_MUL] = {"*", 2},
    [OP_DIV] = {"/", 2},
    [OP_STARTS_WITH] = {"starts-with?", 2},
    [OP_ENDS_WITH] = {"ends-with?", 2},
    [OP_CONTAINS] = {"contains?", 2},
    [OP_MATCHES] = {"matches?", 2},
    [OP_IS_STRING] = {"string?", 1},
    [OP_IS_INTEGER] = {"integer?", 1},
    [OP_IS_FLOAT] = {"float?", 1},
    [OP_IS_BOOLEAN] = {"boolean?", 1},
    [OP_IS_NIL] = {"nil?", 1},
};

bool expr_op_lookup(const char *name, size_t len, expr_op *out) {
    for (int op = 0; op < OP_HOST; op++) {
        const char *n = expr_ops[op].name;
        if (strlen(n) == len && memcmp(n, name, len) == 0) {
            *out = (expr_op)op;
            return true;
        }
    }
    return false;
}

const char *expr_op_name(expr_op op) {
    return expr_ops[op].name;
}

int expr_op_arity(expr_op op) {
    return expr_ops[op].arity;
}

static expr_status boolean(bool b, value *out) {
    *out = value_boolean(b);
    return EXPR_OK;
}

static expr_status apply_order(expr_op op, const value *a, const value *b, value *out) {
    cmp_o1 c = cmp_predicate(a, b);
    switch (c) {
    case CMP_O1_INCOMPARABLE: return EXPR_FAIL;
    case CMP_O1_UNORDERED: return boolean(false, out);
    default: break;
    }
    switch (op) {
    case OP_LT: return boolean(c == CMP_O1_LESS, out);
    case OP_LE: return boolean(c != CMP_O1_GREATER, out);
    case OP_GT: return boolean(c == CMP_O1_GREATER, out);
    default: return boolean(c != CMP_O1_LESS, out);
    }
}

/* Wrap-around integer arithmetic: done on uint64_t, where overflow is
 * defined, then converted back (implementation-defined but two's complement
 * on every platform we build for). */
static int64_t wrap(uint64_t u) {
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

static int64_t int_arith(expr_op op, int64_t x, int64_t y) {
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (op) {
    case OP_ADD: return wrap(ux + uy);
    case OP_SUB: return wrap(ux - uy);
    default: return wrap(ux * uy);
    }
}

static expr_status int_divide(int64_t x, int64_t y, value *out) {
    if (y == 0)
        return EXPR_FAIL;
    /* MIN / -1 overflows in C (undefined); language.md §8.5.1 asks for wrap-around. */
    *out = value_integer(y == -1 ? int_arith(OP_SUB, 0, x) : x / y);
    return EXPR_OK;
}

static double to_double(const value *v) {
    return v->type == VT_INTEGER ? (double)v->as.i : v->as.f;
}

static expr_status float_arith(expr_op op, double x, double y, value *out) {
    double r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    default:
        if (y == 0.0)
            return EXPR_FAIL;
        r = x / y;
        break;
    }
    if (isnan(r))
        return EXPR_FAIL;
    *out = value_float(r);
    return EXPR_OK;
}

static bool is_number(const value *v) {
    return v->type == VT_INTEGER || v->type == VT_FLOAT;
}

static expr_status apply_arith(expr_op op, const value *a, const value *b, value *out) {
    if (!is_number(a) || !is_number(b))
        return EXPR_FAIL;
    if (a->type == VT_INTEGER && b->type == VT_INTEGER) {
        if (op == OP_DIV)
            return int_divide(a->as.i, b->as.i, out);
        *out = value_integer(int_arith(op, a->as.i, b->as.i));
        return EXPR_OK;
    }
    return float_arith(op, to_double(a), to_double(b), out);
}

static bool has_part(const char *hay, size_t hay_len, const char *needle, size_t len) {
    if (len == 0)
        return true;
    for (size_t i = 0; i + len <= hay_len; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, len) == 0)
            return true;
    return false;
}

static expr_status apply_text(expr_op op, const value *a, const value *b, value *out) {
    if (a->type != VT_STRING || b->type != VT_STRING)
        return EXPR_FAIL;
    const char *s = a->as.str.ptr, *p = b->as.str.ptr;
    size_t n = a->as.str.len, k = b->as.str.len;
    if (op == OP_CONTAINS)
        return boolean(has_part(s, n, p, k), out);
    if (k > n)
        return boolean(false, out);
    const char *at = op == OP_STARTS_WITH ? s : s + (n - k);
    return boolean(k == 0 || memcmp(at, p, k) == 0, out);
}

static expr_status apply_type_test(expr_op op, const value *a, value *out) {
    static const value_type tested[] = {
        [OP_IS_STRING - OP_IS_STRING] = VT_STRING, [OP_IS_INTEGER - OP_IS_STRING] = VT_INTEGER,
        [OP_IS_FLOAT - OP_IS_STRING] = VT_FLOAT,   [OP_IS_BOOLEAN - OP_IS_STRING] = VT_BOOLEAN,
        [OP_IS_NIL - OP_IS_STRING] = VT_NULL,
    };
    return boolean(a->type == tested[op - OP_IS_STRING], out);
}

expr_status expr_apply(expr_op op, const value *args, value *out) {
    switch (op) {
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: return apply_order(op, &args[0], &args[1], out);
    case OP_EQ: return boolean(value_equal_strict(&args[0], &args[1]), out);
    case OP_NE: return boolean(!value_equal_strict(&args[0], &args[1]), out);
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV: return apply_arith(op, &args[0], &args[1], out);
    case OP_STARTS_WITH:
    case OP_ENDS_WITH:
    case OP_CONTAINS: return apply_text(op, &args[0], &args[1], out);
    case OP_MATCHES: return EXPR_NOT_BUILTIN;
    case OP_IS_STRING:
    case OP_IS_INTEGER:
    case OP_IS_FLOAT:
    case OP_IS_BOOLEAN:
    case OP_IS_NIL: return apply_type_test(op, &args[0], out);
    case OP_HOST: break;
    }
    return EXPR_FAIL;
}

bool expr_truthy(const value *v) {
    switch (v->type) {
    case VT_BOOLEAN: return v->as.b;
    case VT_INTEGER: return v->as.i != 0;
    case VT_FLOAT: return v->as.f != 0.0; /* NaN != 0.0 holds: NaN is truthy */
    default: return false;
    }
}
