/* The :find side of a query (spec 8.11, 8.12, 8.15, 10, 11): turns a
 * stream of solutions into the result rows — plain projection (a bag,
 * decision D1), aggregates grouped by the plain :find variables (+ :with),
 * window functions, :order-by, :offset and :limit — charging every row it
 * holds to the query's memory meter. */
#ifndef MG_EXEC_FINISH_H
#define MG_EXEC_FINISH_H

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/meter.h"
#include "exec/result.h"
#include "exec/solution.h"

/* Consumes (and closes) `in`. Errors: QRY-010 / QRY-011 for unknown
 * aggregate / window functions (before any row is read), the aggregate
 * type errors (INT-041…043), QRY-012 from the meter. */
int finish_query(const ast_query *q, solution_stream *in, meter *m, result_set **out, err *e);

#endif
