/* What this executor can run. The parser accepts the whole language; a
 * query using a construct the executor does not implement yet fails here,
 * before any row is read, with INT-000 "<construct> is not available in
 * this version of minigraf" (docs/errors.md). */
#ifndef MG_EXEC_SUPPORTED_H
#define MG_EXEC_SUPPORTED_H

#include "base/error.h"
#include "datalog/ast.h"

/* API-010 for a bind slot anywhere (plain execution, decision D6), then
 * INT-000 for the first unsupported construct. */
int exec_check_supported(const ast_query *q, err *e);

#endif
