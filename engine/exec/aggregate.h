/* The built-in aggregates of language.md §10.2 as incremental accumulators:
 * agg_new, then agg_step once per solution of the group (in solution order),
 * then agg_finish.
 *
 * Input: agg_step skips Null itself, so callers pass every value.
 *
 *   count           Integer, non-null values
 *   count-distinct  Integer, distinct under O3 (1 and 1.0 distinct, every
 *                   NaN one value, 0.0 and -0.0 one value, :bob and its Ref
 *                   distinct)
 *   sum             all Integer → Integer, saturating at each step (like
 *                   Rust's saturating_add fold); any Float → Float, the
 *                   double sum of all values in input order; no value →
 *                   Integer 0. NaN and infinities are possible results.
 *   sum-distinct    sum over the O3-distinct values in first-seen order
 *   min / max       one type per group (Integer, Float or String); strings
 *                   by bytes; a value replaces the current one only when
 *                   strictly less/greater, so a Float NaN never replaces and
 *                   a leading NaN stays; no value → the group row is omitted
 *   avg             Float mean (double sum in input order / count) of the
 *                   Integer and Float values, others ignored; none → Null
 *   collect-set     the O3-distinct values sorted by O3 (a collection, below)
 *
 * Errors (the query fails; codes chosen from the INT-041..044 family that
 * language.md §17 reserves, exact mapping unconfirmed by the reference):
 *   INT-041  "sum: expected Integer, Float, or Null, got <T>" (sum and
 *            sum-distinct alike, as the reference words it), at the step
 *   INT-042  "<fn>: cannot compare <T1> and <T2> values" where T1 is the
 *            group's first value's type, at the first mismatching step
 *   INT-043  "<fn>: expected Integer, Float, String, or Null, got <T>", at
 *            agg_finish when every value has one such type (Boolean, Ref,
 *            Keyword): the reference checks for mixed types first, so
 *            [true, 1] reports INT-042
 *   INT-044  unused (reserved for host aggregates)
 *
 * Host aggregates (AGG_HOST, language.md §10.5; agg_new_host): the host's init
 * runs at the first non-null value (a group without one is Null, and no
 * callback runs), step once per non-null value in input order, finish
 * with n = the number of those values at agg_finish, whose text result is
 * copied into the arena (charged); the accumulator is released then, or
 * by agg_discard when the query fails first. Their failures are the
 * callbacks' errors (API-016 from the C API).
 *   QRY-012  from the meter, naming the operator "aggregate"
 *   INT-000  "out of memory"
 *
 * Collection values (collect-set, language.md D4). `value` has no list kind
 * yet, so agg_finish hands the set out as agg_result.items/item_count. The
 * proposed representation once wired: a value kind VT_LIST ranked after
 * Null in O3, payload {const value *items; size_t count}, compared
 * element-wise then by length (O3/E1/E3 applied to the elements); the result
 * set deep-copies it; JSON renders it as an array of the items' renderings
 * (language.md §14.1), e.g. ["eng","hr"], [1,1.0], and [] for a group whose values were
 * all Null.
 *
 * Memory: the state and everything it retains (distinct sets, copies of
 * string payloads, so callers may reuse their buffers after agg_step) come
 * from the arena given to agg_new and live until that arena is freed. Growth
 * is charged to the meter as it happens; agg_bytes reports the total. */
#ifndef MG_EXEC_AGGREGATE_H
#define MG_EXEC_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/meter.h"
#include "model/value.h"

typedef enum agg_fn {
    AGG_COUNT,
    AGG_COUNT_DISTINCT,
    AGG_SUM,
    AGG_SUM_DISTINCT,
    AGG_MIN,
    AGG_MAX,
    AGG_AVG,
    AGG_COLLECT_SET,
    AGG_HOST /* a host-registered (UDF) aggregate (host/host_fns.h) */
} agg_fn;

typedef struct agg_state agg_state;

typedef struct agg_result {
    bool omit_group;    /* min/max without a value: drop the group's row */
    value v;            /* the result; Null for collect-set */
    const value *items; /* collect-set: the values in O3 order (arena-owned) */
    size_t item_count;
} agg_result;

/* The built-in spelled `name` ("count-distinct"); false for other names
 * (host aggregates, resolved by the caller). */
bool agg_lookup(const char *name, size_t len, agg_fn *out);
const char *agg_name(agg_fn fn);

/* A fresh accumulator for a built-in `fn` (not AGG_HOST), allocated from
 * `a`. `m` may be NULL. Returns 0, or QRY-012 / INT-000 with *out NULL. */
int agg_new(agg_state **out, agg_fn fn, arena *a, meter *m, err *e);
/* The same for the host aggregate `f`, which must outlive the state
 * (the query's host scope holds it). */
struct host_fn;
int agg_new_host(agg_state **out, const struct host_fn *f, arena *a, meter *m, err *e);
/* Releases what a host aggregate's state holds outside the arena, when
 * agg_finish was not (or could not be) reached. A no-op otherwise, and
 * for NULL. */
void agg_discard(agg_state *s);
/* Adds one input value (Null is skipped). Returns 0 or an error above. */
int agg_step(agg_state *s, const value *v, err *e);
/* agg_step `n` times with `v` (one addition for count, one step for the
 * aggregates a repeated value leaves as they are). */
int agg_step_n(agg_state *s, const value *v, uint64_t n, err *e);
/* agg_step of states[i * each] (accumulators of one function; `each` 0:
 * all values step states[0]) with the value at first + i * stride, for
 * i < count, weight[i] times each (weight NULL: once): one call for a
 * block of solutions. Stops at the first error. */
int agg_step_each(agg_state *const *states, size_t each, const value *first, size_t count,
                  size_t stride, const uint64_t *weight, err *e);
/* Whether agg_step of `fn` never fails (count, avg): stepping such an
 * aggregate before or after another cannot change which error a query
 * reports. */
bool agg_infallible(agg_fn fn);
/* The group's result. May be called once; the state is not reusable. */
int agg_finish(agg_state *s, agg_result *out, err *e);
/* Bytes of the arena this accumulator has taken, the state included. */
size_t agg_bytes(const agg_state *s);

/* language.md §10.3, for a query with no solutions at all: true when the answer is
 * one row of zeros (no plain :find variables and every aggregate is count or
 * count-distinct), and then row[0..count) are Integer 0; false when the
 * answer has no rows. `row` may be NULL. */
bool agg_empty_input_row(const agg_fn *fns, size_t count, size_t plain_vars, value *row);

#endif
