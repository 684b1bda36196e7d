/* The dictionary's writer-side shortcuts: the filter of the DICT tree's
 * hashes (a new entry skips the tree search; an entry already in the tree
 * is always found, whether the filter was there from the start, built
 * later from the tree, or rebuilt larger), and the pager's reuse of freed
 * page versions (a reused block never changes what an open view reads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "storage/btree.h"
#include "storage/dict.h"
#include "storage/format.h"
#include "storage/pager.h"

static size_t text_of(size_t i, char *out) {
    return (size_t)snprintf(out, 32, ":entry/%zu", i);
}

static pager *memory_pager(void) {
    pager *pg = NULL;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    return pg;
}

static void test_filter_holds_every_hash_added(void) {
    dict_filter f = {0};
    CHECK(!dict_filter_built(&f));
    CHECK(dict_filter_reset(&f, 0));
    CHECK(dict_filter_built(&f));
    CHECK(f.mask + 1 == DICT_FILTER_MIN_BITS);
    uint32_t h = 12345;
    bool full = false;
    size_t added = 0;
    while (!full) {
        h = h * 2654435761u + 97;
        full = dict_filter_add(&f, h);
        added++;
    }
    /* full once past DICT_FILTER_BITS_PER_ENTRY bits per hash, not before */
    CHECK(added == DICT_FILTER_MIN_BITS / DICT_FILTER_BITS_PER_ENTRY + 1);
    h = 12345;
    size_t held = 0;
    for (size_t i = 0; i < added; i++) {
        h = h * 2654435761u + 97;
        held += dict_filter_may_hold(&f, h);
    }
    CHECK(held == added);
    size_t maybe = 0; /* hashes never added: about 1.5% say maybe at 16 bits each */
    for (uint32_t i = 0; i < 10000; i++)
        maybe += dict_filter_may_hold(&f, i * 7919u + 3);
    CHECK(maybe < 500);
    CHECK(dict_filter_reset(&f, 10000));
    CHECK(f.count == 0 && f.mask + 1 >= 10000 * DICT_FILTER_BITS_PER_ENTRY);
    CHECK(!dict_filter_may_hold(&f, h));
    CHECK(dict_filter_reset(&f, SIZE_MAX / 64)); /* capped, never asks to grow */
    CHECK(f.mask + 1 == DICT_FILTER_MAX_BITS);
    CHECK(!dict_filter_add(&f, 1));
    f.count = DICT_FILTER_MAX_BITS; /* as if far more than its size were added */
    CHECK(!dict_filter_add(&f, 2));
    dict_filter_free(&f);
    CHECK(!dict_filter_built(&f));
}

/* Interns entries first..first+n through `d`: each new one added (the
 * kind alternates, so a text and a UUID of the same bytes are distinct). */
static void intern_range(dict *d, pager *pg, uint32_t *root, size_t first, size_t n, uint64_t *locs,
                         bool expect_added) {
    err e = {0};
    for (size_t i = first; i < first + n; i++) {
        char text[32];
        size_t len = text_of(i, text);
        int kind = i % 2 ? DICT_UUID : DICT_TEXT;
        uint64_t loc = 0;
        bool added = !expect_added;
        CHECK(dict_intern(d, pg, root, kind, text, len, &loc, &added, &e) == 0);
        CHECK(added == expect_added);
        if (expect_added)
            locs[i] = loc;
        else
            CHECK(loc == locs[i]);
    }
    err_clear(&e);
}

/* A memory dictionary starts empty, so its filter is built at once and
 * grows (rebuilt from the tree) as entries come: every entry, interned
 * again, is found at its location, beyond what the cache holds; once
 * flushed into the tree, without the tree (the writer knows them: given
 * a root of 0, an empty tree, it would add them all anew). */
