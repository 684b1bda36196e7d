/* The magic-set rewrite of a bound rule call (see magic.h). */
#include "plan/magic.h"

#include <string.h>

bool magic_is_magic_name(const char *name, size_t len) {
    size_t n = sizeof MAGIC_PREFIX - 1;
    return len >= n && memcmp(name, MAGIC_PREFIX, n) == 0;
}

typedef struct rewrite {
    const ast_rule *const *rules;
    size_t count;
    bool *closure; /* per rule: its head is a predicate the call needs */
    arena *a;
} rewrite;

static bool same_name(const char *a, size_t al, const char *b, size_t bl) {
    return al == bl && memcmp(a, b, al) == 0;
}

static bool has_rules(const rewrite *rw, const char *name, size_t len) {
    for (size_t i = 0; i < rw->count; i++)
        if (same_name(rw->rules[i]->name, rw->rules[i]->name_len, name, len))
            return true;
    return false;
}

/* Marks the rules of `name` and, transitively, of what they invoke. */
static void mark_closure(rewrite *rw, const char *name, size_t len) {
    for (size_t i = 0; i < rw->count; i++) {
        const ast_rule *r = rw->rules[i];
        if (rw->closure[i] || !same_name(r->name, r->name_len, name, len))
            continue;
        rw->closure[i] = true;
        for (size_t k = 0; k < r->body.count; k++)
            if (r->body.items[k].kind == CL_INVOKE)
                mark_closure(rw, r->body.items[k].as.invoke.name,
                             r->body.items[k].as.invoke.name_len);
    }
}

/* A pattern whose attribute is a variable, or names a predicate of the
 * closure, would observe the partial relations. */
static bool pattern_observes(const rewrite *rw, const ast_pattern *p) {
    if (p->a.kind != TERM_CONST)
        return p->a.kind != TERM_NEVER;
    const value *a = &p->a.constant;
    if (a->type != VT_KEYWORD)
        return a->type == VT_REF;
    for (size_t i = 0; i < rw->count; i++)
        if (rw->closure[i] && a->as.str.len == rw->rules[i]->name_len + 1 &&
            memcmp(a->as.str.ptr + 1, rw->rules[i]->name, rw->rules[i]->name_len) == 0)
            return true;
    return false;
}

static bool body_observes(const rewrite *rw, const ast_body *b) {
    for (size_t i = 0; i < b->count; i++) {
        const ast_clause *cl = &b->items[i];
        if (cl->kind == CL_PATTERN && pattern_observes(rw, &cl->as.pattern))
            return true;
        if ((cl->kind == CL_NOT || cl->kind == CL_NOT_JOIN) && body_observes(rw, &cl->as.not_.body))
            return true;
        for (size_t k = 0;
             (cl->kind == CL_OR || cl->kind == CL_OR_JOIN) && k < cl->as.or_.branch_count; k++)
            if (body_observes(rw, &cl->as.or_.branches[k]))
                return true;
    }
    return false;
}

/* ---- which variables are bound, left to right (sideways passing) ----------- */

typedef struct bound_set {
    const term *vars[64];
    size_t count;
} bound_set;

static bool is_bound(const bound_set *s, const term *t) {
    if (t->kind == TERM_CONST)
        return true;
    if (t->kind != TERM_VAR)
        return false;
    for (size_t i = 0; i < s->count; i++)
        if (same_name(s->vars[i]->name, s->vars[i]->name_len, t->name, t->name_len))
            return true;
    return false;
}

static bool bind(bound_set *s, const term *t) {
    if (t->kind != TERM_VAR || is_bound(s, t))
        return true;
    if (s->count == sizeof s->vars / sizeof *s->vars)
        return false;
    s->vars[s->count++] = t;
    return true;
}

static bool bind_clause(bound_set *s, const ast_clause *cl) {
    switch (cl->kind) {
    case CL_PATTERN:
        return bind(s, &cl->as.pattern.e) && bind(s, &cl->as.pattern.a) &&
               bind(s, &cl->as.pattern.v);
    case CL_EXPR: return !cl->as.expr.has_out || bind(s, &cl->as.expr.out);
    case CL_INVOKE:
        for (size_t i = 0; i < cl->as.invoke.argc; i++)
            if (!bind(s, &cl->as.invoke.args[i]))
                return false;
        return true;
    default: return false;
    }
}

/* A closure rule the rewrite can guard: positive, no or, 1-2 head
 * arguments, every closure invocation called with a bound first argument. */
static bool rule_fits(const rewrite *rw, const ast_rule *r) {
    if (r->argc < 1 || r->argc > 2 || body_observes(rw, &r->body))
        return false;
    bound_set s = {.count = 0};
    if (!bind(&s, &r->args[0]))
        return false;
    for (size_t i = 0; i < r->body.count; i++) {
        const ast_clause *cl = &r->body.items[i];
        if (cl->kind == CL_INVOKE && has_rules(rw, cl->as.invoke.name, cl->as.invoke.name_len) &&
            (cl->as.invoke.argc < 1 || cl->as.invoke.argc > 2 ||
             !is_bound(&s, &cl->as.invoke.args[0])))
            return false;
        if (!bind_clause(&s, cl))
            return false;
    }
    return true;
}

