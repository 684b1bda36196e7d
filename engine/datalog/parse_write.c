/* transact and retract (language.md §4.1, §5). E, A and V stay datums; converting
 * them is the executor's job. */
#include <stdbool.h>

#include "datalog/parse_internal.h"
#include "model/timestamp.h"

typedef struct parse_window {
    bool has_from, has_to;
    int64_t from, to;
} parse_window;

/* {:valid-from "..." :valid-to "..."}; a repeated key: the last one wins. */
static int parse_vt_map(parse_ctx *c, const edn *map, parse_window *w) {
    char what[PARSE_DESCRIBE_CAP];
    for (size_t i = 0; i + 1 < map->as.seq.count; i += 2) {
        const edn *key = &map->as.seq.items[i], *val = &map->as.seq.items[i + 1];
        bool from = edn_is_keyword(key, ":valid-from");
        if (!from && !edn_is_keyword(key, ":valid-to")) {
            edn_describe(key, what, sizeof what);
            return parse_fail(
                c, PARSE_SHAPE, key,
                "Unknown key in valid-time map: %s; expected :valid-from or :valid-to", what);
        }
        if (val->kind != EDN_STRING) {
            edn_describe(val, what, sizeof what);
            return parse_fail(c, from ? ERR(PRS, 19) : ERR(PRS, 20), val,
                              "%s must be a timestamp string, got %s",
                              from ? ":valid-from" : ":valid-to", what);
        }
        int64_t ms;
        int rc = timestamp_parse(val->as.text.ptr, val->as.text.len, &ms, c->e);
        if (rc)
            return rc;
        if (from)
            w->has_from = true, w->from = ms;
        else
            w->has_to = true, w->to = ms;
    }
    return 0;
}

static int parse_fact(parse_ctx *c, const edn *d, ast_fact *out) {
    char what[PARSE_DESCRIBE_CAP];
    if (d->kind != EDN_VECTOR)
        return parse_fail(c, ERR(PRS, 45), d,
                          "Each fact must be a vector [e a v] or [e a v {opts}]");
    size_t n = d->as.seq.count;
    if (n < 3)
        return parse_fail(c, ERR(PRS, 46), d, "Fact must have at least 3 elements (E A V), got %zu",
                          n);
    const edn *items = d->as.seq.items;
    out->e = &items[0];
    out->a = &items[1];
    out->v = &items[2];
    if (n == 3)
        return 0;
    if (items[3].kind != EDN_MAP) {
        edn_describe(&items[3], what, sizeof what);
        return parse_fail(c, ERR(PRS, 47), &items[3],
                          "Optional 4th element of a fact must be a map {:valid-from ... :valid-to "
                          "...}, got %s",
                          what);
    }
    if (n > 4)
        return parse_fail(c, ERR(PRS, 47), d,
                          "A fact has at most 4 elements [e a v {opts}], got %zu", n);
    parse_window w = {0};
    int rc = parse_vt_map(c, &items[3], &w);
    out->has_valid_from = w.has_from, out->valid_from = w.from;
    out->has_valid_to = w.has_to, out->valid_to = w.to;
    return rc;
}

/* The facts of the vector `facts`, each read by `parse_one`. */
static int parse_facts(parse_ctx *c, const edn *facts,
                       int (*parse_one)(parse_ctx *, const edn *, ast_fact *), ast_write *out) {
    out->count = facts->as.seq.count;
    out->facts = arena_calloc(c->a, out->count, sizeof(ast_fact));
    if (!out->facts)
        return err_set(c->e, PARSE_OOM, "Out of memory");
    for (size_t i = 0; i < out->count; i++) {
        int rc = parse_one(c, &facts->as.seq.items[i], &out->facts[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int parse_transact(parse_ctx *c, parse_args args, ast_write *out) {
    if (args.count == 0)
        return err_set(c->e, ERR(PRS, 41), "Transact requires a vector of facts");
    size_t next = 0;
    if (args.items[0].kind == EDN_MAP) {
        parse_window w = {0};
        int rc = parse_vt_map(c, &args.items[0], &w);
        if (rc)
            return rc;
        out->has_valid_from = w.has_from, out->valid_from = w.from;
        out->has_valid_to = w.has_to, out->valid_to = w.to;
        if (args.count == 1)
            return parse_fail(c, ERR(PRS, 48), &args.items[0],
                              "Transact with options requires a facts vector after the map");
        next = 1;
    }
    const edn *facts = &args.items[next];
    if (facts->kind != EDN_VECTOR)
        return parse_fail(c, ERR(PRS, 42), facts, "Transact argument must be a vector of facts");
    if (args.count > next + 1)
        return parse_trailing(c, "transact", &args.items[next + 1]);
    return parse_facts(c, facts, parse_fact, out);
}

static int parse_triple(parse_ctx *c, const edn *d, ast_fact *out) {
    if (d->kind != EDN_VECTOR)
        return parse_fail(c, ERR(PRS, 45), d, "Each fact must be a vector [e a v]");
    if (d->as.seq.count != 3)
        return parse_fail(c, PARSE_SHAPE, d,
                          "Pattern must have exactly 3 elements (E A V), got %zu", d->as.seq.count);
    out->e = &d->as.seq.items[0];
    out->a = &d->as.seq.items[1];
    out->v = &d->as.seq.items[2];
    return 0;
}

int parse_retract(parse_ctx *c, parse_args args, ast_write *out) {
    if (args.count == 0)
        return err_set(c->e, ERR(PRS, 43), "Retract requires a vector of facts");
    const edn *facts = &args.items[0];
    if (facts->kind != EDN_VECTOR)
        return parse_fail(c, ERR(PRS, 44), facts, "Retract argument must be a vector of facts");
    if (args.count > 1)
        return parse_trailing(c, "retract", &args.items[1]);
    return parse_facts(c, facts, parse_triple, out);
}
