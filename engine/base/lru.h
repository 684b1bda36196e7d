/* A chained hash table whose entries also form a list from most to least
 * recently used: the parsed-query cache (db/query_cache.c) is one of
 * these. (The page cache is not: a hit there must write nothing shared,
 * storage/page_cache.c.)
 *
 * Intrusive: an entry embeds an lru_node (LRU_ENTRY gets the entry back)
 * and the table never allocates or frees one. It knows only each entry's
 * 64-bit hash; the caller walks a bucket's chain (lru_bucket, then
 * node->hnext) and compares its own keys. Not thread-safe: each user holds
 * its own lock. The caller supplies the buckets (a power of two of them,
 * zeroed), so a table may live in a fixed array. */
#ifndef MG_BASE_LRU_H
#define MG_BASE_LRU_H

#include <stddef.h>
#include <stdint.h>

typedef struct lru_node {
    struct lru_node *hnext;         /* bucket chain */
    struct lru_node *newer, *older; /* recency list */
    uint64_t hash;
} lru_node;

typedef struct lru_table {
    lru_node **buckets;
    size_t mask; /* buckets - 1 */
    lru_node *newest, *oldest;
} lru_table;

/* The entry of type `type` whose lru_node member `member` is `node`. */
#define LRU_ENTRY(node, type, member) ((type *)(void *)((char *)(node) - offsetof(type, member)))

/* `nbuckets` (a power of two) zeroed pointers at `buckets`, owned by the caller. */
void lru_init(lru_table *t, lru_node **buckets, size_t nbuckets);
/* The first node of the chain that an entry of hash `hash` would be in. */
static inline lru_node *lru_bucket(const lru_table *t, uint64_t hash) {
    return t->buckets[hash & t->mask];
}
/* Adds `n` under `hash` as the most recently used. */
void lru_insert(lru_table *t, lru_node *n, uint64_t hash);
/* Makes `n` (in the table) the most recently used. */
void lru_touch(lru_table *t, lru_node *n);
/* Takes `n` out of its chain and the list; the caller owns it again. */
void lru_remove(lru_table *t, lru_node *n);

#endif