/* ---- building the rewritten rules ------------------------------------------------ */

static const char *magic_name(arena *a, const char *name, size_t len, size_t *out_len) {
    size_t n = sizeof MAGIC_PREFIX - 1;
    char *m = arena_alloc(a, n + len + 1);
    if (m) {
        memcpy(m, MAGIC_PREFIX, n);
        memcpy(m + n, name, len);
        m[n + len] = '\0';
    }
    *out_len = n + len;
    return m;
}

/* The invocation magic·name(arg). */
static bool magic_call(arena *a, const char *name, size_t len, const term *arg, ast_clause *out) {
    memset(out, 0, sizeof *out);
    out->kind = CL_INVOKE;
    out->as.invoke.name = magic_name(a, name, len, &out->as.invoke.name_len);
    out->as.invoke.args = arena_alloc(a, sizeof(term));
    if (!out->as.invoke.name || !out->as.invoke.args)
        return false;
    out->as.invoke.args[0] = *arg;
    out->as.invoke.argc = 1;
    return true;
}

/* head :- magic·p(H0), items[0 .. n). */
static ast_rule *guarded(arena *a, const ast_rule *r, const char *head, size_t head_len, term *args,
                         size_t argc, size_t n) {
    ast_rule *g = arena_calloc(a, 1, sizeof *g);
    ast_clause *items = arena_calloc(a, n + 1, sizeof *items);
    if (!g || !items || !magic_call(a, r->name, r->name_len, &r->args[0], &items[0]))
        return NULL;
    memcpy(items + 1, r->body.items, n * sizeof *items);
    *g = (ast_rule){.name = head,
                    .name_len = head_len,
                    .args = args,
                    .argc = argc,
                    .body = {items, n + 1}};
    return g;
}

typedef struct rule_list {
    const ast_rule **items;
    size_t count, cap;
} rule_list;

static bool push(arena *a, rule_list *l, const ast_rule *r) {
    if (!r)
        return false;
    const ast_rule **items = arena_grow_array(a, l->items, l->count, &l->cap, l->count + 1,
                                              sizeof *items, 16);
    if (!items)
        return false;
    l->items = items;
    l->items[l->count++] = r;
    return true;
}

/* The guarded rule, with head arguments `args` (r's own, or
 * right_linear_head's), and one demand rule per closure invocation of `r`. */
static bool rewrite_rule(rewrite *rw, const ast_rule *r, term *args, rule_list *out) {
    if (!args ||
        !push(rw->a, out, guarded(rw->a, r, r->name, r->name_len, args, r->argc, r->body.count)))
        return false;
    for (size_t i = 0; i < r->body.count; i++) {
        const ast_clause *cl = &r->body.items[i];
        if (cl->kind != CL_INVOKE || !has_rules(rw, cl->as.invoke.name, cl->as.invoke.name_len))
            continue;
        size_t len;
        const char *head = magic_name(rw->a, cl->as.invoke.name, cl->as.invoke.name_len, &len);
        if (!head || !push(rw->a, out, guarded(rw->a, r, head, len, cl->as.invoke.args, 1, i)))
            return false;
    }
    return true;
}

/* magic·p(c) with an empty body: holds once. */
static const ast_rule *seed(arena *a, const ast_clause *call) {
    ast_rule *s = arena_calloc(a, 1, sizeof *s);
    if (!s)
        return NULL;
    s->name = magic_name(a, call->as.invoke.name, call->as.invoke.name_len, &s->name_len);
    s->args = call->as.invoke.args;
    s->argc = 1;
    return s->name ? s : NULL;
}

/* ---- a right-linear closure ----------------------------------------------------------- */

static bool same_var(const term *a, const term *b) {
    return a->kind == TERM_VAR && b->kind == TERM_VAR &&
           same_name(a->name, a->name_len, b->name, b->name_len);
}

/* Does clause `cl` (a pattern or an invocation: others are not read)
 * name variable y? */
static bool clause_names(const ast_clause *cl, const term *y) {
    if (cl->kind == CL_PATTERN)
        return same_var(&cl->as.pattern.e, y) || same_var(&cl->as.pattern.a, y) ||
               same_var(&cl->as.pattern.v, y);
    for (size_t i = 0; i < cl->as.invoke.argc; i++)
        if (same_var(&cl->as.invoke.args[i], y))
            return true;
    return false;
}

/* Is `r`, a rule of p = `call`'s predicate, an exit rule (no invocation
 * of p), or right-linear: p(X, Y) :- body, p(M, Y), the call last, Y a
 * variable no other clause names and the body only patterns and
 * invocations of predicates without rules? */
