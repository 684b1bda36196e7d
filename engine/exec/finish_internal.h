/* Shared state of the :find side (finish.c and its finish_*.c helpers).
 *
 * Queries with aggregates or windows materialise "work rows": `width`
 * values each, the output columns first (col_count), then, for a query with
 * windows but no aggregates, the extra slots that hold the window inputs
 * (partition / order / argument variables that are not output columns).
 * Work rows, group keys and every buffer live in the plan's arena and are
 * charged to the meter as they are taken; finish_plan_free gives it all back. */
#ifndef MG_EXEC_FINISH_INTERNAL_H
#define MG_EXEC_FINISH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "exec/aggregate.h"
#include "base/meter.h"
#include "exec/solution.h"
#include "exec/window.h"
#include "host/host_fns.h"

typedef struct finish_col {
    const ast_find *spec;
    long var;            /* stream index of the spec's variable, -1 when none */
    agg_fn agg;          /* FIND_AGGREGATE */
    window_fn win;       /* FIND_WINDOW */
    const host_fn *host; /* AGG_HOST, WINDOW_HOST: held by the query's scope */
    long partition;      /* FIND_WINDOW: work-row slots of the inputs, -1 = Null */
    long order;
    long arg;
} finish_col;

typedef struct finish_plan {
    const ast_query *q;
    solution_stream *in;
    meter *m;
    host_scope *host; /* may be NULL */
    arena mem;
    size_t charged; /* bytes of `mem` charged to the meter */
    finish_col *cols;
    size_t col_count;
    size_t plain_count, agg_count, win_count;
    long *group_vars; /* stream indexes: the plain :find variables, then :with */
    long *agg_vars;   /* stream index of each aggregate's argument (-1: none) */
    size_t group_count;
    /* windows without aggregates: the stream index per work-row slot, -1
     * for a slot that starts Null (a window's own column); extra_vars is
     * its tail, one per extra slot */
    long *work_vars;
    long *extra_vars;
    size_t extra_count;
    size_t width; /* col_count + extra_count */
} finish_plan;

/* A growing array of work rows (pointers into the plan's arena). */
typedef struct finish_rows {
    value **rows;
    size_t count, cap;
} finish_rows;

/* Resolves the specs (QRY-010 / QRY-011 before any row is read), host
 * aggregates through `host` (may be NULL). */
int finish_plan_init(finish_plan *p, const ast_query *q, solution_stream *in, meter *m,
                     host_scope *host, err *e);
/* Frees every held row and releases the meter. */
void finish_plan_free(finish_plan *p);

/* Charges `size` bytes as `op` and takes them from the plan's arena. */
void *finish_alloc(finish_plan *p, size_t size, const char *op, err *e, int *rc);
/* Room for `need` items in `items` (`count` items of `size` bytes, room
 * for *cap): `items` itself, or a charged copy of doubled capacity (from
 * `first`) in the plan's arena. NULL with *rc set on an error. */
void *finish_grow(finish_plan *p, void *items, size_t count, size_t need, size_t *cap, size_t size,
                  size_t first, const char *op, err *e, int *rc);
/* Copies `v` into *dst, string payloads into the plan's arena (a stored
 * value stays one: it lives as long as the input stream). */
int finish_copy_value(finish_plan *p, value *dst, const value *v, const char *op, err *e);
/* Decodes v[0..n) in one pass (value_resolve_all) and copies their texts
 * into the plan's arena: the rows are handed out after the input, which
 * owns the decoded texts, is closed. `types`: a mask (1 << value_type)
 * that holds every type among them (~0u when not known): without String
 * or Keyword, no value is looked at for texts. */
int finish_own_values(finish_plan *p, value *v, size_t n, unsigned types, const char *op, err *e);
/* Appends a work row. */
int finish_rows_push(finish_plan *p, finish_rows *r, value *row, const char *op, err *e);
/* Room for `more` rows pushed without growing. */
int finish_rows_reserve(finish_plan *p, finish_rows *r, size_t more, const char *op, err *e);
/* Pulls the next block of solutions: 1, 0 at the end, or an error code. */
int finish_pull(finish_plan *p, solution_block *b, err *e);
/* True when the solutions bind every plain :find variable (language.md §8.12.1). */
static inline bool finish_has_plain_values(const finish_plan *p, const bool *bound) {
    for (size_t i = 0; i < p->plain_count; i++)
        if (p->group_vars[i] < 0 || !bound[p->group_vars[i]])
            return false;
    return true;
}

/* Aggregation (finish_group.c): one work row per group, window columns
 * Null, the min/max-omitted groups dropped, the empty-input rule of language.md §10.3. */
int finish_group(finish_plan *p, finish_rows *out, err *e);
/* Windows (finish_window.c): fills every window column of the rows. */
int finish_windows(finish_plan *p, finish_rows *rows, err *e);

#endif
