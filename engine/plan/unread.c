/* Pattern variables nothing reads (plan/conj.h: plan_drop_unread). */
#include <string.h>

#include "plan/conj.h"

static bool names(const term *t, const plan_var *v) {
    return t->kind == TERM_VAR && t->name_len == v->len && memcmp(t->name, v->name, v->len) == 0;
}

/* Does the :find side (specs, :with, :order-by) name the variable? */
static bool read_by_find(const ast_query *q, const plan_var *v) {
    for (size_t i = 0; i < q->spec_count; i++) {
        const ast_find *f = &q->specs[i];
        if ((f->has_var && names(&f->var, v)) || (f->has_partition && names(&f->partition_by, v)) ||
            (f->kind == FIND_WINDOW && names(&f->order_by, v)))
            return true;
    }
    for (size_t i = 0; i < q->with_count; i++)
        if (names(&q->with[i], v))
            return true;
    for (size_t i = 0; i < q->order_count; i++)
        if (names(&q->order_by[i].var, v))
            return true;
    return false;
}

/* Does a clause other than the one filling the variable's slot read it
 * (an expression, a not / or body importing it), or a pseudo-attribute
 * pattern name it (language.md D16 pairs them by their entity term)? */
static bool read_in_conj(const plan_conj *c, int var) {
    for (size_t i = 0; i < c->item_count; i++) {
        const plan_item *it = &c->items[i];
        for (size_t n = 0; n < it->need_count; n++)
            if (it->needs[n] == var)
                return true;
        for (size_t s = 0; s < it->sub_count; s++)
            for (size_t k = 0; k < it->subs[s].in_count; k++)
                if (it->subs[s].in_parent_var[k] == var)
                    return true;
        if (it->kind == PK_PSEUDO && names(&it->pc.pattern->e, &c->vars[var]))
            return true;
    }
    return false;
}

/* The one position of pattern `it` holding `var`, or -1 (none, or more
 * than one: [?x :a ?x] compares them). */
static int only_position(const plan_item *it, int var) {
    int found = -1;
    for (int pos = 0; pos < 3; pos++)
        if (it->pc.var[pos] == var) {
            if (found >= 0)
                return -1;
            found = pos;
        }
    return found;
}

void plan_drop_unread(plan_conj *c, const ast_query *q) {
    for (size_t v = 0; v < c->var_count; v++) {
        plan_var *var = &c->vars[v];
        if (var->slot_count != 1)
            continue;
        const plan_slot *s = &c->slots[var->slots[0]];
        if (s->kind != SLOT_PATTERN || s->item < 0)
            continue;
        plan_item *it = &c->items[s->item];
        int pos = it->kind == PK_PATTERN ? only_position(it, (int)v) : -1;
        if (pos < 0 || read_by_find(q, var) || read_in_conj(c, (int)v))
            continue;
        it->slot[pos] = -1; /* matched like _, bound nowhere */
        var->slot_count = 0;
    }
}
