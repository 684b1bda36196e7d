/* A query checked and prepared for the join: variables numbered, each
 * pattern's variable positions resolved, :find mapped to variables. */
#ifndef MG_EXEC_QUERY_PROG_H
#define MG_EXEC_QUERY_PROG_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "plan/order.h"

typedef struct query_var {
    const char *name; /* "?x" */
    size_t len;
    size_t *clauses; /* the clauses holding it, in source order */
    size_t clause_count;
} query_var;

typedef struct query_prog {
    arena mem;
    plan_clause *clauses;
    size_t clause_count;
    query_var *vars;
    size_t var_count;
    size_t *find; /* variable number per :find column */
    size_t find_count;
} query_prog;

/* Errors: API-010 a bind slot; INT-000 a construct this executor does not
 * run yet (exec/supported.h) or a pseudo-attribute; PRS-077 no :where
 * clauses; PRS-080 a :find variable that no pattern binds. */
int query_compile(const ast_query *q, query_prog *p, err *e);
void query_prog_free(query_prog *p);

#endif
