/* The derived facts a query sees while it uses rules (language.md §9.2 item 2,
 * language.md D13): the relations of its semi-naive evaluation, each under
 * its attribute keyword ":p". Patterns on `:p` read them after the stored
 * `:p` records, variable-attribute patterns read all of them, and the
 * invocation designated by `delta_clause` reads only `delta` (a delta
 * round of seminaive.h).
 *
 * Internal magic predicates (plan/magic.h) are never visible to patterns;
 * only invocations read them. */
#ifndef MG_EXEC_DERIVED_H
#define MG_EXEC_DERIVED_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/htab.h"
#include "datalog/ast.h"
#include "rules/seminaive.h"

typedef struct derived_facts {
    const seminaive *sn;
    value *attrs; /* per relation: Keyword ":p" */
    bool *hidden; /* per relation: a magic predicate */
    size_t count;
    htab index; /* attribute text -> relation: a lookup per pattern, whatever the rule count */
    struct derived_memo *memo; /* the last lookups (derived.c), mutable behind a const d */
    arena mem;
} derived_facts;

int derived_init(derived_facts *d, const seminaive *sn, err *e);
void derived_free(derived_facts *d);

/* The relation read by a pattern whose attribute is `attr` (a Keyword),
 * or -1. `invocation`: a rule invocation, which may read magic relations. */
long derived_find(const derived_facts *d, const value *attr, bool invocation);
/* The rows of relation `i` as bodies see them now. */
relation_view derived_view(const derived_facts *d, size_t i);

#endif
