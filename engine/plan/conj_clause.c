/* Compiling the leaf clauses of a conjunction: patterns, pseudo-attribute
 * patterns (language.md §8.9, D16) and expression clauses (language.md §8.5). */
#include <string.h>

#include "host/host_fns.h"
#include "plan/conj_build.h"

static const struct {
    const char *name;
    pseudo_kind kind;
} pseudo_names[] = {
    {":db/valid-from", PSEUDO_VALID_FROM}, {":db/valid-to", PSEUDO_VALID_TO},
    {":db/tx-count", PSEUDO_TX_COUNT},     {":db/tx-id", PSEUDO_TX_ID},
    {":db/valid-at", PSEUDO_VALID_AT},
};

static pseudo_kind pseudo_of(const term *t) {
    if (t->kind != TERM_CONST || t->constant.type != VT_KEYWORD)
        return PSEUDO_NONE;
    for (size_t i = 0; i < sizeof pseudo_names / sizeof *pseudo_names; i++) {
        size_t n = strlen(pseudo_names[i].name);
        if (t->constant.as.str.len == n &&
            memcmp(t->constant.as.str.ptr, pseudo_names[i].name, n) == 0)
            return pseudo_names[i].kind;
    }
    return PSEUDO_NONE;
}

static bool same_entity_term(const term *x, const term *y) {
    if (conj_is_binding_var(x) && conj_is_binding_var(y))
        return x->name_len == y->name_len && memcmp(x->name, y->name, x->name_len) == 0;
    return x->kind == TERM_CONST && y->kind == TERM_CONST &&
           value_identical(&x->constant, &y->constant);
}

/* language.md D16: the nearest real-attribute pattern before `index` in source order
 * on the same entity term, or -1. */
static int correlated_pattern(const plan_conj *c, size_t index) {
    const term *e = &c->items[index].clause->as.pattern.e;
    for (size_t i = index; i-- > 0;) {
        const plan_item *it = &c->items[i];
        if (it->kind == PK_PATTERN && it->clause->kind == CL_PATTERN &&
            same_entity_term(&it->clause->as.pattern.e, e))
            return (int)i;
    }
    return -1;
}

static int pseudo_setup(conj_build *b, plan_item *it, size_t index) {
    it->pseudo = pseudo_of(&it->clause->as.pattern.a);
    if (it->pseudo == PSEUDO_NONE)
        return 0;
    it->kind = PK_PSEUDO;
    if (it->pseudo != PSEUDO_VALID_AT && !b->any_valid_time)
        return err_set(b->e, ERR(QRY, 13),
                       "temporal pseudo-attributes :db/valid-from, :db/valid-to, :db/tx-count, and "
                       ":db/tx-id require :any-valid-time; add :any-valid-time to your query");
    if (it->pseudo != PSEUDO_VALID_AT)
        it->correlate = correlated_pattern(b->c, index);
    return 0;
}

/* The slots of a pattern's (or invocation's) variable positions. */
static int pattern_slots(conj_build *b, plan_item *it, size_t index) {
    for (int pos = 0; pos < 3; pos++) {
        const term *t = plan_pattern_term(it->pc.pattern, pos);
        it->pc.var[pos] = -1;
        /* A correlated pseudo pattern reads its entity's record from the
         * real pattern: it holds no entity occurrence of its own. */
        if (!conj_is_binding_var(t) || (pos == 0 && it->correlate >= 0))
            continue;
        int v = conj_var_ref(b, t);
        if (v < 0)
            return err_set(b->e, ERR(INT, 0), "out of memory");
        it->pc.var[pos] = v;
        for (int prev = 0; prev < pos && it->slot[pos] < 0; prev++)
            if (it->pc.var[prev] == v)
                it->slot[pos] = it->slot[prev];
        if (it->slot[pos] < 0 &&
            (it->slot[pos] = conj_new_slot(b, v, (int)index, SLOT_PATTERN)) < 0)
            return err_set(b->e, ERR(INT, 0), "out of memory");
    }
    return 0;
}

