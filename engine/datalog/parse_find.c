/* :find specs (language.md §8.2): variables, aggregates (fn ?x) (language.md §10.1) and
 * window expressions (fn ?x :over (...)) / (rank :over (...)) (language.md §11.1).
 * A list is a window spec when it contains the keyword :over anywhere. */
#include <string.h>

#include "datalog/parse_internal.h"

static bool parse_name_is(const edn *d, const char *const *names) {
    for (; *names; names++)
        if (edn_is_symbol(d, *names))
            return true;
    return false;
}

static const char *const parse_rank_fns[] = {"rank", "row-number", NULL};

static void parse_fn_name(const edn *d, ast_find *out) {
    out->fn = d->as.text.ptr;
    out->fn_len = d->as.text.len;
}

static int parse_aggregate(parse_ctx *c, const edn *d, ast_find *out) {
    static const char *const window_only[] = {"rank", "row-number", NULL};
    const edn *items = d->as.seq.items;
    size_t n = d->as.seq.count;
    if (n != 2)
        return parse_fail(c, ERR(PRS, 24), d,
                          "Aggregate expression must have exactly 2 elements (func ?var), got %zu",
                          n);
    if (items[0].kind != EDN_SYMBOL)
        return parse_fail_got(c, ERR(PRS, 25), "Aggregate function name must be a symbol, got ",
                              &items[0]);
    if (parse_name_is(&items[0], window_only))
        return parse_fail(c, ERR(PRS, 27), &items[0],
                          "'%s' is a window function and requires an ':over (...)' clause",
                          items[0].as.text.ptr);
    if (!parse_is_variable(&items[1]))
        return parse_fail_got(c, ERR(PRS, 26), "Aggregate argument must be a variable, got ",
                              &items[1]);
    out->kind = FIND_AGGREGATE;
    parse_fn_name(&items[0], out);
    out->has_var = true;
    parse_var_term(&items[1], &out->var);
    return 0;
}

/* The options of (:partition-by ?p :order-by ?o :asc/:desc); any order,
 * the last repeated option wins, :order-by is required. */
static int parse_over(parse_ctx *c, const edn *over, ast_find *out) {
    const edn *items = over->as.seq.items;
    size_t n = over->as.seq.count;
    bool has_order = false;
    for (size_t i = 0; i < n; i++) {
        const edn *opt = &items[i];
        bool part = edn_is_keyword(opt, ":partition-by"), order = edn_is_keyword(opt, ":order-by");
        if (part || order) {
            if (i + 1 >= n || !parse_is_variable(&items[i + 1]))
                return parse_fail(c, part ? ERR(PRS, 37) : ERR(PRS, 38), opt,
                                  "'%s' in ':over' must be followed by a variable",
                                  opt->as.text.ptr);
            parse_var_term(&items[++i], part ? &out->partition_by : &out->order_by);
            if (part)
                out->has_partition = true;
            else
                has_order = true;
        } else if (edn_is_keyword(opt, ":asc") || edn_is_keyword(opt, ":desc")) {
            out->desc = edn_is_keyword(opt, ":desc");
        } else if (opt->kind == EDN_KEYWORD) {
            return parse_fail(
                c, ERR(PRS, 39), opt,
                "Unknown ':over' option %s; expected :partition-by, :order-by, :asc or :desc",
                opt->as.text.ptr);
        } else {
            return parse_fail_got(c, ERR(PRS, 40), "Unexpected element in ':over' clause, got ",
                                  opt);
        }
    }
    if (!has_order)
        return parse_fail(c, ERR(PRS, 38), over, "':order-by' is required in the ':over' clause");
    return 0;
}

/* Checks the shape up to :over and returns the index of :over. */
static int parse_window_head(parse_ctx *c, const edn *d, ast_find *out, size_t *over_at) {
    static const char *const not_window[] = {"count-distinct", "sum-distinct", NULL};
    const edn *items = d->as.seq.items;
    size_t n = d->as.seq.count;
    if (n == 0)
        return parse_fail(c, ERR(PRS, 28), d, "Empty window expression");
    if (items[0].kind != EDN_SYMBOL)
        return parse_fail_got(c, ERR(PRS, 29), "Window function name must be a symbol, got ",
                              &items[0]);
    const char *fn = items[0].as.text.ptr;
    if (parse_name_is(&items[0], not_window))
        return parse_fail(c, ERR(PRS, 31), &items[0],
                          "'%s' is not window-compatible and cannot be used with ':over'", fn);
    parse_fn_name(&items[0], out);
    if (parse_name_is(&items[0], parse_rank_fns)) {
        if (n < 2 || !edn_is_keyword(&items[1], ":over"))
            return parse_fail(c, ERR(PRS, 34), d,
                              "'%s' takes no variable: ':over' must follow the name", fn);
        *over_at = 1;
        return 0;
    }
    if (n < 2 || !parse_is_variable(&items[1]))
        return parse_fail(c, ERR(PRS, 32), d,
                          "Window function '%s' requires a variable before ':over'", fn);
    if (n < 3 || !edn_is_keyword(&items[2], ":over"))
        return parse_fail(c, ERR(PRS, 33), d,
                          "Window function '%s' expects ':over' after its variable", fn);
    out->has_var = true;
    parse_var_term(&items[1], &out->var);
    *over_at = 2;
    return 0;
}

static int parse_window(parse_ctx *c, const edn *d, ast_find *out) {
    size_t at = 0;
    int rc = parse_window_head(c, d, out, &at);
    if (rc)
        return rc;
    const edn *items = d->as.seq.items;
    size_t n = d->as.seq.count;
    if (at + 1 >= n || items[at + 1].kind != EDN_LIST)
        return parse_fail(c, ERR(PRS, 35), &items[at],
                          "':over' must be followed by a list of options");
    if (at + 2 < n)
        return parse_fail_got(c, ERR(PRS, 36), "Unexpected element after the ':over' clause, got ",
                              &items[at + 2]);
    out->kind = FIND_WINDOW;
    return parse_over(c, &items[at + 1], out);
}

static bool parse_has_over(const edn *d) {
    for (size_t i = 0; i < d->as.seq.count; i++)
        if (edn_is_keyword(&d->as.seq.items[i], ":over"))
            return true;
    return false;
}

int parse_find_spec(parse_ctx *c, const edn *d, ast_find *out) {
    memset(out, 0, sizeof *out);
    if (parse_is_variable(d)) {
        out->kind = FIND_VAR;
        out->has_var = true;
        parse_var_term(d, &out->var);
        return 0;
    }
    if (d->kind == EDN_LIST)
        return parse_has_over(d) ? parse_window(c, d, out) : parse_aggregate(c, d, out);
    return parse_fail_got(c, PARSE_SHAPE,
                          "Expected variable or aggregate expression in :find clause, got ", d);
}
