/* (rule [(head ?args...) body...]) (language.md §9.1). The body is a conjunction
 * of where clauses with the safety checks of language.md §8.10; registering is the
 * rule engine's business. */
#include <string.h>

#include "datalog/parse_internal.h"

static int parse_rule_head(parse_ctx *c, const edn *head, ast_rule *out) {
    if (head->kind != EDN_LIST)
        return parse_fail(c, PARSE_SHAPE, head, "Rule head must be a list: (predicate ?args)");
    if (head->as.seq.count == 0)
        return parse_fail(c, PARSE_SHAPE, head, "Rule head cannot be empty");
    const edn *name = &head->as.seq.items[0];
    if (name->kind != EDN_SYMBOL)
        return parse_fail(c, PARSE_SHAPE, name,
                          "Rule head must start with a symbol (predicate name)");
    if (head->as.seq.count > 3)
        return parse_fail(c, PARSE_SHAPE, head, "rule head must have 1 or 2 arguments, got %zu",
                          head->as.seq.count - 1);
    out->name = name->as.text.ptr;
    out->name_len = name->as.text.len;
    out->argc = head->as.seq.count - 1;
    out->args = parse_array(c, out->argc, sizeof(term));
    if (!out->args)
        return parse_oom(c);
    for (size_t i = 0; i < out->argc; i++) {
        int rc = parse_term(c, &head->as.seq.items[i + 1], POS_ARG, &out->args[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int parse_rule(parse_ctx *c, parse_args args, ast_rule *out) {
    memset(out, 0, sizeof *out);
    if (args.count == 0)
        return err_set(c->e, PARSE_SHAPE, "Rule must have a body");
    const edn *vec = &args.items[0];
    if (vec->kind != EDN_VECTOR)
        return parse_fail_got(c, PARSE_SHAPE, "Rule body must be a vector, got ", vec);
    if (args.count > 1)
        return parse_trailing(c, "rule", &args.items[1]);
    size_t n = vec->as.seq.count;
    if (n == 0)
        return parse_fail(c, PARSE_SHAPE, vec, "Rule body cannot be empty");
    int rc = parse_rule_head(c, &vec->as.seq.items[0], out);
    if (rc)
        return rc;
    if (n == 1)
        return parse_fail(c, PARSE_SHAPE, vec,
                          "Rule must have at least one pattern or rule invocation in body");
    for (size_t i = 1; i < n; i++) {
        const edn *d = &vec->as.seq.items[i];
        if (d->kind != EDN_VECTOR && d->kind != EDN_LIST)
            return parse_fail_got(c, PARSE_SHAPE,
                                  "Rule body clause must be a vector (pattern) or list (rule "
                                  "invocation / not), got ",
                                  d);
    }
    rc = parse_body(c, vec->as.seq.items + 1, n - 1, false, &out->body);
    return rc ? rc : parse_check_rule(c, out);
}