int conj_compile_pattern(conj_build *b, plan_item *it, size_t index) {
    it->kind = PK_PATTERN;
    it->pc.pattern = &it->clause->as.pattern;
    int rc = pseudo_setup(b, it, index);
    return rc != 0 ? rc : pattern_slots(b, it, index);
}

/* (p X Y) is the pattern [X :p Y] and (p X) is [X :p _] (language.md §9.2); the
 * scan adds the derived facts of p to the stored ones. */
int conj_compile_invoke(conj_build *b, plan_item *it, size_t index) {
    const ast_clause *cl = it->clause;
    size_t argc = cl->as.invoke.argc;
    if (argc < 1 || argc > 2)
        return err_set(b->e, ERR(INT, 28),
                       "Rule invocation '%.*s' must have 1 or 2 arguments, got %zu",
                       (int)cl->as.invoke.name_len, cl->as.invoke.name, argc);
    ast_pattern *p = arena_calloc(b->a, 1, sizeof *p);
    char *attr = arena_alloc(b->a, cl->as.invoke.name_len + 1);
    if (!p || !attr)
        return err_set(b->e, ERR(INT, 0), "out of memory");
    attr[0] = ':';
    memcpy(attr + 1, cl->as.invoke.name, cl->as.invoke.name_len);
    p->e = cl->as.invoke.args[0];
    p->a = (term){.kind = TERM_CONST, .constant = value_keyword(attr, cl->as.invoke.name_len + 1)};
    p->v = argc == 2 ? cl->as.invoke.args[1]
                     : (term){.kind = TERM_WILDCARD, .name = "_", .name_len = 1};
    it->kind = PK_INVOKE;
    it->pc.pattern = p;
    return pattern_slots(b, it, index);
}

static int expr_needs(conj_build *b, plan_item *it, const ast_expr *x, size_t *cap) {
    if (x->kind == EXPR_TERM) {
        if (!conj_is_binding_var(&x->arg))
            return 0;
        int v = conj_var_ref(b, &x->arg);
        return v < 0 ? -1 : conj_add_need(b, it, v, cap);
    }
    for (size_t i = 0; i < x->argc; i++)
        if (expr_needs(b, it, &x->args[i], cap) != 0)
            return -1;
    return 0;
}

/* language.md §8.5.5: a host predicate that is not registered, at the root of a clause
 * outside a not body, is a query error found before any row is read. The
 * query's scope keeps the answer, so the filter that calls the predicate
 * (exec/op_filter.c) sees the same registration. */
static int check_host_root(conj_build *b, const ast_expr *x) {
    if (b->scope == SCOPE_NOT || x->kind != EXPR_CALL || x->op != OP_HOST)
        return 0;
    const host_fn *f;
    int rc = host_scope_find(b->hint ? b->hint->host : NULL, HOST_PREDICATE, x->name, x->name_len,
                             &f, b->e);
    if (rc || f)
        return rc;
    return err_set(b->e, ERR(QRY, 7), "unknown predicate: '%.*s'", (int)x->name_len, x->name);
}

int conj_compile_expr(conj_build *b, plan_item *it, size_t index) {
    const ast_expr_clause *x = &it->clause->as.expr;
    it->kind = PK_EXPR;
    int rc = check_host_root(b, &x->expr);
    if (rc != 0)
        return rc;
    size_t cap = 0;
    if (expr_needs(b, it, &x->expr, &cap) != 0)
        return err_set(b->e, ERR(INT, 0), "out of memory");
    if (!x->has_out || !conj_is_binding_var(&x->out))
        return 0;
    int v = conj_var_ref(b, &x->out);
    if (v < 0 || (it->slot[0] = conj_new_slot(b, v, (int)index, SLOT_EXPR)) < 0)
        return err_set(b->e, ERR(INT, 0), "out of memory");
    return 0;
}