static void test_new_dictionary_filter_grows_and_finds_everything(void) {
    enum { N = 40000 };
    pager *pg = memory_pager();
    err e = {0};
    dict d;
    dict_init(&d);
    uint32_t root = 0;
    uint64_t *locs = calloc(N, sizeof *locs);
    intern_range(&d, pg, &root, 0, N, locs, true);
    CHECK(dict_filter_built(&d.filter));
    CHECK(d.filter.count == N);
    CHECK(d.filter.mask + 1 >= (uint64_t)N * DICT_FILTER_BITS_PER_ENTRY);
    intern_range(&d, pg, &root, 0, N, locs, false);
    for (size_t i = 0; i < N; i += 97) { /* and a reader's search agrees */
        char text[32];
        size_t len = text_of(i, text);
        uint64_t loc = 0;
        CHECK(dict_find(&d, pg, PAGER_LATEST, root, d.recent, i % 2 ? DICT_UUID : DICT_TEXT, text,
                        len, &loc, &e) == 1);
        CHECK(loc == locs[i]);
    }
    CHECK(dict_find(&d, pg, PAGER_LATEST, root, d.recent, DICT_TEXT, ":entry/none", 11, &locs[0],
                    &e) == 0);
    CHECK(dict_flush(&d, pg, &root, &e) == 0);
    uint32_t no_tree = 0;
    intern_range(&d, pg, &no_tree, 0, N, locs, false);
    CHECK(no_tree == 0);
    free(locs);
    dict_free(&d);
    pager_close(pg);
}

/* A dictionary over a tree it did not start (a reopened file, a
 * transaction's fork) searches the tree until it has added enough new
 * entries (1,024, or a quarter of what the tree is said to hold) to build
 * the filter from it: an entry already there is found before, while and
 * after the filter is built, never added twice. */
static void test_filter_built_later_from_the_tree(void) {
    enum { OLD = 6000, NEW = 3000 };
    pager *pg = NULL;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    dict first, later;
    dict_init(&first);
    dict_init(&later);
    uint32_t root = 0;
    uint64_t *locs = calloc(OLD + NEW, sizeof *locs);
    intern_range(&first, pg, &root, 0, OLD, locs, true);
    CHECK(dict_flush(&first, pg, &root, &e) == 0); /* the tree changes hands */
    dict_free(&first);
    intern_range(&later, pg, &root, 0, OLD, locs, false);
    CHECK(!dict_filter_built(&later.filter)); /* found, none added */
    intern_range(&later, pg, &root, OLD, 1024, locs, true);
    CHECK(!dict_filter_built(&later.filter)); /* due at the next lookup */
    intern_range(&later, pg, &root, OLD + 1024, 1, locs, true);
    CHECK(dict_filter_built(&later.filter));
    /* every hash of the tree, sized for them (a second fill learnt how many) */
    CHECK(later.filter.count == OLD + 1025);
    CHECK(later.filter.mask + 1 >= (uint64_t)(OLD + 1025) * DICT_FILTER_BITS_PER_ENTRY);
    intern_range(&later, pg, &root, OLD + 1025, NEW - 1025, locs, true);
    CHECK(later.filter.count == OLD + NEW);
    intern_range(&later, pg, &root, 0, OLD + NEW, locs, false);
    CHECK(dict_flush(&later, pg, &root, &e) == 0);
    dict big; /* told the tree is larger: a quarter of it must be added first */
    dict_init(&big);
    dict_expect(&big, 40000);
    intern_range(&big, pg, &root, 0, OLD + NEW, locs, false);
    uint64_t *more = calloc(20000, sizeof *more);
    intern_range(&big, pg, &root, OLD + NEW, 9999, more, true);
    CHECK(!dict_filter_built(&big.filter));
    intern_range(&big, pg, &root, OLD + NEW + 9999, 2, more, true);
    CHECK(dict_filter_built(&big.filter));
    CHECK(big.filter.count == OLD + NEW + 10001);
    intern_range(&big, pg, &root, 0, OLD + NEW, locs, false);
    free(more);
    free(locs);
    dict_free(&later);
    dict_free(&big);
    pager_close(pg);
}

