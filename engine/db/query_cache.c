/* query_cache.h: per part, an lru_table (base/lru.h) of
 * QUERY_CACHE_BUCKETS buckets over the entries. */
#include "db/query_cache.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/lru.h"
#include "base/thread_slot.h"
#include "datalog/parse.h"

#define QUERY_CACHE_BUCKETS 128 /* a power of two, twice the entries */
#define QUERY_CACHE_SEEN 256    /* a power of two */
/* A kept query's syntax tree (a few KiB) lives in blocks of this size
 * rather than the standard 64 KiB ones, which only a query parsed and
 * dropped uses (they are recycled, so cheaper to take). */
#define PARSE_BLOCK_SIZE 4096

struct parsed_query {
    atomic_size_t refs;
    lru_node node; /* its hash, and its links while cached */
    size_t len;
    size_t bytes; /* all it takes, for QUERY_CACHE_BYTES (set when kept) */
    arena ast;
    command *cmd;
    bool cached;     /* was a cache entry: its runs use `keep` */
    query_keep keep; /* the plan its runs keep (set up when cached) */
    char text[];     /* the text it was parsed from (the tree may point into it) */
};

/* One thread's part of the cache (thread_slot): threads running queries
 * on one database each take their own part's lock and move their own
 * recency list, not one lock and list for all (issue 18). */
typedef struct cache_part {
    char gap[THREAD_STRIPE_GAP]; /* padded apart (thread_slot.h) */
    pthread_mutex_t mu;
    lru_node *buckets[QUERY_CACHE_BUCKETS];
    lru_table lru;
    /* Hashes of texts parsed once and not kept, direct-mapped: a text is
     * kept the second time, so one-off texts neither evict entries nor
     * pay for the smaller blocks. */
    uint64_t seen[QUERY_CACHE_SEEN];
    query_cache_stats stats;
} cache_part;

struct query_cache {
    cache_part part[QUERY_CACHE_PARTS];
    char gap[THREAD_STRIPE_GAP];
};