static bool right_linear(const rewrite *rw, const ast_rule *r, const ast_clause *call) {
    size_t n = r->body.count, calls = 0;
    for (size_t i = 0; i < n; i++)
        calls += r->body.items[i].kind == CL_INVOKE &&
                 has_rules(rw, r->body.items[i].as.invoke.name,
                           r->body.items[i].as.invoke.name_len);
    if (calls == 0)
        return true;
    const ast_clause *last = &r->body.items[n - 1];
    const term *y = &r->args[1];
    if (calls != 1 || last->kind != CL_INVOKE || last->as.invoke.argc != 2 ||
        !same_name(last->as.invoke.name, last->as.invoke.name_len, call->as.invoke.name,
                   call->as.invoke.name_len) ||
        y->kind != TERM_VAR || !same_var(&last->as.invoke.args[1], y) ||
        same_var(&last->as.invoke.args[0], y) || same_var(&r->args[0], y))
        return false;
    for (size_t i = 0; i + 1 < n; i++) {
        const ast_clause *cl = &r->body.items[i];
        if ((cl->kind != CL_PATTERN && cl->kind != CL_INVOKE) || clause_names(cl, y))
            return false;
    }
    return true;
}

/* The closure is p alone, binary, each rule an exit or right-linear. */
static bool closure_right_linear(const rewrite *rw, const ast_clause *call) {
    if (call->as.invoke.argc != 2)
        return false;
    for (size_t i = 0; i < rw->count; i++) {
        const ast_rule *r = rw->rules[i];
        if (rw->closure[i] &&
            (!same_name(r->name, r->name_len, call->as.invoke.name, call->as.invoke.name_len) ||
             r->argc != 2 || !right_linear(rw, r, call)))
            return false;
    }
    return true;
}

/* The head of r's guarded rule in a right-linear closure: p(c, Y) for
 * r's p(X, Y), or NULL out of memory.
 *
 * p(c, y) holds exactly when some rule of p answers y at an entity X that
 * demand reaches from c (an exit rule from its body; a right-linear one
 * from p(M, y), which the stored facts of p's attribute answer, language.md
 * §9.2, and the derived facts p(c, ...) already hold), so the facts of p
 * at the other demanded entities, which the guarded rules derive (depth²
 * facts down a chain), are not needed. The demand rules stay the guarded
 * rules' (the call last: its prefix is the whole body). Each fact of p
 * derived is one the rules as written derive, through a derivation no
 * taller. */
static term *right_linear_head(arena *a, const ast_rule *r, const ast_clause *call) {
    term *args = arena_alloc(a, 2 * sizeof *args);
    if (args) {
        args[0] = call->as.invoke.args[0];
        args[1] = r->args[1];
    }
    return args;
}

/* ---- the query ------------------------------------------------------------------------ */

typedef struct find_calls {
    const ast_clause *first;
    size_t count;
} find_calls;

static void count_call(void *ctx, const ast_clause *invoke, bool negated) {
    find_calls *f = ctx;
    (void)negated;
    if (f->count++ == 0)
        f->first = invoke;
}

/* The query's one invocation, top level, constant entity-like first
 * argument, of a predicate with rules; else NULL. */
static const ast_clause *bound_call(const rewrite *rw, const ast_query *q) {
    find_calls f = {NULL, 0};
    stratify_walk_invocations(&q->body, count_call, &f);
    if (f.count != 1 || f.first->as.invoke.argc < 1 || f.first->as.invoke.argc > 2)
        return NULL;
    bool top = false;
    for (size_t i = 0; i < q->body.count; i++)
        top |= &q->body.items[i] == f.first;
    const term *arg = &f.first->as.invoke.args[0];
    uuid128 u;
    if (!top || arg->kind != TERM_CONST || !value_as_entity(&arg->constant, &u))
        return NULL;
    return has_rules(rw, f.first->as.invoke.name, f.first->as.invoke.name_len) ? f.first : NULL;
}

static bool closure_fits(const rewrite *rw, const ast_query *q) {
    if (body_observes(rw, &q->body))
        return false;
    for (size_t i = 0; i < rw->count; i++)
        if (rw->closure[i] && !rule_fits(rw, rw->rules[i]))
            return false;
    return true;
}

int magic_rewrite(const ast_rule *const *rules, size_t count, const ast_query *q, arena *a,
                  const ast_rule *const **out, size_t *out_count, err *e) {
    rewrite rw = {rules, count, arena_calloc(a, count + 1, sizeof(bool)), a};
    if (!rw.closure)
        return err_set(e, ERR(INT, 0), "out of memory");
    const ast_clause *call = bound_call(&rw, q);
    if (!call)
        return 0;
    mark_closure(&rw, call->as.invoke.name, call->as.invoke.name_len);
    if (!closure_fits(&rw, q))
        return 0;
    rule_list l = {NULL, 0, 0};
    bool ok = push(a, &l, seed(a, call)), linear = closure_right_linear(&rw, call);
    for (size_t i = 0; ok && i < count; i++)
        ok = !rw.closure[i]
                 ? push(a, &l, rules[i])
                 : rewrite_rule(&rw, rules[i],
                                linear ? right_linear_head(a, rules[i], call) : rules[i]->args, &l);
    if (!ok)
        return err_set(e, ERR(INT, 0), "out of memory");
    *out = l.items;
    *out_count = l.count;
    return 1;
}
