/* The binding and safety checks of language.md §8.10.2 (and language.md §9.1 for rule bodies).
 *
 * One walk over the clauses in source order keeps the set of bound
 * variables; nested scopes (not bodies, or branches) bind into the same set
 * and are rolled back through an undo log when they end. At the end of a
 * conjunction the set holds everything it binds, which is what the
 * order-free checks (not-join, :find, :with, aggregates) need. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "datalog/parse_internal.h"

#define CHK_LINEAR_MAX 16 /* up to this many variables, look names up linearly */

typedef struct chk {
    parse_ctx *c;
    const term **vars; /* by id */
    uint8_t *bound;    /* by id */
    size_t nvars, cap;
    htab index;    /* name → id once there are more than CHK_LINEAR_MAX */
    uint32_t *log; /* ids bound, in order, for rolling back scopes */
    size_t log_n, log_cap;
    const term *extra; /* rule head arguments: bound for not-join */
    size_t extra_n;
} chk;

static int chk_fail(chk *k, int code, const ast_clause *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int chk_fail(chk *k, int code, const ast_clause *at, const char *fmt, ...) {
    const uint32_t place[2] = {at ? at->line : 0, at ? at->column : 0};
    va_list ap;
    va_start(ap, fmt);
    int rc = parse_fail_va(k->c, code, at ? place : NULL, fmt, ap);
    va_end(ap);
    return rc;
}

static bool chk_is_var(const term *t) {
    return t->kind == TERM_VAR && !(t->name_len >= 2 && t->name[1] == '_');
}

static bool chk_same_name(const term *a, const term *b) {
    return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
}

static uint64_t chk_hash(const term *t) {
    return hash_bytes(t->name, t->name_len);
}

typedef struct chk_probe {
    const chk *k;
    const term *t;
} chk_probe;

static bool chk_eq(const void *ctx, uint32_t id) {
    const chk_probe *p = ctx;
    return chk_same_name(p->k->vars[id], p->t);
}

/* Room for one more variable in the two arrays, which share a capacity. */
static bool chk_grow(chk *k) {
    size_t cap = k->cap, bound_cap = k->cap, need = k->nvars + 1;
    const term **vars = arena_grow_array(k->c->a, k->vars, k->nvars, &cap, need, sizeof *vars, 16);
    uint8_t *bound = arena_grow_array(k->c->a, k->bound, k->nvars, &bound_cap, need, 1, 16);
    if (!vars || !bound)
        return false;
    k->vars = vars, k->bound = bound, k->cap = cap;
    return true;
}

static uint32_t chk_lookup(const chk *k, const term *t) {
    if (k->nvars <= CHK_LINEAR_MAX) {
        for (size_t i = 0; i < k->nvars; i++)
            if (chk_same_name(k->vars[i], t))
                return (uint32_t)i;
        return HTAB_NONE;
    }
    chk_probe p = {k, t};
    return htab_find(&k->index, chk_hash(t), chk_eq, &p);
}

/* The id of a variable, numbering it on first sight; HTAB_NONE: no memory. */
static uint32_t chk_id(chk *k, const term *t) {
    uint32_t id = chk_lookup(k, t);
    if (id != HTAB_NONE)
        return id;
    if (k->nvars == k->cap && !chk_grow(k))
        return HTAB_NONE;
    id = (uint32_t)k->nvars;
    k->vars[k->nvars++] = t;
    if (k->nvars == CHK_LINEAR_MAX + 1) {
        for (uint32_t i = 0; i < k->nvars; i++)
            if (htab_insert(&k->index, chk_hash(k->vars[i]), i))
                return HTAB_NONE;
    } else if (k->nvars > CHK_LINEAR_MAX && htab_insert(&k->index, chk_hash(t), id)) {
        return HTAB_NONE;
    }
    return id;
}

static int chk_bind(chk *k, const term *t) {
    if (!chk_is_var(t))
        return 0;
    uint32_t id = chk_id(k, t);
    if (id == HTAB_NONE)
        return parse_oom(k->c);
    if (k->bound[id])
        return 0;
    uint32_t *log = arena_grow_array(k->c->a, k->log, k->log_n, &k->log_cap, k->log_n + 1,
                                     sizeof *log, 32);
    if (!log)
        return parse_oom(k->c);
    k->log = log;
    k->bound[id] = 1;
    k->log[k->log_n++] = id;
    return 0;
}

static bool chk_bound(const chk *k, const term *t) {
    uint32_t id = chk_lookup(k, t);
    return id != HTAB_NONE && k->bound[id];
}

static void chk_unwind(chk *k, size_t mark) {
    while (k->log_n > mark)
        k->bound[k->log[--k->log_n]] = 0;
}

static int chk_conj(chk *k, const ast_body *b);

/* ---- expressions ------------------------------------------------------------ */

static int chk_expr(chk *k, const ast_expr *x, const ast_clause *at) {
    if (x->kind == EXPR_TERM) {
        if (x->arg.kind == TERM_VAR && !chk_bound(k, &x->arg))
            return chk_fail(k, PARSE_UNBOUND, at,
                            "variable %s in expression clause is not bound by any earlier clause",
                            x->arg.name);
        return 0;
    }
    for (size_t i = 0; i < x->argc; i++) {
        int rc = chk_expr(k, &x->args[i], at);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- or / or-join ------------------------------------------------------------ */

static int chk_u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted ids bound since `mark`. */
static uint32_t *chk_new_vars(chk *k, size_t mark, size_t *n) {
    *n = k->log_n - mark;
    uint32_t *ids = arena_alloc(k->c->a, (*n ? *n : 1) * sizeof *ids);
    if (!ids)
        return NULL;
    if (*n)
        memcpy(ids, k->log + mark, *n * sizeof *ids);
    qsort(ids, *n, sizeof *ids, chk_u32_cmp);
    return ids;
}

/* Every branch must bind the same new variables; afterwards they are bound. */
static int chk_or(chk *k, const ast_clause *cl) {
    size_t mark = k->log_n, first_n = 0;
    uint32_t *first = NULL;
    for (size_t i = 0; i < cl->as.or_.branch_count; i++) {
        int rc = chk_conj(k, &cl->as.or_.branches[i]);
        if (rc)
            return rc;
        size_t n;
        uint32_t *ids = chk_new_vars(k, mark, &n);
        if (!ids)
            return parse_oom(k->c);
        chk_unwind(k, mark);
        if (i == 0)
            first = ids, first_n = n;
        else if (n != first_n || (n && memcmp(ids, first, n * sizeof *ids) != 0))
            return chk_fail(
                k, ERR(PRS, 57), cl,
                "all branches of (or ...) must introduce the same set of new variables");
    }
    for (size_t i = 0; i < first_n; i++) {
        int rc = chk_bind(k, k->vars[first[i]]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Join variables bound earlier; branch variables stay private. */
static int chk_or_join(chk *k, const ast_clause *cl) {
    for (size_t i = 0; i < cl->as.or_.var_count; i++) {
        const term *v = &cl->as.or_.vars[i];
        if (chk_is_var(v) && !chk_bound(k, v))
            return chk_fail(k, PARSE_UNBOUND, cl,
                            "join variable %s in (or-join ...) is not bound by any earlier clause",
                            v->name);
    }
    size_t mark = k->log_n;
    for (size_t i = 0; i < cl->as.or_.branch_count; i++) {
        int rc = chk_conj(k, &cl->as.or_.branches[i]);
        chk_unwind(k, mark);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- clauses and conjunctions ------------------------------------------------ */

static int chk_scoped(chk *k, const ast_clause *cl) {
    size_t mark = k->log_n;
    int rc = 0;
    for (size_t i = 0; i < cl->as.not_.var_count && !rc; i++)
        rc = chk_bind(k, &cl->as.not_.vars[i]);
    if (!rc)
        rc = chk_conj(k, &cl->as.not_.body);
    chk_unwind(k, mark);
    return rc;
}

static int chk_clause(chk *k, const ast_clause *cl) {
    int rc = 0;
    switch (cl->kind) {
    case CL_PATTERN:
        rc = chk_bind(k, &cl->as.pattern.e);
        if (!rc)
            rc = chk_bind(k, &cl->as.pattern.a);
        return rc ? rc : chk_bind(k, &cl->as.pattern.v);
    case CL_INVOKE:
        for (size_t i = 0; i < cl->as.invoke.argc && !rc; i++)
            rc = chk_bind(k, &cl->as.invoke.args[i]);
        return rc;
    case CL_EXPR:
        rc = chk_expr(k, &cl->as.expr.expr, cl);
        return rc || !cl->as.expr.has_out ? rc : chk_bind(k, &cl->as.expr.out);
    case CL_NOT:
    case CL_NOT_JOIN: return chk_scoped(k, cl);
    case CL_OR: return chk_or(k, cl);
    case CL_OR_JOIN: return chk_or_join(k, cl);
    }
    return 0;
}

static bool chk_is_extra(const chk *k, const term *v) {
    for (size_t i = 0; i < k->extra_n; i++)
        if (k->extra[i].kind == TERM_VAR && chk_same_name(&k->extra[i], v))
            return true;
    return false;
}

/* not-join join variables: bound anywhere in the enclosing conjunction. */
static int chk_not_joins(chk *k, const ast_body *b) {
    for (size_t i = 0; i < b->count; i++) {
        const ast_clause *cl = &b->items[i];
        if (cl->kind != CL_NOT_JOIN)
            continue;
        for (size_t j = 0; j < cl->as.not_.var_count; j++) {
            const term *v = &cl->as.not_.vars[j];
            if (chk_is_var(v) && !chk_bound(k, v) && !chk_is_extra(k, v))
                return chk_fail(
                    k, PARSE_UNBOUND, cl,
                    "join variable %s in (not-join ...) is not bound by any outer clause", v->name);
        }
    }
    return 0;
}

static int chk_conj(chk *k, const ast_body *b) {
    for (size_t i = 0; i < b->count; i++) {
        int rc = chk_clause(k, &b->items[i]);
        if (rc)
            return rc;
    }
    return chk_not_joins(k, b);
}

/* ---- queries and rules ----------------------------------------------------------- */

static int chk_find_specs(chk *k, const ast_query *q) {
    for (size_t i = 0; i < q->spec_count; i++) {
        const ast_find *f = &q->specs[i];
        if (f->kind == FIND_AGGREGATE && !chk_bound(k, &f->var))
            return chk_fail(k, ERR(PRS, 23), NULL, "Aggregate variable %s not bound in :where",
                            f->var.name);
        const term *need[3] = {f->has_var ? &f->var : NULL,
                               f->kind == FIND_WINDOW && f->has_partition ? &f->partition_by : NULL,
                               f->kind == FIND_WINDOW ? &f->order_by : NULL};
        for (int j = 0; j < 3; j++)
            if (need[j] && !chk_bound(k, need[j]))
                return chk_fail(k, ERR(PRS, 80), NULL,
                                "variable %s in :find is not bound by any :where clause",
                                need[j]->name);
    }
    for (size_t i = 0; i < q->with_count; i++)
        if (!chk_bound(k, &q->with[i]))
            return chk_fail(k, ERR(PRS, 22), NULL, "':with' variable %s not bound in :where",
                            q->with[i].name);
    return 0;
}

static int chk_order_by(chk *k, const ast_query *q) {
    for (size_t i = 0; i < q->order_count; i++) {
        bool found = false;
        for (size_t j = 0; j < q->find_count && !found; j++)
            found = chk_same_name(&q->find[j], &q->order_by[i].var);
        if (!found)
            return chk_fail(k, PARSE_LIMITS, NULL,
                            ":order-by variable %s is not a plain :find variable",
                            q->order_by[i].var.name);
    }
    return 0;
}

static int chk_query(chk *k, const ast_query *q) {
    bool has_aggregate = false;
    for (size_t i = 0; i < q->spec_count; i++)
        has_aggregate |= q->specs[i].kind == FIND_AGGREGATE;
    if (q->with_count && !has_aggregate)
        return chk_fail(k, ERR(PRS, 21), NULL,
                        "':with' clause requires at least one aggregate in :find");
    if (q->body.count) { /* without :where the executor reports that instead */
        int rc = chk_conj(k, &q->body);
        if (!rc)
            rc = chk_find_specs(k, q);
        if (rc)
            return rc;
    }
    return chk_order_by(k, q);
}

int parse_check_query(parse_ctx *c, const ast_query *q) {
    chk k = {.c = c};
    htab_init(&k.index);
    int rc = chk_query(&k, q);
    htab_free(&k.index);
    return rc;
}

static int chk_rule(chk *k, const ast_rule *r) {
    int rc = chk_conj(k, &r->body);
    for (size_t i = 0; i < r->argc && !rc; i++)
        if (chk_is_var(&r->args[i]) && !chk_bound(k, &r->args[i]))
            rc = chk_fail(k, PARSE_UNBOUND, NULL,
                          "rule head variable %s is not bound by the rule body", r->args[i].name);
    return rc;
}

int parse_check_rule(parse_ctx *c, const ast_rule *r) {
    chk k = {.c = c, .extra = r->args, .extra_n = r->argc};
    htab_init(&k.index);
    int rc = chk_rule(&k, r);
    htab_free(&k.index);
    return rc;
}
