/* Scans' reading of fact-tree leaves (store/fact_run.h over
 * btree_next_run): in every order, from random seeks (which hand over the
 * key they found, mid-block), runs decode to the same identifiers as the
 * codec's keys through fact_key_decode, and a run's prefix bound of any
 * length (whole fields or not) agrees with memcmp on the keys. An entry
 * that does not decode ends the run with -1. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/timestamp.h"
#include "model/value.h"
#include "storage/btree.h"
#include "storage/pager.h"
#include "store/fact_codec.h"
#include "store/fact_key.h"
#include "store/fact_run.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Records with few distinct entities, attributes and values, so runs of
 * keys share fields (flagged equal) as well as differ in each, and values
 * of every type, negative integers and times before 1970 among them. */
static void random_fact(fact_ids *f, uint64_t seq) {
    memset(f, 0, sizeof *f);
    f->e = 8192 + (rng() % 300) * 29;
    f->a = 4096 + (rng() % 5) * 11;
    f->v[0] = (uint8_t)(rng() % 7);
    uint64_t payload = f->v[0] == VT_INTEGER ? format_sortable_i64((int64_t)(rng() % 200) - 100)
                       : f->v[0] == VT_FLOAT  ? rng()
                       : f->v[0] == VT_BOOLEAN ? rng() % 2
                       : f->v[0] == VT_NULL    ? 0
                                               : 8192 + rng() % 1000;
    format_put_be(f->v + 1, payload, 8);
    f->tx_count = 1 + seq / 7;
    f->seq = seq;
    f->tx_id = INT64_C(1764000000000) + (int64_t)(f->tx_count * 3);
    f->valid_from = rng() % 4 ? f->tx_id : -INT64_C(86400000) * (int64_t)(rng() % 1000);
    f->valid_to = rng() % 4 ? VALID_TO_FOREVER : f->valid_from + (int64_t)(rng() % 100000);
    f->asserted = rng() % 5 != 0;
}

static int key_cmp(const void *a, const void *b) {
    return memcmp(a, b, FACT_KEY_SIZE);
}

static bool same_ids(const fact_ids *a, const fact_ids *b) {
    return a->e == b->e && a->a == b->a && memcmp(a->v, b->v, FACT_V_SIZE) == 0 &&
           a->tx_count == b->tx_count && a->seq == b->seq && a->tx_id == b->tx_id &&
           a->valid_from == b->valid_from && a->valid_to == b->valid_to &&
           a->asserted == b->asserted;
}

/* Reads the tree from `from` through runs, as a scan bounded by its first
 * `bound` bytes does, checking every record against keys[i...]: the number
 * read, or -1 on a mismatch or an error. */
static long scan_by_runs(btree_cursor *c, int order, const uint8_t *from, size_t bound,
                         const uint8_t *keys, size_t i, size_t n) {
    fact_run run;
    fact_run_init(&run, order, from, bound);
    err e = {0};
    long read = 0;
    for (;;) {
        fact_ids got, want;
        int rc = fact_run_next(&run);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            if (!fact_run_in_bound(&run))
                break;
            fact_run_ids(&run, &got);
        } else {
            btree_run r;
            rc = btree_next_run(c, &r, &e);
            if (rc != 1)
                return rc == 0 ? read : -1;
            fact_run_start(&run, r.base, r.bytes, r.len);
            if (!r.key)
                continue;
            if (memcmp(r.key, from, bound) != 0)
                break;
            fact_key_decode(order, r.key, &got);
        }
        if (i >= n || memcmp(keys + i * FACT_KEY_SIZE, from, bound) != 0)
            return -1; /* read past the bound */
        fact_key_decode(order, keys + i++ * FACT_KEY_SIZE, &want);
        if (!same_ids(&got, &want))
            return -1;
        read++;
    }
    /* stopped at the bound: the model's next key is past it too */
    return i < n && memcmp(keys + i * FACT_KEY_SIZE, from, bound) == 0 ? -1 : read;
}