query_cache *query_cache_new(void) {
    query_cache *c = calloc(1, sizeof *c);
    for (int i = 0; c && i < QUERY_CACHE_PARTS; i++) {
        if (pthread_mutex_init(&c->part[i].mu, NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(&c->part[i].mu);
            free(c);
            return NULL;
        }
        lru_init(&c->part[i].lru, c->part[i].buckets, QUERY_CACHE_BUCKETS);
    }
    return c;
}

void query_cache_free(query_cache *c) {
    if (!c)
        return;
    for (int i = 0; i < QUERY_CACHE_PARTS; i++) {
        for (lru_node *n = c->part[i].lru.newest; n;) {
            lru_node *older = n->older;
            parsed_query_release(LRU_ENTRY(n, parsed_query, node));
            n = older;
        }
        pthread_mutex_destroy(&c->part[i].mu);
    }
    free(c);
}

const command *parsed_query_command(const parsed_query *p) {
    return p->cmd;
}

query_keep *parsed_query_keep(parsed_query *p) {
    return p->cached ? &p->keep : NULL;
}

void parsed_query_release(parsed_query *p) {
    if (p && atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1) {
        if (p->cached) /* no run holds it: each holds a reference */
            query_keep_free(&p->keep);
        arena_free(&p->ast);
        free(p);
    }
}

query_cache_stats query_cache_get_stats(query_cache *c) {
    query_cache_stats s = {0, 0, 0, 0};
    for (int i = 0; i < QUERY_CACHE_PARTS; i++) {
        cache_part *part = &c->part[i];
        pthread_mutex_lock(&part->mu);
        s.hits += part->stats.hits;
        s.misses += part->stats.misses;
        s.entries += part->stats.entries;
        s.bytes += part->stats.bytes;
        pthread_mutex_unlock(&part->mu);
    }
    return s;
}

/* Eight bytes at a time: the texts are short and hashed on every call. */
static uint64_t text_hash(const char *s, size_t len) {
    return hash_words(HASH_FNV_BASIS, s, len);
}

static parsed_query *find(cache_part *c, uint64_t hash, const char *text, size_t len) {
    for (lru_node *n = lru_bucket(&c->lru, hash); n; n = n->hnext) {
        parsed_query *p = LRU_ENTRY(n, parsed_query, node);
        if (n->hash == hash && p->len == len && memcmp(p->text, text, len) == 0)
            return p;
    }
    return NULL;
}

static void evict_oldest(cache_part *c) {
    parsed_query *p = LRU_ENTRY(c->lru.oldest, parsed_query, node);
    lru_remove(&c->lru, &p->node);
    c->stats.entries--;
    c->stats.bytes -= p->bytes;
    parsed_query_release(p);
}

/* Under the lock: a hit takes a reference and becomes the most recent; a
 * miss tells whether the text was seen before (*again). */
static parsed_query *lookup(cache_part *c, uint64_t hash, const char *text, size_t len,
                            bool *again) {
    parsed_query *p = find(c, hash, text, len);
    if (!p) {
        c->stats.misses++;
        uint64_t *seen = &c->seen[hash & (QUERY_CACHE_SEEN - 1)];
        *again = *seen == hash;
        *seen = hash;
        return NULL;
    }
    c->stats.hits++;
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    lru_touch(&c->lru, &p->node);
    return p;
}

/* Unless another thread kept the same text meanwhile. */
static void keep(cache_part *c, parsed_query *p) {
    pthread_mutex_lock(&c->mu);
    if (!find(c, p->node.hash, p->text, p->len)) {
        query_keep_init(&p->keep);
        p->keep.max_bytes = QUERY_CACHE_PLAN_BYTES;
        p->keep.fixed = true; /* a text's constants are its own */
        p->cached = true;
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
        lru_insert(&c->lru, &p->node, p->node.hash);
        c->stats.entries++;
        c->stats.bytes += p->bytes;
        while (c->stats.entries > QUERY_CACHE_ENTRIES || c->stats.bytes > QUERY_CACHE_BYTES)
            evict_oldest(c);
    }
    pthread_mutex_unlock(&c->mu);
}

static int parse_new(const char *text, size_t len, uint64_t hash, size_t block_size,
                     parsed_query **out, err *e) {
    parsed_query *p = len < SIZE_MAX - sizeof *p ? malloc(sizeof *p + len + 1) : NULL;
    if (!p)
        return err_set(e, ERR(INT, 0), "out of memory");
    atomic_init(&p->refs, 1);
    p->cached = false;
    p->node = (lru_node){.hash = hash};
    p->len = len;
    arena_init_blocks(&p->ast, block_size);
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    int rc = datalog_parse(p->text, len, &p->ast, &p->cmd, e);
    if (rc != 0) {
        parsed_query_release(p);
        return rc;
    }
    *out = p;
    return 0;
}

int query_cache_parse(query_cache *qc, const char *text, size_t len, parsed_query **out, err *e) {
    cache_part *c = &qc->part[thread_slot() % QUERY_CACHE_PARTS];
    uint64_t hash = text_hash(text, len);
    bool again = false;
    pthread_mutex_lock(&c->mu);
    *out = lookup(c, hash, text, len, &again);
    pthread_mutex_unlock(&c->mu);
    if (*out)
        return 0;
    int rc = parse_new(text, len, hash, again ? PARSE_BLOCK_SIZE : 0, out, e);
    if (rc != 0 || !again || (*out)->cmd->kind != CMD_QUERY)
        return rc;
    parsed_query *p = *out;
    p->bytes = sizeof *p + len + 1 + arena_footprint(&p->ast);
    /* An entry of more than an eighth of the budget would push out many. */
    if (query_cache_may_keep(p->bytes))
        keep(c, p);
    return 0;
}
