/* What a database says about itself (db.h, "Introspection"): the plan of a
 * query, the store's figures, the registered rules. */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "datalog/print.h"
#include "db/db_internal.h"
#include "plan/explain.h"
#include "rules/registry.h"
#include "storage/format.h"

static const char *kind_name(plan_kind k) {
    switch (k) {
    case PK_PATTERN: return "pattern";
    case PK_PSEUDO: return "pseudo";
    case PK_EXPR: return "expression";
    case PK_NOT: return "not";
    case PK_OR: return "or";
    case PK_INVOKE: return "rule";
    }
    return "?";
}

static const char *index_name(int tree) {
    static const char *const names[] = {"EAVT", "AEVT", "AVET", "VAET"};
    return tree >= 0 && tree <= TREE_VAET ? names[tree] : NULL;
}

/* Copies the planner's steps (arena-held) into malloc'd db_plan_steps. */
static int steps_copy(const plan_step_info *in, size_t count, db_plan_step **out, err *e) {
    db_plan_step *steps = calloc(count + 1, sizeof *steps);
    if (!steps)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < count; i++) {
        buf b;
        buf_init(&b);
        datalog_print_clause(in[i].clause, &b);
        steps[i].clause = buf_detach(&b);
        steps[i].kind = kind_name(in[i].kind);
        if (in[i].has_access) {
            steps[i].join = in[i].join == PLAN_JOIN_HASH ? "hash" : "nested-loop";
            steps[i].index = in[i].seeks ? index_name(in[i].index) : NULL;
        }
        steps[i].estimate = in[i].estimate == SIZE_MAX ? -1 : (int64_t)in[i].estimate;
        if (!steps[i].clause) {
            db_plan_steps_free(steps, i);
            return err_set(e, ERR(INT, 0), "out of memory");
        }
    }
    *out = steps;
    return 0;
}

int db_explain(db *d, const char *text, size_t len, db_plan_step **steps, size_t *count, err *e) {
    parsed_query *pq;
    int rc = db_parse_query(d, text, len, &pq, e);
    if (rc != 0)
        return rc;
    const ast_query *q = &parsed_query_command(pq)->as.query;
    store_reader *r = NULL;
    arena a;
    arena_init(&a);
    plan_step_info *info = NULL;
    size_t n = 0;
    rc = query_check(q, e);
    if (rc == 0)
        rc = store_reader_open(d->s, &r, e);
    if (rc == 0)
        rc = plan_explain(q, r, &a, &info, &n, e);
    if (rc == 0)
        rc = steps_copy(info, n, steps, e);
    if (rc == 0)
        *count = n;
    if (r)
        store_reader_close(r);
    arena_free(&a);
    parsed_query_release(pq);
    return rc;
}

void db_plan_steps_free(db_plan_step *steps, size_t count) {
    if (!steps)
        return;
    for (size_t i = 0; i < count; i++)
        free(steps[i].clause);
    free(steps);
}

int db_stats(db *d, store_stats *out, err *e) {
    /* The WAL grows under the writer slot: wait for it as a checkpoint does. */
    int rc = db_writer_take(d, false,
                            "a WriteTransaction is in progress on this thread; commit or roll "
                            "it back before reading the statistics",
                            e);
    if (rc != 0)
        return rc;
    store_get_stats(d->s, out);
    db_writer_release(&d->sh->writer);
    return 0;
}

int db_rule_texts(db *d, char ***texts, size_t *count, err *e) {
    const rules_program *p = rules_acquire(d->rules);
    char **out = calloc(p->count + 1, sizeof *out);
    int rc = out ? 0 : err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; rc == 0 && i < p->count; i++) {
        command c = {.kind = CMD_RULE};
        c.as.rule = *p->rules[i];
        buf b;
        buf_init(&b);
        datalog_print(&c, &b);
        out[i] = buf_detach(&b);
        if (!out[i]) {
            db_texts_free(out, i);
            out = NULL;
            rc = err_set(e, ERR(INT, 0), "out of memory");
        }
    }
    if (rc == 0) {
        *texts = out;
        *count = p->count;
    }
    rules_release(d->rules, p);
    return rc;
}

void db_texts_free(char **texts, size_t count) {
    if (!texts)
        return;
    for (size_t i = 0; i < count; i++)
        free(texts[i]);
    free(texts);
}
