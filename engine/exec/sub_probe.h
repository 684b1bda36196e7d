/* A not body that is one stored pattern and then filters, probed for an
 * outer row without its operator pipeline (language.md §8.7).
 *
 * [?e :attr ?v] [(pred ?v ...)] ...: for each outer row the pipeline
 * opened the unit, the join and each filter again and pulled batches of
 * one row through them; here the pattern's records are read straight into
 * one row, and the filters' tests are applied to it in plan order. The
 * rows, their order and what each filter sees are the pipeline's; only
 * the calls between operators are gone. Stored facts only (rule
 * evaluation keeps its operators), index-nested-loop seeks only. */
#ifndef MG_EXEC_SUB_PROBE_H
#define MG_EXEC_SUB_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/op_scan.h"
#include "exec/sub_range.h"

typedef struct sub_probe {
    const plan_item *it; /* the body's pattern; NULL: not this shape */
    size_t step;         /* the pattern's */
    pattern_binding bind;
    /* The entity's only other slot is its INPUT slot: when that holds a
     * Ref of the reader, the seek fixed the entity to it, and the
     * agreement check per record (frame_agrees) is skipped. */
    bool entity_from_input;
    /* The V stretches the filters allow (sub_range.h; NULL: not known):
     * a record is then judged on its identifiers, and the filters run only
     * on one of a stretch that is not exact. Set by sub_set_init, whose
     * shape they need, and kept by the sub_set. */
    const sub_ranges *ranges;
    /* pattern_known's answer for input rows in `known_slots`: pointers
     * that depend on the rows' slot array, the plan and the step only (the
     * constants, the slots set by then), so the same for every probe. */
    const value *known[3];
    const value *known_slots; /* NULL: not worked out yet */
    pattern_scan ps;
    batch row;         /* one row: the pattern's record bound */
    op_select **tests; /* the filters, in plan order */
    size_t test_count;
} sub_probe;

/* Sets s up for body `ps` when it has the shape above (else s->it NULL
 * and nothing is held): 0, or an error (QRY-012, INT-000). */
int sub_probe_init(sub_probe *s, where_ctx *x, const plan_sub *ps, err *e);
/* For the body's input row `in` (its INPUT slots set: op_sub_input): 1
 * with *found whether the body has a solution, or an error code. */
int sub_probe_test(sub_probe *s, where_ctx *x, const frame *in, bool *found, err *e);
/* Whether a record of the body's pattern (its values `vals`) passes the
 * body's filters, for any entity: the record is bound into a row carrying
 * `in` without the entity's agreement with it. 1 with *kept, or an error. */
int sub_probe_record(sub_probe *s, const frame *in, const value vals[3], bool *kept, err *e);
void sub_probe_free(sub_probe *s);

#endif
