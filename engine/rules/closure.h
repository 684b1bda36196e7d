/* Linear transitive closures, evaluated on the ids of a derived relation.
 *
 * A stratum whose only rules are
 *
 *   (rule [(p ?x ?y) [?x :a ?y]])
 *   (rule [(p ?x ?y) [?x :a ?m] (p ?m ?y)])     (the two clauses in any order)
 *
 * with :a a stored attribute (no relation of the evaluation is named a)
 * derives p as the closure of the edges [?x :a ?y]. Its round 0 is
 * evaluated as any other: the first rule puts every edge into p, in rows
 * [0, edges), and the second reads the empty p. In every later round the
 * second rule's solutions with the delta at (p ?m ?y) are exactly: for
 * each delta row (m', y) and each edge row (x, m) whose value m is E2-equal
 * to the entity m', the fact (x, y), as the pattern [?x :a ?m] reads the
 * same stored facts as the first rule's body, under the same view.
 * closure_edges indexes the edge rows by the entity their value names, so
 * a round joins ids only: no body's operators, no store seek and no UUID
 * or value hashed per delta row. */
#ifndef MG_RULES_CLOSURE_H
#define MG_RULES_CLOSURE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/meter.h"
#include "datalog/ast.h"
#include "rules/relation.h"

/* Whether rules `a` and `b` (either order) are the two rules above for
 * one predicate; `*attr` gets the attribute keyword of their patterns. */
bool closure_match(const ast_rule *a, const ast_rule *b, const value **attr);

/* The edge rows [0, edges) of a relation, grouped by the entity of the
 * relation that their value names: the sources of entity i are
 * source[start[i] .. start[i + 1]), entity ids. */
typedef struct closure_edges {
    uint32_t *start;
    uint32_t *source;
    uint32_t entity_count;
    meter *m;
    size_t charged;
} closure_edges;

/* Builds `c` over r's rows [0, edges) and r's entities so far (a closure
 * adds no entity: every fact's entity is an edge's). Its memory is charged
 * to `m` (may be NULL). Fails with QRY-012 or INT-000. */
int closure_edges_build(closure_edges *c, const relation *r, uint32_t edges, meter *m, err *e);
void closure_edges_free(closure_edges *c);

#endif
