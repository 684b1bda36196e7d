/* Compiling not / not-join bodies and or / or-join branches as
 * sub-conjunctions, with the outer variables they take (language.md §8.6, §8.7):
 *   not        the body variables the enclosing conjunction binds anywhere
 *              (others are existential, language.md D14)
 *   not-join   the listed variables
 *   or         the branch variables bound before the or in source order;
 *              the other branch variables are new and come out
 *   or-join    the listed variables; nothing comes out */
#include <string.h>

#include "plan/conj_build.h"

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

/* Per variable of b's conjunction: does some clause compiled so far hold
 * it (or the parent pass it in)? With `names`, only those listed. */
static bool *importable_vars(conj_build *b, const term *names, size_t name_count, bool filter) {
    const plan_conj *c = b->c;
    bool *ok = arena_calloc(b->a, c->var_count + 1, sizeof *ok);
    if (!ok)
        return NULL;
    for (size_t s = 0; s < c->slot_count; s++)
        ok[c->slots[s].var] = true;
    if (!filter)
        return ok;
    for (size_t v = 0; v < c->var_count; v++) {
        bool listed = false;
        for (size_t i = 0; i < name_count && !listed; i++)
            listed = names[i].name_len == c->vars[v].len &&
                     memcmp(names[i].name, c->vars[v].name, c->vars[v].len) == 0;
        ok[v] = ok[v] && listed;
    }
    return ok;
}

static int import_body(conj_build *b, const ast_body *body);

/* A variable a nested not / or names: when this conjunction is itself a
 * sub-conjunction that may take it from its parent, take it now (an INPUT
 * slot), so the nested body joins on it instead of treating it as its own.
 * Without this, `(or (and (not [?u :blocked true])) ...)` would ask whether
 * anyone at all is blocked. */
static int import_term(conj_build *b, const term *t) {
    if (t->kind != TERM_VAR || !b->parent || plan_find_var(b->c, t->name, t->name_len) >= 0)
        return 0;
    int pv = plan_find_var(b->parent, t->name, t->name_len);
    if (pv < 0 || !b->importable[pv])
        return 0;
    return conj_var_ref(b, t) < 0 ? oom(b->e) : 0;
}

static int import_terms(conj_build *b, const term *ts, size_t n) {
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = import_term(b, &ts[i]);
    return rc;
}

static int import_expr(conj_build *b, const ast_expr *x) {
    if (x->kind == EXPR_TERM)
        return import_term(b, &x->arg);
    int rc = 0;
    for (size_t i = 0; i < x->argc && rc == 0; i++)
        rc = import_expr(b, &x->args[i]);
    return rc;
}

/* The variables of a clause that reach the outside: a not-join's and an
 * or-join's listed ones, every variable of the others. */
static int import_clause(conj_build *b, const ast_clause *cl) {
    switch (cl->kind) {
    case CL_PATTERN: {
        const ast_pattern *p = &cl->as.pattern;
        term ts[3] = {p->e, p->a, p->v};
        return import_terms(b, ts, 3);
    }
    case CL_EXPR: {
        int rc = import_expr(b, &cl->as.expr.expr);
        return rc == 0 && cl->as.expr.has_out ? import_term(b, &cl->as.expr.out) : rc;
    }
    case CL_INVOKE: return import_terms(b, cl->as.invoke.args, cl->as.invoke.argc);
    case CL_NOT: return import_body(b, &cl->as.not_.body);
    case CL_NOT_JOIN: return import_terms(b, cl->as.not_.vars, cl->as.not_.var_count);
    case CL_OR_JOIN: return import_terms(b, cl->as.or_.vars, cl->as.or_.var_count);
    case CL_OR: {
        int rc = 0;
        for (size_t k = 0; k < cl->as.or_.branch_count && rc == 0; k++)
            rc = import_body(b, &cl->as.or_.branches[k]);
        return rc;
    }
    }
    return 0;
}

static int import_body(conj_build *b, const ast_body *body) {
    int rc = 0;
    for (size_t i = 0; i < body->count && rc == 0; i++)
        rc = import_clause(b, &body->items[i]);
    return rc;
}

