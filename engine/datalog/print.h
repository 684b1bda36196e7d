/* Writes a command back as canonical Datalog: one space between items,
 * query sections in a fixed order (:find :with :where :as-of :valid-at
 * :max-derived-facts :max-results :order-by :limit :offset), timestamps as
 * full ISO instants. Parsing the output gives the same command, and
 * printing that again gives the same text. */
#ifndef MG_DATALOG_PRINT_H
#define MG_DATALOG_PRINT_H

#include "base/buf.h"
#include "datalog/ast.h"

void datalog_print(const command *cmd, buf *out);
/* One :where clause alone, as it appears in datalog_print's output. */
void datalog_print_clause(const ast_clause *cl, buf *out);

#endif
