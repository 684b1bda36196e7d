#include "rules/stratify.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "base/htab.h"

/* ---- walking bodies --------------------------------------------------------- */

static void walk_body(const ast_body *b, bool negated, stratify_visit_fn fn, void *ctx);

static void walk_clause(const ast_clause *cl, bool negated, stratify_visit_fn fn, void *ctx) {
    switch (cl->kind) {
    case CL_INVOKE: fn(ctx, cl, negated); break;
    case CL_NOT:
    case CL_NOT_JOIN: walk_body(&cl->as.not_.body, true, fn, ctx); break;
    case CL_OR:
    case CL_OR_JOIN:
        for (size_t i = 0; i < cl->as.or_.branch_count; i++)
            walk_body(&cl->as.or_.branches[i], negated, fn, ctx);
        break;
    case CL_PATTERN:
    case CL_EXPR: break;
    }
}

static void walk_body(const ast_body *b, bool negated, stratify_visit_fn fn, void *ctx) {
    for (size_t i = 0; i < b->count; i++)
        walk_clause(&b->items[i], negated, fn, ctx);
}

void stratify_walk_invocations(const ast_body *body, stratify_visit_fn fn, void *ctx) {
    walk_body(body, false, fn, ctx);
}

/* ---- building the graph ------------------------------------------------------- */

typedef struct builder {
    stratify_program *p;
    size_t pred_cap, edge_cap;
    htab names;
    uint32_t from; /* the head of the rule being walked */
    bool oom;
} builder;

typedef struct name_key {
    const stratify_program *p;
    const char *name;
    size_t len;
} name_key;

static uint64_t name_hash(const char *s, size_t len) {
    return hash_bytes(s, len);
}

static bool name_eq(const void *ctx, uint32_t id) {
    const name_key *k = ctx;
    const stratify_pred *pr = &k->p->preds[id];
    return pr->name_len == k->len && memcmp(pr->name, k->name, k->len) == 0;
}

static uint32_t intern(builder *b, const char *name, size_t len) {
    stratify_program *p = b->p;
    name_key k = {p, name, len};
    uint64_t h = name_hash(name, len);
    uint32_t id = htab_find(&b->names, h, name_eq, &k);
    if (id != HTAB_NONE)
        return id;
    if (!array_reserve(&p->preds, &b->pred_cap, p->pred_count + 1, sizeof *p->preds, 8) ||
        htab_insert(&b->names, h, (uint32_t)p->pred_count) != 0) {
        b->oom = true;
        return STRATIFY_NONE;
    }
    p->preds[p->pred_count] = (stratify_pred){name, len, 0, 0};
    return (uint32_t)p->pred_count++;
}

static void add_edge(void *ctx, const ast_clause *invoke, bool negated) {
    builder *b = ctx;
    uint32_t to = intern(b, invoke->as.invoke.name, invoke->as.invoke.name_len);
    stratify_program *p = b->p;
    if (b->oom || !array_reserve(&p->edges, &b->edge_cap, p->edge_count + 1, sizeof *p->edges, 8)) {
        b->oom = true;
        return;
    }
    p->edges[p->edge_count++] = (stratify_edge){b->from, to, negated};
}

static bool build_graph(builder *b, const ast_rule *const *rules, size_t count) {
    stratify_program *p = b->p;
    p->rule_head = calloc(count ? count : 1, sizeof *p->rule_head);
    if (!p->rule_head)
        return false;
    p->rule_count = count;
    for (size_t i = 0; i < count && !b->oom; i++) {
        b->from = intern(b, rules[i]->name, rules[i]->name_len);
        if (b->oom)
            break;
        p->rule_head[i] = b->from;
        p->preds[b->from].rule_count++;
        stratify_walk_invocations(&rules[i]->body, add_edge, b);
    }
    return !b->oom;
}

/* ---- negative cycles and strata ----------------------------------------------- */

/* Out-edges of each predicate, compressed: targets of `from` are
 * adj[start[from] .. start[from + 1]). */
typedef struct adjacency {
    uint32_t *start, *adj, *stack;
    bool *seen;
} adjacency;

static void adjacency_free(adjacency *g) {
    free(g->start);
    free(g->adj);
    free(g->stack);
    free(g->seen);
}

static bool adjacency_build(const stratify_program *p, adjacency *g) {
    size_t n = p->pred_count;
    g->start = calloc(n + 1, sizeof *g->start);
    g->adj = calloc(p->edge_count + 1, sizeof *g->adj);
    g->stack = calloc(n + 1, sizeof *g->stack);
    g->seen = calloc(n + 1, sizeof *g->seen);
    if (!g->start || !g->adj || !g->stack || !g->seen)
        return false;
    for (size_t i = 0; i < p->edge_count; i++)
        g->start[p->edges[i].from + 1]++;
    for (size_t v = 0; v < n; v++)
        g->start[v + 1] += g->start[v];
    uint32_t *fill = g->stack; /* reused as the per-node fill cursor */
    for (size_t i = 0; i < p->edge_count; i++) {
        uint32_t f = p->edges[i].from;
        g->adj[g->start[f] + fill[f]++] = p->edges[i].to;
    }
    return true;
}

