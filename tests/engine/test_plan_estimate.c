/* Tests of the planner's range estimates: btree_cursor_position (where a
 * seek lands, from the branch pages), store_estimate (exact up to
 * STORE_ESTIMATE_EXACT records, within a few leaves beyond) and the
 * estimates a store's readers share (store/estimate_cache.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "db/db.h"
#include "storage/btree.h"
#include "storage/pager.h"
#include "store/fact_codec.h"
#include "store/estimate_cache.h"
#include "store/fact_key.h"
#include "store/store.h"

#define KEYS 100000

/* The EAVT key of a record of entity `e`. */
static void key_of(uint64_t e, uint8_t key[FACT_KEY_SIZE]) {
    fact_ids ids;
    memset(&ids, 0, sizeof ids);
    ids.e = e;
    ids.a = 1;
    ids.v[0] = VT_INTEGER;
    fact_key_encode(TREE_EAVT, &ids, key);
}

/* Seeking key k of n lands at about k / n of the tree: within a leaf where
 * the nodes are evenly filled, within 30% where they are not (an
 * append-only build leaves every rightmost node part-filled, so the full
 * subtrees to its left weigh more than their child counts say; the fewer
 * children a branch over leaves holds, 46 with the child summaries of
 * format 6, the more the part-filled last one weighs). */
static void test_cursor_position(void) {
    pager *pg;
    format_header h;
    err e = {0};
    uint32_t root = 0;
    uint8_t key[FACT_KEY_SIZE];
    const btree_codec *codec = fact_codec(TREE_EAVT);
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    for (uint64_t i = 0; i < KEYS; i++) {
        key_of(i * 2, key); /* even entities, so odd ones fall between */
        if (btree_insert(pg, &root, codec, key, NULL, &e) != 0)
            CHECK(false);
    }
    btree_cursor c;
    CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, codec, &e) == 0);
    for (uint64_t k = 0; k <= KEYS; k += KEYS / 8) {
        key_of(k * 2 + 1, key);
        CHECK(btree_seek(&c, key, FACT_KEY_SIZE, &e) == 0);
        double pos = btree_cursor_position(&c), want = (double)k / KEYS;
        bool near = pos >= want * 0.7 - 0.02 && pos <= want * 1.3 + 0.02;
        CHECK(near);
        if (!near)
            fprintf(stderr, "  key %llu: position %f, want %f\n", (unsigned long long)k, pos, want);
    }
    CHECK(btree_seek(&c, key, 0, &e) == 0 && btree_cursor_position(&c) == 0);
    btree_cursor_free(&c);
    pager_close(pg);
    err_clear(&e);
}

static int exec(db *d, const char *text) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    if (rc != 0)
        fprintf(stderr, "  %s -> %s\n", text, e.message);
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return rc;
}

#define ENTITIES 6000

/* :name, :age (i mod 90) and :group (i mod 100) of ENTITIES entities. */
static db *fixture(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    for (int first = 0; first < ENTITIES; first += 200) {
        buf b;
        buf_init(&b);
        buf_puts(&b, "(transact [");
        for (int i = first; i < first + 200; i++)
            buf_printf(&b, "[:p%d :name \"p%d\"] [:p%d :age %d] [:p%d :group %d]", i, i, i, i % 90,
                       i, i % 100);
        buf_puts(&b, "])");
        char *text = buf_detach(&b);
        CHECK(exec(d, text) == 0);
        free(text);
    }
    err_clear(&e);
    return d;
}

typedef struct range {
    store_bound b;
    size_t exact;
} range;

/* The bound of attribute `attr` (with integer value `v` when v >= 0, or
 * the entity :p{ent} when ent >= 0), and its exact record count. */
static range range_of(store_reader *r, const char *attr, long v, long ent) {
    range out;
    err e = {0};
    memset(&out, 0, sizeof out);
    out.b.has_a = store_reader_text_id(r, attr, strlen(attr), &out.b.ids.a, &e) == 1;
    if (v >= 0) {
        value val = value_integer(v);
        out.b.has_v = store_reader_value_key(r, &val, out.b.ids.v, &e) == 1;
    }
    if (ent >= 0) {
        char kw[32];
        uuid128 u;
        snprintf(kw, sizeof kw, ":p%ld", ent);
        u = uuid_of_keyword(kw, strlen(kw));
        out.b.has_e = store_reader_entity_id(r, &u, &out.b.ids.e, &e) == 1;
    }
    store_scan *sc;
    store_rec rec;
    CHECK(store_scan_open(r, &out.b, &sc, &e) == 0);
    while (store_scan_next(sc, &rec, &e) == 1)
        out.exact++;
    store_scan_close(sc);
    err_clear(&e);
    return out;
}

static size_t estimate(store_reader *r, const range *rg, size_t cap) {
    size_t n = 0;
    err e = {0};
    CHECK(store_estimate(r, &rg->b, cap, &n, &e) == 0);
    err_clear(&e);
    return n;
}

