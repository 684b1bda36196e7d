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

#endif