/* The writer's table of known entries keeps every location put, through
 * its doublings: a hash's every location comes back (several entries may
 * share a hash), none of another hash's. */
static void test_known_table_keeps_every_location(void) {
    enum { N = 20000, SHARED = 5 };
    dict_known t = {0};
    size_t at = 0;
    uint64_t loc = 0;
    CHECK(!dict_known_next(&t, 7, &at, &loc));
    for (uint64_t i = 0; i < N; i++) /* hashes 0..N-1 spread by a multiply */
        dict_known_put(&t, (uint32_t)(i * 2654435761u), (i + 1) << 12);
    for (uint64_t i = 0; i < SHARED; i++) /* five more entries of hash 0 */
        dict_known_put(&t, 0, (N + 1 + i) << 12);
    CHECK(t.count == N + SHARED && t.mask + 1 >= 2 * t.count);
    size_t wrong = 0;
    for (uint64_t i = 1; i < N; i++) {
        at = 0;
        size_t seen = 0;
        while (dict_known_next(&t, (uint32_t)(i * 2654435761u), &at, &loc))
            wrong += seen++ > 0 || loc != (i + 1) << 12;
        wrong += seen != 1;
    }
    CHECK(wrong == 0);
    uint64_t sum = 0;
    size_t seen = 0;
    for (at = 0; dict_known_next(&t, 0, &at, &loc); seen++)
        sum += loc >> 12;
    CHECK(seen == SHARED + 1 && sum == 1 + (N + 1) + (N + 2) + (N + 3) + (N + 4) + (N + 5));
    at = 0;
    CHECK(!dict_known_next(&t, 12345, &at, &loc)); /* 12345 is no multiple's low 32 bits here */
    dict_known_free(&t);
}

static void fill(pager *pg, uint32_t pgno, uint8_t byte) {
    uint8_t *page = NULL;
    err e = {0};
    CHECK(pager_dirty(pg, pgno, &page, &e) == 0 && page);
    if (page)
        memset(page, byte, FORMAT_PAGE_SIZE);
}

static uint8_t seen(pager *pg, uint64_t view, uint32_t pgno) {
    static uint8_t page[FORMAT_PAGE_SIZE];
    err e = {0};
    CHECK(pager_read(pg, view, pgno, page, &e) == 0);
    return page[FORMAT_PAGE_SIZE / 2];
}

/* Versions freed by pager_collect are reused for the next changes: the
 * views still open keep reading their own bytes throughout. */
static void test_reused_versions_leave_open_views_alone(void) {
    pager *pg = NULL;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    enum { PAGES = 40 }; /* more than the pager keeps for reuse */
    uint32_t pgno[PAGES];
    for (int i = 0; i < PAGES; i++) {
        uint8_t *page = NULL;
        CHECK(pager_alloc(pg, &pgno[i], &page, &e) == 0);
        memset(page, 1, FORMAT_PAGE_SIZE);
    }
    pager_publish(pg, 1);
    for (uint64_t tag = 2; tag <= 12; tag++) {
        for (int i = 0; i < PAGES; i++)
            fill(pg, pgno[i], (uint8_t)tag);
        pager_publish(pg, tag);
        pager_collect(pg, tag < 6 ? 1 : tag - 1); /* view 1 stays open until 6 */
        for (int i = 0; i < PAGES; i += 7) {
            if (tag < 6)
                CHECK(seen(pg, 1, pgno[i]) == 1);
            CHECK(seen(pg, tag - 1, pgno[i]) == tag - 1);
            CHECK(seen(pg, tag, pgno[i]) == tag);
        }
    }
    CHECK(pager_versions_kept(pg) == PAGES); /* the versions view 11 sees */
    pager_collect(pg, 12);
    CHECK(pager_versions_kept(pg) == 0);
    pager_close(pg);
}