static void test_store_estimate(void) {
    db *d = fixture();
    store_reader *r;
    err e = {0};
    CHECK(store_reader_open(db_store(d), &r, &e) == 0);
    /* Small ranges are counted. */
    range one = range_of(r, ":age", -1, 17), group = range_of(r, ":group", 3, -1);
    CHECK(one.exact == 1 && estimate(r, &one, SIZE_MAX) == 1);
    CHECK(group.exact == ENTITIES / 100 && estimate(r, &group, SIZE_MAX) == group.exact);
    /* A whole attribute is estimated, within a fifth. */
    range name = range_of(r, ":name", -1, -1);
    size_t n = estimate(r, &name, SIZE_MAX);
    CHECK(name.exact == ENTITIES);
    CHECK(n >= ENTITIES * 8 / 10 && n <= ENTITIES * 12 / 10);
    if (!(n >= ENTITIES * 8 / 10 && n <= ENTITIES * 12 / 10))
        fprintf(stderr, "  :name estimated %zu, exact %zu\n", n, name.exact);
    /* Counts stop at the cap, counted or estimated. */
    CHECK(estimate(r, &name, 10) == 10);
    CHECK(estimate(r, &name, 1000) == 1000);
    CHECK(estimate(r, &group, 5) == 5);
    /* Nothing bound: every record. */
    range all;
    memset(&all, 0, sizeof all);
    CHECK(estimate(r, &all, SIZE_MAX) == store_reader_fact_count(r));
    store_reader_close(r);
    db_close(d);
    err_clear(&e);
}

/* A kept estimate answers only its own snapshot, and a capped one only
 * caps up to its count, as store_estimate would. */
static void test_estimate_cache(void) {
    estimate_cache c;
    store_bound b, other;
    memset(&b, 0, sizeof b);
    b.has_a = true;
    b.ids.a = 42;
    other = b;
    other.ids.a = 43;
    estimate_snapshot snap = {7, 1}, next_tx = {8, 1}, next_gen = {7, 2};
    size_t n = 0;
    CHECK(estimate_cache_init(&c) == 0);
    CHECK(estimate_cache_get(&c, snap, &b, SIZE_MAX, &n) == 0);

    estimate_cache_put(&c, snap, &b, 100, 100); /* capped: at least 100 */
    CHECK(estimate_cache_get(&c, snap, &b, 50, &n) == 1 && n == 50);
    CHECK(estimate_cache_get(&c, snap, &b, 100, &n) == 1 && n == 100);
    CHECK(estimate_cache_get(&c, snap, &b, 101, &n) == 0);
    CHECK(estimate_cache_get(&c, snap, &other, 50, &n) == 0);

    estimate_cache_put(&c, snap, &b, SIZE_MAX, 300); /* the full estimate */
    estimate_cache_put(&c, snap, &b, 10, 10);        /* does not replace it */
    CHECK(estimate_cache_get(&c, snap, &b, SIZE_MAX, &n) == 1 && n == 300);
    CHECK(estimate_cache_get(&c, snap, &b, 20, &n) == 1 && n == 20);
    /* A commit or a checkpoint makes another snapshot. */
    CHECK(estimate_cache_get(&c, next_tx, &b, SIZE_MAX, &n) == 0);
    CHECK(estimate_cache_get(&c, next_gen, &b, SIZE_MAX, &n) == 0);
    /* Ids of unbound positions do not matter. */
    store_bound noisy = b;
    noisy.ids.e = 99;
    noisy.ids.v[0] = 5;
    CHECK(estimate_cache_get(&c, snap, &noisy, SIZE_MAX, &n) == 1 && n == 300);
    estimate_cache_free(&c);
}

/* After a commit, a new reader's estimates count the new records: the
 * shared estimates of the older snapshot no longer answer. */
static void test_estimates_follow_commits(void) {
    db *d = fixture();
    store_reader *r;
    err e = {0};
    CHECK(store_reader_open(db_store(d), &r, &e) == 0);
    range group = range_of(r, ":group", 3, -1), name = range_of(r, ":name", -1, -1);
    size_t names = estimate(r, &name, SIZE_MAX);
    CHECK(estimate(r, &group, SIZE_MAX) == ENTITIES / 100);
    store_reader_close(r);
    CHECK(store_reader_open(db_store(d), &r, &e) == 0); /* same snapshot: kept */
    CHECK(estimate(r, &group, SIZE_MAX) == ENTITIES / 100);
    CHECK(estimate(r, &name, SIZE_MAX) == names);
    store_reader_close(r);

    buf b;
    buf_init(&b);
    buf_puts(&b, "(transact [");
    for (int i = 0; i < ENTITIES; i++)
        buf_printf(&b, "[:q%d :group 3] [:q%d :name \"q%d\"]", i, i, i);
    buf_puts(&b, "])");
    char *text = buf_detach(&b);
    CHECK(exec(d, text) == 0);
    free(text);
    CHECK(store_reader_open(db_store(d), &r, &e) == 0);
    group = range_of(r, ":group", 3, -1);
    CHECK(group.exact == ENTITIES / 100 + ENTITIES);
    /* Estimated beyond STORE_ESTIMATE_EXACT now (its precision depends on
     * where the leaves split, test_store_estimate). */
    CHECK(estimate(r, &group, SIZE_MAX) > STORE_ESTIMATE_EXACT);
    CHECK(estimate(r, &name, SIZE_MAX) > names);
    store_reader_close(r);
    db_close(d);
    err_clear(&e);
}

int main(void) {
    test_cursor_position();
    test_store_estimate();
    test_estimate_cache();
    test_estimates_follow_commits();
    return CHECK_DONE();
}
