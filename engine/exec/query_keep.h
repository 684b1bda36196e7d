/* What a prepared query keeps from one run to the next (db/prepared.c):
 * its :where's plan and operators (exec/where.h: where_keep), the :find
 * side over them when it streams, and the memory meter they are charged to, so that a run re-opens
 * them on a new snapshot instead of planning and building again.
 *
 * One run at a time uses it: a run takes it (query_keep_take) and gives
 * it back when its stream closes, possibly on another thread (a cursor is
 * freed wherever the application frees it); a second run while one holds
 * it (two cursors of one statement) runs without it, as a plain query. */
#ifndef MG_EXEC_QUERY_KEEP_H
#define MG_EXEC_QUERY_KEEP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "base/meter.h"
#include "exec/result.h"
#include "exec/solution.h"
#include "store/store.h"

struct query_rules;

typedef struct query_keep {
    atomic_bool busy;
    solution_stream *where;     /* kept, closed between runs; NULL: none */
    meter m;                    /* the meter of the run that holds it */
    struct finish_cursor *rows; /* the :find side over `where`, or NULL */
    size_t baseline;            /* what the kept operators hold charged */
    void *spare;                /* the last run's query_stream memory (query_stream.c) */
    size_t max_bytes;           /* a :where holding more when built is not kept */
    bool fixed;                 /* the parse's constants never change (no slots) */
} query_keep;

/* With no bound on what a kept :where may hold (max_bytes SIZE_MAX),
 * for a parse whose slots may change (fixed false). */
void query_keep_init(query_keep *k);
/* Frees what is kept; no run may hold it. */
void query_keep_free(query_keep *k);
/* Drops the kept :where (the next run plans again); no run may hold it. */
void query_keep_reset(query_keep *k);
/* True when the caller now holds it. */
bool query_keep_take(query_keep *k);
void query_keep_give(query_keep *k);

/* query_check for a run holding `k`: made only when nothing is kept. A
 * kept :where was planned for a query that passed it, and the parse a
 * keep serves changes between runs only in the values of its slots, all
 * bound before a run starts (db/prepared.c refuses a run with a slot
 * unbound), so a query that passed passes again. */
int query_keep_check(const query_keep *k, const ast_query *q, err *e);

/* For a run holding `k`: q's :where on `s`, the kept one re-opened when
 * there is one, else opened anew (where_open) and kept if it can be;
 * charged to k->m (limit `memory_limit`, reset to what the kept operators
 * hold). Errors as where_open's. */
int query_keep_where(query_keep *k, store *s, const ast_query *q, int64_t now_ms,
                     size_t memory_limit, struct query_rules *rules, solution_stream **out, err *e);

/* For a run holding `k`: keeps its :find side, open over the kept :where
 * (exec/finish.h: finish_park / finish_rerun), with all it holds charged
 * to k->m now. */
void query_keep_rows(query_keep *k, struct finish_cursor *rows);

/* query_execute_rules for a run of a kept parse: its :where from `k`
 * when no other run holds it. */
int query_execute_kept(store *s, struct query_rules *rules, const ast_query *q, int64_t now_ms,
                       size_t memory_limit, query_keep *k, result_set **out, err *e);

#endif
