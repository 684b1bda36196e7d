/* What plain execution can run. The parser accepts the whole language; a
 * query that needs a prepared statement fails here, before any row is
 * read. (Every construct of the language now runs; this is where one
 * that does not yet would fail with INT-000, docs/errors.md.) */
#ifndef MG_EXEC_SUPPORTED_H
#define MG_EXEC_SUPPORTED_H

#include "base/error.h"
#include "datalog/ast.h"

/* API-010 for a bind slot anywhere (plain execution, language.md D6). */
int exec_check_supported(const ast_query *q, err *e);

#endif