static int compile_sub(conj_build *b, const ast_body *body, const bool *importable,
                       conj_scope scope, plan_sub *out) {
    out->conj = arena_calloc(b->a, 1, sizeof *out->conj);
    if (!out->conj)
        return oom(b->e);
    conj_build sb = {.a = b->a,
                     .e = b->e,
                     .r = b->r,
                     .hint = b->hint,
                     .c = out->conj,
                     .scope = scope,
                     .any_valid_time = b->any_valid_time,
                     .parent = b->c,
                     .importable = importable,
                     .sub = out};
    return conj_compile(&sb, body);
}

static int needs_from_imports(conj_build *b, plan_item *it, size_t *cap) {
    for (size_t k = 0; k < it->sub_count; k++)
        for (size_t i = 0; i < it->subs[k].in_count; i++)
            if (conj_add_need(b, it, it->subs[k].in_parent_var[i], cap) != 0)
                return oom(b->e);
    return 0;
}

int conj_compile_not(conj_build *b, plan_item *it) {
    const ast_clause *cl = it->clause;
    it->kind = PK_NOT;
    bool join = cl->kind == CL_NOT_JOIN;
    int imported = import_clause(b, cl);
    if (imported != 0)
        return imported;
    bool *ok = importable_vars(b, cl->as.not_.vars, cl->as.not_.var_count, join);
    it->subs = arena_calloc(b->a, 1, sizeof *it->subs);
    if (!ok || !it->subs)
        return oom(b->e);
    it->sub_count = 1;
    int rc = compile_sub(b, &cl->as.not_.body, ok, SCOPE_NOT, &it->subs[0]);
    size_t cap = 0;
    return rc != 0 ? rc : needs_from_imports(b, it, &cap);
}

/* A variable the first branch binds without taking it from outside. */
static bool is_new_var(const plan_conj *c, size_t v) {
    return c->vars[v].slot_count > 0 && c->slots[c->vars[v].slots[0]].kind != SLOT_INPUT;
}

/* `or`: one parent slot per new variable of the first branch, and where
 * every branch holds that variable (the parser checked they all do). */
static int or_outputs(conj_build *b, plan_item *it, size_t index) {
    const plan_conj *first = it->subs[0].conj;
    it->outs = arena_calloc(b->a, first->var_count + 1, sizeof *it->outs);
    for (size_t k = 0; k < it->sub_count; k++)
        if (!(it->subs[k].out_var = arena_calloc(b->a, first->var_count + 1, sizeof(int))))
            return oom(b->e);
    if (!it->outs)
        return oom(b->e);
    for (size_t v = 0; v < first->var_count; v++) {
        if (!is_new_var(first, v))
            continue;
        term t = {.kind = TERM_VAR, .name = first->vars[v].name, .name_len = first->vars[v].len};
        for (size_t k = 0; k < it->sub_count; k++) {
            int sv = plan_find_var(it->subs[k].conj, t.name, t.name_len);
            if (sv < 0)
                return err_set(
                    b->e, ERR(PRS, 57),
                    "all branches of (or ...) must introduce the same set of new variables");
            it->subs[k].out_var[it->out_count] = sv;
        }
        int pv = conj_var_ref(b, &t);
        int s = pv < 0 ? -1 : conj_new_slot(b, pv, (int)index, SLOT_OR);
        if (s < 0)
            return oom(b->e);
        it->outs[it->out_count++] = s;
    }
    return 0;
}

int conj_compile_or(conj_build *b, plan_item *it) {
    const ast_clause *cl = it->clause;
    size_t index = (size_t)(it - b->c->items);
    it->kind = PK_OR;
    bool join = cl->kind == CL_OR_JOIN;
    int imported = import_clause(b, cl);
    if (imported != 0)
        return imported;
    bool *ok = importable_vars(b, cl->as.or_.vars, cl->as.or_.var_count, join);
    it->sub_count = cl->as.or_.branch_count;
    it->subs = arena_calloc(b->a, it->sub_count + 1, sizeof *it->subs);
    if (!ok || !it->subs)
        return oom(b->e);
    for (size_t k = 0; k < it->sub_count; k++) {
        int rc = compile_sub(b, &cl->as.or_.branches[k], ok, SCOPE_BRANCH, &it->subs[k]);
        if (rc != 0)
            return rc;
    }
    size_t cap = 0;
    int rc = needs_from_imports(b, it, &cap);
    if (rc == 0 && !join)
        rc = or_outputs(b, it, index);
    return rc;
}
