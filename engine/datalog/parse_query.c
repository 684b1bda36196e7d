/* (query [...]): the section scanning of language.md §8.1. The vector is read left
 * to right; :as-of, :valid-at, :max-*, :order-by, :limit and :offset take
 * one element, :any-valid-time none, :with the run of variables after it,
 * and any other keyword sets the section that following elements belong to. */
#include <stdbool.h>
#include <string.h>

#include "datalog/parse_internal.h"
#include "model/timestamp.h"

typedef enum parse_section { SEC_NONE, SEC_FIND, SEC_WHERE, SEC_OTHER } parse_section;

typedef struct parse_scan {
    const edn *items;
    size_t count, pos;
    parse_section section;
    const edn *section_kw; /* the keyword that set SEC_OTHER */
    bool section_used;     /* SEC_OTHER got an element (it already failed then) */
} parse_scan;

/* The element after the keyword at s->pos, or NULL at the end. */
static const edn *parse_take_value(parse_scan *s) {
    if (s->pos + 1 >= s->count)
        return NULL;
    return &s->items[++s->pos];
}

static void parse_slot(const edn *v, term *out) {
    memset(out, 0, sizeof *out);
    out->kind = TERM_SLOT;
    out->name = v->as.text.ptr;
    out->name_len = v->as.text.len;
}

static int parse_as_of(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *kw = &s->items[s->pos], *v = parse_take_value(s);
    if (!v)
        return parse_fail(c, ERR(PRS, 14), kw, ":as-of requires a value");
    if (v->kind == EDN_INTEGER) {
        if (v->as.i < 0)
            return parse_fail(c, ERR(PRS, 15), v, ":as-of counter must be non-negative, got %lld",
                              (long long)v->as.i);
        q->as_of = AS_OF_COUNTER;
        q->as_of_value = v->as.i;
        return 0;
    }
    if (v->kind == EDN_STRING) {
        int rc = timestamp_parse(v->as.text.ptr, v->as.text.len, &q->as_of_value, c->e);
        if (!rc)
            q->as_of = AS_OF_TIME;
        return rc;
    }
    if (v->kind == EDN_SLOT) {
        q->as_of = AS_OF_SLOT;
        parse_slot(v, &q->as_of_slot);
        return 0;
    }
    return parse_fail_got(c, ERR(PRS, 16),
                          ":as-of must be a transaction counter or a timestamp string, got ", v);
}

static int parse_valid_at(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *kw = &s->items[s->pos], *v = parse_take_value(s);
    if (!v)
        return parse_fail(c, ERR(PRS, 17), kw, ":valid-at requires a value");
    if (edn_is_keyword(v, ":any-valid-time")) {
        q->valid = VALID_ANY;
        return 0;
    }
    if (v->kind == EDN_STRING) {
        int rc = timestamp_parse(v->as.text.ptr, v->as.text.len, &q->valid_at, c->e);
        if (!rc)
            q->valid = VALID_AT;
        return rc;
    }
    if (v->kind == EDN_SLOT) {
        q->valid = VALID_SLOT;
        parse_slot(v, &q->valid_slot);
        return 0;
    }
    return parse_fail_got(c, ERR(PRS, 18),
                          ":valid-at must be a timestamp string or :any-valid-time, got ", v);
}

/* :max-derived-facts / :max-results N, N >= 1, once. */
static int parse_max(parse_ctx *c, parse_scan *s, bool *has, int64_t *out) {
    const edn *kw = &s->items[s->pos], *v = parse_take_value(s);
    const char *name = kw->as.text.ptr;
    if (*has)
        return parse_fail(c, PARSE_SHAPE, kw, "duplicate %s", name);
    if (!v || v->kind != EDN_INTEGER)
        return parse_fail(c, PARSE_SHAPE, v ? v : kw, "%s must be a positive integer", name);
    if (v->as.i < 1)
        return parse_fail(c, PARSE_SHAPE, v, "%s must be >= 1, got %lld", name, (long long)v->as.i);
    *has = true;
    *out = v->as.i;
    return 0;
}

