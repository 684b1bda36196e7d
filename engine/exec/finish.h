/* The :find side of a query (language.md §8.11, §8.12, §8.15, §10, §11): turns a
 * stream of solutions into the result rows — plain projection (a bag,
 * language.md D1), aggregates grouped by the plain :find variables (+ :with),
 * window functions, :order-by, :offset and :limit — charging every row it
 * holds to the query's memory meter. */
#ifndef MG_EXEC_FINISH_H
#define MG_EXEC_FINISH_H

#include <stdbool.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "base/meter.h"
#include "exec/result.h"
#include "exec/solution.h"

/* A cursor over the rows: plain projections without :order-by stream
 * (the cursor keeps `in` open and pulls it row by row, holding one row);
 * everything else is computed when the cursor opens. */
typedef struct finish_cursor finish_cursor;

struct host_scope;

/* Takes `in` (closed on failure too); `q` and `m` must outlive the cursor;
 * `host` (may be NULL) resolves host aggregates (host/host_fns.h) and must
 * outlive whatever is computed at open (a streaming cursor calls none).
 * Errors as finish_query's, for what is computed at open. */
int finish_open(const ast_query *q, solution_stream *in, meter *m, struct host_scope *host,
                finish_cursor **out, err *e);
/* 1 with *row (column-count values, valid until the next call), 0 at the
 * end, or an error code (then the cursor only ends). */
int finish_next(finish_cursor *c, const value **row, err *e);
/* finish_next for up to `max` rows at once, written one after the other
 * into `out` (max * column-count values; texts valid until the next
 * call): the number written, with *rc 0 (fewer than `max` only at the
 * end) or an error code after them (then the cursor only ends). */
size_t finish_next_rows(finish_cursor *c, value *out, size_t max, int *rc, err *e);
/* Reads the rest of a streaming cursor into its result set (the rows held
 * charged as "result", `keep_current`: the row the last finish_next gave
 * first) and closes the input; finish_next then hands out those rows. On
 * error the cursor only ends. A no-op for a cursor that does not stream. */
int finish_detach(finish_cursor *c, bool keep_current, err *e);
/* True while the cursor still reads its input (its snapshot). */
bool finish_streaming(const finish_cursor *c);
/* The column headers (no rows while streaming). */
const result_set *finish_columns(const finish_cursor *c);
void finish_close(finish_cursor *c);

/* Kept between runs (a prepared query, exec/query_keep.h): finish_park
 * closes the input and tells whether the cursor can run again (a
 * streaming one that handed out its rows as they came, none read into
 * memory); finish_rerun then starts it over its input, re-opened by the
 * caller with new values (the cursor's :find and :limit stay). */
bool finish_park(finish_cursor *c);
void finish_rerun(finish_cursor *c);

/* The whole answer as one result set, held rows charged as "result".
 * Consumes (and closes) `in`. Errors: QRY-010 / QRY-011 for unknown
 * aggregate / window functions (neither built in nor registered in
 * `host`; before any row is read), the aggregate type errors
 * (INT-041…043), a host aggregate's failure (its callbacks' code), QRY-012
 * from the meter. */
int finish_query(const ast_query *q, solution_stream *in, meter *m, struct host_scope *host,
                 result_set **out, err *e);

#endif
