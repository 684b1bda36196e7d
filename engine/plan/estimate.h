/* How many stored records a pattern's constants select: for the join
 * order (plan/order.c), and for whether a not body or or-branch is worth
 * reading once as a set (exec/sub_set.c). */
#ifndef MG_PLAN_ESTIMATE_H
#define MG_PLAN_ESTIMATE_H

#include <stddef.h>

#include "plan/conj.h"

/* Records the constant positions of `it` select (entity, attribute and a
 * seekable value, the range its scan seeks: store_estimate), counting at
 * most `cap` (then a lower bound). 0 when a constant matches nothing
 * stored; the record count when no constant narrows the scan; SIZE_MAX
 * when it cannot be estimated (the scan that follows reports any storage
 * error). `cc` (may be NULL) keeps estimates for later plans. */
size_t plan_estimate_constants(store_reader *r, plan_count_cache *cc, const plan_item *it,
                               size_t cap);

/* The rows that reach step `step` (1-based) of ordered `c` when one
 * pattern comes before it: that pattern's estimate as above (a not or an
 * or that follows it is asked once per such row, exec/sub_set.h).
 * SIZE_MAX when not known (another step before it, or no estimate). */
size_t plan_estimate_rows_at(store_reader *r, const plan_conj *c, size_t step);

#endif
