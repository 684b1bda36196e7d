/* :where clauses (language.md §8.3-§8.8 and §8.1's clause dispatch): patterns,
 * expression clauses, not, not-join, or, or-join with (and ...) branches,
 * and rule invocations. */
#include <string.h>

#include "datalog/parse_internal.h"

static int parse_pattern(parse_ctx *c, const edn *d, ast_pattern *out) {
    if (d->as.seq.count != 3)
        return parse_fail(c, PARSE_SHAPE, d,
                          "Pattern must have exactly 3 elements (E A V), got %zu", d->as.seq.count);
    const edn *t = d->as.seq.items;
    int rc = parse_term(c, &t[0], POS_ENTITY, &out->e);
    if (!rc)
        rc = parse_term(c, &t[1], POS_ATTRIBUTE, &out->a);
    if (!rc)
        rc = parse_term(c, &t[2], POS_VALUE, &out->v);
    return rc;
}

/* [?a ?b ...] of not-join / or-join. */
static int parse_join_vars(parse_ctx *c, const edn *vec, int code, const char *form, term **vars,
                           size_t *count) {
    *count = vec->as.seq.count;
    *vars = parse_array(c, *count, sizeof(term));
    if (!*vars)
        return parse_oom(c);
    for (size_t i = 0; i < *count; i++) {
        const edn *v = &vec->as.seq.items[i];
        if (!parse_is_variable(v))
            return parse_fail_got(c, code, form, v);
        parse_var_term(v, &(*vars)[i]);
    }
    return 0;
}

static int parse_not(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    size_t n = d->as.seq.count;
    const edn *items = d->as.seq.items;
    if (in_not)
        return parse_fail(c, ERR(PRS, 51), d, "(not ...) cannot appear inside another (not ...)");
    if (n < 2)
        return parse_fail(c, ERR(PRS, 52), d, "(not) requires at least one clause");
    out->kind = CL_NOT;
    return parse_body(c, items + 1, n - 1, true, &out->as.not_.body);
}

static int parse_not_join(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    size_t n = d->as.seq.count;
    const edn *items = d->as.seq.items;
    if (in_not)
        return parse_fail(
            c, ERR(PRS, 51), d,
            "(not-join ...) cannot appear inside another (not ...) or (not-join ...)");
    if (n >= 2 && items[1].kind != EDN_VECTOR)
        return parse_fail_got(c, ERR(PRS, 59),
                              "(not-join) first argument must be a vector of join variables, got ",
                              &items[1]);
    if (n < 3)
        return parse_fail(c, ERR(PRS, 59), d,
                          "(not-join) requires a vector of join variables and at least one clause");
    out->kind = CL_NOT_JOIN;
    int rc = parse_join_vars(c, &items[1], ERR(PRS, 59),
                             "(not-join) join variables must be logic variables, got ",
                             &out->as.not_.vars, &out->as.not_.var_count);
    return rc ? rc : parse_body(c, items + 2, n - 2, true, &out->as.not_.body);
}

/* A branch: (and c1 c2 ...) or a single where clause. */
static int parse_branch(parse_ctx *c, const edn *d, ast_body *out) {
    if (d->kind == EDN_LIST && d->as.seq.count > 0 && edn_is_symbol(&d->as.seq.items[0], "and")) {
        if (d->as.seq.count < 2)
            return parse_fail(c, ERR(PRS, 58), d, "(and) requires at least one clause");
        return parse_body(c, d->as.seq.items + 1, d->as.seq.count - 1, false, out);
    }
    return parse_body(c, d, 1, false, out);
}

