/* The seam between the two halves of query execution:
 *
 *   :where  →  a stream of solutions  →  :find / :with / aggregates /
 *                                        windows / :order-by / :limit
 *
 * A solution binds the query's variables. The :where side numbers the
 * variables it binds (solution_stream.vars, names as written, "?x"); each
 * solution is an array of `var_count` values in that numbering. A variable
 * a solution does not bind (possible only for variables that the :find side
 * must then treat as Null, e.g. language.md §11.2's non-grouping variables) holds
 * a VT_NULL value and its `bound` flag is false.
 *
 * The stream hands out solutions in blocks (solution_block), a batch of
 * the :where pipeline at a time (up to 64 rows), so a consumer loops over
 * a block instead of making an indirect call per row.
 *
 * Values are borrowed: a block stays valid until the next call to next() on
 * the stream (the consumer copies what it keeps, e.g. into a result set or
 * an aggregate's arena). They come decoded, except the variables whose
 * `stored_ok` flag the consumer set before its first next() (those it
 * only needs bound or compares, e.g. the argument of count): a Ref, String
 * or Keyword may stay a stored value (model/value.h), valid while the
 * stream is open. The stream is pulled: a consumer that has enough rows (a :limit without
 * :order-by) simply stops calling next() and closes the stream, so upstream operators stop reading
 * the indexes. */
#ifndef MG_EXEC_SOLUTION_H
#define MG_EXEC_SOLUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "model/value.h"

typedef struct solution_var {
    const char *name; /* "?x" */
    size_t len;
} solution_var;

/* `count` (>= 1) solutions, row i at rows + i * stride, each binding the
 * variables whose `bound` flag is set. `weight` (NULL: every row is one
 * solution; given only to a consumer that set weights_ok): row i stands
 * for weight[i] consecutive solutions that agree with it on every
 * variable the consumer reads, and on whether each variable it marked
 * presence_only is Null. */
typedef struct solution_block {
    const value *rows;
    size_t count, stride;
    const bool *bound;
    const uint64_t *weight;
} solution_block;

static inline const value *solution_row(const solution_block *b, size_t i) {
    return b->rows + i * b->stride;
}

typedef struct solution_stream solution_stream;
struct solution_stream {
    const solution_var *vars;
    size_t var_count;
    bool *stored_ok; /* var_count flags, all false at first; NULL: none */
    /* Set by the consumer before its first next(), like stored_ok: at most
     * this many rows will be read (a :limit); 0, unknown. A hint only. */
    size_t rows_wanted;
    /* Set by the consumer before its first next(), like stored_ok: it
     * takes weighted blocks (solution_block.weight), and of each variable
     * flagged in presence_only (var_count flags, all false at first; NULL:
     * none) it reads at most whether the value is Null (count's argument).
     * The producer may then hand out one row for a run of solutions. */
    bool weights_ok;
    bool *presence_only;
    /* Set with weights_ok: the consumer's answer is the same whatever the
     * order of the solutions (counts and sets; not a float sum, nor a
     * min or max that keeps a leading NaN), so the producer may read them
     * in another order. */
    bool any_order;
    /* Set by the producer when it opens: the solutions come in the language.md D3
     * order of variable `order_var` (descending when `order_desc`), which
     * the query's first :order-by key may use (plan/value_order.h). The
     * producer clears `ordered` before a block whose rows no longer do. */
    bool ordered;
    size_t order_var;
    bool order_desc;
    /* 1: *out holds the next block of solutions (var_count values each);
     * 0: the end; otherwise an error code with `e` set. */
    int (*next)(solution_stream *s, solution_block *out, err *e);
    /* Releases everything; safe after an error or before the end. */
    void (*close)(solution_stream *s);
};

/* The number of variable `name` in the stream, or -1. */
static inline long solution_var_index(const solution_stream *s, const char *name, size_t len) {
    for (size_t i = 0; i < s->var_count; i++)
        if (s->vars[i].len == len && memcmp(s->vars[i].name, name, len) == 0)
            return (long)i;
    return -1;
}

#endif
