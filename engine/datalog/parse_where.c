/* :find specs, :where clauses and the terms of patterns (spec 8.2, 8.3,
 * Appendix A's clause dispatch). Only variables in :find and data patterns
 * in :where are in this version; the other constructs are recognised, the
 * cheap spec checks are made, and they are rejected as unsupported. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "datalog/parse_internal.h"
#include "model/value.h"

static bool parse_is_variable(const edn *d) {
    return d->kind == EDN_SYMBOL && d->as.text.len > 0 && d->as.text.ptr[0] == '?';
}

static int parse_describe_error(parse_ctx *c, int code, const char *text, const edn *d) {
    char what[PARSE_DESCRIBE_CAP];
    edn_describe(d, what, sizeof what);
    return err_set(c->e, code, "%s%s", text, what);
}

/* ---- :find ------------------------------------------------------------- */

static int parse_find_list(parse_ctx *c, const edn *d) {
    const edn *items = d->as.seq.items;
    size_t n = d->as.seq.count;
    for (size_t i = 0; i < n; i++)
        if (edn_is_keyword(&items[i], ":over"))
            return parse_unsupported(c, "window functions in :find");
    if (n != 2)
        return err_set(c->e, ERR(PRS, 24),
                       "Aggregate must have exactly 2 elements (function and variable), got %zu", n);
    if (items[0].kind != EDN_SYMBOL)
        return parse_describe_error(c, ERR(PRS, 25), "Aggregate function name must be a symbol, got ",
                                    &items[0]);
    if (!parse_is_variable(&items[1]))
        return parse_describe_error(c, ERR(PRS, 26), "Aggregate argument must be a variable, got ",
                                    &items[1]);
    char what[96];
    snprintf(what, sizeof what, "aggregate (%.*s %.*s) in :find",
             (int)utf8_clip(items[0].as.text.ptr, items[0].as.text.len, 32), items[0].as.text.ptr,
             (int)utf8_clip(items[1].as.text.ptr, items[1].as.text.len, 32), items[1].as.text.ptr);
    return parse_unsupported(c, what);
}

int parse_find_spec(parse_ctx *c, const edn *d, term *out) {
    if (parse_is_variable(d)) {
        out->kind = TERM_VAR;
        out->name = d->as.text.ptr;
        out->name_len = d->as.text.len;
        return 0;
    }
    if (d->kind == EDN_LIST)
        return parse_find_list(c, d);
    return parse_describe_error(c, PARSE_SHAPE,
                                "Expected variable or aggregate expression in :find clause, got ", d);
}

/* ---- terms ------------------------------------------------------------- */

typedef enum parse_position { POS_ENTITY, POS_ATTRIBUTE, POS_VALUE } parse_position;

