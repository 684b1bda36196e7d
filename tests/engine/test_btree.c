/* B+tree unit tests against a reference model (a sorted array): random
 * inserts at many sizes (so leaves and branches split at every level),
 * full scans, prefix seeks, one cursor seeking again and again (up and
 * down across leaves and branches), the same
 * key sought again (the leaf's memo of its last seek), duplicates,
 * and copy-on-write: a root saved before a checkpoint still reads its old
 * contents after more inserts, and an insert beside a view copies only
 * the pages it changes, and a page changed in consecutive commits is
 * copied (into its spare block) with every change. Cursors reuse the page copies of earlier
 * ones only while nothing changed.
 * The fact-key codec: round trips, truncated entries, and trees of fact
 * keys in every order (entries of varying sizes, so leaf blocks split and
 * edits shrink as well as grow), a full leaf split at every place and
 * retractions inserted after their facts (in order, in runs, at random),
 * every leaf passing the on-read check. A leaf whose restart array cannot be
 * right is STG-008. Scratch pages and leaf notes are trusted only by a
 * cursor of the codec that checked them, and a child page 0 (what an
 * empty scratch slot holds) is STG-008. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/timestamp.h"
#include "model/value.h"
#include "storage/btree.h"
#include "storage/btree_leaf.h"
#include "storage/pager.h"
#include "store/fact_codec.h"
#include "store/fact_key.h"

/* The writer's buffer of a page it changed (nothing here is published:
 * no copy is made), NULL for a committed page. */
static uint8_t *dirty_page(pager *pg, uint32_t pgno) {
    uint8_t *page = NULL;
    err e = {0};
    if (pager_dirty(pg, pgno, &page, &e) != 0)
        err_clear(&e);
    return page;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct model {
    uint8_t *keys;
    size_t count, ks;
    const btree_codec *codec;
} model;

/* A generic codec for keys of any size: u8 count of leading bytes shared
 * with the base key, then the rest of the key. */
static size_t prefix_encode(const btree_codec *c, const uint8_t *prev, const uint8_t *key,
                            uint8_t *out) {
    size_t shared = 0, ks = c->key_size;
    while (prev && shared < ks && prev[shared] == key[shared])
        shared++;
    out[0] = (uint8_t)shared;
    memcpy(out + 1, key + shared, ks - shared);
    return 1 + ks - shared;
}

static size_t prefix_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in,
                            size_t avail, uint8_t *key) {
    size_t ks = c->key_size;
    if (avail < 1 || in[0] > ks || (in[0] > 0 && !prev) || avail < 1 + ks - in[0])
        return 0;
    size_t shared = in[0];
    if (shared)
        memcpy(key, prev, shared);
    memcpy(key + shared, in + 1, ks - shared);
    return 1 + ks - shared;
}

static btree_codec btree_prefix_codec(size_t key_size) {
    return (btree_codec){key_size, 64,    prefix_encode, prefix_decode, 0, NULL,
                         NULL,     false, NULL,          NULL,          0, NULL};
}

static btree_codec prefix8, prefix16, prefix62;

static const btree_codec *prefix_codec(size_t ks) {
    return ks == 8 ? &prefix8 : ks == 16 ? &prefix16 : &prefix62;
}

static int cmp_ks;
static int key_cmp(const void *a, const void *b) {
    return memcmp(a, b, (size_t)cmp_ks);
}

static void random_key(uint8_t *k, size_t ks) {
    for (size_t i = 0; i < ks; i++)
        k[i] = (uint8_t)(rng() % 7); /* few symbols: many shared prefixes and duplicates */
}

static void model_sort(model *m) {
    cmp_ks = (int)m->ks;
    qsort(m->keys, m->count, m->ks, key_cmp);
    size_t out = 0;
    for (size_t i = 0; i < m->count; i++)
        if (out == 0 || memcmp(m->keys + (out - 1) * m->ks, m->keys + i * m->ks, m->ks) != 0)
            memmove(m->keys + out++ * m->ks, m->keys + i * m->ks, m->ks);
    m->count = out;
}

/* The tree's keys from `prefix` on equal the model's. */
static bool same_from(pager *pg, uint32_t root, const model *m, const uint8_t *prefix, size_t len) {
    btree_cursor c;
    err e = {0};
    if (btree_cursor_init(&c, pg, PAGER_LATEST, root, m->codec, &e) != 0)
        return false;
    uint8_t target[BTREE_MAX_KEY] = {0};
    memcpy(target, prefix, len);
    size_t i = 0;
    while (i < m->count && memcmp(m->keys + i * m->ks, target, m->ks) < 0)
        i++;
    bool ok = btree_seek(&c, prefix, len, &e) == 0;
    const uint8_t *k;
    int rc;
    while (ok && (rc = btree_next(&c, &k, &e)) == 1) {
        ok = i < m->count && memcmp(k, m->keys + i * m->ks, m->ks) == 0;
        i++;
    }
    ok = ok && rc == 0 && i == m->count;
    btree_cursor_free(&c);
    err_clear(&e);
    return ok;
}

/* btree_seek_before gives the model's last key below prefix (zero-padded). */
static bool same_before(pager *pg, uint32_t root, const model *m, const uint8_t *prefix,
                        size_t len) {
    btree_cursor c;
    err e = {0};
    if (btree_cursor_init(&c, pg, PAGER_LATEST, root, m->codec, &e) != 0)
        return false;
    uint8_t target[BTREE_MAX_KEY] = {0}, key[BTREE_MAX_KEY];
    memcpy(target, prefix, len);
    size_t below = 0;
    while (below < m->count && memcmp(m->keys + below * m->ks, target, m->ks) < 0)
        below++;
    int rc = btree_seek_before(&c, prefix, len, key, &e);
    bool ok = below == 0 ? rc == 0
                         : rc == 1 && memcmp(key, m->keys + (below - 1) * m->ks, m->ks) == 0;
    btree_cursor_free(&c);
    err_clear(&e);
    return ok;
}

