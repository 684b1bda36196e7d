/* B+tree unit tests against a reference model (a sorted array): random
 * inserts at many sizes (so leaves and branches split at every level),
 * full scans, prefix seeks, duplicates, and copy-on-write: a root saved
 * before a checkpoint still reads its old contents after more inserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "storage/btree.h"
#include "storage/pager.h"

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
    if (btree_cursor_init(&c, pg, root, m->codec, &e) != 0)
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

static void check_tree(pager *pg, uint32_t root, const model *m) {
    CHECK(same_from(pg, root, m, (const uint8_t *)"", 0));
    for (int probe = 0; probe < 40; probe++) {
        uint8_t prefix[BTREE_MAX_KEY];
        random_key(prefix, m->ks);
        size_t len = (size_t)(rng() % (m->ks + 1));
        CHECK(same_from(pg, root, m, prefix, len));
    }
}

static void insert_random(pager *pg, uint32_t *root, model *m, size_t n) {
    err e = {0};
    for (size_t i = 0; i < n; i++) {
        uint8_t *k = m->keys + m->count * m->ks;
        random_key(k, m->ks);
        if (btree_insert(pg, root, m->codec, k, &e) != 0) {
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
        CHECK(btree_insert(pg, &root, m.codec, m.keys + i * 8, &e) == 0);
        m.count++;
    }
    check_tree(pg, root, &m);
    /* consecutive keys share 6 or 7 bytes: entries of 2 or 3 bytes (9 at a
     * restart), so full leaves hold over 1,000 */
    CHECK(pager_page_count(pg) - FORMAT_FIRST_DATA_PAGE < 50000 / 1000 + 5);
    free(m.keys);
    pager_close(pg);
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

int main(void) {
    prefix8 = btree_prefix_codec(8);
    prefix16 = btree_prefix_codec(16);
    prefix62 = btree_prefix_codec(62);
    test_random_inserts_match_the_model(8);
    test_random_inserts_match_the_model(62);
    test_sequential_inserts_fill_pages();
    test_copy_on_write_keeps_the_committed_tree();
    return CHECK_DONE();
}
