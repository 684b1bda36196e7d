/* Internal to plan/: the state of compiling one conjunction, shared by
 * conj.c (variables, slots), conj_clause.c (patterns, pseudo-attributes,
 * expressions) and conj_sub.c (not, or). */
#ifndef MG_PLAN_CONJ_BUILD_H
#define MG_PLAN_CONJ_BUILD_H

#include "plan/conj.h"

typedef enum conj_scope {
    SCOPE_TOP,    /* the query's :where */
    SCOPE_BRANCH, /* an or / or-join branch */
    SCOPE_NOT     /* a not / not-join body */
} conj_scope;

typedef struct conj_build {
    arena *a;
    err *e;
    store_reader *r;
    const plan_hint *hint;
    plan_conj *c;
    conj_scope scope;
    bool any_valid_time;
    size_t var_cap;
    const plan_conj *parent; /* NULL at the top */
    const bool *importable;  /* per parent variable: may be passed in */
    plan_sub *sub;           /* where imports are recorded */
    size_t in_cap;
} conj_build;

bool conj_is_binding_var(const term *t);
int conj_new_slot(conj_build *b, int var, int item, slot_kind kind);
int conj_var_ref(conj_build *b, const term *t);
int conj_add_need(conj_build *b, plan_item *it, int var, size_t *cap);
int conj_compile(conj_build *b, const ast_body *body);

int conj_compile_pattern(conj_build *b, plan_item *it, size_t index);
int conj_compile_expr(conj_build *b, plan_item *it, size_t index);
int conj_compile_invoke(conj_build *b, plan_item *it, size_t index);
int conj_compile_not(conj_build *b, plan_item *it);
int conj_compile_or(conj_build *b, plan_item *it);

#endif
