/* V stretches from a body's comparison filters (see sub_range.h). */
#include "exec/sub_range.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "storage/format.h"

/* Beyond this a double no longer tells integers apart exactly: an
 * integer bound from it could cut a value the comparison keeps. */
#define EXACT_DOUBLE 4503599627370496.0 /* 2^52 */

/* What the filters so far allow, by V type. */
typedef struct allowed {
    bool string, integer, floating, other;
    int64_t lo, hi; /* integers: [lo, hi] */
    bool absorbed;  /* every filter is decided by the integer bounds */
    size_t filters;
} allowed;

/* ?v op c with c a number: integers in bounds, floats (checked). */
static void compare_number(allowed *a, expr_op cmp, double d) {
    a->string = a->other = false;
    if (!(fabs(d) < EXACT_DOUBLE)) {
        a->absorbed = false;
        return;
    }
    int64_t below = (int64_t)ceil(d) - 1, at_most = (int64_t)floor(d);
    switch (cmp) {
    case OP_LT: a->hi = below < a->hi ? below : a->hi; break;
    case OP_LE: a->hi = at_most < a->hi ? at_most : a->hi; break;
    case OP_GT: a->lo = at_most + 1 > a->lo ? at_most + 1 : a->lo; break;
    default: a->lo = below + 1 > a->lo ? below + 1 : a->lo; break; /* OP_GE */
    }
}

static expr_op flipped(expr_op cmp) {
    return cmp == OP_LT ? OP_GT : cmp == OP_GT ? OP_LT : cmp == OP_LE ? OP_GE : OP_LE;
}

/* Whether `x` is the term of variable `var`. */
static bool is_var(const plan_conj *c, const ast_expr *x, int var) {
    return x->kind == EXPR_TERM && x->arg.kind == TERM_VAR &&
           plan_find_var(c, x->arg.name, x->arg.name_len) == var;
}

static bool is_const(const ast_expr *x) {
    return x->kind == EXPR_TERM && x->arg.kind == TERM_CONST;
}

/* Narrows `a` by one filter clause of the body. */
static void narrow(allowed *a, const plan_conj *c, const ast_expr_clause *f, int var) {
    const ast_expr *x = &f->expr;
    a->filters++;
    bool cmp = !f->has_out && x->kind == EXPR_CALL && x->argc == 2 &&
               (x->op == OP_LT || x->op == OP_LE || x->op == OP_GT || x->op == OP_GE);
    const ast_expr *k = NULL;
    expr_op how = x->op;
    if (cmp && is_var(c, &x->args[0], var) && is_const(&x->args[1]))
        k = &x->args[1];
    else if (cmp && is_var(c, &x->args[1], var) && is_const(&x->args[0])) {
        k = &x->args[0];
        how = flipped(how);
    }
    if (!k) {
        a->absorbed = false;
        return;
    }
    const value *v = &k->arg.constant;
    if (v->type == VT_INTEGER || v->type == VT_FLOAT)
        compare_number(a, how, v->type == VT_INTEGER ? (double)v->as.i : v->as.f);
    else if (v->type == VT_STRING) {
        a->integer = a->floating = a->other = false;
        a->absorbed = false;
    } else {
        a->string = a->integer = a->floating = a->other = false; /* always a failure */
    }
}

static void type_field(int type, uint8_t out[FACT_V_SIZE]) {
    memset(out, 0, FACT_V_SIZE);
    out[0] = (uint8_t)type;
}

/* Appends [lo, hi), merged into the last stretch when they touch. */
static void add(sub_ranges *out, const uint8_t lo[FACT_V_SIZE], const uint8_t hi[FACT_V_SIZE],
                bool exact) {
    size_t n = out->count;
    if (n && out->exact[n - 1] == exact && memcmp(out->r[n - 1].hi, lo, FACT_V_SIZE) == 0) {
        memcpy(out->r[n - 1].hi, hi, FACT_V_SIZE);
        return;
    }
    memcpy(out->r[n].lo, lo, FACT_V_SIZE);
    memcpy(out->r[n].hi, hi, FACT_V_SIZE);
    out->exact[n] = exact;
    out->count++;
}

/* The whole of types [from, to). */
static void add_types(sub_ranges *out, int from, int to, bool exact) {
    uint8_t lo[FACT_V_SIZE], hi[FACT_V_SIZE];
    type_field(from, lo);
    type_field(to, hi);
    add(out, lo, hi, exact);
}

static void add_integers(sub_ranges *out, int64_t lo, int64_t hi, bool exact) {
    uint8_t from[FACT_V_SIZE], to[FACT_V_SIZE];
    type_field(VT_INTEGER, from);
    format_put_be(from + 1, format_sortable_i64(lo), 8);
    if (hi == INT64_MAX)
        type_field(VT_INTEGER + 1, to);
    else {
        type_field(VT_INTEGER, to);
        format_put_be(to + 1, format_sortable_i64(hi + 1), 8);
    }
    add(out, from, to, exact);
}

void sub_ranges_of(const plan_conj *c, const plan_item *it, int var, sub_ranges *out) {
    allowed a = {true, true, true, true, INT64_MIN, INT64_MAX, true, 0};
    size_t first = c->step_of[it - c->items];
    for (size_t step = first + 1; step <= c->item_count; step++)
        narrow(&a, c, &c->items[c->order[step - 1]].clause->as.expr, var);
    bool unfiltered = a.filters == 0;
    out->count = 0;
    if (a.string)
        add_types(out, VT_STRING, VT_STRING + 1, unfiltered);
    if (a.integer && a.lo <= a.hi)
        add_integers(out, a.lo, a.hi, a.absorbed);
    if (a.floating)
        add_types(out, VT_FLOAT, VT_FLOAT + 1, unfiltered);
    if (a.other)
        add_types(out, VT_FLOAT + 1, UINT8_MAX, unfiltered);
}

_Static_assert(FACT_V_SIZE == 9, "a V field is a type byte and 8 bytes");

/* memcmp's order of two V fields (a type byte, then 8 bytes) without
 * the call: a probe compares each record it reads. */
static int v_cmp(const uint8_t a[FACT_V_SIZE], const uint8_t b[FACT_V_SIZE]) {
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    uint64_t x = format_get_be(a + 1, 8), y = format_get_be(b + 1, 8);
    return x == y ? 0 : x < y ? -1 : 1;
}

sub_range_verdict sub_ranges_find(const sub_ranges *r, const uint8_t v[FACT_V_SIZE]) {
    for (size_t i = 0; i < r->count; i++)
        if (v_cmp(v, r->r[i].hi) < 0) /* ascending: the first that ends above v */
            return v_cmp(v, r->r[i].lo) < 0 ? SUB_RANGE_NONE
                   : r->exact[i]            ? SUB_RANGE_EXACT
                                            : SUB_RANGE_CHECKED;
    return SUB_RANGE_NONE;
}