/* :limit / :offset N, N >= 0, once. */
static int parse_count(parse_ctx *c, parse_scan *s, bool *has, int64_t *out) {
    const edn *kw = &s->items[s->pos], *v = parse_take_value(s);
    const char *name = kw->as.text.ptr;
    char what[PARSE_DESCRIBE_CAP];
    if (*has)
        return parse_fail(c, PARSE_LIMITS, kw, "duplicate %s", name);
    if (!v)
        return parse_fail(c, PARSE_LIMITS, kw, "%s requires a non-negative integer", name);
    if (v->kind != EDN_INTEGER || v->as.i < 0) {
        edn_describe(v, what, sizeof what);
        return parse_fail(c, PARSE_LIMITS, v, "%s must be a non-negative integer, got %s", name,
                          what);
    }
    *has = true;
    *out = v->as.i;
    return 0;
}

/* :order-by [?a :desc ?b ...] */
static int parse_order_by(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *kw = &s->items[s->pos], *v = parse_take_value(s);
    if (q->order_by)
        return parse_fail(c, PARSE_LIMITS, kw, "duplicate :order-by");
    if (!v)
        return parse_fail(c, PARSE_LIMITS, kw, ":order-by requires a vector [?var :asc|:desc ...]");
    if (v->kind != EDN_VECTOR || v->as.seq.count == 0)
        return parse_fail_got(c, PARSE_LIMITS,
                              ":order-by requires a non-empty vector [?var :asc|:desc ...], got ",
                              v);
    q->order_by = parse_array(c, v->as.seq.count, sizeof(ast_order_key));
    if (!q->order_by)
        return parse_oom(c);
    bool direction_ok = false; /* a direction may follow a key once */
    for (size_t i = 0; i < v->as.seq.count; i++) {
        const edn *k = &v->as.seq.items[i];
        bool asc = edn_is_keyword(k, ":asc"), desc = edn_is_keyword(k, ":desc");
        if ((asc || desc) && direction_ok) {
            q->order_by[q->order_count - 1].desc = desc;
            direction_ok = false;
            continue;
        }
        if (!parse_is_variable(k))
            return parse_fail_got(
                c, PARSE_LIMITS,
                ":order-by expects a variable optionally followed by :asc or :desc, got ", k);
        parse_var_term(k, &q->order_by[q->order_count++].var);
        direction_ok = true;
    }
    return 0;
}

/* :with ?a ?b ...: the run of elements up to the next keyword. */
static int parse_with(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *kw = &s->items[s->pos];
    size_t start = q->with_count;
    while (s->pos + 1 < s->count && s->items[s->pos + 1].kind != EDN_KEYWORD) {
        const edn *v = &s->items[++s->pos];
        if (!parse_is_variable(v))
            return parse_fail_got(c, PARSE_SHAPE, "':with' clause accepts only variables, got ", v);
        parse_var_term(v, &q->with[q->with_count++]);
    }
    if (q->with_count == start)
        return parse_fail(c, PARSE_SHAPE, kw, "':with' requires at least one variable");
    return 0;
}

/* An unknown section keyword is accepted only if an element follows it,
 * which then fails with PRS-061 (so `:in ...` reports the spec's code); a
 * bare unknown keyword is rejected here. */
static int parse_close_section(parse_ctx *c, parse_scan *s) {
    if (s->section == SEC_OTHER && !s->section_used)
        return parse_fail(c, PARSE_SHAPE, s->section_kw, "Unknown section keyword in query: %s",
                          s->section_kw->as.text.ptr);
    return 0;
}

