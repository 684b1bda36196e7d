/* Window functions (language.md §11.2) over materialised rows.
 *
 * The caller's rows (window_rows) hold, per row i, the partition value,
 * the order value and the function's argument at their slots, and get
 * the result in the `out` slot; rows keep their input order. The steps:
 *   1. partition by E1 equality of the partition values (no partition
 *      slot → one partition; a missing value should be Null, which forms
 *      one partition; a NaN equals nothing, so each NaN row is a partition);
 *   2. within a partition, a stable sort by the order values under O2,
 *      ascending or descending (ties and incomparable values keep input
 *      order as far as a merge sort with a non-transitive O2 allows;
 *      numbers without NaN, totally ordered, go through a radix sort of
 *      integer keys);
 *   3. a running frame from the partition's first row to the current row
 *      (ROWS semantics: tied rows get different running values):
 *        row-number  1, 2, 3, ...
 *        rank        E1 tie with the previous row's order value keeps the
 *                    rank, else the 1-based position (1, 1, 3)
 *        count       running count of non-null args (Integer)
 *        sum         running sum of Integer/Float args, others ignored,
 *                    accumulated in double; Integer (the double converted,
 *                    clamped to the int64 range) until a Float is seen,
 *                    then Float; Integer 0 before any number
 *        min / max   first non-null arg, then replaced only by an arg
 *                    strictly less/greater under O2; Null before any
 *        avg         running Float mean of the numeric args; Null before any
 *        lag / lead  the previous / next row's arg in window order, Null at
 *                    the partition edge (offset 1 only, language.md D7)
 * Results borrow string payloads from the argument values.
 *
 * Scratch memory (two 4-byte row indexes and an 8-byte sort key a row,
 * and with partitions a third index and a hash table of up to 48 bytes a
 * row) is charged to `m` as "window" while the call runs and released at
 * its end. */
#ifndef MG_EXEC_WINDOW_H
#define MG_EXEC_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/meter.h"
#include "model/value.h"

typedef enum window_fn {
    WINDOW_ROW_NUMBER,
    WINDOW_RANK,
    WINDOW_COUNT,
    WINDOW_SUM,
    WINDOW_MIN,
    WINDOW_MAX,
    WINDOW_AVG,
    WINDOW_LAG,
    WINDOW_LEAD,
    WINDOW_HOST /* a host aggregate over the frame: window_compute_running */
} window_fn;

/* The built-in window function spelled `name`; false otherwise (then it is
 * a host aggregate, or QRY-011). count-distinct and sum-distinct are not
 * window functions. */
bool window_lookup(const char *name, size_t len, window_fn *out);
/* row-number and rank take no argument. */
bool window_takes_arg(window_fn fn);

/* The rows a window reads and writes in place: rows[i][slot]. An input
 * slot of -1 reads as Null in every row (no partition slot: one
 * partition); `out` must not be one of the input slots. */
typedef struct window_rows {
    value *const *rows;
    long partition, order, arg;
    long out;
} window_rows;

/* Computes fn over rows 0..n of `r`. Returns 0, QRY-012 from the meter,
 * or INT-000 when out of memory. */
int window_compute(window_fn fn, bool descending, size_t n, const window_rows *r, meter *m, err *e);

/* A running function the caller supplies (a host aggregate, language.md §11.2):
 * per partition, start; then, per row in window order, add with the row's
 * argument (Null included) and the count of rows so far, which gives the
 * frame's value; then stop, also when an add failed. */
typedef struct window_running {
    int (*start)(void *ctx, err *e);
    int (*add)(void *ctx, const value *arg, int64_t rows, value *out, err *e);
    void (*stop)(void *ctx);
    void *ctx;
} window_running;

/* window_compute for `run` (partitioning and ordering alike); its errors
 * are the callbacks' too, and stop the computation. */
int window_compute_running(const window_running *run, bool descending, size_t n,
                           const window_rows *r, meter *m, err *e);

#endif
