#include "storage/page_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "storage/format.h"

typedef struct entry {
    uint32_t pgno;
    struct entry *hnext;            /* bucket chain */
    struct entry *newer, *older;    /* LRU list */
    uint8_t page[FORMAT_PAGE_SIZE];
} entry;

struct page_cache {
    pthread_mutex_t mu;
    size_t capacity, count;
    entry **buckets;
    size_t nbuckets; /* power of two */
    entry *newest, *oldest;
    uint64_t *good; /* one bit per page number: its image was checked */
    uint64_t hits, misses;
    size_t good_words;
};

page_cache *page_cache_new(size_t capacity) {
    page_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->capacity = capacity ? capacity : 1;
    c->nbuckets = 16;
    while (c->nbuckets < c->capacity && c->nbuckets < ((size_t)1 << 24))
        c->nbuckets *= 2;
    c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
    if (!c->buckets || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->buckets);
        free(c);
        return NULL;
    }
    return c;
}

void page_cache_free(page_cache *c) {
    if (!c)
        return;
    for (entry *e = c->newest; e;) {
        entry *next = e->older;
        free(e);
        e = next;
    }
    free(c->buckets);
    free(c->good);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Out of memory only means the page will be checked again. */
static void mark_good(page_cache *c, uint32_t pgno) {
    size_t word = pgno / 64;
    if (word >= c->good_words) {
        size_t words = c->good_words ? c->good_words : 64;
        while (words <= word)
            words *= 2;
        uint64_t *grown = realloc(c->good, words * sizeof *grown);
        if (!grown)
            return;
        memset(grown + c->good_words, 0, (words - c->good_words) * sizeof *grown);
        c->good = grown;
        c->good_words = words;
    }
    c->good[word] |= UINT64_C(1) << (pgno % 64);
}

bool page_cache_known_good(page_cache *c, uint32_t pgno) {
    if (!c)
        return false;
    pthread_mutex_lock(&c->mu);
    bool good = pgno / 64 < c->good_words && (c->good[pgno / 64] >> (pgno % 64) & 1u);
    pthread_mutex_unlock(&c->mu);
    return good;
}

static entry **bucket(page_cache *c, uint32_t pgno) {
    return &c->buckets[hash_mix(pgno) & (c->nbuckets - 1)];
}

static void lru_unlink(page_cache *c, entry *e) {
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_push(page_cache *c, entry *e) {
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest)
        c->newest->newer = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

static void hash_unlink(page_cache *c, entry *e) {
    for (entry **p = bucket(c, e->pgno); *p; p = &(*p)->hnext) {
        if (*p == e) {
            *p = e->hnext;
            return;
        }
    }
}

static entry *find(page_cache *c, uint32_t pgno) {
    for (entry *e = *bucket(c, pgno); e; e = e->hnext)
        if (e->pgno == pgno)
            return e;
    return NULL;
}

bool page_cache_get(page_cache *c, uint32_t pgno, uint8_t *dst) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (e) {
        memcpy(dst, e->page, FORMAT_PAGE_SIZE);
        lru_unlink(c, e);
        lru_push(c, e);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->mu);
    return e != NULL;
}

page_cache_stats page_cache_get_stats(page_cache *c) {
    page_cache_stats st = {0, 0, 0, 0};
    if (!c)
        return st;
    pthread_mutex_lock(&c->mu);
    st.hits = c->hits;
    st.misses = c->misses;
    st.pages = c->count;
    st.capacity = c->capacity;
    pthread_mutex_unlock(&c->mu);
    return st;
}

/* The entry to fill: a new one while below capacity, else the oldest. */
static entry *take_slot(page_cache *c) {
    if (c->count < c->capacity) {
        entry *e = malloc(sizeof *e);
        if (e)
            c->count++;
        if (e || !c->oldest)
            return e;
    }
    entry *e = c->oldest;
    lru_unlink(c, e);
    hash_unlink(c, e);
    return e;
}

void page_cache_put(page_cache *c, uint32_t pgno, const uint8_t *src) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (e) {
        lru_unlink(c, e);
    } else {
        e = take_slot(c);
        if (e) {
            e->pgno = pgno;
            entry **b = bucket(c, pgno);
            e->hnext = *b;
            *b = e;
        }
    }
    if (e) {
        memcpy(e->page, src, FORMAT_PAGE_SIZE);
        lru_push(c, e);
    }
    mark_good(c, pgno);
    pthread_mutex_unlock(&c->mu);
}

void page_cache_drop_from(page_cache *c, uint32_t first) {
    pthread_mutex_lock(&c->mu);
    for (entry *e = c->newest; e;) {
        entry *next = e->older;
        if (e->pgno >= first) {
            lru_unlink(c, e);
            hash_unlink(c, e);
            free(e);
            c->count--;
        }
        e = next;
    }
    for (size_t pgno = first; pgno < c->good_words * 64; pgno++)
        c->good[pgno / 64] &= ~(UINT64_C(1) << (pgno % 64));
    pthread_mutex_unlock(&c->mu);
}
