/* Compiling a conjunction: variables, slots, clause items, sub-conjunctions
 * (see plan/conj.h for the slot model). Two passes per conjunction: every
 * clause but not/not-join first, so that a not body can see which outer
 * variables the enclosing conjunction binds anywhere (language.md §8.7, D14); or
 * branches are compiled in place, since they import only the variables
 * bound before them in source order (language.md §8.6). */
#include "plan/conj.h"

#include <string.h>

#include "plan/conj_build.h"

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

int plan_find_var(const plan_conj *c, const char *name, size_t len) {
    for (size_t v = 0; v < c->var_count; v++)
        if (c->vars[v].len == len && memcmp(c->vars[v].name, name, len) == 0)
            return (int)v;
    return -1;
}

/* `?_x` is a wildcard even if a parser hands it over as a variable. */
bool conj_is_binding_var(const term *t) {
    return t->kind == TERM_VAR && !(t->name_len >= 2 && t->name[1] == '_');
}

int conj_new_slot(conj_build *b, int var, int item, slot_kind kind) {
    plan_conj *c = b->c;
    plan_slot *s = arena_grow_array(b->a, c->slots, c->slot_count, &c->slot_cap, c->slot_count + 1,
                                    sizeof *s, 8);
    if (!s)
        return -1;
    c->slots = s;
    c->slots[c->slot_count] = (plan_slot){.var = var, .item = item, .kind = kind};
    return (int)c->slot_count++;
}

static int new_var(conj_build *b, const char *name, size_t len) {
    plan_conj *c = b->c;
    plan_var *v = arena_grow_array(b->a, c->vars, c->var_count, &b->var_cap, c->var_count + 1,
                                   sizeof *v, 8);
    if (!v)
        return -1;
    c->vars = v;
    c->vars[c->var_count] = (plan_var){.name = name, .len = len};
    return (int)c->var_count++;
}

/* Records that the sub-conjunction's INPUT slot `slot` takes the parent's
 * variable `pvar`. */
static int add_import(conj_build *b, int slot, int pvar) {
    plan_sub *s = b->sub;
    size_t cap = b->in_cap;
    int *in = arena_grow_array(b->a, s->in_slot, s->in_count, &cap, s->in_count + 1, sizeof *in, 8);
    size_t cap2 = b->in_cap;
    int *pv = arena_grow_array(b->a, s->in_parent_var, s->in_count, &cap2, s->in_count + 1,
                               sizeof *pv, 8);
    if (!in || !pv)
        return -1;
    b->in_cap = cap;
    s->in_slot = in;
    s->in_parent_var = pv;
    s->in_slot[s->in_count] = slot;
    s->in_parent_var[s->in_count++] = pvar;
    return 0;
}

/* The variable a term names in this conjunction, imported from the parent
 * (with an INPUT slot) when the parent may pass it in. -1 out of memory. */
int conj_var_ref(conj_build *b, const term *t) {
    int v = plan_find_var(b->c, t->name, t->name_len);
    if (v >= 0)
        return v;
    v = new_var(b, t->name, t->name_len);
    if (v < 0 || !b->parent)
        return v;
    int pv = plan_find_var(b->parent, t->name, t->name_len);
    if (pv < 0 || !b->importable[pv])
        return v;
    int s = conj_new_slot(b, v, -1, SLOT_INPUT);
    return s < 0 || add_import(b, s, pv) != 0 ? -1 : v;
}

int conj_add_need(conj_build *b, plan_item *it, int var, size_t *cap) {
    for (size_t i = 0; i < it->need_count; i++)
        if (it->needs[i] == var)
            return 0;
    int *n = arena_grow_array(b->a, it->needs, it->need_count, cap, it->need_count + 1, sizeof *n,
                              8);
    if (!n)
        return -1;
    it->needs = n;
    it->needs[it->need_count++] = var;
    return 0;
}

/* Each variable's slots in creation order, which is source order. */
static int list_var_slots(conj_build *b) {
    plan_conj *c = b->c;
    for (size_t s = 0; s < c->slot_count; s++)
        c->vars[c->slots[s].var].slot_count++;
    for (size_t v = 0; v < c->var_count; v++) {
        c->vars[v].slots = arena_calloc(b->a, c->vars[v].slot_count + 1, sizeof(int));
        if (!c->vars[v].slots)
            return -1;
        c->vars[v].slot_count = 0;
    }
    for (size_t s = 0; s < c->slot_count; s++) {
        plan_var *pv = &c->vars[c->slots[s].var];
        pv->slots[pv->slot_count++] = (int)s;
    }
    return 0;
}

static int compile_clause(conj_build *b, size_t i, bool second_pass) {
    plan_item *it = &b->c->items[i];
    const ast_clause *cl = it->clause;
    bool negation = cl->kind == CL_NOT || cl->kind == CL_NOT_JOIN;
    if (negation != second_pass)
        return 0;
    switch (cl->kind) {
    case CL_PATTERN: return conj_compile_pattern(b, it, i);
    case CL_EXPR: return conj_compile_expr(b, it, i);
    case CL_NOT:
    case CL_NOT_JOIN: return conj_compile_not(b, it);
    case CL_OR:
    case CL_OR_JOIN: return conj_compile_or(b, it);
    case CL_INVOKE: return conj_compile_invoke(b, it, i);
    }
    return err_set(b->e, ERR(INT, 0), "unknown clause kind");
}

int conj_compile(conj_build *b, const ast_body *body) {
    plan_conj *c = b->c;
    c->item_count = body->count;
    c->items = arena_calloc(b->a, body->count + 1, sizeof *c->items);
    if (!c->items)
        return oom(b->e);
    for (size_t i = 0; i < body->count; i++)
        c->items[i] = (plan_item){.clause = &body->items[i], .slot = {-1, -1, -1}, .correlate = -1};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < body->count; i++) {
            int rc = compile_clause(b, i, pass == 1);
            if (rc != 0)
                return rc;
        }
    if (list_var_slots(b) != 0)
        return oom(b->e);
    return plan_order_conj(b->r, c, b->hint, b->a, b->e);
}

int plan_compile_body(const ast_body *body, bool any_valid_time, store_reader *r,
                      const plan_hint *hint, arena *a, plan_conj **out, err *e) {
    *out = arena_calloc(a, 1, sizeof **out);
    if (!*out)
        return oom(e);
    conj_build b = {.a = a,
                    .e = e,
                    .r = r,
                    .hint = hint,
                    .c = *out,
                    .scope = SCOPE_TOP,
                    .any_valid_time = any_valid_time};
    return conj_compile(&b, body);
}

int plan_compile_query(const ast_query *q, store_reader *r, const plan_hint *hint, arena *a,
                       plan_query *out, err *e) {
    memset(out, 0, sizeof *out);
    out->any_valid_time = q->valid == VALID_ANY;
    int rc = plan_compile_body(&q->body, out->any_valid_time, r, hint, a, &out->top, e);
    if (rc == 0)
        plan_drop_unread(out->top, q);
    return rc;
}
