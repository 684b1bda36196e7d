/* The orders of language.md §6.5 that the query engine applies, and the map of which
 * relation is used where. The equalities E1-E3 and the total order O3 live
 * with the value type (model/value.h); this module adds O1, O2 and the
 * `:order-by` order of language.md D3.
 *
 *   relation              function                  used by
 *   E1 strict equality    value_equal_strict        `=` `!=`, window rank ties and
 *                                                   partitions, a variable repeated in
 *                                                   one pattern, language.md D11 binding filter
 *   E2 entity equivalence value_equal_entity        joins across patterns/rules,
 *                                                   not/not-join probes, or/or-join
 *   E3 record identity    value_identical           retraction, net assertion, rule
 *                                                   de-duplication
 *   E4 constant matching  value_match_constant      constants in patterns (language.md §8.3.2)
 *   O1 predicate order    cmp_predicate             `<` `<=` `>` `>=`
 *   O2 window order       cmp_window                window :order-by, running min/max
 *   O3 total order        value_compare_total       grouping keys, count-distinct,
 *                                                   sum-distinct, collect-set order,
 *                                                   order-by tie-break columns
 *   language.md D3 order-by order     cmp_order_by              query :order-by keys
 *
 * Aggregate min/max (language.md §10.2) use none of these directly: they accept only one
 * type per group and compare within it (see exec/aggregate.h). */
#ifndef MG_EXEC_COMPARE_H
#define MG_EXEC_COMPARE_H

#include "model/value.h"

/* Outcome of an O1 comparison. */
typedef enum cmp_o1 {
    CMP_O1_LESS,
    CMP_O1_EQUAL,
    CMP_O1_GREATER,
    CMP_O1_UNORDERED,   /* a NaN was involved: every predicate is false */
    CMP_O1_INCOMPARABLE /* not two numbers nor two strings: evaluation failure */
} cmp_o1;

/* O1: two numbers (any mix of Integer and Float) compare as doubles, so
 * integers beyond 2^53 may compare equal to their neighbours; two strings by
 * bytes; NaN → UNORDERED; anything else → INCOMPARABLE. */
cmp_o1 cmp_predicate(const value *a, const value *b);

/* O2 (-1, 0, 1): numbers as doubles, strings by bytes; NaN or an
 * incomparable pair (string vs number, booleans, keywords, refs, null) is 0.
 * Not transitive, so only stable merge sorts may use it. */
int cmp_window(const value *a, const value *b);

/* language.md D3 (-1, 0, 1), a total order: O3, except that Integer and Float share one
 * numeric rank and compare by exact mathematical value (no rounding through
 * double). NaN sorts after every number. Tie rule: an Integer and a Float
 * with the same value (1 and 1.0, 0 and -0.0) order Integer first, so the
 * order stays total and agrees with O3 within each type; 0.0 and -0.0 are
 * equal, as in O3. */
int cmp_order_by(const value *a, const value *b);

#endif