/* The keywords that take their value(s) without changing the section. */
static int parse_option_keyword(parse_ctx *c, parse_scan *s, ast_query *q, bool *handled) {
    const edn *kw = &s->items[s->pos];
    *handled = true;
    if (edn_is_keyword(kw, ":as-of"))
        return parse_as_of(c, s, q);
    if (edn_is_keyword(kw, ":valid-at"))
        return parse_valid_at(c, s, q);
    if (edn_is_keyword(kw, ":any-valid-time")) {
        q->valid = VALID_ANY;
        return 0;
    }
    if (edn_is_keyword(kw, ":with"))
        return parse_with(c, s, q);
    if (edn_is_keyword(kw, ":max-derived-facts"))
        return parse_max(c, s, &q->has_max_derived_facts, &q->max_derived_facts);
    if (edn_is_keyword(kw, ":max-results"))
        return parse_max(c, s, &q->has_max_results, &q->max_results);
    if (edn_is_keyword(kw, ":limit"))
        return parse_count(c, s, &q->has_limit, &q->limit);
    if (edn_is_keyword(kw, ":offset"))
        return parse_count(c, s, &q->has_offset, &q->offset);
    if (edn_is_keyword(kw, ":order-by"))
        return parse_order_by(c, s, q);
    *handled = false;
    return 0;
}

static int parse_section_keyword(parse_ctx *c, parse_scan *s, ast_query *q) {
    bool handled;
    int rc = parse_option_keyword(c, s, q, &handled);
    if (rc || handled)
        return rc;
    rc = parse_close_section(c, s);
    if (rc)
        return rc;
    const edn *kw = &s->items[s->pos];
    s->section = edn_is_keyword(kw, ":find")    ? SEC_FIND
                 : edn_is_keyword(kw, ":where") ? SEC_WHERE
                                                : SEC_OTHER;
    s->section_kw = kw;
    s->section_used = false;
    return 0;
}

static int parse_section_element(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *d = &s->items[s->pos];
    switch (s->section) {
    case SEC_FIND: return parse_find_spec(c, d, &q->specs[q->spec_count++]);
    case SEC_WHERE: return parse_clause(c, d, false, &q->body.items[q->body.count++]);
    default:
        s->section_used = true;
        return parse_fail_got(c, ERR(PRS, 61), "Unexpected element in query: ", d);
    }
}

/* The executor's views: plain :find variables and top-level patterns. */
static void parse_query_views(ast_query *q) {
    for (size_t i = 0; i < q->spec_count; i++)
        if (q->specs[i].kind == FIND_VAR)
            q->find[q->find_count++] = q->specs[i].var;
    for (size_t i = 0; i < q->body.count; i++)
        if (q->body.items[i].kind == CL_PATTERN)
            q->where[q->where_count++] = q->body.items[i].as.pattern;
}

static int parse_query_vector(parse_ctx *c, const edn *vec, ast_query *q) {
    parse_scan s = {vec->as.seq.items, vec->as.seq.count, 0, SEC_NONE, NULL, false};
    /* Each element adds at most one spec, clause or :with variable. */
    q->specs = parse_array(c, s.count, sizeof(ast_find));
    q->find = parse_array(c, s.count, sizeof(term));
    q->body.items = parse_array(c, s.count, sizeof(ast_clause));
    q->where = parse_array(c, s.count, sizeof(ast_pattern));
    q->with = parse_array(c, s.count, sizeof(term));
    if (!q->specs || !q->find || !q->body.items || !q->where || !q->with)
        return parse_oom(c);
    for (; s.pos < s.count; s.pos++) {
        int rc = s.items[s.pos].kind == EDN_KEYWORD ? parse_section_keyword(c, &s, q)
                                                    : parse_section_element(c, &s, q);
        if (rc)
            return rc;
    }
    int rc = parse_close_section(c, &s);
    if (rc)
        return rc;
    parse_query_views(q);
    return parse_check_query(c, q);
}

int parse_query(parse_ctx *c, parse_args args, ast_query *out) {
    memset(out, 0, sizeof *out);
    out->as_of = AS_OF_NONE;
    out->valid = VALID_NOW;
    if (args.count == 0)
        return err_set(c->e, ERR(PRS, 13), "Query requires a map argument");
    if (args.items[0].kind != EDN_VECTOR)
        return parse_fail_got(c, PARSE_SHAPE, "Query argument must be a vector, got ",
                              &args.items[0]);
    if (args.count > 1)
        return parse_trailing(c, "query", &args.items[1]);
    return parse_query_vector(c, &args.items[0], out);
}