static void check_tree(pager *pg, uint32_t root, const model *m) {
    CHECK(same_from(pg, root, m, (const uint8_t *)"", 0));
    uint8_t top[BTREE_MAX_KEY];
    memset(top, 0xff, sizeof top);
    CHECK(same_before(pg, root, m, top, m->ks));
    CHECK(same_before(pg, root, m, (const uint8_t *)"", 0));
    for (int probe = 0; probe < 40; probe++) {
        uint8_t prefix[BTREE_MAX_KEY];
        random_key(prefix, m->ks);
        size_t len = (size_t)(rng() % (m->ks + 1));
        CHECK(same_from(pg, root, m, prefix, len));
        CHECK(same_before(pg, root, m, prefix, len));
        /* every stored key as the bound: the one before it, across leaves */
        if (m->count) {
            size_t i = (size_t)(rng() % m->count);
            CHECK(same_before(pg, root, m, m->keys + i * m->ks, m->ks));
        }
    }
    for (size_t i = 0; i < m->count; i += 1 + m->count / 500)
        CHECK(same_before(pg, root, m, m->keys + i * m->ks, m->ks));
}

static void insert_random(pager *pg, uint32_t *root, model *m, size_t n) {
    err e = {0};
    for (size_t i = 0; i < n; i++) {
        uint8_t *k = m->keys + m->count * m->ks;
        random_key(k, m->ks);
        if (btree_insert(pg, root, m->codec, k, NULL, &e) != 0) {
            CHECK(!"insert failed");
            break;
        }
        m->count++;
    }
    model_sort(m);
    err_clear(&e);
}

static void test_random_inserts_match_the_model(size_t ks) {
    static const size_t sizes[] = {1, 2, 10, 100, 700, 3000, 20000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        pager *pg;
        format_header h;
        err e = {0};
        CHECK(pager_open_memory(&pg, &h, &e) == 0);
        model m = {malloc(sizes[s] * ks + ks), 0, ks, prefix_codec(ks)};
        uint32_t root = 0;
        insert_random(pg, &root, &m, sizes[s]);
        check_tree(pg, root, &m);
        free(m.keys);
        pager_close(pg);
    }
}

static void test_sequential_inserts_fill_pages(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    model m = {malloc(50000 * 8), 0, 8, &prefix8};
    for (uint64_t i = 0; i < 50000; i++) {
        format_put_be(m.keys + i * 8, i, 8);
        CHECK(btree_insert(pg, &root, m.codec, m.keys + i * 8, NULL, &e) == 0);
        m.count++;
    }
    check_tree(pg, root, &m);
    /* consecutive keys share 6 or 7 bytes: entries of 2 or 3 bytes (9 at a
     * restart), so full leaves hold over 1,000 */
    CHECK(pager_page_count(pg) - FORMAT_FIRST_DATA_PAGE < 50000 / 1000 + 5);
    free(m.keys);
    pager_close(pg);
}

/* Keys that each go first in their group (a newest-first order: 8-byte
 * group, then a descending number), after a key of another group: with
 * grows_at_front a full leaf splits just after the new key, so the older
 * keys leave full pages behind; without, middle splits leave them half
 * full. */
static size_t descending_group_pages(bool at_front) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    btree_codec codec = btree_prefix_codec(16);
    codec.grows_at_front = at_front;
    uint32_t root = 0;
    model m = {malloc(40001 * 16), 0, 16, &codec};
    memset(m.keys, 0, 16); /* the group before */
    CHECK(btree_insert(pg, &root, &codec, m.keys, NULL, &e) == 0);
    m.count = 1;
    for (uint64_t i = 0; i < 40000; i++) {
        uint8_t *k = m.keys + m.count * 16;
        format_put_be(k, 7, 8);
        format_put_be(k + 8, UINT64_MAX - i, 8);
        CHECK(btree_insert(pg, &root, &codec, k, NULL, &e) == 0);
        m.count++;
    }
    model_sort(&m);
    check_tree(pg, root, &m);
    size_t pages = pager_page_count(pg) - FORMAT_FIRST_DATA_PAGE;
    free(m.keys);
    pager_close(pg);
    return pages;
}

static void test_front_growing_groups_fill_pages(void) {
    size_t full = descending_group_pages(true), half = descending_group_pages(false);
    CHECK(full * 10 < half * 7);
}

/* Many groups growing at their fronts in random turns, keys of varying
 * shapes (so re-encoded pages differ in size): every insert succeeds
 * (a split's right page always fits) and the tree is the model. */
static void test_front_growing_groups_in_turns(void) {
    for (int round = 0; round < 3; round++) {
        pager *pg;
        format_header h;
        err e = {0};
        CHECK(pager_open_memory(&pg, &h, &e) == 0);
        btree_codec codec = btree_prefix_codec(16);
        codec.grows_at_front = true;
        uint32_t root = 0;
        size_t groups = round == 0 ? 3 : round == 1 ? 40 : 700, n = 30000;
        uint64_t *next = malloc(groups * sizeof *next);
        for (size_t g = 0; g < groups; g++)
            next[g] = UINT64_MAX - (rng() % 1000);
        model m = {malloc(n * 16), 0, 16, &codec};
        for (size_t i = 0; i < n; i++) {
            size_t g = (size_t)(rng() % groups);
            uint8_t *k = m.keys + m.count * 16;
            format_put_be(k, g * 0x10001, 8);
            next[g] -= 1 + rng() % (round == 2 ? 100000 : 3);
            format_put_be(k + 8, next[g], 8);
            if (btree_insert(pg, &root, &codec, k, NULL, &e) != 0) {
                CHECK(!"insert failed");
                break;
            }
            m.count++;
        }
        model_sort(&m);
        check_tree(pg, root, &m);
        free(next);
        free(m.keys);
        pager_close(pg);
        err_clear(&e);
    }
}

/* One cursor seeks again and again, reading 0 to 3 keys after each seek
 * (a seek decodes the key it finds; the next btree_next hands it over
 * once): every key read is the model's. Keys are 8-byte numbers with gaps,
 * so targets fall between keys, at block and leaf boundaries and past the
 * end. */
