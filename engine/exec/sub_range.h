/* The V fields a not body's pattern can hold, from the body's filters.
 *
 * [?e :attr ?v] [(< ?v 10)]: a comparison of ?v with a number holds only
 * for Integer and Float values (language.md §6.5 O1: any other type is an
 * evaluation failure, a dropped row), and for integers only within
 * bounds. The AVET records of :attr inside these stretches are a superset
 * of the records the filters keep, read in a few seeks instead of one per
 * outer row (exec/sub_set.h). A stretch is `exact` when every record in
 * it passes every filter: then the filters need not run on its records. */
#ifndef MG_EXEC_SUB_RANGE_H
#define MG_EXEC_SUB_RANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/op_scan.h"

#define SUB_RANGES_MAX 4

typedef struct sub_ranges {
    value_range r[SUB_RANGES_MAX]; /* ascending, disjoint */
    bool exact[SUB_RANGES_MAX];
    size_t count;
} sub_ranges;

/* The stretches for pattern item `it` of `c` (its value the variable
 * `var`, of one slot) and the filters at c's later steps. */
void sub_ranges_of(const plan_conj *c, const plan_item *it, int var, sub_ranges *out);

/* Where a record's V field lies (sub_ranges_find). */
typedef enum sub_range_verdict {
    SUB_RANGE_NONE,    /* in no stretch: no filter run on it would keep it */
    SUB_RANGE_EXACT,   /* in an exact stretch: every filter keeps it */
    SUB_RANGE_CHECKED, /* in a stretch whose records the filters must see */
} sub_range_verdict;

sub_range_verdict sub_ranges_find(const sub_ranges *r, const uint8_t v[FACT_V_SIZE]);

#endif
