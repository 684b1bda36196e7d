/* A not body or or-branch read once as a set (language.md §8.6, §8.7).
 *
 * A sub-conjunction that is one stored pattern [?e :attr V] — ?e its only
 * variable from outside, :attr a constant keyword, V a constant, `_` or a
 * variable of its own — has a solution for an outer row iff the row's ?e
 * names an entity with a visible matching record. Seeking that per outer
 * row costs a B-tree descent; reading the pattern's records once (its
 * attribute and value select them) and keeping their entities in a hash
 * set costs a record each. Which is cheaper depends on how many outer rows
 * come, so the choice is made as they do: rows are probed the usual way
 * until the probes have cost about what reading the body would (the
 * planner's estimate of its records, plan/estimate.h), then the set is
 * read and every later row is a hash lookup. A selective probe never reads
 * the body; a large outer side costs at most about twice the cheaper way.
 * When the plan knows how many outer rows to expect (one pattern before
 * the not or or: plan_estimate_rows_at) and probing them would cost more
 * than reading the body, the set is read at the first row instead, with
 * no probe paid first; for a body of a pattern and filters the records of
 * its stretches are then counted from the tree (store_count_value_range),
 * not estimated from branch positions, which at 1M facts put not_probe's
 * 18.5K records at 37K.
 *
 * A pattern followed by filters on its value, [?e :age ?a] [(< ?a 10)],
 * is read the same way over the stretches of AVET the filters allow
 * (exec/sub_range.h): a range of 18.5K records at 1M facts where 1,667
 * probes each cost a seek; an exact stretch is read a visible stretch of
 * identifiers at a time (pattern_scan_next_ids_run).
 *
 * Not used in rule evaluation (derived facts), for bodies of other shapes,
 * or when the set would pass the query's memory limit. */
#ifndef MG_EXEC_SUB_SET_H
#define MG_EXEC_SUB_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/op.h"
#include "exec/sub_probe.h"
#include "exec/sub_range.h"

typedef struct sub_set {
    const plan_item *it; /* the body's pattern; NULL: probe every row */
    /* A pattern followed by filters: its filters (the body's probe) and
     * the V stretches they allow (exec/sub_range.h); NULL: one pattern. */
    sub_probe *filtered;
    sub_ranges ranges;
    size_t probes;          /* rows probed so far */
    size_t estimate;        /* reading the body, in probes (set at the first) */
    size_t records;         /* the body's records, estimated */
    const plan_conj *outer; /* the conjunction the not / or is a step of */
    size_t outer_step;      /* that step: the outer rows are estimated at the first */
    bool built;
    uint64_t *slots; /* open addressing: entity id + 1, 0 empty */
    size_t count, cap;
    size_t charged; /* bytes charged to the query's meter */
} sub_set;

/* Whether `ps` has the shape above, or (`probe` not NULL: the body's
 * probe, sub_probe.h) that of a pattern followed by filters whose only
 * variable from outside is the pattern's entity, the pattern's value a
 * variable of its own: then the set holds the entities of the records
 * the filters keep, read from the AVET stretches they allow. The set is
 * not read yet. `outer`, `step`: the conjunction and step of the not /
 * or, whose rows the plan estimates (plan_estimate_rows_at) at the first
 * row: when probing them all would cost more than reading the body, it
 * is read then. */
void sub_set_init(sub_set *s, const where_ctx *x, const plan_sub *ps, sub_probe *probe,
                  const plan_conj *outer, size_t step);
/* For the outer row `parent` at `step` (`in`: the body's input row for
 * it, op_sub_input, when a probe was given): 1 with *found whether the
 * body has a solution, 0 when the row must be probed the usual way (the
 * set is not worth reading yet, or cannot be), or an error code. */
int sub_set_test(sub_set *s, where_ctx *x, const plan_sub *ps, const frame *parent, size_t step,
                 const frame *in, bool *found, err *e);
void sub_set_free(sub_set *s, meter *m);

#endif