static int parse_branches(parse_ctx *c, const edn *items, size_t count, ast_clause *out) {
    out->as.or_.branch_count = count;
    out->as.or_.branches = parse_array(c, count, sizeof(ast_body));
    if (!out->as.or_.branches)
        return parse_oom(c);
    for (size_t i = 0; i < count; i++) {
        int rc = parse_branch(c, &items[i], &out->as.or_.branches[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_or(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    size_t n = d->as.seq.count;
    if (in_not)
        return parse_fail(c, PARSE_SHAPE, d,
                          "(or)/(or-join) cannot appear inside (not)/(not-join)");
    if (n < 2)
        return parse_fail(c, ERR(PRS, 53), d, "(or) requires at least one branch");
    out->kind = CL_OR;
    return parse_branches(c, d->as.seq.items + 1, n - 1, out);
}

static int parse_or_join(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    size_t n = d->as.seq.count;
    const edn *items = d->as.seq.items;
    if (in_not)
        return parse_fail(c, PARSE_SHAPE, d,
                          "(or)/(or-join) cannot appear inside (not)/(not-join)");
    if (n >= 2 && items[1].kind != EDN_VECTOR)
        return parse_fail_got(c, ERR(PRS, 55),
                              "(or-join) first argument must be a vector of join variables, got ",
                              &items[1]);
    if (n < 3)
        return parse_fail(c, ERR(PRS, 54), d,
                          "(or-join) requires a vector of join variables and at least one branch");
    out->kind = CL_OR_JOIN;
    int rc = parse_join_vars(c, &items[1], ERR(PRS, 56),
                             "(or-join) join variables must be logic variables, got ",
                             &out->as.or_.vars, &out->as.or_.var_count);
    return rc ? rc : parse_branches(c, items + 2, n - 2, out);
}

static int parse_invocation(parse_ctx *c, const edn *d, ast_clause *out) {
    const edn *items = d->as.seq.items;
    out->kind = CL_INVOKE;
    out->as.invoke.name = items[0].as.text.ptr;
    out->as.invoke.name_len = items[0].as.text.len;
    out->as.invoke.argc = d->as.seq.count - 1;
    out->as.invoke.args = parse_array(c, out->as.invoke.argc, sizeof(term));
    if (!out->as.invoke.args)
        return parse_oom(c);
    for (size_t i = 0; i < out->as.invoke.argc; i++) {
        int rc = parse_term(c, &items[i + 1], POS_ARG, &out->as.invoke.args[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_list_clause(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    if (d->as.seq.count == 0)
        return parse_fail(c, ERR(PRS, 50), d, "Empty list in :where clause");
    const edn *head = &d->as.seq.items[0];
    if (head->kind != EDN_SYMBOL)
        return parse_fail_got(
            c, PARSE_SHAPE, "Rule invocation must start with predicate name (symbol), got ", head);
    if (edn_is_symbol(head, "not"))
        return parse_not(c, d, in_not, out);
    if (edn_is_symbol(head, "not-join"))
        return parse_not_join(c, d, in_not, out);
    if (edn_is_symbol(head, "or"))
        return parse_or(c, d, in_not, out);
    if (edn_is_symbol(head, "or-join"))
        return parse_or_join(c, d, in_not, out);
    return parse_invocation(c, d, out);
}

int parse_clause(parse_ctx *c, const edn *d, bool in_not, ast_clause *out) {
    memset(out, 0, sizeof *out);
    out->line = d->line;
    out->column = d->column;
    if (d->kind == EDN_VECTOR) {
        if (d->as.seq.count > 0 && d->as.seq.items[0].kind == EDN_LIST) {
            out->kind = CL_EXPR;
            return parse_expr_clause(c, d, &out->as.expr);
        }
        out->kind = CL_PATTERN;
        return parse_pattern(c, d, &out->as.pattern);
    }
    if (d->kind == EDN_LIST) {
        if (++c->depth > PARSE_MAX_DEPTH)
            return parse_fail(c, PARSE_STRUCTURE, d, "Exceeded maximum recursion depth of %d",
                              PARSE_MAX_DEPTH);
        int rc = parse_list_clause(c, d, in_not, out);
        c->depth--;
        return rc;
    }
    return parse_fail_got(c, ERR(PRS, 60),
                          "Expected a pattern vector or a list in :where clause, got ", d);
}

int parse_body(parse_ctx *c, const edn *items, size_t count, bool in_not, ast_body *out) {
    out->count = count;
    out->items = parse_array(c, count, sizeof(ast_clause));
    if (!out->items)
        return parse_oom(c);
    for (size_t i = 0; i < count; i++) {
        int rc = parse_clause(c, &items[i], in_not, &out->items[i]);
        if (rc)
            return rc;
    }
    return 0;
}