static bool reaches(const stratify_program *p, adjacency *g, uint32_t from, uint32_t to) {
    memset(g->seen, 0, p->pred_count * sizeof *g->seen);
    size_t top = 0;
    g->stack[top++] = from;
    g->seen[from] = true;
    while (top > 0) {
        uint32_t v = g->stack[--top];
        if (v == to)
            return true;
        for (uint32_t i = g->start[v]; i < g->start[v + 1]; i++)
            if (!g->seen[g->adj[i]]) {
                g->seen[g->adj[i]] = true;
                g->stack[top++] = g->adj[i];
            }
    }
    return false;
}

/* Strongly connected components (Tarjan's, iterative), numbered in the
 * order they complete: a component only reaches components completed
 * before it. One visit per predicate and edge. */
typedef struct components {
    uint32_t *comp; /* per predicate */
    uint32_t *index, *low, *stack, *call_v, *call_i;
    bool *on_stack;
    uint32_t count;
} components;

static void components_free(components *c) {
    free(c->comp);
    free(c->index);
    free(c->low);
    free(c->stack);
    free(c->call_v);
    free(c->call_i);
    free(c->on_stack);
}

static void close_component(components *c, uint32_t v, size_t *top) {
    uint32_t w;
    do {
        w = c->stack[--*top];
        c->on_stack[w] = false;
        c->comp[w] = c->count;
    } while (w != v);
    c->count++;
}

static void visit_from(const adjacency *g, components *c, uint32_t root, uint32_t *next) {
    size_t top = 0, depth = 0;
    c->index[root] = c->low[root] = (*next)++;
    c->stack[top++] = root;
    c->on_stack[root] = true;
    c->call_v[depth] = root;
    c->call_i[depth++] = g->start[root];
    while (depth > 0) {
        uint32_t v = c->call_v[depth - 1], i = c->call_i[depth - 1];
        if (i < g->start[v + 1]) {
            c->call_i[depth - 1]++;
            uint32_t w = g->adj[i];
            if (c->index[w] == STRATIFY_NONE) {
                c->index[w] = c->low[w] = (*next)++;
                c->stack[top++] = w;
                c->on_stack[w] = true;
                c->call_v[depth] = w;
                c->call_i[depth++] = g->start[w];
            } else if (c->on_stack[w] && c->index[w] < c->low[v]) {
                c->low[v] = c->index[w];
            }
            continue;
        }
        if (c->low[v] == c->index[v])
            close_component(c, v, &top);
        if (--depth > 0 && c->low[v] < c->low[c->call_v[depth - 1]])
            c->low[c->call_v[depth - 1]] = c->low[v];
    }
}

static bool components_build(const stratify_program *p, const adjacency *g, components *c) {
    size_t n = p->pred_count + 1;
    c->comp = malloc(n * sizeof *c->comp);
    c->index = malloc(n * sizeof *c->index);
    c->low = malloc(n * sizeof *c->low);
    c->stack = malloc(n * sizeof *c->stack);
    c->call_v = malloc(n * sizeof *c->call_v);
    c->call_i = malloc(n * sizeof *c->call_i);
    c->on_stack = calloc(n, sizeof *c->on_stack);
    if (!c->comp || !c->index || !c->low || !c->stack || !c->call_v || !c->call_i || !c->on_stack)
        return false;
    for (size_t v = 0; v < p->pred_count; v++)
        c->index[v] = STRATIFY_NONE;
    uint32_t next = 0;
    for (uint32_t v = 0; v < p->pred_count; v++)
        if (c->index[v] == STRATIFY_NONE)
            visit_from(g, c, v, &next);
    return true;
}

/* The negative edge p -> q whose q reaches p back (the two in one
 * component), searching the rules from the last one; NULL when there is
 * none (the program is stratifiable). */
static const stratify_edge *negative_cycle(const stratify_program *p, const components *c) {
    size_t end = p->edge_count;
    for (size_t r = p->rule_count; r-- > 0;) {
        size_t begin = end;
        while (begin > 0 && p->edges[begin - 1].from == p->rule_head[r])
            begin--;
        for (size_t i = begin; i < end; i++)
            if (p->edges[i].negative && c->comp[p->edges[i].to] == c->comp[p->edges[i].from])
                return &p->edges[i];
        end = begin;
    }
    return NULL;
}

/* Least strata, component by component in completion order (what a
 * component depends on is final before it): one pass over the edges. */