static bool parse_is_pseudo_attribute(const edn *d) {
    static const char *const names[] = {":db/valid-from", ":db/valid-to", ":db/tx-count",
                                        ":db/tx-id", ":db/valid-at"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (edn_is_keyword(d, names[i]))
            return true;
    return false;
}

static void parse_symbol_term(const edn *d, term *out) {
    const char *s = d->as.text.ptr;
    size_t n = d->as.text.len;
    if ((n == 1 && s[0] == '_') || (n >= 2 && s[0] == '?' && s[1] == '_')) {
        out->kind = TERM_WILDCARD;
    } else if (s[0] == '?') {
        out->kind = TERM_VAR;
        out->name = s;
        out->name_len = n;
    } else {
        out->kind = TERM_NEVER; /* a plain symbol never matches */
    }
}

static void parse_const(term *out, value v) {
    out->kind = TERM_CONST;
    out->constant = v;
}

static int parse_term(parse_ctx *c, const edn *d, parse_position pos, term *out) {
    memset(out, 0, sizeof *out);
    switch (d->kind) {
    case EDN_SYMBOL:
        parse_symbol_term(d, out);
        return 0;
    case EDN_KEYWORD:
        if (pos != POS_ATTRIBUTE && parse_is_pseudo_attribute(d))
            return err_set(c->e, PARSE_SHAPE, "pseudo-attribute %s is not valid in %s position",
                           d->as.text.ptr, pos == POS_ENTITY ? "entity" : "value");
        parse_const(out, value_keyword(d->as.text.ptr, d->as.text.len));
        return 0;
    case EDN_UUID:
        parse_const(out, value_ref(d->as.uuid));
        return 0;
    case EDN_STRING:
        parse_const(out, value_string(d->as.text.ptr, d->as.text.len));
        return 0;
    case EDN_INTEGER:
        parse_const(out, value_integer(d->as.i));
        return 0;
    case EDN_FLOAT:
        parse_const(out, value_float(d->as.f));
        return 0;
    case EDN_BOOLEAN:
        parse_const(out, value_boolean(d->as.b));
        return 0;
    case EDN_NIL:
        parse_const(out, value_null());
        return 0;
    case EDN_SLOT:
        return err_set(c->e, ERR(API, 10), "bind slots require a prepared query: $%s",
                       d->as.text.ptr);
    case EDN_LIST:
    case EDN_VECTOR:
    case EDN_MAP:
        out->kind = TERM_NEVER;
        return 0;
    }
    return 0;
}

static int parse_pattern(parse_ctx *c, const edn *d, ast_pattern *out) {
    if (d->as.seq.count != 3)
        return err_set(c->e, PARSE_SHAPE, "Pattern must have exactly 3 elements (E A V), got %zu",
                       d->as.seq.count);
    const edn *t = d->as.seq.items;
    int rc = parse_term(c, &t[0], POS_ENTITY, &out->e);
    if (!rc)
        rc = parse_term(c, &t[1], POS_ATTRIBUTE, &out->a);
    if (!rc)
        rc = parse_term(c, &t[2], POS_VALUE, &out->v);
    return rc;
}

/* ---- the constructs of later versions ------------------------------------ */

/* [(op args...) ?out?] */
static int parse_expression_clause(parse_ctx *c, const edn *d) {
    const edn *expr = &d->as.seq.items[0];
    if (d->as.seq.count > 2)
        return err_set(c->e, ERR(PRS, 68),
                       "Expression clause must be [(expr)] or [(expr) ?out], got %zu elements",
                       d->as.seq.count);
    if (expr->as.seq.count == 0)
        return err_set(c->e, ERR(PRS, 62), "Empty expression list");
    if (expr->as.seq.items[0].kind != EDN_SYMBOL)
        return parse_describe_error(c, ERR(PRS, 63), "expression head must be a symbol, got ",
                                    &expr->as.seq.items[0]);
    if (d->as.seq.count == 2 && !parse_is_variable(&d->as.seq.items[1]))
        return parse_describe_error(c, ERR(PRS, 69), "Expression output must be a variable, got ",
                                    &d->as.seq.items[1]);
    return parse_unsupported(c, "expression clauses in :where");
}

static int parse_not_or(parse_ctx *c, const edn *d, const char *head) {
    size_t n = d->as.seq.count;
    const edn *items = d->as.seq.items;
    if (strcmp(head, "not") == 0 && n < 2)
        return err_set(c->e, ERR(PRS, 52), "(not) requires at least one clause");
    if (strcmp(head, "or") == 0 && n < 2)
        return err_set(c->e, ERR(PRS, 53), "(or) requires at least one branch");
    if (strcmp(head, "not-join") == 0 && n < 3)
        return err_set(c->e, ERR(PRS, 59),
                       "(not-join) requires a join vector and at least one clause");
    if (strcmp(head, "or-join") == 0) {
        if (n < 3)
            return err_set(c->e, ERR(PRS, 54),
                           "(or-join) requires a join vector and at least one branch");
        if (items[1].kind != EDN_VECTOR)
            return parse_describe_error(
                c, ERR(PRS, 55), "(or-join) first argument must be a vector of join variables, got ",
                &items[1]);
    }
    char what[32];
    snprintf(what, sizeof what, "(%s ...)", head);
    return parse_unsupported(c, what);
}

static int parse_list_clause(parse_ctx *c, const edn *d) {
    if (d->as.seq.count == 0)
        return err_set(c->e, ERR(PRS, 50), "Empty list in :where clause");
    const edn *head = &d->as.seq.items[0];
    if (head->kind != EDN_SYMBOL)
        return parse_describe_error(c, PARSE_SHAPE,
                                    "Rule invocation must start with predicate name (symbol), got ",
                                    head);
    static const char *const forms[] = {"not", "not-join", "or", "or-join"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (edn_is_symbol(head, forms[i]))
            return parse_not_or(c, d, forms[i]);
    return parse_unsupported(c, "rule invocations in :where");
}

int parse_where_clause(parse_ctx *c, const edn *d, ast_pattern *out) {
    if (d->kind == EDN_VECTOR) {
        if (d->as.seq.count > 0 && d->as.seq.items[0].kind == EDN_LIST)
            return parse_expression_clause(c, d);
        return parse_pattern(c, d, out);
    }
    if (d->kind == EDN_LIST)
        return parse_list_clause(c, d);
    return parse_describe_error(c, ERR(PRS, 60),
                                "Expected a pattern vector or a list in :where clause, got ", d);
}
