#ifndef MG_EXEC_QUERY_H
#define MG_EXEC_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/result.h"
#include "store/store.h"

/* Evaluates `q` over the facts of `s` visible per spec 7.4, with `now_ms`
 * as the default valid-time point, on one snapshot of the store. Returns 0 and a new result set, or the
 * error code with `e` set. */
int query_execute(store *s, const ast_query *q, int64_t now_ms,
                  result_set **out, err *e);
/* The same under a per-query memory limit in bytes (0 = unlimited): a query
 * holding more fails with QRY-012 naming the operator (spec 8.14, D8). */
int query_execute_limited(store *s, const ast_query *q, int64_t now_ms, size_t memory_limit,
                          result_set **out, err *e);

#endif
