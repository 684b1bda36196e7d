/* What a rule evaluation keeps for the next query (see rule_cache.h). */
#include "exec/rule_cache.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "datalog/parse.h"
#include "datalog/print.h"

void body_plan_drop_operators(body_plan *bp) {
    op_sub_free(&bp->pipe);
}

void rule_cache_drop_operators(rule_cache *c) {
    for (size_t i = 0; i < c->plan_count; i++)
        body_plan_drop_operators(c->plans[i]);
}

void rule_cache_drop_unreusable(rule_cache *c) {
    for (size_t i = 0; i < c->plan_count; i++)
        if (!c->plans[i]->reusable)
            body_plan_drop_operators(c->plans[i]);
        else
            op_sub_rest(&c->plans[i]->pipe);
}

static void cache_free(rules_kept *k) {
    rule_cache *c = (rule_cache *)k;
    rule_cache_drop_operators(c);
    for (size_t i = 0; i < c->plan_count; i++) {
        arena_free(&c->plans[i]->mem);
        free(c->plans[i]);
    }
    free(c->plans);
    htab_free(&c->plan_index);
    seminaive_free(c->sn);
    hj_cache_free(&c->tables);
    stratify_plan_free(&c->strata);
    stratify_free(c->rewritten);
    arena_free(&c->mem);
    free(c->key);
    free(c);
}

static char *query_text(const ast_query *q) {
    command cmd = {.kind = CMD_QUERY, .as.query = *q};
    buf b;
    buf_init(&b);
    datalog_print(&cmd, &b);
    return buf_detach(&b);
}

static bool serves(const rule_cache *c, const char *key, bool magic, rule_cache_snapshot snap) {
    return c->magic == magic && c->snap.tx_count == snap.tx_count &&
           c->snap.generation == snap.generation && strcmp(c->key, key) == 0;
}

/* A new state for the query `key`, which it parses back into its own
 * arena: a magic rewrite made from that copy outlives the query. */
static int cache_new(char *key, bool magic, rule_cache_snapshot snap, rule_cache **out, err *e) {
    rule_cache *c = calloc(1, sizeof *c);
    if (!c) {
        free(key);
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    }
    *c = (rule_cache){.base = {cache_free}, .key = key, .magic = magic, .snap = snap};
    arena_init(&c->mem);
    meter_init(&c->m, 0);
    htab_init(&c->plan_index);
    hj_cache_init(&c->tables, 0);
    command *cmd = NULL;
    err pe = {0};
    if (datalog_parse(key, strlen(key), &c->mem, &cmd, &pe) != 0 || cmd->kind != CMD_QUERY) {
        int rc = err_set(e, ERR(INT, 0), "cannot copy the query %s: %s", key,
                         pe.message ? pe.message : "not a query");
        err_clear(&pe);
        cache_free(&c->base);
        return rc;
    }
    c->q = &cmd->as.query;
    *out = c;
    return 0;
}

int rule_cache_take(rules_registry *reg, const rules_program *p, const ast_query *q, bool magic,
                    rule_cache_snapshot snap, rule_cache **out, err *e) {
    char *key = query_text(q);
    if (!key)
        return err_set(e, ERR(INT, 0), "out of memory during rule evaluation");
    rule_cache *kept = (rule_cache *)rules_take_kept(reg, p);
    if (kept && serves(kept, key, magic, snap)) {
        free(key);
        *out = kept;
        return 0;
    }
    if (kept)
        cache_free(&kept->base);
    return cache_new(key, magic, snap, out, e);
}

void rule_cache_give_back(rules_registry *reg, const rules_program *p, rule_cache *c, bool keep) {
    if (!c)
        return;
    if (keep)
        rules_keep(reg, p, &c->base);
    else
        cache_free(&c->base);
}