/* The model's keys from the first >= from[0..len) (zero-padded) that
 * share its first `bound` bytes. */
static size_t expected(const uint8_t *keys, size_t n, const uint8_t *from, size_t len,
                       size_t bound, size_t *first) {
    uint8_t target[FACT_KEY_SIZE] = {0};
    memcpy(target, from, len);
    size_t i = 0, count = 0;
    while (i < n && memcmp(keys + i * FACT_KEY_SIZE, target, FACT_KEY_SIZE) < 0)
        i++;
    *first = i;
    while (i + count < n && memcmp(keys + (i + count) * FACT_KEY_SIZE, from, bound) == 0)
        count++;
    return count;
}

static void test_runs_match_the_codec(void) {
    enum { N = 12000 };
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        pager *pg;
        format_header h;
        err e = {0};
        CHECK(pager_open_memory(&pg, &h, &e) == 0);
        const btree_codec *codec = fact_codec(order);
        uint8_t *keys = malloc((size_t)N * FACT_KEY_SIZE);
        uint32_t root = 0;
        bool inserted = true;
        for (size_t i = 0; i < N; i++) {
            fact_ids f;
            random_fact(&f, rng() % 100000);
            fact_key_encode(order, &f, keys + i * FACT_KEY_SIZE);
            inserted = inserted && btree_insert(pg, &root, codec, keys + i * FACT_KEY_SIZE, NULL, &e) == 0;
        }
        CHECK(inserted);
        qsort(keys, N, FACT_KEY_SIZE, key_cmp);
        size_t n = 0;
        for (size_t i = 0; i < N; i++)
            if (n == 0 || memcmp(keys + (n - 1) * FACT_KEY_SIZE, keys + i * FACT_KEY_SIZE, FACT_KEY_SIZE))
                memmove(keys + n++ * FACT_KEY_SIZE, keys + i * FACT_KEY_SIZE, FACT_KEY_SIZE);
        btree_cursor c;
        CHECK(btree_cursor_init(&c, pg, root, codec, &e) == 0);
        bool whole = btree_seek(&c, keys, 0, &e) == 0 &&
                     scan_by_runs(&c, order, keys, 0, keys, 0, n) == (long)n;
        CHECK(whole);
        bool probes = true;
        for (int probe = 0; probe < 400; probe++) {
            /* a stored key, cut anywhere, sometimes a byte off it */
            uint8_t from[FACT_KEY_SIZE];
            memcpy(from, keys + (rng() % n) * FACT_KEY_SIZE, FACT_KEY_SIZE);
            size_t len = rng() % (FACT_KEY_SIZE + 1), bound = len ? rng() % (len + 1) : 0;
            if (len && probe % 3 == 0)
                from[rng() % len] ^= (uint8_t)(1 + rng() % 255);
            size_t first, count = expected(keys, n, from, len, bound, &first);
            probes = probes && btree_seek(&c, from, len, &e) == 0 &&
                     scan_by_runs(&c, order, from, bound, keys, first, n) == (long)count;
        }
        CHECK(probes);
        btree_cursor_free(&c);
        free(keys);
        pager_close(pg);
        err_clear(&e);
    }
}

static void test_bad_entry_ends_the_run(void) {
    uint8_t bytes[32];
    memset(bytes, 0xff, sizeof bytes); /* every flag, then a varint that never ends */
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        fact_run run;
        fact_run_init(&run, order, NULL, 0);
        fact_run_start(&run, NULL, bytes, sizeof bytes);
        CHECK(fact_run_next(&run) == -1);
        CHECK(fact_run_next(&run) == 0);
        fact_run_start(&run, NULL, bytes, 1); /* a flags byte alone */
        CHECK(fact_run_next(&run) == -1);
    }
}

int main(void) {
    test_runs_match_the_codec();
    test_bad_entry_ends_the_run();
    return CHECK_DONE();
}
