/* O1, O2 and the language.md D3 order-by order (language.md §6.5, §19). */
#include "exec/compare.h"

#include <math.h>
#include <string.h>

static bool is_number(const value *v) {
    return v->type == VT_INTEGER || v->type == VT_FLOAT;
}

static double as_double(const value *v) {
    return v->type == VT_INTEGER ? (double)v->as.i : v->as.f;
}

static int compare_bytes(const value *a, const value *b) {
    size_t n = a->as.str.len < b->as.str.len ? a->as.str.len : b->as.str.len;
    int c = n == 0 ? 0 : memcmp(a->as.str.ptr, b->as.str.ptr, n);
    if (c != 0)
        return c < 0 ? -1 : 1;
    return (a->as.str.len > b->as.str.len) - (a->as.str.len < b->as.str.len);
}

static cmp_o1 o1_of_sign(int sign) {
    return sign < 0 ? CMP_O1_LESS : sign > 0 ? CMP_O1_GREATER : CMP_O1_EQUAL;
}

cmp_o1 cmp_predicate(const value *a, const value *b) {
    if (a->type == VT_STRING && b->type == VT_STRING)
        return o1_of_sign(compare_bytes(a, b));
    if (!is_number(a) || !is_number(b))
        return CMP_O1_INCOMPARABLE;
    double x = as_double(a), y = as_double(b);
    if (isnan(x) || isnan(y))
        return CMP_O1_UNORDERED;
    return o1_of_sign((x > y) - (x < y));
}

int cmp_window(const value *a, const value *b) {
    switch (cmp_predicate(a, b)) {
    case CMP_O1_LESS: return -1;
    case CMP_O1_GREATER: return 1;
    default: return 0;
    }
}

/* Exact comparison of an integer with a non-NaN double. Doubles at or
 * beyond ±2^63 are outside the int64 range; inside it, truncation is exact
 * and the fractional part decides a tie of the integral parts. */
static int compare_int_float(int64_t i, double f) {
    if (f >= 9223372036854775808.0)
        return -1;
    if (f < -9223372036854775808.0)
        return 1;
    int64_t t = (int64_t)f;
    if (i != t)
        return i < t ? -1 : 1;
    double frac = f - (double)t;
    return (frac < 0) - (frac > 0);
}

static int compare_mixed_numbers(const value *a, const value *b) {
    if (a->type == VT_FLOAT)
        return -compare_mixed_numbers(b, a);
    if (isnan(b->as.f))
        return -1;
    int c = compare_int_float(a->as.i, b->as.f);
    return c != 0 ? c : -1; /* equal value: Integer first */
}

int cmp_order_by(const value *a, const value *b) {
    if (is_number(a) && is_number(b) && a->type != b->type)
        return compare_mixed_numbers(a, b);
    return value_compare_total(a, b);
}