/* Commits beside a view held open: every page the commits change gets a
 * version a commit, and the view's close frees them all at once. The
 * pager keeps those blocks (up to 1,024) for the next commits' copies
 * instead of giving all but 32 back to malloc (issue 20), and the next
 * burst, copied into them, leaves the view then open reading its own
 * bytes. */
enum { BURST_PAGES = 100 };

static void burst(pager *pg, const uint32_t *pgno, uint64_t held, uint64_t from, uint64_t to) {
    for (uint64_t tag = from; tag <= to; tag++) {
        for (int i = 0; i < BURST_PAGES; i++)
            fill(pg, pgno[i], (uint8_t)tag);
        pager_publish(pg, tag);
        pager_collect(pg, held);
    }
}

static void alloc_pages(pager *pg, uint32_t *pgno) {
    err e = {0};
    for (int i = 0; i < BURST_PAGES; i++) {
        uint8_t *page = NULL;
        CHECK(pager_alloc(pg, &pgno[i], &page, &e) == 0);
        memset(page, 1, FORMAT_PAGE_SIZE);
    }
    pager_publish(pg, 1);
}

static void test_versions_a_held_view_kept_are_reused(void) {
    pager *pg = memory_pager();
    uint32_t pgno[BURST_PAGES];
    alloc_pages(pg, pgno);
    burst(pg, pgno, 1, 2, 11); /* view 1 held over 10 commits */
    CHECK(pager_versions_kept(pg) == 10 * BURST_PAGES);
    pager_collect(pg, 11);
    CHECK(pager_versions_kept(pg) == 0);
    /* all kept but the pages' spares (the copies of the next commit) */
    CHECK(pager_versions_idle(pg) > 9 * BURST_PAGES);
    burst(pg, pgno, 11, 12, 19); /* view 11 held; the copies go into idle blocks */
    CHECK(pager_versions_idle(pg) > BURST_PAGES);
    for (int i = 0; i < BURST_PAGES; i++) {
        CHECK(seen(pg, 11, pgno[i]) == 11);
        CHECK(seen(pg, 15, pgno[i]) == 15);
        CHECK(seen(pg, 19, pgno[i]) == 19);
    }
    burst(pg, pgno, 19, 20, 60);
    pager_collect(pg, 60);
    CHECK(pager_versions_idle(pg) == 1024); /* at most */
    pager_close(pg);
}

/* Every 65,536 collects (commits), the idle versions no commit took
 * since the last such trim are freed, down to 32: once the readers are
 * gone, a burst's blocks are not kept for ever. */
static void test_versions_idle_for_long_are_freed(void) {
    pager *pg = memory_pager();
    uint32_t pgno[BURST_PAGES];
    alloc_pages(pg, pgno);
    burst(pg, pgno, 1, 2, 11);
    pager_collect(pg, 11);
    size_t idle = pager_versions_idle(pg);
    CHECK(idle > 9 * BURST_PAGES);
    for (int i = 11; i < 65536; i++) /* 65,536 in all: the burst took blocks in this period */
        pager_collect(pg, 11);
    CHECK(pager_versions_idle(pg) == idle);
    for (int i = 0; i < 65536; i++) /* none taken in this one */
        pager_collect(pg, 11);
    CHECK(pager_versions_idle(pg) == 32);
    fill(pg, pgno[0], 12); /* commits go on after the trim */
    pager_publish(pg, 12);
    CHECK(seen(pg, 11, pgno[0]) == 11 && seen(pg, 12, pgno[0]) == 12);
    pager_close(pg);
}

/* The DICT tree's keys (hash, location), inserted in random order with
 * many hashes shared, some keys twice, over several commits: the tree
 * holds each once, in order, and a seek for each key, for the gap just
 * below it and for its bare hash finds the key (the codec's numeric block
 * scan, for inserts and seeks, agrees with the key order). */
static int cmp_keys(const void *a, const void *b) {
    return memcmp(a, b, DICT_KEY_SIZE);
}

