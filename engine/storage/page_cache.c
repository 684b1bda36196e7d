/* The page cache (storage/page_cache.h).
 *
 * Set-associative: a page number hashes to one set of PAGE_CACHE_WAYS
 * entries, and a lookup reads those few entries under their sequence
 * counts (base/seqlock.h), with no lock: threads reading the same pages
 * write nothing shared (issue 18; a mutex and an LRU list touched on every
 * hit made two threads' reads queue on each other). A hit marks its entry
 * as used (only when it was not already, so a hot page is not written to);
 * a new page takes, within its set, the newest entry not used since the
 * marks were last cleared, or every 32nd time the oldest (victim()).
 * Everything else (adding, eviction, the per-page-number notes) is under
 * the mutex: those come with a file read anyway. */
#include "storage/page_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "base/seqlock.h"
#include "base/thread_slot.h"
#include "storage/format.h"

#define PAGE_CACHE_WAYS 8
#define PAGE_WORDS (FORMAT_PAGE_SIZE / sizeof(seq_word))
#define STAT_STRIPES 4

/* The page number + 1 in the low half of `head` (0: empty), its checker's
 * index + 1 in `as` above it (0: none). */
typedef struct entry {
    seqlock seq;
    atomic_bool used; /* hit since its set's marks were last cleared */
    seq_word head;
    seq_word page[PAGE_WORDS];
} entry;

/* Counted per thread stripe, each on a line of its own (thread_slot.h). */
typedef struct stat_stripe {
    char gap[THREAD_STRIPE_GAP];
    atomic_uint_least64_t hits, misses;
} stat_stripe;

struct page_cache {
    pthread_mutex_t mu; /* writers of the entries, and everything below `count` */
    size_t capacity, sets;
    _Atomic(entry *) *slots; /* capacity of them, NULL until first filled */
    stat_stripe stats[STAT_STRIPES];
    char gap[THREAD_STRIPE_GAP];
    size_t count;
    /* Under mu: per slot, when its entry took its page (a count of the
     * pages taken), beside the entries so that their pages stay aligned. */
    uint64_t *born;
    uint64_t births, evictions;
    uint64_t *good; /* one bit per page number: its image was checked */
    size_t good_words;
    /* Per page number: what its image was structurally checked as, an
     * index into `as` + 1 (0: nothing). Kept when the page is evicted, as
     * `good` is: the file cannot change under the cache. */
    uint8_t *checked;
    size_t checked_len;
    _Atomic(const void *) as[PAGE_CACHE_CHECKERS]; /* read by hits too */
    size_t as_count;
};

static uint64_t head_of(uint32_t pgno, size_t as_index) {
    return ((uint64_t)pgno + 1) | (uint64_t)as_index << 32;
}

static bool head_is(uint64_t head, uint32_t pgno) {
    return (uint32_t)head == pgno + 1u;
}

page_cache *page_cache_new(size_t capacity) {
    page_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->capacity = capacity ? capacity : 1;
    c->sets = (c->capacity + PAGE_CACHE_WAYS - 1) / PAGE_CACHE_WAYS;
    /* Zeroed: NULL pointers, and not touched until used, so a large
     * `page_cache_size` costs no memory before pages fill it. */
    c->slots = calloc(c->capacity, sizeof *c->slots);
    c->born = calloc(c->capacity, sizeof *c->born);
    if (!c->slots || !c->born || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->slots);
        free(c->born);
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < PAGE_CACHE_CHECKERS; i++)
        atomic_init(&c->as[i], NULL);
    return c;
}

