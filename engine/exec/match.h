/* Matching one record against the constant terms of a pattern (language.md §8.3.2). */
#ifndef MG_EXEC_MATCH_H
#define MG_EXEC_MATCH_H

#include <stdbool.h>

#include "datalog/ast.h"
#include "model/fact.h"

/* Whether term `t` can accept `v` as far as constants go: a constant by E4,
 * TERM_NEVER never, variables and wildcards always (joins decide those). */
bool match_term(const term *t, const value *v);

#endif
