/* query_cache.h: a chained hash table of QUERY_CACHE_BUCKETS buckets over
 * the entries, which also form a list from most to least recently used. */
#include "db/query_cache.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
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
    parsed_query *hnext;         /* bucket chain, while cached */
    parsed_query *newer, *older; /* recency list, while cached */
    uint64_t hash;
    size_t len;
    size_t bytes; /* all it takes, for QUERY_CACHE_BYTES (set when kept) */
    arena ast;
    command *cmd;
    char text[]; /* the text it was parsed from (the tree may point into it) */
};

/* One thread's part of the cache (thread_slot): threads running queries
 * on one database each take their own part's lock and move their own
 * recency list, not one lock and list for all (issue 18). */
typedef struct cache_part {
    pthread_mutex_t mu;
    parsed_query *buckets[QUERY_CACHE_BUCKETS];
    parsed_query *newest, *oldest;
    /* Hashes of texts parsed once and not kept, direct-mapped: a text is
     * kept the second time, so one-off texts neither evict entries nor
     * pay for the smaller blocks. */
    uint64_t seen[QUERY_CACHE_SEEN];
    query_cache_stats stats;
    char pad[64]; /* the next part's lock on another line */
} cache_part;

struct query_cache {
    cache_part part[QUERY_CACHE_PARTS];
};

query_cache *query_cache_new(void) {
    query_cache *c = calloc(1, sizeof *c);
    for (int i = 0; c && i < QUERY_CACHE_PARTS; i++)
        if (pthread_mutex_init(&c->part[i].mu, NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(&c->part[i].mu);
            free(c);
            return NULL;
        }
    return c;
}

void query_cache_free(query_cache *c) {
    if (!c)
        return;
    for (int i = 0; i < QUERY_CACHE_PARTS; i++) {
        for (parsed_query *p = c->part[i].newest; p;) {
            parsed_query *older = p->older;
            parsed_query_release(p);
            p = older;
        }
        pthread_mutex_destroy(&c->part[i].mu);
    }
    free(c);
}

const command *parsed_query_command(const parsed_query *p) {
    return p->cmd;
}

void parsed_query_release(parsed_query *p) {
    if (p && atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1) {
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

static parsed_query **bucket(cache_part *c, uint64_t hash) {
    return &c->buckets[hash & (QUERY_CACHE_BUCKETS - 1)];
}

static parsed_query *find(cache_part *c, uint64_t hash, const char *text, size_t len) {
    for (parsed_query *p = *bucket(c, hash); p; p = p->hnext)
        if (p->hash == hash && p->len == len && memcmp(p->text, text, len) == 0)
            return p;
    return NULL;
}

static void list_unlink(cache_part *c, parsed_query *p) {
    if (p->newer)
        p->newer->older = p->older;
    else
        c->newest = p->older;
    if (p->older)
        p->older->newer = p->newer;
    else
        c->oldest = p->newer;
}

static void list_push(cache_part *c, parsed_query *p) {
    p->newer = NULL;
    p->older = c->newest;
    if (c->newest)
        c->newest->newer = p;
    c->newest = p;
    if (!c->oldest)
        c->oldest = p;
}

static void evict_oldest(cache_part *c) {
    parsed_query *p = c->oldest;
    list_unlink(c, p);
    parsed_query **link = bucket(c, p->hash);
    while (*link != p)
        link = &(*link)->hnext;
    *link = p->hnext;
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
    list_unlink(c, p);
    list_push(c, p);
    return p;
}

/* Unless another thread kept the same text meanwhile. */
static void keep(cache_part *c, parsed_query *p) {
    pthread_mutex_lock(&c->mu);
    if (!find(c, p->hash, p->text, p->len)) {
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
        parsed_query **head = bucket(c, p->hash);
        p->hnext = *head;
        *head = p;
        list_push(c, p);
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
    p->hnext = p->newer = p->older = NULL;
    p->hash = hash;
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
