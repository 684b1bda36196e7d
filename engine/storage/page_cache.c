#include "storage/page_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "base/lru.h"
#include "storage/format.h"

typedef struct entry {
    lru_node node;
    uint32_t pgno;
    uint8_t page[FORMAT_PAGE_SIZE];
} entry;

struct page_cache {
    pthread_mutex_t mu;
    size_t capacity, count;
    lru_table lru;
    uint64_t *good; /* one bit per page number: its image was checked */
    uint64_t hits, misses;
    size_t good_words;
    /* Per page number: what its image was structurally checked as, an
     * index into `as` + 1 (0: nothing). Kept when the page is evicted, as
     * `good` is: the file cannot change under the cache. */
    uint8_t *checked;
    size_t checked_len;
    const void *as[PAGE_CACHE_CHECKERS];
    size_t as_count;
};

page_cache *page_cache_new(size_t capacity) {
    page_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->capacity = capacity ? capacity : 1;
    size_t nbuckets = 16;
    while (nbuckets < c->capacity && nbuckets < ((size_t)1 << 24))
        nbuckets *= 2;
    lru_node **buckets = calloc(nbuckets, sizeof *buckets);
    if (!buckets || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(buckets);
        free(c);
        return NULL;
    }
    lru_init(&c->lru, buckets, nbuckets);
    return c;
}

void page_cache_free(page_cache *c) {
    if (!c)
        return;
    for (lru_node *n = c->lru.newest; n;) {
        lru_node *next = n->older;
        free(LRU_ENTRY(n, entry, node));
        n = next;
    }
    free(c->lru.buckets);
    free(c->good);
    free(c->checked);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Out of memory only means the page will be checked again. */
static void mark_good(page_cache *c, uint32_t pgno) {
    size_t word = pgno / 64, words = c->good_words;
    if (!array_reserve(&c->good, &c->good_words, word + 1, sizeof *c->good, 64))
        return;
    memset(c->good + words, 0, (c->good_words - words) * sizeof *c->good);
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

static entry *find(page_cache *c, uint32_t pgno) {
    for (lru_node *n = lru_bucket(&c->lru, hash_mix(pgno)); n; n = n->hnext)
        if (LRU_ENTRY(n, entry, node)->pgno == pgno)
            return LRU_ENTRY(n, entry, node);
    return NULL;
}

/* Under mu. */
static const void *checked_as(const page_cache *c, uint32_t pgno) {
    return pgno < c->checked_len && c->checked[pgno] ? c->as[c->checked[pgno] - 1] : NULL;
}

/* Under mu. Out of memory, or more checkers than PAGE_CACHE_CHECKERS,
 * only means the page will be checked again. */
static void set_checked(page_cache *c, uint32_t pgno, const void *as) {
    size_t i = 0, len = c->checked_len;
    while (i < c->as_count && c->as[i] != as)
        i++;
    if (as && i == c->as_count && c->as_count < PAGE_CACHE_CHECKERS)
        c->as[c->as_count++] = as;
    if (pgno >= len &&
        (!as || !array_reserve(&c->checked, &c->checked_len, (size_t)pgno + 1, 1, 4096)))
        return;
    memset(c->checked + len, 0, c->checked_len - len);
    c->checked[pgno] = as && i < c->as_count ? (uint8_t)(i + 1) : 0;
}

const void *page_cache_checked_as(page_cache *c, uint32_t pgno) {
    if (!c)
        return NULL;
    pthread_mutex_lock(&c->mu);
    const void *as = checked_as(c, pgno);
    pthread_mutex_unlock(&c->mu);
    return as;
}

bool page_cache_get(page_cache *c, uint32_t pgno, uint8_t *dst) {
    const void *as;
    return page_cache_get_checked(c, pgno, dst, &as);
}

bool page_cache_get_checked(page_cache *c, uint32_t pgno, uint8_t *dst, const void **as) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (e) {
        memcpy(dst, e->page, FORMAT_PAGE_SIZE);
        *as = checked_as(c, pgno);
        lru_touch(&c->lru, &e->node);
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
        if (e || !c->lru.oldest)
            return e;
    }
    entry *e = LRU_ENTRY(c->lru.oldest, entry, node);
    lru_remove(&c->lru, &e->node);
    return e;
}

void page_cache_put(page_cache *c, uint32_t pgno, const uint8_t *src) {
    page_cache_put_checked(c, pgno, src, NULL);
}

void page_cache_put_checked(page_cache *c, uint32_t pgno, const uint8_t *src, const void *as) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (e) {
        lru_touch(&c->lru, &e->node);
    } else {
        e = take_slot(c);
        if (e) {
            e->pgno = pgno;
            lru_insert(&c->lru, &e->node, hash_mix(pgno));
        }
    }
    if (e)
        memcpy(e->page, src, FORMAT_PAGE_SIZE);
    mark_good(c, pgno);
    set_checked(c, pgno, as);
    pthread_mutex_unlock(&c->mu);
}

void page_cache_set_checked(page_cache *c, uint32_t pgno, const uint8_t *image, const void *as) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (!e || memcmp(e->page, image, FORMAT_PAGE_SIZE) == 0)
        set_checked(c, pgno, as);
    pthread_mutex_unlock(&c->mu);
}

void page_cache_drop_from(page_cache *c, uint32_t first) {
    pthread_mutex_lock(&c->mu);
    for (lru_node *n = c->lru.newest; n;) {
        lru_node *next = n->older;
        entry *e = LRU_ENTRY(n, entry, node);
        if (e->pgno >= first) {
            lru_remove(&c->lru, n);
            free(e);
            c->count--;
        }
        n = next;
    }
    for (size_t pgno = first; pgno < c->good_words * 64; pgno++)
        c->good[pgno / 64] &= ~(UINT64_C(1) << (pgno % 64));
    if (first < c->checked_len)
        memset(c->checked + first, 0, c->checked_len - first);
    pthread_mutex_unlock(&c->mu);
}
