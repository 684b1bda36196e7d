/* Result ordering for the query's :order-by, :limit and :offset (language.md §8.15,
 * language.md D3).
 *
 * Row order: the keys in turn, each under the language.md D3 order (cmp_order_by:
 * O3 with Integer and Float interleaved numerically), reversed for :desc;
 * then the columns that are not keys, in column order, ascending under O3;
 * rows still equal (identical under O3, e.g. 0.0 vs -0.0) keep their input
 * order. So the output is deterministic for any input order up to such
 * O3-identical rows.
 *
 * That full order is what sort_rows and sort_topk_push give. language.md D3
 * leaves rows equal on every key in no particular order unless every
 * column is a key, so a top-k's caller may drop a row that ties its last
 * kept row on every key (sort_topk_passes_over) or stop reading rows that
 * come in key order once k are held (sort_topk_full_in_order): a query
 * keeps whichever of the boundary's ties it saw first.
 *
 * A row is an array of `column_count` values. */
#ifndef MG_EXEC_SORT_H
#define MG_EXEC_SORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/meter.h"
#include "model/value.h"

typedef struct sort_key {
    size_t column;
    bool descending;
} sort_key;

typedef struct sort_spec {
    const sort_key *keys;
    size_t key_count;
    size_t column_count;
} sort_spec;

/* <0, 0, >0: the row order above, without the input-order tie-break. */
int sort_compare_rows(const sort_spec *s, const value *a, const value *b);

/* Sorts `rows` (pointers to rows the caller owns) stably, in place. The
 * merge buffer (n pointers) is charged to `m` as "sort" while it lives.
 * Returns 0, QRY-012 or INT-000 (then `rows` is unchanged). */
int sort_rows(const value **rows, size_t n, const sort_spec *s, meter *m, err *e);

/* Bounded top-k for :order-by with :limit: keeps the first k rows of the
 * order (k = offset + limit, see sort_topk_bound) in a heap, copying each
 * kept row (strings included) so upstream buffers may be reused; rows that
 * fall out are freed. Kept rows and the heap are charged to `m` as "sort".
 * The result equals sort_rows over all pushed rows, truncated to k. */
typedef struct sort_topk_entry {
    value *row;
    size_t seq;   /* push order: the final tie-break */
    size_t bytes; /* charged for this row */
} sort_topk_entry;

typedef struct sort_topk {
    sort_spec spec;
    size_t k;
    sort_topk_entry *heap; /* max-heap: heap[0] is the last kept row */
    size_t count, cap;
    size_t pushed;
    size_t charged;
    meter *meter;
    const value **sorted; /* filled by sort_topk_finish */
} sort_topk;

/* `s->keys` must outlive the top-k. k may be 0 (keeps nothing). */
void sort_topk_init(sort_topk *t, const sort_spec *s, size_t k, meter *m);
/* Offers one row (not after sort_topk_finish). Returns 0, QRY-012 or
 * INT-000. */
int sort_topk_push(sort_topk *t, const value *row, err *e);
/* Whether no row from `row` on can enter, when the rows come in the
 * order of the first key (plan/value_order.h): k rows are held and
 * `row`'s first key follows the last held row's, or ties it and there is
 * no other key. A row that ties it on the first of several keys may
 * still enter: the other keys decide. */
bool sort_topk_closed(const sort_topk *t, const value *row);
/* Whether, with the rows in the order of the one key, no further row can
 * enter: k rows are held, and any later row follows or ties the last
 * (ties keep no particular order, language.md D3), so reading may stop at k. */
bool sort_topk_full_in_order(const sort_topk *t);
/* Whether `row` may be dropped on its keys alone: k rows are kept and
 * the keys order it after or level with the last of them (a tie's place
 * is unspecified unless every column is a key, language.md D3; if every column is,
 * it is the same row as that one). Its other columns are not read (a
 * caller may leave them undecoded). */
bool sort_topk_passes_over(const sort_topk *t, const value *row);
/* Sets *rows to the kept rows in order (at most k) and returns how many.
 * They stay valid until sort_topk_free. Returns 0 rows with *rows NULL when
 * nothing was kept, or on out of memory (INT-000 in `e`, returns 0).
 * Calling it again returns the same rows. The (count pointers) array is
 * not charged: it is small next to the rows it points to. */
size_t sort_topk_finish(sort_topk *t, const value ***rows, err *e);
/* Frees every kept row and releases the meter. NULL is a no-op. */
void sort_topk_free(sort_topk *t);

/* offset + limit, saturating (the k of a top-k); SIZE_MAX without limit. */
size_t sort_topk_bound(size_t offset, bool has_limit, size_t limit);

/* Streaming :offset / :limit: ask for every upstream row in turn. */
typedef enum sort_limit_step { SORT_SKIP, SORT_EMIT, SORT_STOP } sort_limit_step;

typedef struct sort_limit {
    size_t offset;
    size_t end; /* offset + limit (saturating); SIZE_MAX without limit */
    size_t seen;
} sort_limit;

void sort_limit_init(sort_limit *l, size_t offset, bool has_limit, size_t limit);
/* True when no further row will be emitted (check before pulling). Inline,
 * like sort_limit_next: a streaming cursor asks for every row. */
static inline bool sort_limit_done(const sort_limit *l) {
    return l->seen >= l->end;
}
/* What to do with the next upstream row: skip it (within the offset), emit
 * it, or stop (the limit is reached: this row and all later ones are not
 * wanted, so the upstream need not be read further). */
static inline sort_limit_step sort_limit_next(sort_limit *l) {
    if (sort_limit_done(l))
        return SORT_STOP;
    return l->seen++ < l->offset ? SORT_SKIP : SORT_EMIT;
}

/* For a run of `n` upstream rows met past the offset: how many of them to
 * emit (up to the limit), counted as seen. */
static inline size_t sort_limit_take(sort_limit *l, size_t n) {
    size_t left = l->end - l->seen;
    n = n < left ? n : left;
    l->seen += n;
    return n;
}
static inline bool sort_limit_past_offset(const sort_limit *l) {
    return l->seen >= l->offset;
}

/* For n materialised rows: the count of rows to output, starting at *start. */
size_t sort_limit_slice(size_t n, size_t offset, bool has_limit, size_t limit, size_t *start);

#endif
