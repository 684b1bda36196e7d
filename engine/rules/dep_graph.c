#include "rules/dep_graph.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "rules/stratify.h"

void dep_graph_init(dep_graph *g) {
    memset(g, 0, sizeof *g);
    arena_init(&g->names);
    htab_init(&g->index);
}

void dep_graph_free(dep_graph *g) {
    for (size_t i = 0; i < g->count; i++)
        free(g->nodes[i].out);
    free(g->nodes);
    free(g->pending);
    free(g->stamp);
    free(g->stack);
    htab_free(&g->index);
    arena_free(&g->names);
    memset(g, 0, sizeof *g);
}

static uint64_t name_hash(const char *s, size_t len) {
    return hash_bytes(s, len);
}

typedef struct name_key {
    const dep_graph *g;
    const char *name;
    size_t len;
} name_key;

static bool name_eq(const void *ctx, uint32_t id) {
    const name_key *k = ctx;
    const dep_node *n = &k->g->nodes[id];
    return n->len == k->len && memcmp(n->name, k->name, k->len) == 0;
}

/* The node of a name, added when new; UINT32_MAX when out of memory. */
static uint32_t intern(dep_graph *g, const char *name, size_t len) {
    name_key k = {g, name, len};
    uint64_t h = name_hash(name, len);
    uint32_t id = htab_find(&g->index, h, name_eq, &k);
    if (id != HTAB_NONE)
        return id;
    char *copy = arena_strndup(&g->names, name, len);
    if (!copy || !array_reserve(&g->nodes, &g->cap, g->count + 1, sizeof *g->nodes, 16) ||
        htab_insert(&g->index, h, (uint32_t)g->count) != 0)
        return UINT32_MAX;
    g->nodes[g->count] = (dep_node){copy, len, NULL, 0, 0};
    return (uint32_t)g->count++;
}

typedef struct collect {
    dep_graph *g;
    bool oom, negative;
} collect;

static void collect_edge(void *ctx, const ast_clause *invoke, bool negated) {
    collect *c = ctx;
    dep_graph *g = c->g;
    uint32_t to = c->oom ? UINT32_MAX
                         : intern(g, invoke->as.invoke.name, invoke->as.invoke.name_len);
    if (to == UINT32_MAX ||
        !array_reserve(&g->pending, &g->pending_cap, g->pending_count + 1, sizeof *g->pending, 8)) {
        c->oom = true;
        return;
    }
    g->pending[g->pending_count++] = to << 1 | (negated ? 1u : 0u);
    c->negative = c->negative || negated;
}

static bool reserve_states(dep_graph *g) {
    size_t need = 2 * g->count + 2;
    if (need <= g->state_cap)
        return true;
    uint32_t *stamp = calloc(need, sizeof *stamp), *stack = malloc(need * sizeof *stack);
    if (!stamp || !stack) {
        free(stamp);
        free(stack);
        return false;
    }
    free(g->stamp);
    free(g->stack);
    g->stamp = stamp;
    g->stack = stack;
    g->state_cap = need;
    g->stamp_now = 0;
    return true;
}

/* Pushes state `s` (node << 1 | negation seen) unless visited. */
static void push(dep_graph *g, size_t *top, uint32_t s) {
    if (g->stamp[s] == g->stamp_now)
        return;
    g->stamp[s] = g->stamp_now;
    g->stack[(*top)++] = s;
}

static void push_edges(dep_graph *g, size_t *top, const uint32_t *out, size_t n, uint32_t neg) {
    for (size_t i = 0; i < n; i++)
        push(g, top, (out[i] & ~1u) | neg | (out[i] & 1u));
}

/* Whether the head is reached again, through a negative edge, from the
 * prepared edges (each state visited once: linear in the graph). */
static bool closes_negative_cycle(dep_graph *g) {
    if (++g->stamp_now == 0) { /* wrapped: forget every stamp */
        memset(g->stamp, 0, g->state_cap * sizeof *g->stamp);
        g->stamp_now = 1;
    }
    size_t top = 0;
    uint32_t head = g->pending_from;
    push_edges(g, &top, g->pending, g->pending_count, 0);
    while (top > 0) {
        uint32_t s = g->stack[--top], v = s >> 1, neg = s & 1u;
        if (v == head && neg)
            return true;
        const dep_node *n = &g->nodes[v];
        push_edges(g, &top, n->out, n->out_count, neg);
        if (v == head)
            push_edges(g, &top, g->pending, g->pending_count, neg);
    }
    return false;
}

int dep_graph_prepare(dep_graph *g, const ast_rule *rule, bool *cyclic) {
    g->pending_count = 0;
    *cyclic = false;
    g->pending_from = intern(g, rule->name, rule->name_len);
    if (g->pending_from == UINT32_MAX)
        return -1;
    collect c = {g, false, false};
    stratify_walk_invocations(&rule->body, collect_edge, &c);
    if (c.oom || !reserve_states(g))
        return -1;
    if (g->negative_edges == 0 && !c.negative)
        return 0; /* no negation anywhere: no negative cycle */
    *cyclic = closes_negative_cycle(g);
    return 0;
}

int dep_graph_commit(dep_graph *g) {
    dep_node *n = &g->nodes[g->pending_from];
    if (!array_reserve(&n->out, &n->out_cap, n->out_count + g->pending_count, sizeof *n->out, 4))
        return -1;
    for (size_t i = 0; i < g->pending_count; i++) {
        n->out[n->out_count++] = g->pending[i];
        g->negative_edges += g->pending[i] & 1u;
    }
    g->pending_count = 0;
    return 0;
}
