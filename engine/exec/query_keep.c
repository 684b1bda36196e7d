/* query_keep.h: the kept :where and its meter. */
#include "exec/query_keep.h"

#include <stdint.h>
#include <stdlib.h>

#include "exec/finish.h"
#include "exec/query.h"
#include "exec/where.h"
#include "host/host_fns.h"

void query_keep_init(query_keep *k) {
    atomic_init(&k->busy, false);
    k->where = NULL;
    k->rows = NULL;
    k->spare = NULL;
    meter_init(&k->m, 0);
    k->baseline = 0;
    k->max_bytes = SIZE_MAX;
    k->fixed = false;
}

void query_keep_reset(query_keep *k) {
    finish_close(k->rows); /* its input, the kept :where, is closed already */
    k->rows = NULL;
    where_free(k->where);
    k->where = NULL;
    k->baseline = 0;
}

void query_keep_free(query_keep *k) {
    query_keep_reset(k);
    free(k->spare);
    k->spare = NULL;
}

bool query_keep_take(query_keep *k) {
    bool idle = false;
    return atomic_compare_exchange_strong_explicit(&k->busy, &idle, true, memory_order_acquire,
                                                   memory_order_relaxed);
}

void query_keep_give(query_keep *k) {
    atomic_store_explicit(&k->busy, false, memory_order_release);
}

void query_keep_rows(query_keep *k, finish_cursor *rows) {
    k->rows = rows;
    k->baseline = k->m.used;
}

/* A fresh meter for the run, holding what the kept operators hold (as a
 * fresh query's meter does once it has built them). */
static void meter_for_run(query_keep *k, size_t memory_limit, query_rules *rules) {
    meter_init(&k->m, memory_limit);
    k->m.used = k->m.peak = k->baseline;
    meter_set_cancel(&k->m, rules ? rules->stop : NULL);
}

static int rerun(query_keep *k, store *s, const ast_query *q, int64_t now_ms, query_rules *rules,
                 err *e) {
    int rc = where_rerun(k->where, s, q, now_ms, rules ? rules->host : NULL, e);
    if (rc != 0)
        query_keep_reset(k); /* stale (1) or failed: planned again next */
    return rc;
}

int query_keep_where(query_keep *k, store *s, const ast_query *q, int64_t now_ms,
                     size_t memory_limit, query_rules *rules, solution_stream **out, err *e) {
    meter_for_run(k, memory_limit, rules);
    if (k->where) {
        int rc = rerun(k, s, q, now_ms, rules, e);
        if (rc == 0) {
            *out = k->where;
            return 0;
        }
        if (rc != 1)
            return rc;
        meter_for_run(k, memory_limit, rules);
    }
    int rc = where_open(s, q, now_ms, &k->m, rules, out, e);
    if (rc == 0 && k->m.used <= k->max_bytes && where_keep(*out, q, k->fixed)) {
        k->where = *out;
        k->baseline = k->m.used;
    }
    return rc;
}

int query_keep_check(const query_keep *k, const ast_query *q, err *e) {
    return k->where ? 0 : query_check(q, e);
}

int query_execute_kept(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                       size_t memory_limit, query_keep *k, result_set **out, err *e) {
    if (!query_keep_take(k))
        return query_execute_rules(s, rules, q, now_ms, memory_limit, out, e);
    int rc = query_keep_check(k, q, e);
    host_scope host;
    host_scope_init(&host, rules ? rules->host_fns : NULL);
    if (rules)
        rules->host = &host;
    solution_stream *in = NULL;
    if (rc == 0)
        rc = query_keep_where(k, s, q, now_ms, memory_limit, rules, &in, e);
    if (rc == 0)
        rc = finish_query(q, in, &k->m, &host, out, e);
    if (rules)
        rules->host = NULL;
    host_scope_end(&host);
    meter_set_cancel(&k->m, NULL); /* the call's cancel ends with it */
    if (rc != 0)                   /* a run that failed half-way leaves nothing kept */
        query_keep_reset(k);
    query_keep_give(k);
    return rc;
}
