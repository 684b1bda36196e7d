#ifndef MG_EXEC_QUERY_H
#define MG_EXEC_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/result.h"
#include "store/store.h"

struct rules_registry;
struct host_registry;
struct host_scope;

/* Rules for a query (language.md §9, §8.14), and the database's host functions. */
typedef struct query_rules {
    struct rules_registry *registry; /* NULL: invocations read stored facts only */
    int64_t max_derived_facts;       /* the database options; the query's */
    int64_t max_results;             /* :max-* sections override them */
    bool magic;                      /* demand-driven bound calls (language.md §9.7) */
    int64_t derived;                 /* out: facts the rules derived */
    /* Host predicates and aggregates (language.md §12) the query may call; NULL:
     * none. Each run of a query resolves the names it uses anew, at plan
     * time, into a scope of its own (host/host_fns.h), set here while it
     * runs (`host`, NULL otherwise): a query that calls a host function
     * is computed whole before it returns, so its callbacks run on the
     * calling thread only (exec/query_stream.h). */
    struct host_registry *host_fns;
    struct host_scope *host;
    /* The call the query runs for (base/cancel.h): NULL, nothing stops
     * it. A stream uses it while it opens only (query_stream_set_cancel). */
    struct cancel *stop;
} query_rules;

/* Evaluates `q` over the facts of `s` visible per language.md §7.4, with `now_ms`
 * as the default valid-time point, on one snapshot of the store. Returns 0 and a new result set, or
 * the error code with `e` set. */
int query_execute(store *s, const ast_query *q, int64_t now_ms, result_set **out, err *e);
/* The same under a per-query memory limit in bytes (0 = unlimited): a query
 * holding more fails with QRY-012 naming the operator (language.md §8.14, D8). */
int query_execute_limited(store *s, const ast_query *q, int64_t now_ms, size_t memory_limit,
                          result_set **out, err *e);
/* The checks every query passes before it runs: constructs the executor
 * supports, and something in :where to bind the variables. */
int query_check(const ast_query *q, err *e);
/* The same with the database's rules (`rules` may be NULL). */
int query_execute_rules(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                        size_t memory_limit, result_set **out, err *e);

#endif
