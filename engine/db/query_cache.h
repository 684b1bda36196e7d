/* A database's cache of parsed queries, keyed by their exact text (like
 * Python sqlite3's cached statements): an application that runs the same
 * query text again skips the EDN reader, the parser and its checks.
 *
 * A parsed command depends on nothing but its text (datalog_parse reads no
 * database state: rules, data and options are looked up when the query
 * runs), so an entry never goes stale and nothing invalidates it. Only
 * (query ...) commands that parsed without error are kept, and only from
 * the second time their text is seen (among the last few hundred texts
 * missed), so that texts run once cost no more than before; an error is
 * produced again by each parse, so its message is the same every time.
 *
 * Bounded: at most QUERY_CACHE_ENTRIES entries and QUERY_CACHE_BYTES bytes
 * (text, parse arena and bookkeeping) per part, the least recently used
 * evicted first. Entries are reference-counted: a cursor keeps its parsed
 * query after the entry is evicted or the cache freed. Thread-safe: the
 * cache is split into QUERY_CACHE_PARTS parts, and each thread uses one
 * (by thread_slot), so threads querying one database do not share a lock
 * per query; a thread sees the behaviour above, and the stats are the
 * parts' sums.
 *
 * A kept entry also keeps the plan and operators of its query's runs
 * (exec/query_keep.h, as a prepared query does), so that a text run again
 * skips planning and building as well: one run at a time takes it (a
 * cursor until it is freed), a second run of the same text meanwhile
 * plans afresh. Each part has its own entry for a text, so threads on
 * different parts do not compete for one kept plan. What drops a
 * prepared query's kept plan drops this one (the store's size moved, a
 * failed run); rules and host predicates are never kept, nor a plan
 * whose operators hold more than QUERY_CACHE_PLAN_BYTES. The plan lives
 * and dies with its entry (freed with its last reference). */
#ifndef MG_DB_QUERY_CACHE_H
#define MG_DB_QUERY_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "exec/query_keep.h"

#define QUERY_CACHE_ENTRIES 64
#define QUERY_CACHE_BYTES ((size_t)1 << 20)
#define QUERY_CACHE_PARTS 4
/* The most a kept plan's operators may hold (a join of a few patterns
 * holds 10-25 KiB), so that the plans kept by a handle stay under
 * QUERY_CACHE_PARTS * QUERY_CACHE_ENTRIES times this. */
#define QUERY_CACHE_PLAN_BYTES ((size_t)64 << 10)

typedef struct parsed_query parsed_query;
typedef struct query_cache query_cache;

typedef struct query_cache_stats {
    uint64_t hits, misses;
    size_t entries, bytes;
} query_cache_stats;

/* NULL when out of memory. */
query_cache *query_cache_new(void);
/* Drops the cache's references; parsed queries still held stay valid. */
void query_cache_free(query_cache *c);

/* The command parsed from text[0..len), from the cache or parsed now (and
 * kept when it is a query seen before that fits). Returns 0 with a reference in *out
 * (parsed_query_release it), or the parse error with `e` set. */
int query_cache_parse(query_cache *c, const char *text, size_t len, parsed_query **out, err *e);
/* Whether a text of `len` bytes is small enough to be kept: larger ones
 * are better parsed without the cache's copy of the text. */
static inline bool query_cache_may_keep(size_t len) {
    return len <= QUERY_CACHE_BYTES / 8;
}
const command *parsed_query_command(const parsed_query *p);
/* What runs of p's query keep from one to the next, or NULL when p is not
 * a cache entry (a text parsed once is run once). */
query_keep *parsed_query_keep(parsed_query *p);
void parsed_query_release(parsed_query *p);

query_cache_stats query_cache_get_stats(query_cache *c);

#endif
