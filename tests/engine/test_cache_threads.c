/* The caches readers share without a lock (base/seqlock.h), read by
 * several threads while another keeps replacing their entries: a reader
 * must get either a whole entry, the one it asked for, or nothing (a
 * miss), never a torn copy or another key's. Run under ThreadSanitizer
 * by scripts/test.sh, which also reports any plain access racing a
 * writer. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "storage/format.h"
#include "storage/page_cache.h"
#include "store/lookup_cache.h"

#define READERS 3
#define PAGES 12 /* more than the cache holds: puts evict too */
#define CACHE_PAGES 8
#define WRITES 20000

static page_cache *pages;
static lookup_cache lookups;
static atomic_bool writing;
static atomic_long reads; /* the writer goes on until the readers got going */

/* Page `pgno`'s image in round `round`: every byte tells both. */
static void fill_page(uint8_t *page, uint32_t pgno, unsigned round) {
    memset(page, (int)(pgno * 7 + round % 2), FORMAT_PAGE_SIZE);
}

static bool page_whole(const uint8_t *page, uint32_t pgno) {
    uint8_t a = (uint8_t)(pgno * 7), b = (uint8_t)(pgno * 7 + 1);
    if (page[0] != a && page[0] != b)
        return false;
    for (size_t i = 1; i < FORMAT_PAGE_SIZE; i++)
        if (page[i] != page[0])
            return false;
    return true;
}

static void key_of(unsigned n, char *key, size_t size) {
    snprintf(key, size, "keyword-%u", n);
}

static void *write_entries(void *arg) {
    (void)arg;
    static uint8_t page[FORMAT_PAGE_SIZE];
    for (unsigned i = 0; i < WRITES || atomic_load(&reads) < 100000; i++) {
        uint32_t pgno = 2 + i % PAGES;
        fill_page(page, pgno, i / PAGES);
        page_cache_put(pages, pgno, page);
        char key[32];
        key_of(i % 5000, key, sizeof key); /* 1,024 slots: keys keep colliding */
        lookup_cache_put(&lookups, 1, key, strlen(key), 1, 1, 1000 + i % 5000);
    }
    atomic_store(&writing, false);
    return NULL;
}

typedef struct reader {
    unsigned seed;
    long hits, torn;
} reader;

static void *read_entries(void *arg) {
    reader *r = arg;
    uint8_t page[FORMAT_PAGE_SIZE];
    while (atomic_load(&writing)) {
        atomic_fetch_add(&reads, 1);
        r->seed = r->seed * 1103515245u + 12345u;
        uint32_t pgno = 2 + (r->seed >> 8) % PAGES;
        if (page_cache_get(pages, pgno, page)) {
            r->hits++;
            r->torn += !page_whole(page, pgno);
        }
        unsigned n = (r->seed >> 16) % 5000;
        char key[32];
        key_of(n, key, sizeof key);
        uint64_t loc = 0;
        if (lookup_cache_get(&lookups, 1, key, strlen(key), 1, &loc) == 1)
            r->torn += loc != 1000 + n;
        int kind = 0;
        size_t len = 0;
        uint8_t bytes[LOOKUP_CACHE_KEY];
        if (lookup_cache_entry(&lookups, 1000 + n, &kind, bytes, &len) == 1)
            r->torn += kind != 1 || len != strlen(key) || memcmp(bytes, key, len) != 0;
    }
    return NULL;
}

int main(void) {
    pages = page_cache_new(CACHE_PAGES);
    CHECK(pages != NULL && lookup_cache_init(&lookups) == 0);
    atomic_init(&writing, true);
    atomic_init(&reads, 0);
    pthread_t w, t[READERS];
    static reader r[READERS];
    CHECK(pthread_create(&w, NULL, write_entries, NULL) == 0);
    for (int i = 0; i < READERS; i++) {
        r[i].seed = (unsigned)i + 1;
        CHECK(pthread_create(&t[i], NULL, read_entries, &r[i]) == 0);
    }
    pthread_join(w, NULL);
    long hits = 0;
    for (int i = 0; i < READERS; i++) {
        pthread_join(t[i], NULL);
        CHECK(r[i].torn == 0);
        hits += r[i].hits;
    }
    CHECK(hits > 0);
    page_cache_stats st = page_cache_get_stats(pages);
    CHECK(st.pages == CACHE_PAGES && st.hits == (uint64_t)hits);
    page_cache_free(pages);
    lookup_cache_free(&lookups);
    return CHECK_DONE();
}