void page_cache_free(page_cache *c) {
    if (!c)
        return;
    for (size_t i = 0; i < c->capacity; i++)
        free(atomic_load_explicit(&c->slots[i], memory_order_relaxed));
    free(c->slots);
    free(c->born);
    free(c->good);
    free(c->checked);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* The entries page `pgno` may be in: slots [*first, *first + *n). */
static void set_of(const page_cache *c, uint32_t pgno, size_t *first, size_t *n) {
    size_t set = (size_t)(hash_mix(pgno) % c->sets);
    *first = set * PAGE_CACHE_WAYS;
    *n = c->capacity - *first < PAGE_CACHE_WAYS ? c->capacity - *first : PAGE_CACHE_WAYS;
}

static entry *slot_entry(const page_cache *c, size_t i) {
    return atomic_load_explicit(&c->slots[i], memory_order_acquire);
}

static stat_stripe *my_stats(page_cache *c) {
    return &c->stats[thread_slot() % STAT_STRIPES];
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

static const void *checker(page_cache *c, size_t as_index) {
    return as_index ? atomic_load_explicit(&c->as[as_index - 1], memory_order_relaxed) : NULL;
}

/* Under mu. */
static size_t checked_index(const page_cache *c, uint32_t pgno) {
    return pgno < c->checked_len ? c->checked[pgno] : 0;
}

/* Under mu. Out of memory, or more checkers than PAGE_CACHE_CHECKERS,
 * only means the page will be checked again. */
static void set_checked(page_cache *c, uint32_t pgno, const void *as) {
    size_t i = 0, len = c->checked_len;
    while (i < c->as_count && checker(c, i + 1) != as)
        i++;
    if (as && i == c->as_count && c->as_count < PAGE_CACHE_CHECKERS)
        atomic_store_explicit(&c->as[c->as_count++], as, memory_order_relaxed);
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
    const void *as = checker(c, checked_index(c, pgno));
    pthread_mutex_unlock(&c->mu);
    return as;
}

bool page_cache_get(page_cache *c, uint32_t pgno, uint8_t *dst) {
    const void *as;
    return page_cache_get_checked(c, pgno, dst, &as);
}

/* Copies `e` out when it holds page `pgno`, whole. A writer in the entry
 * meanwhile makes it a miss: the caller reads the file instead. */
static bool read_entry(page_cache *c, entry *e, uint32_t pgno, uint8_t *dst, const void **as) {
    unsigned begin = seqlock_read_begin(&e->seq);
    uint64_t head;
    seqlock_copy_out(&head, &e->head, 1);
    if (!head_is(head, pgno))
        return false;
    seqlock_copy_out(dst, e->page, PAGE_WORDS);
    if (!seqlock_read_end(&e->seq, begin))
        return false;
    *as = checker(c, (size_t)(head >> 32));
    if (!atomic_load_explicit(&e->used, memory_order_relaxed))
        atomic_store_explicit(&e->used, true, memory_order_relaxed);
    return true;
}

bool page_cache_get_checked(page_cache *c, uint32_t pgno, uint8_t *dst, const void **as) {
    size_t first, n;
    set_of(c, pgno, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        entry *e = slot_entry(c, i);
        if (e && read_entry(c, e, pgno, dst, as)) {
            atomic_fetch_add_explicit(&my_stats(c)->hits, 1, memory_order_relaxed);
            return true;
        }
    }
    atomic_fetch_add_explicit(&my_stats(c)->misses, 1, memory_order_relaxed);
    return false;
}

page_cache_stats page_cache_get_stats(page_cache *c) {
    page_cache_stats st = {0, 0, 0, 0};
    if (!c)
        return st;
    for (size_t i = 0; i < STAT_STRIPES; i++) {
        st.hits += atomic_load_explicit(&c->stats[i].hits, memory_order_relaxed);
        st.misses += atomic_load_explicit(&c->stats[i].misses, memory_order_relaxed);
    }
    pthread_mutex_lock(&c->mu);
    st.pages = c->count;
    st.capacity = c->capacity;
    pthread_mutex_unlock(&c->mu);
    return st;
}

/* Under mu: the head an entry holds (writers only: no reader writes it). */
static uint64_t head_now(entry *e) {
    return atomic_load_explicit(&e->head, memory_order_relaxed);
}

/* Under mu: the entry of the set holding `pgno`, or NULL. */
static entry *find(const page_cache *c, uint32_t pgno) {
    size_t first, n;
    set_of(c, pgno, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        entry *e = slot_entry(c, i);
        if (e && head_is(head_now(e), pgno))
            return e;
    }
    return NULL;
}

/* Every this many evictions, one takes its set's oldest page not used
 * lately instead of the newest, and clears the set's used marks. */
#define AGE_EVERY 32

#define NO_SLOT SIZE_MAX

/* Under mu: of slots [first, first + n), the one whose entry was not used
 * since the marks were cleared that is the oldest (`oldest`) or the
 * newest, else NO_SLOT. */
static size_t unused_slot(const page_cache *c, size_t first, size_t n, bool oldest) {
    size_t pick = NO_SLOT;
    for (size_t i = first; i < first + n; i++) {
        entry *e = slot_entry(c, i);
        if (e && !atomic_load_explicit(&e->used, memory_order_relaxed) &&
            (pick == NO_SLOT || (oldest ? c->born[i] < c->born[pick] : c->born[i] > c->born[pick])))
            pick = i;
    }
    return pick;
}

static void clear_used(const page_cache *c, size_t first, size_t n) {
    for (size_t i = first; i < first + n; i++) {
        entry *e = slot_entry(c, i);
        if (e)
            atomic_store_explicit(&e->used, false, memory_order_relaxed);
    }
}

/* Under mu: the slot of [first, first + n) to evict (NO_SLOT: none
 * allocated). Taking the oldest page not used lately would, on a loop
 * over more pages than the cache holds (a scan, or probes, that the next
 * run repeats), evict each page before its next use and hit nothing, as
 * at 10M facts (issue 18); taking the newest one keeps the set's other
 * pages for the next pass to hit (bimodal insertion). Every AGE_EVERY-th
 * eviction takes the oldest and clears the marks, so that pages no longer
 * read make room while those read meanwhile are marked again; when every
 * page was used, the marks are cleared and the oldest goes. */
static size_t victim(page_cache *c, size_t first, size_t n) {
    bool age = c->evictions++ % AGE_EVERY == 0;
    size_t i = unused_slot(c, first, n, age);
    if (age || i == NO_SLOT)
        clear_used(c, first, n);
    return i != NO_SLOT ? i : unused_slot(c, first, n, true);
}

/* Under mu: an empty entry of pgno's set (allocated when the set has an
 * unfilled slot), else the victim. NULL only when out of memory with no
 * entry in the set. */
static entry *take_slot(page_cache *c, uint32_t pgno) {
    size_t first, n;
    set_of(c, pgno, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        entry *e = slot_entry(c, i);
        if (!e && (e = calloc(1, sizeof *e))) {
            seqlock_init(&e->seq);
            atomic_store_explicit(&c->slots[i], e, memory_order_release);
        }
        if (e && head_now(e) == 0) {
            c->born[i] = ++c->births;
            return e;
        }
    }
    size_t i = victim(c, first, n);
    if (i == NO_SLOT)
        return NULL;
    c->born[i] = ++c->births;
    return slot_entry(c, i);
}

/* Under mu. */
static void write_entry(entry *e, uint64_t head, const uint8_t *page) {
    seqlock_write_begin(&e->seq);
    seqlock_copy_in(&e->head, &head, 1);
    if (page)
        seqlock_copy_in(e->page, page, PAGE_WORDS);
    seqlock_write_end(&e->seq);
}

void page_cache_put(page_cache *c, uint32_t pgno, const uint8_t *src) {
    page_cache_put_checked(c, pgno, src, NULL);
}

void page_cache_put_checked(page_cache *c, uint32_t pgno, const uint8_t *src, const void *as) {
    pthread_mutex_lock(&c->mu);
    mark_good(c, pgno);
    set_checked(c, pgno, as);
    entry *e = find(c, pgno);
    if (!e && (e = take_slot(c, pgno))) {
        if (head_now(e) == 0)
            c->count++;
        atomic_store_explicit(&e->used, false, memory_order_relaxed);
    }
    if (e)
        write_entry(e, head_of(pgno, checked_index(c, pgno)), src);
    pthread_mutex_unlock(&c->mu);
}

void page_cache_set_checked(page_cache *c, uint32_t pgno, const uint8_t *image, const void *as) {
    pthread_mutex_lock(&c->mu);
    entry *e = find(c, pgno);
    if (!e || memcmp((const void *)e->page, image, FORMAT_PAGE_SIZE) == 0) {
        set_checked(c, pgno, as);
        if (e)
            write_entry(e, head_of(pgno, checked_index(c, pgno)), NULL);
    }
    pthread_mutex_unlock(&c->mu);
}

/* Entries are emptied, not freed: a reader may be copying one. */
void page_cache_drop_from(page_cache *c, uint32_t first) {
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->capacity; i++) {
        entry *e = slot_entry(c, i);
        uint64_t head = e ? head_now(e) : 0;
        if (head != 0 && (uint32_t)head - 1u >= first) {
            write_entry(e, 0, NULL);
            c->count--;
        }
    }
    for (size_t pgno = first; pgno < c->good_words * 64; pgno++)
        c->good[pgno / 64] &= ~(UINT64_C(1) << (pgno % 64));
    if (first < c->checked_len)
        memset(c->checked + first, 0, c->checked_len - first);
    pthread_mutex_unlock(&c->mu);
}
