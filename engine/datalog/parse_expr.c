/* Expression clauses (language.md §8.5): [(op a b)] filters and [(op a b) ?out]
 * bindings, nested expressions as arguments, the built-in operators with
 * their arities, host predicates (any other name with one argument), and
 * matches? whose pattern must be a string literal compiled here. */
#include <string.h>

#include "datalog/parse_internal.h"
#include "model/value.h"
#include "regex/regex.h"

typedef struct parse_op {
    const char *name;
    expr_op op;
    size_t arity;
} parse_op;

static const parse_op parse_ops[] = {
    {"<", OP_LT, 2},
    {"<=", OP_LE, 2},
    {">", OP_GT, 2},
    {">=", OP_GE, 2},
    {"=", OP_EQ, 2},
    {"!=", OP_NE, 2},
    {"+", OP_ADD, 2},
    {"-", OP_SUB, 2},
    {"*", OP_MUL, 2},
    {"/", OP_DIV, 2},
    {"starts-with?", OP_STARTS_WITH, 2},
    {"ends-with?", OP_ENDS_WITH, 2},
    {"contains?", OP_CONTAINS, 2},
    {"matches?", OP_MATCHES, 2},
    {"string?", OP_IS_STRING, 1},
    {"integer?", OP_IS_INTEGER, 1},
    {"float?", OP_IS_FLOAT, 1},
    {"boolean?", OP_IS_BOOLEAN, 1},
    {"nil?", OP_IS_NIL, 1},
};

static const parse_op *parse_find_op(const edn *head) {
    for (size_t i = 0; i < sizeof parse_ops / sizeof parse_ops[0]; i++)
        if (edn_is_symbol(head, parse_ops[i].name))
            return &parse_ops[i];
    return NULL;
}

static int parse_expr(parse_ctx *c, const edn *d, ast_expr *out);

static int parse_expr_arg(parse_ctx *c, const edn *d, ast_expr *out) {
    memset(out, 0, sizeof *out);
    out->kind = EXPR_TERM;
    switch (d->kind) {
    case EDN_LIST: return parse_expr(c, d, out);
    case EDN_SYMBOL:
        if (!parse_is_variable(d))
            break;
        parse_var_term(d, &out->arg);
        return 0;
    case EDN_INTEGER:
    case EDN_FLOAT:
    case EDN_STRING:
    case EDN_BOOLEAN:
    case EDN_NIL:
    case EDN_KEYWORD:
    case EDN_SLOT: return parse_term(c, d, POS_ARG, &out->arg);
    default: break;
    }
    return parse_fail_got(c, ERR(PRS, 70), "unsupported expression argument: ", d);
}

static int parse_matches_pattern(parse_ctx *c, const edn *pat, ast_expr *out) {
    if (pat->kind != EDN_STRING)
        return parse_fail_got(c, ERR(PRS, 66), "matches? pattern must be a string literal, got ",
                              pat);
    char why[160];
    regex_prog *prog;
    if (regex_compile(pat->as.text.ptr, pat->as.text.len, c->a, &prog, why, sizeof why))
        return parse_fail(c, PARSE_REGEX, pat, "invalid regex pattern \"%.*s\": %s",
                          (int)(pat->as.text.len > 64 ? 64 : pat->as.text.len), pat->as.text.ptr,
                          why);
    out->regex = prog;
    return 0;
}

/* Arity: built-ins by their table; unknown names are host predicates of
 * exactly one argument (two arguments: unknown operator). */
static int parse_expr_arity(parse_ctx *c, const edn *d, const parse_op *op, size_t argc) {
    const char *name = d->as.seq.items[0].as.text.ptr;
    if (op && op->arity == 2 && argc != 2)
        return parse_fail(c, ERR(PRS, 65), d, "%s takes exactly 2 arguments, got %zu", name, argc);
    if (op && op->arity == 1 && argc != 1)
        return parse_fail(c, ERR(PRS, 64), d, "%s takes exactly 1 argument, got %zu", name, argc);
    if (!op && argc == 2)
        return parse_fail(c, ERR(PRS, 67), d, "unknown expression operator: %s", name);
    if (!op && argc != 1)
        return parse_fail(c, ERR(PRS, 64), d, "%s takes exactly 1 argument, got %zu", name, argc);
    return 0;
}

static int parse_expr(parse_ctx *c, const edn *d, ast_expr *out) {
    size_t n = d->as.seq.count;
    if (n == 0)
        return parse_fail(c, ERR(PRS, 62), d, "Empty expression list");
    const edn *head = &d->as.seq.items[0];
    if (head->kind != EDN_SYMBOL)
        return parse_fail_got(c, ERR(PRS, 63), "expression head must be a symbol, got ", head);
    const parse_op *op = parse_find_op(head);
    /* There is no unary minus (language.md §8.5.1): (- ?x), like any
     * one-argument call of an arithmetic operator, is a call of a host
     * predicate of that name, unknown at execution (QRY-007). */
    if (op && op->op >= OP_ADD && op->op <= OP_DIV && n - 1 == 1)
        op = NULL;
    int rc = parse_expr_arity(c, d, op, n - 1);
    if (rc)
        return rc;
    if (++c->depth > PARSE_MAX_DEPTH)
        return parse_fail(c, PARSE_STRUCTURE, d, "Exceeded maximum recursion depth of %d",
                          PARSE_MAX_DEPTH);
    out->kind = EXPR_CALL;
    out->op = op ? op->op : OP_HOST;
    out->name = head->as.text.ptr;
    out->name_len = head->as.text.len;
    out->argc = n - 1;
    out->args = parse_array(c, out->argc, sizeof(ast_expr));
    if (!out->args)
        return parse_oom(c);
    for (size_t i = 0; i < out->argc && !rc; i++) {
        if (out->op == OP_MATCHES && i == 1)
            rc = parse_matches_pattern(c, &d->as.seq.items[2], out);
        if (!rc)
            rc = parse_expr_arg(c, &d->as.seq.items[i + 1], &out->args[i]);
    }
    c->depth--;
    return rc;
}

int parse_expr_clause(parse_ctx *c, const edn *d, ast_expr_clause *out) {
    memset(out, 0, sizeof *out);
    size_t n = d->as.seq.count;
    if (n > 2)
        return parse_fail(c, ERR(PRS, 68), d,
                          "Expression clause must be [(expr)] or [(expr) ?out], got %zu elements",
                          n);
    if (n == 2) {
        if (!parse_is_variable(&d->as.seq.items[1]))
            return parse_fail_got(c, ERR(PRS, 69), "Expression output must be a variable, got ",
                                  &d->as.seq.items[1]);
        out->has_out = true;
        parse_var_term(&d->as.seq.items[1], &out->out);
    }
    return parse_expr(c, &d->as.seq.items[0], &out->expr);
}