static bool assign_strata(stratify_program *p, const components *c) {
    uint32_t *stratum = calloc(c->count + 1, sizeof *stratum);
    if (!stratum)
        return false;
    /* Edges grouped by their source's component, in completion order. */
    uint32_t *start = calloc(c->count + 2, sizeof *start);
    uint32_t *order = calloc(p->edge_count + 1, sizeof *order);
    if (!start || !order) {
        free(stratum);
        free(start);
        free(order);
        return false;
    }
    for (size_t i = 0; i < p->edge_count; i++)
        start[c->comp[p->edges[i].from] + 2]++;
    for (uint32_t k = 0; k < c->count; k++)
        start[k + 2] += start[k + 1];
    for (size_t i = 0; i < p->edge_count; i++)
        order[start[c->comp[p->edges[i].from] + 1]++] = (uint32_t)i;
    for (uint32_t k = 0; k < c->count; k++)
        for (uint32_t j = start[k]; j < start[k + 1]; j++) {
            const stratify_edge *ed = &p->edges[order[j]];
            uint32_t to = c->comp[ed->to];
            uint32_t need = to == k ? 0 : stratum[to] + (ed->negative ? 1 : 0);
            if (stratum[k] < need)
                stratum[k] = need;
        }
    for (size_t i = 0; i < p->pred_count; i++) {
        p->preds[i].stratum = stratum[c->comp[i]];
        if (p->preds[i].stratum + 1 > p->stratum_count)
            p->stratum_count = p->preds[i].stratum + 1;
    }
    free(stratum);
    free(start);
    free(order);
    return true;
}

static int check_and_assign(stratify_program *p, err *e) {
    adjacency g = {0};
    components c = {0};
    bool ok = adjacency_build(p, &g) && components_build(p, &g, &c);
    const stratify_edge *bad = ok ? negative_cycle(p, &c) : NULL;
    ok = ok && (bad || assign_strata(p, &c));
    adjacency_free(&g);
    components_free(&c);
    if (!ok)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (bad) {
        const stratify_pred *from = &p->preds[bad->from], *to = &p->preds[bad->to];
        return err_set(e, ERR(INT, 54),
                       "unstratifiable: predicate '%.*s' is involved in a negative cycle through "
                       "'%.*s'",
                       (int)from->name_len, from->name, (int)to->name_len, to->name);
    }
    return 0;
}

/* Whether `from` reaches a predicate with rules that is not in `demand`. */
static bool reaches_guarded(const stratify_program *p, adjacency *g, uint32_t from,
                            const bool *demand) {
    for (uint32_t to = 0; to < p->pred_count; to++)
        if (p->preds[to].rule_count > 0 && !demand[to] && reaches(p, g, from, to))
            return true;
    return false;
}

/* Strata of the early predicates: an edge inside a strongly connected
 * component keeps the stratum, any other edge raises it. The number of
 * strata they use. */
static uint32_t component_strata(stratify_program *p, adjacency *g, const bool *early) {
    for (size_t i = 0; i < p->pred_count; i++)
        if (early[i])
            p->preds[i].stratum = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < p->edge_count; i++) {
            const stratify_edge *ed = &p->edges[i];
            if (!early[ed->from])
                continue;
            bool inside = reaches(p, g, ed->to, ed->from);
            uint32_t need = p->preds[ed->to].stratum + (inside ? 0 : 1);
            if (p->preds[ed->from].stratum < need) {
                p->preds[ed->from].stratum = need;
                changed = true;
            }
        }
    }
    uint32_t used = 0;
    for (size_t i = 0; i < p->pred_count; i++)
        if (early[i] && p->preds[i].stratum + 1 > used)
            used = p->preds[i].stratum + 1;
    return used;
}

