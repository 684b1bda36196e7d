/* (query [...]): the section scanning of spec 8.1. The vector is read left
 * to right; :as-of and :valid-at take one element, :any-valid-time none, and
 * any other keyword sets the section that following elements belong to. */
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

static int parse_slot_error(parse_ctx *c, const edn *d) {
    return err_set(c->e, ERR(API, 10), "bind slots require a prepared query: $%s", d->as.text.ptr);
}

static int parse_describe_err(parse_ctx *c, int code, const char *text, const edn *d) {
    char what[PARSE_DESCRIBE_CAP];
    edn_describe(d, what, sizeof what);
    return err_set(c->e, code, "%s%s", text, what);
}

/* The element after the keyword at s->pos, or NULL at the end. */
static const edn *parse_take_value(parse_scan *s) {
    if (s->pos + 1 >= s->count)
        return NULL;
    return &s->items[++s->pos];
}

static int parse_as_of(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *v = parse_take_value(s);
    if (!v)
        return err_set(c->e, ERR(PRS, 14), ":as-of requires a value");
    if (v->kind == EDN_INTEGER) {
        if (v->as.i < 0)
            return err_set(c->e, ERR(PRS, 15), ":as-of counter must be non-negative, got %lld",
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
    if (v->kind == EDN_SLOT)
        return parse_slot_error(c, v);
    return parse_describe_err(c, ERR(PRS, 16),
                              ":as-of must be a transaction counter or a timestamp string, got ", v);
}

static int parse_valid_at(parse_ctx *c, parse_scan *s, ast_query *q) {
    const edn *v = parse_take_value(s);
    if (!v)
        return err_set(c->e, ERR(PRS, 17), ":valid-at requires a value");
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
    if (v->kind == EDN_SLOT)
        return parse_slot_error(c, v);
    return parse_describe_err(c, ERR(PRS, 18),
                              ":valid-at must be a timestamp string or :any-valid-time, got ", v);
}

/* An unknown section keyword is accepted only if an element follows it,
 * which then fails with PRS-061 (so `:in ...` reports the spec's code); a
 * bare unknown keyword is rejected here. */
static int parse_close_section(parse_ctx *c, parse_scan *s) {
    if (s->section == SEC_OTHER && !s->section_used)
        return err_set(c->e, PARSE_SHAPE, "Unknown section keyword in query: %s",
                       s->section_kw->as.text.ptr);
    return 0;
}

static int parse_section_keyword(parse_ctx *c, parse_scan *s, ast_query *q) {
    static const char *const later[] = {":with",  ":max-derived-facts", ":max-results",
                                        ":order-by", ":limit", ":offset"};
    const edn *kw = &s->items[s->pos];
    if (edn_is_keyword(kw, ":as-of"))
        return parse_as_of(c, s, q);
    if (edn_is_keyword(kw, ":valid-at"))
        return parse_valid_at(c, s, q);
    if (edn_is_keyword(kw, ":any-valid-time")) {
        q->valid = VALID_ANY;
        return 0;
    }
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (edn_is_keyword(kw, later[i]))
            return parse_unsupported(c, later[i]);
    int rc = parse_close_section(c, s);
    if (rc)
        return rc;
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
    case SEC_FIND:
        return parse_find_spec(c, d, &q->find[q->find_count++]);
    case SEC_WHERE:
        return parse_where_clause(c, d, &q->where[q->where_count++]);
    default:
        s->section_used = true;
        return parse_describe_err(c, ERR(PRS, 61), "Unexpected element in query: ", d);
    }
}

static bool parse_term_is_var(const term *t, const term *var) {
    return t->kind == TERM_VAR && t->name_len == var->name_len &&
           memcmp(t->name, var->name, var->name_len) == 0;
}

/* [v3] PRS-080: every :find variable is bound by a :where pattern. A query
 * without :where is left to the executor, which reports that instead. */
static int parse_check_find_bound(parse_ctx *c, const ast_query *q) {
    if (q->where_count == 0)
        return 0;
    for (size_t i = 0; i < q->find_count; i++) {
        const term *v = &q->find[i];
        bool bound = false;
        for (size_t j = 0; j < q->where_count && !bound; j++) {
            const ast_pattern *p = &q->where[j];
            bound = parse_term_is_var(&p->e, v) || parse_term_is_var(&p->a, v) ||
                    parse_term_is_var(&p->v, v);
        }
        if (!bound)
            return err_set(c->e, ERR(PRS, 80), "variable %s in :find is not bound by any :where clause",
                           v->name);
    }
    return 0;
}

static int parse_query_vector(parse_ctx *c, const edn *vec, ast_query *q) {
    parse_scan s = {vec->as.seq.items, vec->as.seq.count, 0, SEC_NONE, NULL, false};
    /* Each element adds at most one find spec or one pattern. */
    q->find = arena_calloc(c->a, s.count, sizeof(term));
    q->where = arena_calloc(c->a, s.count, sizeof(ast_pattern));
    if (!q->find || !q->where)
        return err_set(c->e, PARSE_OOM, "Out of memory");
    for (; s.pos < s.count; s.pos++) {
        int rc = s.items[s.pos].kind == EDN_KEYWORD ? parse_section_keyword(c, &s, q)
                                                    : parse_section_element(c, &s, q);
        if (rc)
            return rc;
    }
    int rc = parse_close_section(c, &s);
    return rc ? rc : parse_check_find_bound(c, q);
}

int parse_query(parse_ctx *c, parse_args args, ast_query *out) {
    memset(out, 0, sizeof *out);
    out->as_of = AS_OF_NONE;
    out->valid = VALID_NOW;
    if (args.count == 0)
        return err_set(c->e, ERR(PRS, 13), "Query requires a map argument");
    if (args.items[0].kind != EDN_VECTOR)
        return err_set(c->e, PARSE_SHAPE, "Query argument must be a vector");
    if (args.count > 1)
        return parse_trailing(c, "query", &args.items[1]);
    return parse_query_vector(c, &args.items[0], out);
}