static void dict_tree_key(uint8_t *key, uint64_t hash, uint64_t loc) {
    format_put_be(key, hash, DICT_HASH_BYTES);
    format_put_be(key + DICT_HASH_BYTES, loc, DICT_LOC_BYTES);
}

static void test_tree_keys_sorted_and_sought(void) {
    enum { N = 6000 };
    pager *pg = memory_pager();
    err e = {0};
    dict d;
    dict_init(&d);
    static uint8_t keys[N][DICT_KEY_SIZE];
    uint32_t root = 0, seed = 7;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        uint64_t hash = (seed >> 8) % 700 * 6151u; /* ~9 keys a hash, far apart */
        seed = seed * 1103515245u + 12345u;
        uint64_t loc = i % 5 == 4 ? 1 : ((uint64_t)(seed >> 4) << 12) | (seed & 0xfff);
        dict_tree_key(keys[i], hash, loc);
        CHECK(btree_insert(pg, &root, &d.codec, keys[i], NULL, &e) == 0);
        CHECK(btree_insert(pg, &root, &d.codec, keys[i], NULL, &e) == 0); /* again: kept once */
        if (i % 500 == 499)
            pager_publish(pg, i + 1);
    }
    qsort(keys, N, DICT_KEY_SIZE, cmp_keys);
    size_t distinct = 0;
    for (size_t i = 0; i < N; i++)
        if (i == 0 || memcmp(keys[i], keys[distinct - 1], DICT_KEY_SIZE) != 0)
            memcpy(keys[distinct++], keys[i], DICT_KEY_SIZE);
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &d.codec, &e) == 0);
    static const uint8_t first[DICT_KEY_SIZE];
    CHECK(btree_seek(&c, first, 0, &e) == 0);
    const uint8_t *k = NULL;
    size_t n = 0;
    while (btree_next(&c, &k, &e) == 1)
        CHECK(n < distinct && memcmp(k, keys[n++], DICT_KEY_SIZE) == 0);
    CHECK(n == distinct);
    for (size_t i = 0; i < distinct; i++) {
        uint8_t below[DICT_KEY_SIZE];
        uint64_t hash = format_get_be(keys[i], DICT_HASH_BYTES);
        uint64_t loc = format_get_be(keys[i] + DICT_HASH_BYTES, DICT_LOC_BYTES);
        dict_tree_key(below, hash, loc - 1);
        bool after_prev = i == 0 || memcmp(keys[i - 1], below, DICT_KEY_SIZE) < 0;
        const uint8_t *targets[2] = {keys[i], below};
        for (int t = 0; t < 2; t++) {
            CHECK(btree_seek(&c, targets[t], DICT_KEY_SIZE, &e) == 0);
            CHECK(btree_next(&c, &k, &e) == 1);
            CHECK(memcmp(k, t == 0 || after_prev ? keys[i] : keys[i - 1], DICT_KEY_SIZE) == 0);
        }
        if (i == 0 || memcmp(keys[i - 1], keys[i], DICT_HASH_BYTES) != 0) { /* a hash's first */
            CHECK(btree_seek(&c, keys[i], DICT_HASH_BYTES, &e) == 0);
            CHECK(btree_next(&c, &k, &e) == 1);
            CHECK(memcmp(k, keys[i], DICT_KEY_SIZE) == 0);
        }
    }
    btree_cursor_free(&c);
    err_clear(&e);
    dict_free(&d);
    pager_close(pg);
}

int main(void) {
    test_filter_holds_every_hash_added();
    test_new_dictionary_filter_grows_and_finds_everything();
    test_filter_built_later_from_the_tree();
    test_reused_versions_leave_open_views_alone();
    test_versions_a_held_view_kept_are_reused();
    test_versions_idle_for_long_are_freed();
    test_tree_keys_sorted_and_sought();
    test_known_table_keeps_every_location();
    return CHECK_DONE();
}
