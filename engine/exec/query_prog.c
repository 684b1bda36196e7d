#include "exec/query_prog.h"

#include <stdbool.h>
#include <string.h>

#include "exec/match.h"
#include "exec/supported.h"

static const char *const pseudo_attributes[] = {":db/valid-from", ":db/valid-to", ":db/tx-count",
                                                ":db/tx-id", ":db/valid-at"};

static bool is_pseudo_attribute(const term *t) {
    if (t->kind != TERM_CONST || t->constant.type != VT_KEYWORD)
        return false;
    for (size_t i = 0; i < sizeof pseudo_attributes / sizeof *pseudo_attributes; i++) {
        size_t n = strlen(pseudo_attributes[i]);
        if (t->constant.as.str.len == n && memcmp(t->constant.as.str.ptr, pseudo_attributes[i], n) == 0)
            return true;
    }
    return false;
}

/* `?_x` is a wildcard even if a parser hands it over as a variable. */
static bool is_binding_var(const term *t) {
    return t->kind == TERM_VAR && !(t->name_len >= 2 && t->name[1] == '_');
}

static int check_pattern(const ast_pattern *p, err *e) {
    for (int pos = 0; pos < 3; pos++) {
        const term *t = match_pattern_term(p, pos);
        if (t->kind == TERM_SLOT)
            return err_set(e, ERR(API, 10),
                           "bind slot '$%.*s' needs a prepared query; plain execution does not "
                           "accept bind slots",
                           (int)t->name_len, t->name);
    }
    if (is_pseudo_attribute(&p->a))
        return err_set(e, ERR(INT, 0), "pseudo-attribute %.*s is not available in this version of minigraf",
                       (int)p->a.constant.as.str.len, p->a.constant.as.str.ptr);
    return 0;
}

static int find_var(const query_prog *p, const char *name, size_t len) {
    for (size_t v = 0; v < p->var_count; v++)
        if (p->vars[v].len == len && memcmp(p->vars[v].name, name, len) == 0)
            return (int)v;
    return -1;
}

/* Numbers the variables in order of first appearance and fills each
 * clause's var[] (first pass); then lists each variable's clauses. */
static void number_vars(query_prog *p) {
    for (size_t c = 0; c < p->clause_count; c++) {
        plan_clause *pc = &p->clauses[c];
        for (int pos = 0; pos < 3; pos++) {
            const term *t = match_pattern_term(pc->pattern, pos);
            pc->var[pos] = -1;
            if (!is_binding_var(t))
                continue;
            int v = find_var(p, t->name, t->name_len);
            if (v < 0) {
                v = (int)p->var_count++;
                p->vars[v] = (query_var){.name = t->name, .len = t->name_len};
            }
            if (!(pos > 0 && pc->var[0] == v) && !(pos > 1 && pc->var[1] == v))
                p->vars[v].clause_count++;
            pc->var[pos] = v;
        }
    }
}

static int list_var_clauses(query_prog *p, err *e) {
    for (size_t v = 0; v < p->var_count; v++) {
        p->vars[v].clauses = arena_calloc(&p->mem, p->vars[v].clause_count, sizeof(size_t));
        if (!p->vars[v].clauses)
            return err_set(e, ERR(INT, 0), "out of memory");
        p->vars[v].clause_count = 0;
    }
    for (size_t c = 0; c < p->clause_count; c++) {
        const int *var = p->clauses[c].var;
        for (int pos = 0; pos < 3; pos++) {
            if (var[pos] < 0 || (pos > 0 && var[0] == var[pos]) || (pos > 1 && var[1] == var[pos]))
                continue;
            query_var *qv = &p->vars[var[pos]];
            qv->clauses[qv->clause_count++] = c;
        }
    }
    return 0;
}

static int map_find(const ast_query *q, query_prog *p, err *e) {
    p->find_count = q->find_count;
    p->find = arena_calloc(&p->mem, q->find_count ? q->find_count : 1, sizeof *p->find);
    if (!p->find)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < q->find_count; i++) {
        const term *t = &q->find[i];
        int v = is_binding_var(t) ? find_var(p, t->name, t->name_len) : -1;
        if (v < 0)
            return err_set(e, ERR(PRS, 80), "variable %.*s in :find is not bound by :where",
                           (int)t->name_len, t->name ? t->name : "");
        p->find[i] = (size_t)v;
    }
    return 0;
}

static int compile_clauses(const ast_query *q, query_prog *p, err *e) {
    for (size_t c = 0; c < q->where_count; c++) {
        int rc = check_pattern(&q->where[c], e);
        if (rc != 0)
            return rc;
    }
    p->clause_count = q->where_count;
    p->clauses = arena_calloc(&p->mem, q->where_count, sizeof *p->clauses);
    p->vars = arena_calloc(&p->mem, 3 * q->where_count, sizeof *p->vars);
    if (!p->clauses || !p->vars)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t c = 0; c < q->where_count; c++)
        p->clauses[c].pattern = &q->where[c];
    number_vars(p);
    return list_var_clauses(p, e);
}

int query_compile(const ast_query *q, query_prog *p, err *e) {
    memset(p, 0, sizeof *p);
    arena_init(&p->mem);
    int rc = exec_check_supported(q, e);
    if (rc == 0 && q->where_count == 0)
        rc = err_set(e, ERR(PRS, 77),
                     "query has no :where clause, rules, or aggregates — nothing binds the variables.");
    if (rc == 0)
        rc = compile_clauses(q, p, e);
    if (rc == 0)
        rc = map_find(q, p, e);
    if (rc != 0)
        query_prog_free(p);
    return rc;
}

void query_prog_free(query_prog *p) {
    arena_free(&p->mem);
    memset(p, 0, sizeof *p);
    arena_init(&p->mem);
}