static void test_reseeking_one_cursor(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    enum { N = 5000 };
    for (uint64_t i = 0; i < N; i++) {
        uint8_t k[8];
        format_put_be(k, 3 * i + 1, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
    }
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
    for (int probe = 0; probe < 3000; probe++) {
        uint64_t target = rng() % (3 * N + 3);
        uint8_t t[8];
        format_put_be(t, target, 8);
        CHECK(btree_seek(&c, t, 8, &e) == 0);
        uint64_t want = target <= 1 ? 1 : 3 * ((target - 2) / 3 + 1) + 1;
        for (int r = 0; r < probe % 4; r++, want += 3) {
            const uint8_t *k;
            int rc = btree_next(&c, &k, &e);
            CHECK(rc == (want < 3 * N ? 1 : 0));
            if (rc != 1)
                break;
            CHECK(format_get_be(k, 8) == want);
        }
    }
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

/* The first key of the model at or after `target` (8-byte keys 3i+1):
 * the number, or UINT64_MAX past the end. */
static uint64_t spaced_from(uint64_t target, uint64_t n) {
    uint64_t want = target <= 1 ? 1 : 3 * ((target - 2) / 3 + 1) + 1;
    return want < 3 * n ? want : UINT64_MAX;
}

/* Seeks `target` and checks the next `reads` keys against the model. */
static void seek_and_check(btree_cursor *c, uint64_t target, uint64_t n, int reads) {
    err e = {0};
    uint8_t t[8];
    format_put_be(t, target, 8);
    CHECK(btree_seek(c, t, 8, &e) == 0);
    uint64_t want = spaced_from(target, n);
    for (int r = 0; r < reads; r++, want = want == UINT64_MAX ? want : spaced_from(want + 1, n)) {
        const uint8_t *k;
        int rc = btree_next(c, &k, &e);
        CHECK(rc == (want != UINT64_MAX ? 1 : 0));
        if (rc != 1)
            break;
        CHECK(format_get_be(k, 8) == want);
    }
    err_clear(&e);
}

/* Probes in key order seek inside the leaf the cursor holds (no descent)
 * while the target lies in its range: steps of every size (inside a
 * block, across blocks, onto each leaf's first key, between a leaf's last
 * key and the next leaf's first, across many leaves, past the end of the
 * tree and back), each followed by reads that cross into the next leaves;
 * then the same going down, and a cursor reused on another tree. */
static void test_probes_in_key_order(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0, other = 0;
    enum { N = 40000 };
    for (uint64_t i = 0; i < N; i++) {
        uint8_t k[8];
        format_put_be(k, 3 * i + 1, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
        if (i % 7 == 0)
            CHECK(btree_insert(pg, &other, &prefix8, k, NULL, &e) == 0);
    }
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
    static const uint64_t steps[] = {0, 1, 2, 3, 4, 5, 9, 30, 97, 301, 1000, 2999, 10007};
    uint64_t target = 0;
    for (int i = 0; target < 3 * N + 40; i++) {
        seek_and_check(&c, target, N, i % 4);
        target += steps[i % (sizeof steps / sizeof steps[0])];
    }
    for (int i = 0; i < 2000; i++) { /* every key and gap around some leaf ends */
        seek_and_check(&c, 3 * N / 2 + (uint64_t)i, N, i % 3);
    }
    target = 3 * N + 40;
    for (int i = 0; i < 400; i++) { /* going down: each seek from the root */
        seek_and_check(&c, target, N, i % 3);
        target = target > 317 ? target - 317 : 0;
    }
    seek_and_check(&c, 3 * N + 5, N, 2); /* past the end, then back */
    seek_and_check(&c, 0, N, 2);
    /* the same cursor set up again for another tree */
    btree_cursor_reuse(&c, pg, PAGER_LATEST, other, &prefix8);
    uint8_t t[8];
    const uint8_t *k = NULL;
    format_put_be(t, 3 * 14 + 1, 8);
    CHECK(btree_seek(&c, t, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
    CHECK(format_get_be(k, 8) == 3 * 14 + 1);
    format_put_be(t, 3 * 15 + 1, 8);
    CHECK(btree_seek(&c, t, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
    CHECK(format_get_be(k, 8) == 3 * 21 + 1);
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

/* Seeks going down one key at a time through a tree of three levels or
 * more (62-byte keys: a branch has some 60 children): each seek just below
 * the leaf the cursor holds must leave it. A leaf that is its branch's
 * first child has no lower bound at that level; the bound is the upper
 * level's key (the held leaf's bounds are every level's, btree_seek). */
static void test_seeks_down_across_branches(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    enum { N = 20000 };
    uint8_t k62[62] = {0};
    for (uint64_t i = 0; i < N; i++) {
        format_put_be(k62, 3 * i + 1, 8);
        CHECK(btree_insert(pg, &root, &prefix62, k62, NULL, &e) == 0);
    }
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix62, &e) == 0);
    for (uint64_t target = 3 * N + 1; target-- > 0;) {
        const uint8_t *k;
        format_put_be(k62, target, 8);
        CHECK(btree_seek(&c, k62, 8, &e) == 0);
        uint64_t want = spaced_from(target, N);
        CHECK(btree_next(&c, &k, &e) == (want != UINT64_MAX ? 1 : 0));
        if (want != UINT64_MAX)
            CHECK(format_get_be(k, 8) == want);
    }
    CHECK(c.depth >= 3); /* the last seek descended from the root */
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

/* A cursor that holds a leaf sees a key inserted into that leaf after
 * its seek: its next seek in the leaf's range does not trust the copy. */
static void test_probe_after_a_write_into_the_leaf(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    uint8_t k8[8];
    for (uint64_t i = 0; i < 3000; i += 2) {
        format_put_be(k8, i, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k8, NULL, &e) == 0);
    }
    btree_cursor c;
    const uint8_t *k;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
    for (uint64_t i = 1001; i < 1041; i += 2) {
        format_put_be(k8, i - 1, 8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i - 1);
        format_put_be(k8, i, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k8, NULL, &e) == 0);
        btree_cursor_reuse(&c, pg, PAGER_LATEST, root, &prefix8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i);
    }
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

/* A seek for the key the last seek in its leaf looked for takes that
 * seek's answer (the leaf's note keeps it): the same target again and
 * again, after reads that moved the cursor on (into the next leaves), by
 * a fresh cursor given the same scratch block, and alternating with other
 * targets in the leaf; a key inserted at the target, or just after it,
 * between two such seeks is found. */
static void test_repeated_seeks(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    enum { N = 20000 };
    uint8_t k8[8];
    for (uint64_t i = 0; i < N; i++) {
        format_put_be(k8, 3 * i + 1, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k8, NULL, &e) == 0);
    }
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
    for (int i = 0; i < 600; i++) {
        uint64_t target = rng() % (3 * N + 3);
        for (int again = 0; again < 3; again++)
            seek_and_check(&c, target, N, (i + again) % 5 * 40);
        seek_and_check(&c, target + 1, N, 1);
        seek_and_check(&c, target, N, 2);
        btree_cursor_free(&c); /* the next cursor takes the same scratch block */
        CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
        seek_and_check(&c, target, N, 3);
    }
    const uint8_t *k;
    for (uint64_t i = 3000; i < 3060; i += 3) { /* 3001, 3004, ... are in the tree */
        format_put_be(k8, i, 8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i + 1);
        CHECK(btree_insert(pg, &root, &prefix8, k8, NULL, &e) == 0);
        btree_cursor_reuse(&c, pg, PAGER_LATEST, root, &prefix8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i);
        format_put_be(k8, i + 2, 8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i + 4);
        CHECK(btree_insert(pg, &root, &prefix8, k8, NULL, &e) == 0);
        btree_cursor_reuse(&c, pg, PAGER_LATEST, root, &prefix8);
        CHECK(btree_seek(&c, k8, 8, &e) == 0 && btree_next(&c, &k, &e) == 1);
        CHECK(format_get_be(k, 8) == i + 2);
    }
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

static void test_copy_on_write_keeps_the_committed_tree(void) {
    char dir[] = "/tmp/mg_btree_XXXXXX";
    if (!mkdtemp(dir))
        return;
    char path[256];
    snprintf(path, sizeof path, "%s/t.graph", dir);
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_file(path, false, false, 4, &pg, &h, &e) == 0); /* tiny cache */
    model old = {malloc(4000 * 16), 0, 16, &prefix16}, now = {malloc(8000 * 16), 0, 16, &prefix16};
    uint32_t root = 0;
    insert_random(pg, &root, &old, 4000);
    h.roots[0] = root;
    CHECK(pager_checkpoint(pg, &h, &e) == 0);
    uint32_t committed_root = root;
    memcpy(now.keys, old.keys, old.count * 16);
    now.count = old.count;
    insert_random(pg, &root, &now, 3000);
    CHECK(root != committed_root);
    check_tree(pg, committed_root, &old);
    check_tree(pg, root, &now);
    h.roots[0] = root;
    CHECK(pager_checkpoint(pg, &h, &e) == 0);
    check_tree(pg, root, &now);
    pager_close(pg);
    CHECK(pager_open_file(path, true, false, 8, &pg, &h, &e) == 0);
    if (pg) {
        CHECK(h.roots[0] == root && h.generation == 3);
        check_tree(pg, root, &now);
        pager_close(pg);
    }
    free(old.keys);
    free(now.keys);
    err_clear(&e);
    char wal[300];
    snprintf(wal, sizeof wal, "%s.wal", path);
    unlink(wal);
    unlink(path);
    rmdir(dir);
}

static size_t count_keys(pager *pg, uint64_t view, uint32_t root, const btree_codec *codec) {
    btree_cursor c;
    err e = {0};
    size_t n = 0;
    const uint8_t *k = NULL;
    if (btree_cursor_init(&c, pg, view, root, codec, &e) == 0 &&
        btree_seek(&c, (const uint8_t *)"", 0, &e) == 0)
        while (btree_next(&c, &k, &e) == 1)
            n++;
    btree_cursor_free(&c);
    err_clear(&e);
    return n;
}

/* Inserting into a tree a view may see copies only the pages that
 * change: a branch whose child, lowest key and entries stay the same is
 * not copied (one new version, the leaf's), and the view still reads its
 * snapshot. A key below every other one changes the branch: copied. */
static void test_unchanged_branches_are_not_copied(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    model m = {malloc(3400 * 16), 0, 16, &prefix16};
    uint32_t root = 0;
    insert_random(pg, &root, &m, 3000);
    uint32_t root1 = root;
    pager_publish(pg, 1);
    uint8_t before[FORMAT_PAGE_SIZE];
    size_t kept = pager_versions_kept(pg), unchanged = 0;
    CHECK(kept == 0);
    for (uint64_t tag = 2; tag < 300; tag++) {
        memcpy(before, pager_newest(pg, root), FORMAT_PAGE_SIZE);
        uint32_t was = root;
        insert_random(pg, &root, &m, 1);
        size_t now = pager_versions_kept(pg);
        if (root == was && memcmp(before, pager_newest(pg, root), FORMAT_PAGE_SIZE) == 0) {
            CHECK(now == kept + 1); /* the leaf only */
            unchanged++;
        } else {
            CHECK(now >= kept + 1);
        }
        kept = now;
        pager_publish(pg, tag);
    }
    CHECK(unchanged > 200); /* most inserts split nothing */
    uint8_t lowest[16] = {0};
    memcpy(before, pager_newest(pg, root), FORMAT_PAGE_SIZE);
    CHECK(btree_insert(pg, &root, &prefix16, lowest, NULL, &e) == 0);
    CHECK(memcmp(before, pager_newest(pg, root), FORMAT_PAGE_SIZE) != 0);
    CHECK(pager_versions_kept(pg) == kept + 2); /* the leaf and the root */
    memcpy(m.keys + m.count * 16, lowest, 16);
    m.count++;
    model_sort(&m);
    check_tree(pg, root, &m);
    CHECK(count_keys(pg, 1, root1, &prefix16) == 3000);
    CHECK(count_keys(pg, PAGER_LATEST, root, &prefix16) == m.count);
    free(m.keys);
    pager_close(pg);
}

/* A leaf changed in consecutive commits is copied into the block of its
 * version two back, copying only what the commit before changed
 * (pager_dirty_marked): appends, inserts between keys, a new lowest key
 * (the leaf rebuilt) and splits, one a commit, read back whole at the
 * latest view, while a view held open for 40 commits at a time keeps
 * the versions it sees from being reused and still reads its snapshot. */
static void test_commits_copy_changes_into_spares(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    enum { COMMITS = 3000 };
    model m = {malloc((COMMITS + 1) * 8), 0, 8, &prefix8};
    uint32_t root = 0, held_root = 0;
    uint64_t held = 0, low = UINT64_C(1) << 40, high = low;
    size_t held_count = 0;
    for (uint64_t tag = 1; tag <= COMMITS; tag++) {
        uint64_t r = rng() % 8, k; /* mostly appends, some between keys, some lowest */
        if (r < 5)
            k = ++high;
        else if (r < 7)
            k = low + rng() % (high - low + 1);
        else
            k = --low;
        format_put_be(m.keys + m.count++ * 8, k, 8);
        CHECK(btree_insert(pg, &root, m.codec, m.keys + (m.count - 1) * 8, NULL, &e) == 0);
        pager_publish(pg, tag);
        if (tag % 80 == 0) { /* a view opens */
            model_sort(&m);  /* without the keys inserted twice */
            held = tag;
            held_root = root;
            held_count = m.count;
        } else if (tag % 80 == 40) {
            held = 0;
        }
        pager_collect(pg, held ? held : tag);
        if (tag % 25 == 0) {
            model_sort(&m);
            CHECK(same_from(pg, root, &m, (const uint8_t *)"", 0));
            if (held)
                CHECK(count_keys(pg, held, held_root, m.codec) == held_count);
        }
    }
    model_sort(&m);
    check_tree(pg, root, &m);
    free(m.keys);
    pager_close(pg);
}

/* A plausible record: a few attributes, values of every type, mostly
 * default valid times, tx_ids close together. */
static void random_fact(fact_ids *f, uint64_t seq) {
    memset(f, 0, sizeof *f);
    f->e = 8192 + (rng() % 400) * 29;
    f->a = 4096 + (rng() % 6) * 11;
    f->v[0] = (uint8_t)(rng() % 7);
    uint64_t payload = f->v[0] == VT_INTEGER   ? format_sortable_i64((int64_t)(rng() % 200) - 100)
                       : f->v[0] == VT_FLOAT   ? rng()
                       : f->v[0] == VT_BOOLEAN ? rng() % 2
                       : f->v[0] == VT_NULL    ? 0
                                               : 8192 + rng() % 100000;
    format_put_be(f->v + 1, payload, 8);
    f->tx_count = 1 + seq / 7;
    f->seq = seq;
    f->tx_id = INT64_C(1764000000000) + (int64_t)(f->tx_count * 3);
    f->valid_from = rng() % 4 ? f->tx_id : INT64_C(1577836800000) + (int64_t)(rng() % 1000);
    f->valid_to = rng() % 4 ? VALID_TO_FOREVER : f->valid_from + (int64_t)(rng() % 100000);
    f->asserted = rng() % 5 != 0;
}

static void test_fact_codec_round_trips(void) {
    bool ok = true, truncated_fail = true;
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        const btree_codec *c = fact_codec(order);
        uint8_t prev[FACT_KEY_SIZE], key[FACT_KEY_SIZE], back[FACT_KEY_SIZE];
        for (int i = 0; i < 2000; i++) {
            fact_ids a, b;
            random_fact(&a, (uint64_t)i);
            random_fact(&b, (uint64_t)i + rng() % 50);
            fact_key_encode(order, &a, prev);
            fact_key_encode(order, &b, key);
            const uint8_t *base = i % 3 ? prev : NULL;
            uint8_t enc[BTREE_MAX_ENTRY];
            size_t len = c->encode(c, base, key, enc);
            ok = ok && len <= BTREE_MAX_ENTRY && c->decode(c, base, enc, len, back) == len &&
                 memcmp(back, key, FACT_KEY_SIZE) == 0;
            memset(back, 0, sizeof back);
            ok = ok && c->lead(c, base, enc, len, back) && memcmp(back, key, c->lead_size) == 0;
            for (size_t cut = 0; cut < len; cut++)
                truncated_fail = truncated_fail && c->decode(c, base, enc, cut, back) == 0;
        }
    }
    CHECK(ok);
    CHECK(truncated_fail);
}

static void test_fact_trees_match_the_model(void) {
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        pager *pg;
        format_header h;
        err e = {0};
        CHECK(pager_open_memory(&pg, &h, &e) == 0);
        size_t n = 20000;
        model m = {malloc(n * FACT_KEY_SIZE), 0, FACT_KEY_SIZE, fact_codec(order)};
        uint32_t root = 0;
        bool inserted = true;
        btree_hint *hint = calloc(1, sizeof *hint);
        for (size_t i = 0; i < n; i++) {
            /* random records, and in the second half runs of ascending ones
             * (appends and growing groups, which the hint serves) */
            fact_ids f;
            random_fact(&f, i < n / 2 ? rng() % 1000000 : 1000000 + i);
            if (i >= n / 2)
                f.e = 8192 + (i % 5) * 100000 + i;
            uint8_t *k = m.keys + m.count++ * FACT_KEY_SIZE;
            fact_key_encode(order, &f, k);
            inserted = inserted && btree_insert(pg, &root, m.codec, k, hint, &e) == 0;
            if (i == n / 4 && hint)
                btree_hint_reset(hint);
        }
        free(hint);
        CHECK(inserted);
        model_sort(&m);
        check_tree(pg, root, &m);
        free(m.keys);
        pager_close(pg);
        err_clear(&e);
    }
}

/* Every leaf of the pager's only tree passes the on-read check (entries,
 * restarts, order, count and the leaf summary, rebuilt from the keys). */
static bool leaves_valid(pager *pg, const btree_codec *codec) {
    bool ok = true;
    for (uint32_t pgno = 1; pgno < pager_page_count(pg); pgno++) {
        const uint8_t *page = pager_newest(pg, pgno);
        if (page && page[0] == 1) /* a leaf */
            ok = ok && leaf_valid(page, codec);
    }
    return ok;
}

/* A fact of entity e (one attribute, value e) at tx: asserted at 1, then
 * retracted and asserted again in turns; each sorts right after the one
 * before in EAVT, AEVT and AVET. */
static void retract_key(int order, uint64_t e, uint64_t tx, uint8_t *key) {
    fact_ids f = {0};
    f.e = 8192 + e;
    f.a = 4096;
    f.v[0] = VT_INTEGER;
    format_put_be(f.v + 1, format_sortable_i64((int64_t)e), 8);
    f.tx_count = tx;
    f.seq = tx * 1000000 + e;
    f.tx_id = INT64_C(1764000000000) + (int64_t)tx;
    f.valid_from = f.tx_id;
    f.valid_to = VALID_TO_FOREVER;
    f.asserted = tx % 2 == 1;
    fact_key_encode(order, &f, key);
}

static bool root_is_leaf(pager *pg, uint32_t root) {
    return pager_newest(pg, root)[0] == 1;
}

/* A leaf filled with facts of even entities (appends, until one more
 * splits it), then keys at one place of it until it splits: before the
 * first key, after each (its retraction, then its assertion again, ...)
 * and after the last, so a full leaf splits at every place (the split
 * copies entries' bytes where they are encoded against the same key, and
 * the new first key rebuilds the leaf). The tree matches the model and
 * every leaf passes the on-read check after every insert. */
static void test_splits_at_every_place_of_a_leaf(void) {
    const btree_codec *c = fact_codec(TREE_AEVT);
    size_t full = 0, splits = 0;
    bool ok = true;
    for (size_t at = 0; at <= full + 1; at++) {
        pager *pg;
        format_header h;
        err e = {0};
        CHECK(pager_open_memory(&pg, &h, &e) == 0);
        model m = {malloc(4096 * FACT_KEY_SIZE), 0, FACT_KEY_SIZE, c};
        uint32_t root = 0;
        btree_hint *hint = calloc(1, sizeof *hint);
        for (size_t i = 0; (at == 0 && full == 0) || i < full; i++) {
            if (full == 0 && i > 0 && !root_is_leaf(pg, root)) {
                full = i - 1; /* the last append split the leaf */
                break;
            }
            uint8_t *k = m.keys + m.count++ * FACT_KEY_SIZE;
            retract_key(TREE_AEVT, 2 + 2 * i, 1, k);
            ok = ok && btree_insert(pg, &root, c, k, hint, &e) == 0;
        }
        if (!root_is_leaf(pg, root)) { /* the sizing run: again with `full` facts */
            free(hint);
            free(m.keys);
            pager_close(pg);
            at--;
            continue;
        }
        /* at 0: entity 0 (the first key); at k: entity 2k, after its fact */
        for (uint64_t tx = at == 0 || at > full ? 1 : 2; ok && root_is_leaf(pg, root); tx++) {
            uint8_t *k = m.keys + m.count++ * FACT_KEY_SIZE;
            retract_key(TREE_AEVT, 2 * at, tx, k);
            ok = ok && tx < 400 && btree_insert(pg, &root, c, k, tx % 3 ? hint : NULL, &e) == 0;
            model_sort(&m);
            ok = ok && same_from(pg, root, &m, (const uint8_t *)"", 0) && leaves_valid(pg, c);
        }
        splits += !root_is_leaf(pg, root);
        free(hint);
        free(m.keys);
        pager_close(pg);
        err_clear(&e);
    }
    CHECK(ok);
    CHECK(full > 100);
    CHECK(splits == full + 2);
}

/* Facts, then their retractions, in order (each a few entries after the
 * previous: the hint's search goes on in the block), in runs from
 * random places and in random order, in every fact tree: the trees
 * match the model and every leaf passes the on-read check. */
static void test_retractions_match_the_model(void) {
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        if (order == TREE_VAET)
            continue; /* the value is no reference */
        const btree_codec *c = fact_codec(order);
        for (int shape = 0; shape < 3; shape++) {
            pager *pg;
            format_header h;
            err e = {0};
            CHECK(pager_open_memory(&pg, &h, &e) == 0);
            size_t n = 6000;
            model m = {malloc(2 * n * FACT_KEY_SIZE), 0, FACT_KEY_SIZE, c};
            uint32_t root = 0;
            bool ok = true;
            btree_hint *hint = calloc(1, sizeof *hint);
            for (size_t i = 0; i < n; i++) {
                retract_key(order, i, 1, m.keys + m.count * FACT_KEY_SIZE);
                ok = ok &&
                     btree_insert(pg, &root, c, m.keys + m.count++ * FACT_KEY_SIZE, hint, &e) == 0;
            }
            for (size_t i = 0, run = 0, from = 0; i < n; i++, run--) {
                if (shape == 1 && run == 0) { /* a run of 1..64 from a random place */
                    run = 1 + rng() % 64;
                    from = rng() % n;
                }
                uint64_t which = shape == 0 ? i : shape == 1 ? (from + run) % n : rng() % n;
                retract_key(order, which, 2, m.keys + m.count * FACT_KEY_SIZE);
                ok = ok &&
                     btree_insert(pg, &root, c, m.keys + m.count++ * FACT_KEY_SIZE, hint, &e) == 0;
                if (i % 1000 == 999)
                    ok = ok && leaves_valid(pg, c);
            }
            model_sort(&m);
            CHECK(ok);
            CHECK(leaves_valid(pg, c));
            check_tree(pg, root, &m);
            free(hint);
            free(m.keys);
            pager_close(pg);
            err_clear(&e);
        }
    }
}

static void test_bad_restart_array_is_stg_008(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    uint8_t key[8] = {0};
    for (int i = 0; i < 100; i++) {
        key[7] = (uint8_t)i;
        CHECK(btree_insert(pg, &root, &prefix8, key, NULL, &e) == 0);
    }
    uint8_t *leaf = dirty_page(pg, root);
    CHECK(leaf && leaf[0] == 1);
    size_t restarts = (size_t)format_get_le(leaf + 4, 2);
    CHECK(restarts > 1);
    format_put_le(leaf + FORMAT_PAGE_PAYLOAD - 2 * restarts, 9, 2); /* the first is 8 */
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0);
    CHECK(btree_seek(&c, key, 8, &e) == ERR(STG, 8));
    err_clear(&e);
    CHECK(btree_seek(&c, key, 8, &e) == ERR(STG, 8)); /* a damaged copy is never kept */
    btree_cursor_free(&c);
    err_clear(&e);
    pager_close(pg);
}

/* The first key >= `target` a fresh cursor finds (UINT64_MAX: none). */
static uint64_t first_from(pager *pg, uint32_t root, uint64_t target) {
    btree_cursor c;
    err e = {0};
    uint8_t t[8];
    const uint8_t *k;
    format_put_be(t, target, 8);
    uint64_t found = UINT64_MAX;
    if (btree_cursor_init(&c, pg, PAGER_LATEST, root, &prefix8, &e) == 0 &&
        btree_seek(&c, t, 8, &e) == 0 && btree_next(&c, &k, &e) == 1)
        found = format_get_be(k, 8);
    btree_cursor_free(&c);
    err_clear(&e);
    return found;
}

/* Cursors reuse the page copies of the scratch block given back before
 * them, but never across a change: a key inserted into the very leaf a
 * previous cursor held, or pages freed by a checkpoint and taken again. */
static void test_scratch_pages_follow_writes(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    uint8_t k[8];
    for (uint64_t i = 0; i < 100; i += 2) {
        format_put_be(k, i, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
    }
    for (uint64_t i = 1; i < 100; i += 2) {
        CHECK(first_from(pg, root, i) == i + 1 ||
              (i == 99 && first_from(pg, root, i) == UINT64_MAX));
        format_put_be(k, i, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
        CHECK(first_from(pg, root, i) == i);
    }
    pager_close(pg);
    err_clear(&e);
}

/* The key a fresh cursor over the EAVT tree finds first from `target`
 * (memcmp'd with `want`). */
static bool eavt_first_is(pager *pg, uint32_t root, const uint8_t *target, const uint8_t *want) {
    btree_cursor c;
    err e = {0};
    const uint8_t *k;
    bool same = btree_cursor_init(&c, pg, PAGER_LATEST, root, fact_codec(TREE_EAVT), &e) == 0 &&
                btree_seek(&c, target, FACT_KEY_SIZE, &e) == 0 && btree_next(&c, &k, &e) == 1 &&
                memcmp(k, want, FACT_KEY_SIZE) == 0;
    btree_cursor_free(&c);
    err_clear(&e);
    return same;
}

/* A seek notes its leaf's first key in the scratch block for the next
 * seek into that leaf: a write that gives the leaf a new first key (which
 * its later restart entries are encoded against) must not leave the note
 * behind. */
static void test_noted_first_key_follows_writes(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    uint8_t key[FACT_KEY_SIZE], last[FACT_KEY_SIZE];
    fact_ids f;
    for (uint64_t i = 0; i < 40; i++) {
        random_fact(&f, i);
        f.e = 100000 + i * 1000;
        fact_key_encode(TREE_EAVT, &f, last);
        CHECK(btree_insert(pg, &root, fact_codec(TREE_EAVT), last, NULL, &e) == 0);
    }
    bool ok = true;
    for (uint64_t first = 99000; first > 0; first /= 3) {
        ok = ok && eavt_first_is(pg, root, last, last);
        random_fact(&f, 50);
        f.e = first;
        fact_key_encode(TREE_EAVT, &f, key);
        ok = ok && btree_insert(pg, &root, fact_codec(TREE_EAVT), key, NULL, &e) == 0;
        ok = ok && eavt_first_is(pg, root, last, last);
    }
    CHECK(ok);
    pager_close(pg);
    err_clear(&e);
}

/* The same with one cursor held between the writes: a leaf read again
 * below a branch that keeps summaries has its first key decoded by the
 * check against the branch, and that key, the new one, is what the seek
 * inside the leaf decodes the leaf's restart entries against. Leaf 0 of a
 * tree of several leaves takes every new smallest key. */
static void test_held_cursor_anchor_follows_writes(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    enum { FACTS = 600 };
    static uint8_t keys[FACTS][FACT_KEY_SIZE];
    fact_ids f;
    for (uint64_t i = 0; i < FACTS; i++) {
        random_fact(&f, i);
        f.e = 1000000 + i * 1000;
        fact_key_encode(TREE_EAVT, &f, keys[i]);
        CHECK(btree_insert(pg, &root, fact_codec(TREE_EAVT), keys[i], NULL, &e) == 0);
    }
    btree_cursor c;
    const uint8_t *k;
    uint8_t key[FACT_KEY_SIZE];
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, fact_codec(TREE_EAVT), &e) == 0);
    bool ok = true, deep = false;
    for (uint64_t first = 999000, step = 0; first > 0; first /= 2, step++) {
        const uint8_t *target = keys[step * 7 % 40]; /* inside leaf 0 */
        btree_cursor_reuse(&c, pg, PAGER_LATEST, root, fact_codec(TREE_EAVT));
        ok = ok && btree_seek(&c, target, FACT_KEY_SIZE, &e) == 0 && btree_next(&c, &k, &e) == 1 &&
             memcmp(k, target, FACT_KEY_SIZE) == 0;
        deep = deep || c.depth > 1;
        random_fact(&f, 700 + step);
        f.e = first;
        fact_key_encode(TREE_EAVT, &f, key);
        ok = ok && btree_insert(pg, &root, fact_codec(TREE_EAVT), key, NULL, &e) == 0;
    }
    CHECK(deep);
    CHECK(ok);
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

/* The restart keys a seek decodes are noted with the leaf too: inserts
 * that move, add or split the leaf's blocks between seeks must not leave
 * them behind. Every key inserted so far is found by a fresh cursor after
 * each insert (in random order, into a few leaves). */
static void test_noted_restarts_follow_writes(void) {
    enum { KEYS = 400 };
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    static uint8_t keys[KEYS][FACT_KEY_SIZE];
    bool ok = true;
    for (size_t i = 0; i < KEYS; i++) {
        fact_ids f;
        random_fact(&f, i);
        fact_key_encode(TREE_EAVT, &f, keys[i]);
        ok = ok && btree_insert(pg, &root, fact_codec(TREE_EAVT), keys[i], NULL, &e) == 0;
        for (int probe = 0; probe < 4; probe++) {
            const uint8_t *k = keys[rng() % (i + 1)];
            ok = ok && eavt_first_is(pg, root, k, k);
        }
    }
    CHECK(ok);
    pager_close(pg);
    err_clear(&e);
}

/* The fixed-width integer helpers every page and key goes through: byte
 * order and width for each n, nothing written past n bytes. */
static void test_fixed_width_integers(void) {
    const uint64_t v = UINT64_C(0x0102030405060708);
    bool ok = true;
    for (int n = 1; n <= 8; n++) {
        uint8_t be[9], le[9];
        memset(be, 0xee, sizeof be);
        memset(le, 0xee, sizeof le);
        format_put_be(be, v, n);
        format_put_le(le, v, n);
        uint64_t low = n == 8 ? v : v & ((UINT64_C(1) << (8 * n)) - 1);
        for (int i = 0; i < n; i++) {
            ok = ok && be[i] == (uint8_t)(v >> (8 * (n - 1 - i)));
            ok = ok && le[i] == (uint8_t)(v >> (8 * i));
        }
        ok = ok && be[n] == 0xee && le[n] == 0xee;
        ok = ok && format_get_be(be, n) == low && format_get_le(le, n) == low;
    }
    CHECK(ok);
}

/* Key comparison in 8- and 4-byte steps and then bytes agrees with
 * memcmp for every key size and every place the keys first differ. */
static int sign(int v) {
    return (v > 0) - (v < 0);
}

static void test_key_compare_matches_memcmp(void) {
    bool ok = true;
    for (size_t ks = 1; ks <= 24; ks++)
        for (size_t at = 0; at < ks; at++)
            for (int d = -1; d <= 1; d++) {
                uint8_t a[24], b[24];
                for (size_t i = 0; i < ks; i++)
                    a[i] = b[i] = (uint8_t)(0x80 + 37 * i);
                b[at] = (uint8_t)(a[at] + d * (int)(1 + at % 3)); /* below, equal or above */
                a[ks - 1] ^= at + 1 < ks ? 0xff : 0; /* a later byte that must not decide */
                ok = ok && btree_key_cmp(a, b, ks) == sign(memcmp(a, b, ks));
                ok = ok && btree_key_cmp(b, a, ks) == sign(memcmp(b, a, ks));
            }
    CHECK(ok);
}

/* A tree of `prefix8` keys whose root is a branch of more children than a
 * branch of 62-byte keys can hold (62 to 121: its entries, read with
 * 62-byte keys, stay within the page). */
static uint32_t wide_root_tree(pager *pg) {
    uint32_t root = 0;
    err e = {0};
    uint8_t k[8];
    for (uint64_t i = 0; root == 0 || dirty_page(pg, root)[0] != 2 ||
                         format_get_le(dirty_page(pg, root) + 2, 2) < 62;
         i++) {
        format_put_le(k, i * UINT64_C(0x9E3779B97F4A7C15), 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
    }
    CHECK(format_get_le(dirty_page(pg, root) + 2, 2) < 122);
    return root;
}

/* Seeks a fresh cursor of `codec` over `root` to the start: its error. */
static int seek_start(pager *pg, uint32_t root, const btree_codec *codec, err *e) {
    btree_cursor c;
    int rc = btree_cursor_init(&c, pg, PAGER_LATEST, root, codec, e);
    if (rc == 0)
        rc = btree_seek(&c, (const uint8_t[1]){0}, 0, e);
    btree_cursor_free(&c);
    return rc;
}

/* In a damaged file one tree may point into another's pages (a fact tree
 * into the dictionary's). A page a cursor's scratch block holds was
 * checked for its codec's keys: a cursor of another codec taking the
 * block must check it again, not trust it (a branch of 8-byte keys read
 * with 62-byte ones lies past the page, read out of the block, the
 * heap-use-after-free fuzz_file met). */
static void test_scratch_pages_are_checked_per_codec(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = wide_root_tree(pg);
    char want[64];
    snprintf(want, sizeof want, "corrupt B-tree page %u", (unsigned)root);
    for (int round = 0; round < 2; round++) {
        CHECK(seek_start(pg, root, &prefix8, &e) == 0);
        CHECK(seek_start(pg, root, &prefix62, &e) == ERR(STG, 8));
        CHECK(e.message && strstr(e.message, want) != NULL);
        err_clear(&e);
    }
    pager_close(pg);
}

/* A damaged branch may name page 0, which is also what an empty slot of a
 * scratch block holds: that child is STG-008, never the slot's bytes
 * (here the leaf the slot held before the write that emptied it; in
 * fuzz_file's crashes, bytes never written, read as a branch of thousands
 * of entries far past the block). */
static void test_child_page_zero_is_stg_008(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = wide_root_tree(pg);
    CHECK(seek_start(pg, root, &prefix8, &e) == 0);    /* slot 1: the first leaf */
    format_put_le(dirty_page(pg, root) + 4 + 8, 0, 4); /* the root's child 0 */
    for (int round = 0; round < 2; round++) {
        CHECK(seek_start(pg, root, &prefix8, &e) == ERR(STG, 8));
        CHECK(e.message && strstr(e.message, "corrupt B-tree page 0") != NULL);
        err_clear(&e);
    }
    pager_close(pg);
}

/* A codec that reads prefix8's entries as other keys (the first byte
 * inverted): the note of a leaf one codec decoded is not another's. */
static size_t flipped_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in,
                             size_t avail, uint8_t *key) {
    size_t n = prefix_decode(c, prev, in, avail, key);
    key[0] ^= 0x80;
    return n;
}

/* A digest of every key a fresh cursor of `codec` reads from the tree
 * at `root`, in order. */
static uint64_t scan_digest(pager *pg, uint32_t root, const btree_codec *codec) {
    btree_cursor c;
    err e = {0};
    const uint8_t *k;
    uint64_t digest = 0;
    if (btree_cursor_init(&c, pg, PAGER_LATEST, root, codec, &e) == 0 &&
        btree_seek(&c, (const uint8_t[1]){0}, 0, &e) == 0)
        while (btree_next(&c, &k, &e) == 1)
            digest = (digest << 7 | digest >> 57) ^ format_get_be(k, 8);
    btree_cursor_free(&c);
    err_clear(&e);
    return digest;
}

/* One leaf of several restart blocks, whose entries are encoded against
 * its first key: each codec reads it the same way whichever codec's
 * cursor used the scratch block last. */
static void test_leaf_notes_are_per_codec(void) {
    btree_codec flipped = prefix8;
    flipped.decode = flipped_decode;
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    uint32_t root = 0;
    uint8_t k[8];
    uint64_t plain = 0;
    for (uint64_t i = 0; i < 60; i++) {
        format_put_be(k, UINT64_C(0x0102030405060700) + i, 8);
        CHECK(btree_insert(pg, &root, &prefix8, k, NULL, &e) == 0);
        plain = (plain << 7 | plain >> 57) ^ (UINT64_C(0x0102030405060700) + i);
    }
    CHECK(dirty_page(pg, root)[0] == 1 && format_get_le(dirty_page(pg, root) + 4, 2) > 1);
    uint64_t as_flipped = scan_digest(pg, root, &flipped); /* nothing noted yet */
    CHECK(as_flipped != plain);
    for (int round = 0; round < 2; round++) {
        CHECK(scan_digest(pg, root, &prefix8) == plain);
        CHECK(scan_digest(pg, root, &flipped) == as_flipped);
    }
    pager_close(pg);
}

int main(void) {
    prefix8 = btree_prefix_codec(8);
    prefix16 = btree_prefix_codec(16);
    prefix62 = btree_prefix_codec(62);
    test_random_inserts_match_the_model(8);
    test_random_inserts_match_the_model(62);
    test_sequential_inserts_fill_pages();
    test_front_growing_groups_fill_pages();
    test_front_growing_groups_in_turns();
    test_reseeking_one_cursor();
    test_probes_in_key_order();
    test_seeks_down_across_branches();
    test_probe_after_a_write_into_the_leaf();
    test_repeated_seeks();
    test_scratch_pages_follow_writes();
    test_noted_first_key_follows_writes();
    test_held_cursor_anchor_follows_writes();
    test_noted_restarts_follow_writes();
    test_copy_on_write_keeps_the_committed_tree();
    test_unchanged_branches_are_not_copied();
    test_commits_copy_changes_into_spares();
    test_fact_codec_round_trips();
    test_fixed_width_integers();
    test_key_compare_matches_memcmp();
    test_fact_trees_match_the_model();
    test_splits_at_every_place_of_a_leaf();
    test_retractions_match_the_model();
    test_bad_restart_array_is_stg_008();
    test_scratch_pages_are_checked_per_codec();
    test_child_page_zero_is_stg_008();
    test_leaf_notes_are_per_codec();
    return CHECK_DONE();
}
