/* Query execution: check what this version runs, open the :where as a
 * stream of solutions (exec/where.h) and hand it to the :find side
 * (exec/finish.h), both charging one memory meter. */
#include "exec/query.h"

#include "exec/finish.h"
#include "base/meter.h"
#include "exec/supported.h"
#include "exec/where.h"
#include "host/host_fns.h"

int query_execute(store *s, const ast_query *q, int64_t now_ms, result_set **out, err *e) {
    return query_execute_limited(s, q, now_ms, 0, out, e);
}

int query_execute_limited(store *s, const ast_query *q, int64_t now_ms, size_t memory_limit,
                          result_set **out, err *e) {
    return query_execute_rules(s, NULL, q, now_ms, memory_limit, out, e);
}

int query_check(const ast_query *q, err *e) {
    int rc = exec_check_supported(q, e);
    if (rc != 0)
        return rc;
    if (q->body.count == 0)
        return err_set(
            e, ERR(PRS, 77),
            "query has no :where clause, rules, or aggregates — nothing binds the variables.");
    return 0;
}

int query_execute_rules(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                        size_t memory_limit, result_set **out, err *e) {
    int rc = query_check(q, e);
    if (rc != 0)
        return rc;
    meter m;
    meter_init(&m, memory_limit);
    host_scope host;
    host_scope_init(&host, rules ? rules->host_fns : NULL);
    if (rules)
        rules->host = &host;
    if (rules)
        meter_set_cancel(&m, rules->stop);
    solution_stream *in;
    rc = where_open(s, q, now_ms, &m, rules, &in, e);
    if (rc == 0)
        rc = finish_query(q, in, &m, &host, out, e);
    if (rules)
        rules->host = NULL;
    host_scope_end(&host);
    return rc;
}