int stratify_demand_first(stratify_program *p, const bool *demand, err *e) {
    adjacency g = {0};
    bool *early = calloc(p->pred_count + 1, sizeof *early);
    if (!early || !adjacency_build(p, &g)) {
        adjacency_free(&g);
        free(early);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    for (uint32_t i = 0; i < p->pred_count; i++)
        early[i] = demand[i] && p->preds[i].rule_count > 0 && !reaches_guarded(p, &g, i, demand);
    uint32_t below = component_strata(p, &g, early);
    p->stratum_count = 0;
    for (size_t i = 0; i < p->pred_count; i++) {
        if (!early[i] && p->preds[i].rule_count > 0)
            p->preds[i].stratum += below;
        if (p->preds[i].stratum + 1 > p->stratum_count)
            p->stratum_count = p->preds[i].stratum + 1;
    }
    adjacency_free(&g);
    free(early);
    return 0;
}

int stratify_build(const ast_rule *const *rules, size_t count, stratify_program **out, err *e) {
    builder b = {0};
    b.p = calloc(1, sizeof *b.p);
    if (!b.p)
        return err_set(e, ERR(INT, 0), "out of memory");
    htab_init(&b.names);
    bool built = build_graph(&b, rules, count);
    b.p->names = b.names; /* kept for stratify_find; freed with the program */
    int rc = built ? check_and_assign(b.p, e) : err_set(e, ERR(INT, 0), "out of memory");
    if (rc != 0) {
        stratify_free(b.p);
        return rc;
    }
    *out = b.p;
    return 0;
}

void stratify_free(stratify_program *p) {
    if (!p)
        return;
    htab_free(&p->names);
    free(p->preds);
    free(p->rule_head);
    free(p->edges);
    free(p);
}

uint32_t stratify_find(const stratify_program *p, const char *name, size_t len) {
    name_key k = {p, name, len};
    uint32_t id = htab_find(&p->names, name_hash(name, len), name_eq, &k);
    return id == HTAB_NONE ? STRATIFY_NONE : id;
}

/* ---- what a query needs ---------------------------------------------------------- */

typedef struct seed_ctx {
    const stratify_program *p;
    bool *needed;
} seed_ctx;

static void seed(void *ctx, const ast_clause *invoke, bool negated) {
    (void)negated;
    seed_ctx *s = ctx;
    uint32_t id = stratify_find(s->p, invoke->as.invoke.name, invoke->as.invoke.name_len);
    if (id != STRATIFY_NONE)
        s->needed[id] = true;
}

/* Marks what the marked predicates reach (one visit per edge: a chain of
 * N rules costs N steps, not N passes over every edge). */
static bool close_needed(const stratify_program *p, bool *needed) {
    adjacency g = {0};
    if (!adjacency_build(p, &g)) {
        adjacency_free(&g);
        return false;
    }
    size_t top = 0;
    for (uint32_t v = 0; v < p->pred_count; v++)
        if (needed[v])
            g.stack[top++] = v;
    while (top > 0) {
        uint32_t v = g.stack[--top];
        for (uint32_t i = g.start[v]; i < g.start[v + 1]; i++)
            if (!needed[g.adj[i]]) {
                needed[g.adj[i]] = true;
                g.stack[top++] = g.adj[i];
            }
    }
    adjacency_free(&g);
    return true;
}

/* By stratum, then by index: a counting sort over the strata (a program
 * of many strata is not scanned once per stratum). */
static bool order_plan(const stratify_program *p, const bool *needed, stratify_plan *out) {
    size_t strata = p->stratum_count;
    size_t *pred_at = calloc(strata + 1, sizeof *pred_at),
           *rule_at = calloc(strata + 1, sizeof *rule_at);
    if (!pred_at || !rule_at) {
        free(pred_at);
        free(rule_at);
        return false;
    }
    for (size_t i = 0; i < p->pred_count; i++)
        if (needed[i] && p->preds[i].rule_count > 0)
            pred_at[p->preds[i].stratum + 1]++;
    for (size_t r = 0; r < p->rule_count; r++)
        if (needed[p->rule_head[r]])
            rule_at[p->preds[p->rule_head[r]].stratum + 1]++;
    for (size_t s = 0; s < strata; s++) {
        pred_at[s + 1] += pred_at[s];
        rule_at[s + 1] += rule_at[s];
    }
    for (size_t i = 0; i < p->pred_count; i++)
        if (needed[i] && p->preds[i].rule_count > 0)
            out->preds[pred_at[p->preds[i].stratum]++] = (uint32_t)i;
    for (size_t r = 0; r < p->rule_count; r++)
        if (needed[p->rule_head[r]])
            out->rules[rule_at[p->preds[p->rule_head[r]].stratum]++] = (uint32_t)r;
    out->pred_count = strata ? pred_at[strata - 1] : 0;
    out->rule_count = strata ? rule_at[strata - 1] : 0;
    free(pred_at);
    free(rule_at);
    return true;
}

int stratify_plan_query(const stratify_program *p, const ast_body *query, stratify_plan *out,
                        err *e) {
    memset(out, 0, sizeof *out);
    bool *needed = calloc(p->pred_count + 1, sizeof *needed);
    out->preds = calloc(p->pred_count + 1, sizeof *out->preds);
    out->rules = calloc(p->rule_count + 1, sizeof *out->rules);
    if (!needed || !out->preds || !out->rules) {
        free(needed);
        stratify_plan_free(out);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    seed_ctx s = {p, needed};
    stratify_walk_invocations(query, seed, &s);
    bool ok = close_needed(p, needed) && order_plan(p, needed, out);
    free(needed);
    if (!ok) {
        stratify_plan_free(out);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    return 0;
}

void stratify_plan_free(stratify_plan *plan) {
    free(plan->preds);
    free(plan->rules);
    memset(plan, 0, sizeof *plan);
}
