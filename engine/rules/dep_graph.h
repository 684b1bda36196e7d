/* The registry's dependency graph between predicates (the graph of
 * stratify.h), kept up to date rule by rule so that a registration asks
 * only "does this rule close a cycle through a negation?" instead of
 * stratifying the whole program again: registering N rules no longer
 * costs N full stratifications. The graph keeps its own copies of the
 * names. */
#ifndef MG_RULES_DEP_GRAPH_H
#define MG_RULES_DEP_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/htab.h"
#include "datalog/ast.h"

typedef struct dep_node {
    const char *name;
    size_t len;
    uint32_t *out; /* edges: target << 1 | negative */
    size_t out_count, out_cap;
} dep_node;

typedef struct dep_graph {
    arena names;
    htab index; /* name -> node */
    dep_node *nodes;
    size_t count, cap;
    size_t negative_edges;
    uint32_t *pending; /* the edges of the rule being checked */
    size_t pending_count, pending_cap;
    uint32_t pending_from;
    uint32_t *stamp, *stack; /* search state, per (node, negated) */
    uint32_t stamp_now;
    size_t state_cap;
} dep_graph;

void dep_graph_init(dep_graph *g);
void dep_graph_free(dep_graph *g);

/* Prepares `rule`'s edges: *cyclic tells whether adding them closes a
 * cycle through a negative edge (searched from the rule's invocations
 * only, so a chain without negation costs nothing). -1: out of memory. */
int dep_graph_prepare(dep_graph *g, const ast_rule *rule, bool *cyclic);
/* Adds the prepared edges (after a registration succeeded). -1: no memory. */
int dep_graph_commit(dep_graph *g);

#endif
