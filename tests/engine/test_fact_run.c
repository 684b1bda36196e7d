/* Scans' reading of fact-tree leaves (store/fact_run.h over
 * btree_next_run): in every order, from random seeks (which hand over the
 * key they found, mid-block), runs decode to the same identifiers as the
 * codec's keys through fact_key_decode, and a run's prefix bound of any
 * length (whole fields or not) agrees with memcmp on the keys; store scans
 * from random keys under random bounds read exactly the model's records.
 * An entry that does not decode ends the run with -1. A restart block's
 * seek agrees with decoding it entry by entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/timestamp.h"
#include "model/value.h"
#include "storage/btree.h"
#include "storage/pager.h"
#include "store/fact_codec.h"
#include "store/fact_format.h"
#include "store/fact_key.h"
#include "store/fact_run.h"
#include "store/row_values.h"
#include "store/store.h"

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
    uint64_t payload = f->v[0] == VT_INTEGER   ? format_sortable_i64((int64_t)(rng() % 200) - 100)
                       : f->v[0] == VT_FLOAT   ? rng()
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
        int rc = fact_run_next(&run, &got);
        if (rc < 0)
            return -1;
        if (rc == FACT_RUN_PAST)
            break;
        if (rc == 0) {
            btree_run r;
            rc = btree_next_run(c, &r, &e);
            if (rc != 1)
                return rc == 0 ? read : -1;
            fact_ids base;
            if (r.base)
                fact_key_decode(order, r.base, &base);
            fact_run_start(&run, r.base ? &base : NULL, r.bytes, r.len);
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
static size_t expected(const uint8_t *keys, size_t n, const uint8_t *from, size_t len, size_t bound,
                       size_t *first) {
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
            uint8_t *k = keys + i * FACT_KEY_SIZE;
            random_fact(&f, rng() % 100000);
            fact_key_encode(order, &f, k);
            inserted = inserted && btree_insert(pg, &root, codec, k, NULL, &e) == 0;
        }
        CHECK(inserted);
        qsort(keys, N, FACT_KEY_SIZE, key_cmp);
        size_t n = 0;
        for (size_t i = 0; i < N; i++) {
            const uint8_t *k = keys + i * FACT_KEY_SIZE;
            if (n == 0 || memcmp(keys + (n - 1) * FACT_KEY_SIZE, k, FACT_KEY_SIZE) != 0)
                memmove(keys + n++ * FACT_KEY_SIZE, k, FACT_KEY_SIZE);
        }
        btree_cursor c;
        CHECK(btree_cursor_init(&c, pg, PAGER_LATEST, root, codec, &e) == 0);
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
    uint8_t bytes[32], none[FACT_KEY_SIZE] = {0};
    memset(bytes, 0xff, sizeof bytes); /* every flag, then a varint that never ends */
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        fact_run run;
        fact_run_init(&run, order, none, 0);
        fact_run_start(&run, NULL, bytes, sizeof bytes);
        fact_ids ids;
        CHECK(fact_run_next(&run, &ids) == -1);
        CHECK(fact_run_next(&run, &ids) == 0);
        fact_run_start(&run, NULL, bytes, 1); /* a flags byte alone */
        CHECK(fact_run_next(&run, &ids) == -1);
        fact_ids many[4];
        size_t n = 99;
        fact_run_start(&run, NULL, bytes, sizeof bytes); /* the same, read in a batch */
        CHECK(fact_run_fill(&run, many, 4, &n) == -1 && n == 0);
        CHECK(fact_run_fill(&run, many, 4, &n) == 0 && n == 0);
    }
}

/* n random records (sequence numbers i * seq_step; of one entity when
 * `one_entity`) as sorted keys and the entries the codec of `order`
 * encodes them into, one block: its length. */
static size_t sorted_entries(int order, uint8_t (*keys)[FACT_KEY_SIZE], int n, uint64_t seq_step,
                             bool one_entity, uint8_t *bytes) {
    for (int i = 0; i < n; i++) {
        fact_ids f;
        random_fact(&f, (uint64_t)i * seq_step);
        if (one_entity)
            f.e = 8192;
        fact_key_encode(order, &f, keys[i]);
    }
    qsort(keys, (size_t)n, FACT_KEY_SIZE, key_cmp);
    const btree_codec *codec = fact_codec(order);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += codec->encode(codec, i ? keys[i - 1] : NULL, keys[i], bytes + len);
    return len;
}

/* Two runs of `order` over the same entries, bound by key[0..bound). */
static void start_two(fact_run *a, fact_run *b, int order, const uint8_t *key, size_t bound,
                      const uint8_t *bytes, size_t len) {
    fact_run_init(a, order, key, bound);
    fact_run_init(b, order, key, bound);
    fact_run_start(a, NULL, bytes, len);
    fact_run_start(b, NULL, bytes, len);
}

/* A batch read (fact_run_fill) stops at its maximum, at the end of the
 * run and before an entry past the bound, and reads what entry-by-entry
 * decoding reads. */
static void test_fill_matches_next(void) {
    enum { KEYS = 40 };
    uint8_t keys[KEYS][FACT_KEY_SIZE], bytes[KEYS * BTREE_MAX_ENTRY];
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        /* one entity, so an EAVT bound on it holds every key */
        size_t len = sorted_entries(order, keys, KEYS, 1, true, bytes);
        size_t bound = order == TREE_EAVT ? 6 : 0;
        bool ok = true;
        for (size_t max = 1; max <= KEYS + 1; max++) {
            fact_run one, many;
            start_two(&one, &many, order, keys[0], bound, bytes, len);
            if (max % 2) /* read past the run allowed (fact_run_room) or not */
                fact_run_room(&many, bytes + sizeof bytes);
            fact_ids a, b[KEYS + 1];
            size_t got = 0, n;
            int rc;
            while ((rc = fact_run_fill(&many, b, max, &n)) == 0 && n > 0) {
                ok = ok && n <= max;
                for (size_t i = 0; i < n; i++)
                    ok = ok && fact_run_next(&one, &a) == 1 && same_ids(&a, &b[i]);
                got += n;
            }
            ok = ok && rc == 0 && got == KEYS && fact_run_next(&one, &a) == 0;
        }
        CHECK(ok);
    }
}

/* Whether two values a scan binds are the same: type, stored form and
 * the payload that type keeps. */
static bool same_value(const value *a, const value *b) {
    if (a->type != b->type || a->stored != b->stored)
        return false;
    if (a->stored)
        return a->as.stored.id == b->as.stored.id && a->as.stored.src == b->as.stored.src;
    switch (a->type) {
    case VT_INTEGER: return a->as.i == b->as.i;
    case VT_FLOAT: return memcmp(&a->as.f, &b->as.f, sizeof a->as.f) == 0;
    case VT_BOOLEAN: return a->as.b == b->as.b;
    case VT_NULL: return true;
    default: return false;
    }
}

/* What a row's slot of position `pos` holds for the record `f`
 * (store_reader_values' forms). */
static value position_value(const fact_ids *f, int pos, const value_source *src) {
    value v;
    memset(&v, 0, sizeof v);
    if (pos == 0)
        value_set_stored(&v, VT_REF, src, f->e);
    else if (pos == 1)
        value_set_stored(&v, VT_KEYWORD, src, f->a);
    else if (!field_value_set(&v, f->v[0], format_get_be(f->v + 1, 8), src))
        v.type = VT_LIST; /* no value: never written */
    return v;
}

/* A fill into rows (fact_run_fill_rows) reads what a fill into
 * identifiers reads, in every order, for every choice of positions and
 * slots, with and without room past the run, at every maximum, and
 * stops where it does: at the end of the run and before an entry past
 * the bound (EAVT bound to the first key's entity among many); the
 * slots it does not write keep what they held. */
static void test_fill_rows_matches_fill(void) {
    enum { KEYS = 40, WIDTH = 4 };
    static const int layouts[][3] = {{0, -1, 1}, {-1, -1, 3}, {2, 0, -1}, {3, 1, 2}, {-1, 2, -1}};
    uint8_t keys[KEYS][FACT_KEY_SIZE], bytes[KEYS * BTREE_MAX_ENTRY];
    const value_source *src = (const value_source *)&keys; /* any address: compared only */
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        size_t len = sorted_entries(order, keys, KEYS, 3, false, bytes);
        size_t bound = order == TREE_EAVT ? 6 : 0;
        bool ok = true, past = false;
        for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
            for (size_t max = 1; max <= KEYS + 1; max++) {
                fact_run ids_run, rows_run;
                start_two(&ids_run, &rows_run, order, keys[0], bound, bytes, len);
                if (max % 2)
                    fact_run_room(&rows_run, bytes + sizeof bytes);
                fact_ids want[KEYS];
                size_t n_want = 0, n, got = 0;
                int rc_want = fact_run_fill(&ids_run, want, KEYS, &n_want), rc;
                past = past || rc_want == FACT_RUN_PAST;
                value slots[(KEYS + 1) * WIDTH];
                for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
                    slots[i] = value_integer(-(int64_t)i);
                run_rows rows = {slots, WIDTH, {layouts[l][0], layouts[l][1], layouts[l][2]}, src};
                do { /* the rows before an entry past the bound are written too */
                    rc = fact_run_fill_rows(&rows_run, &rows, max, &n);
                    ok = ok && n <= max;
                    got += n;
                    rows.slot += n * WIDTH;
                } while (rc == 0 && n > 0);
                ok = ok && got == n_want && rc == rc_want;
                for (size_t r = 0; r < KEYS + 1; r++)
                    for (int s = 0; s < WIDTH; s++) {
                        value want_v = value_integer(-(int64_t)(r * WIDTH + (size_t)s));
                        for (int pos = 0; pos < 3; pos++)
                            if (r < got && layouts[l][pos] == s)
                                want_v = position_value(&want[r], pos, src);
                        ok = ok && same_value(&slots[r * WIDTH + (size_t)s], &want_v);
                    }
            }
        }
        CHECK(ok);
        CHECK(past == (order == TREE_EAVT)); /* the bound's end was met */
    }
}

/* A V field of no type ends a fill into rows with -1 (the rows before
 * it written), where a fill into identifiers reads it. */
static void test_fill_rows_bad_value_type(void) {
    enum { KEYS = 8 };
    uint8_t keys[KEYS][FACT_KEY_SIZE], bytes[KEYS * BTREE_MAX_ENTRY], none[FACT_KEY_SIZE] = {0};
    for (int i = 0; i < KEYS; i++) {
        fact_ids f;
        random_fact(&f, (uint64_t)i);
        f.e = 8192 + (uint64_t)i; /* ascending: the keys stay in this order */
        f.v[0] = i == 5 ? 9 : VT_INTEGER;
        fact_key_encode(TREE_EAVT, &f, keys[i]);
    }
    const btree_codec *codec = fact_codec(TREE_EAVT);
    size_t len = 0;
    for (int i = 0; i < KEYS; i++)
        len += codec->encode(codec, i ? keys[i - 1] : NULL, keys[i], bytes + len);
    fact_run run;
    fact_run_init(&run, TREE_EAVT, none, 0);
    fact_run_start(&run, NULL, bytes, len);
    fact_ids ids[KEYS];
    size_t n = 0;
    CHECK(fact_run_fill(&run, ids, KEYS, &n) == 0 && n == KEYS && ids[5].v[0] == 9);
    value slots[KEYS];
    run_rows rows = {slots, 1, {-1, -1, 0}, NULL};
    fact_run_start(&run, NULL, bytes, len);
    CHECK(fact_run_fill_rows(&run, &rows, KEYS, &n) == -1 && n == 5);
    rows.at[2] = -1; /* V not written: not read as a value either */
    rows.at[0] = 0;
    fact_run_start(&run, NULL, bytes, len);
    CHECK(fact_run_fill_rows(&run, &rows, KEYS, &n) == 0 && n == KEYS);
}

/* A fill allowed to read past its run's end (fact_run_room) decodes what
 * one that is not decodes: a run cut at every byte of its entries, the
 * bytes after the cut still there (the rest of the entries, then bytes
 * that never end a varint), gives the same entries, and -1 exactly when
 * the cut falls inside an entry. */
static void test_room_past_the_end_reads_the_same(void) {
    enum { KEYS = 24 };
    uint8_t keys[KEYS][FACT_KEY_SIZE], bytes[KEYS * BTREE_MAX_ENTRY];
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        size_t len = sorted_entries(order, keys, KEYS, 977, false, bytes);
        memset(bytes + len, 0xff, sizeof bytes - len);
        bool ok = true;
        int cut_inside = 0;
        for (size_t cut = 1; cut <= len; cut++) {
            fact_run plain, roomy;
            fact_run_init(&plain, order, keys[0], 0);
            fact_run_init(&roomy, order, keys[0], 0);
            fact_run_start(&plain, NULL, bytes, cut);
            fact_run_start(&roomy, NULL, bytes, cut);
            fact_run_room(&roomy, bytes + sizeof bytes);
            fact_ids a[KEYS], b[KEYS];
            size_t na, nb;
            int ra = fact_run_fill(&plain, a, KEYS, &na);
            int rb = fact_run_fill(&roomy, b, KEYS, &nb);
            ok = ok && ra == rb && na == nb && (ra == 0 || ra == -1);
            for (size_t i = 0; ok && i < na; i++)
                ok = same_ids(&a[i], &b[i]);
            cut_inside += ra == -1;
        }
        CHECK(ok);
        CHECK(cut_inside == (int)len - KEYS); /* every cut but the entries' ends */
    }
}

/* A fill whose readable bytes end a little past its run (a page's last
 * entries) reads nothing past them, and decodes what a fill that may
 * read nothing past the run decodes: the run cut at each byte of its
 * last entries, copied to the end of a buffer of exactly its length plus
 * 0..95 bytes that never end a varint, `room` that buffer's end (a read
 * past it is a heap overflow under the sanitizers: an entry cut short
 * reads on into those bytes as far as the room it was promised). */
static void test_room_at_every_distance_past_the_end(void) {
    enum { KEYS = 24, EXTRA = 96, CUTS = 64 };
    uint8_t keys[KEYS][FACT_KEY_SIZE], bytes[KEYS * BTREE_MAX_ENTRY];
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        size_t len = sorted_entries(order, keys, KEYS, 977, false, bytes);
        bool ok = true;
        for (size_t cut = len - CUTS; cut <= len; cut++)
            for (size_t extra = 0; extra < EXTRA; extra++) {
                uint8_t *copy = malloc(cut + extra);
                if (!copy)
                    abort();
                memcpy(copy, bytes, cut);
                memset(copy + cut, 0xff, extra);
                fact_run plain, roomy;
                fact_run_init(&plain, order, keys[0], 0);
                fact_run_init(&roomy, order, keys[0], 0);
                fact_run_start(&plain, NULL, bytes, cut);
                fact_run_start(&roomy, NULL, copy, cut);
                fact_run_room(&roomy, copy + cut + extra);
                fact_ids a[KEYS], b[KEYS];
                size_t na, nb;
                int ra = fact_run_fill(&plain, a, KEYS, &na);
                int rb = fact_run_fill(&roomy, b, KEYS, &nb);
                ok = ok && ra == rb && na == nb && (cut < len || (ra == 0 && na == KEYS));
                for (size_t i = 0; ok && i < na; i++)
                    ok = same_ids(&a[i], &b[i]);
                free(copy);
            }
        CHECK(ok);
    }
}

/* The longest entry there is (RUN_ENTRY_MAX bytes: no field flagged the
 * same, both times stored, eight numbers of ten bytes each, overlong
 * zeros) after a two-byte entry (all flagged the same but SEQ), cut at
 * each length and copied to the end of a buffer of that length, `room`
 * the buffer's end: a fill reads the entries only as far as the run goes
 * (-1 for a cut one). A fill that took the room for enough one byte too
 * early reads past the buffer (a heap overflow under the sanitizers). */
static void test_longest_entry_at_the_room_end(void) {
    enum { SHORT = 2, LONGEST = 2 + 8 * VARINT_MAX, ALL = SHORT + LONGEST };
    uint8_t bytes[ALL] = {SAME_E | SAME_A | SAME_V | SAME_TXC | SAME_TXID, 0,
                          VALID_FROM_STORED | VALID_TO_STORED};
    for (size_t n = 0; n < 8; n++) { /* E, A; V after its type byte; TXC, SEQ, the times */
        uint8_t *num = bytes + SHORT + 1 + VARINT_MAX * n + (n >= 2);
        memset(num, 0x80, VARINT_MAX - 1);
        num[VARINT_MAX - 1] = 0;
    }
    bytes[SHORT + 1 + 2 * VARINT_MAX] = VT_INTEGER;
    bool ok = true;
    for (size_t len = 1; len <= ALL; len++)
        for (size_t run = 1; run <= len; run++) {
            uint8_t *copy = malloc(len);
            if (!copy)
                abort();
            memcpy(copy, bytes, len);
            fact_run r;
            fact_run_init(&r, TREE_EAVT, NULL, 0);
            fact_run_start(&r, NULL, copy, run);
            fact_run_room(&r, copy + len);
            fact_ids out[2];
            size_t got;
            int rc = fact_run_fill(&r, out, 2, &got);
            size_t whole = (run >= SHORT) + (run == ALL);
            ok = ok && got == whole && rc == (run == SHORT || run == ALL ? 0 : -1);
            free(copy);
        }
    CHECK(ok);
}

/* A restart block's seek (the codec's, through fact_run_seek) finds what
 * decoding entry by entry and memcmp find, in every order: blocks of
 * sorted random keys encoded by the codec (the first against nothing or
 * against a random lower key, as at a leaf's later restarts), targets
 * that are keys, keys a byte off, prefixes of them and keys past the end.
 * The insert's form (fact_run_place) also gives where the entry found
 * starts and the key before it. A block cut inside an entry does not
 * decode. */
static void test_block_seek_matches_decoding(void) {
    enum { KEYS = 14 };
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        const btree_codec *codec = fact_codec(order);
        bool agrees = true;
        for (int round = 0; round < 300; round++) {
            uint8_t keys[KEYS + 1][FACT_KEY_SIZE], block[KEYS * BTREE_MAX_ENTRY];
            size_t ends[KEYS], len = 0;
            for (size_t i = 0; i <= KEYS; i++) {
                fact_ids f;
                random_fact(&f, rng() % 100000);
                fact_key_encode(order, &f, keys[i]);
            }
            qsort(keys, KEYS + 1, FACT_KEY_SIZE, key_cmp);
            const uint8_t *base = round % 2 ? keys[0] : NULL; /* keys[0] is the base only */
            for (size_t i = 1; i <= KEYS; i++) {
                len += codec->encode(codec, i == 1 ? base : keys[i - 1], keys[i], block + len);
                ends[i - 1] = len;
            }
            for (int probe = 0; probe < 20; probe++) {
                uint8_t target[FACT_KEY_SIZE], got[FACT_KEY_SIZE];
                memcpy(target, keys[1 + rng() % KEYS], FACT_KEY_SIZE);
                if (probe % 3 == 1)
                    target[rng() % FACT_KEY_SIZE] ^= (uint8_t)(1 + rng() % 255);
                if (probe % 3 == 2)
                    memset(target + rng() % FACT_KEY_SIZE, probe % 2 ? 0xff : 0, 1);
                size_t want = 1, used = 0;
                while (want <= KEYS && memcmp(keys[want], target, FACT_KEY_SIZE) < 0)
                    want++;
                int rc = fact_run_seek(order, base, block, len, target, got, &used);
                agrees = agrees && (want > KEYS ? rc == 0
                                                : rc == 1 && used == ends[want - 1] &&
                                                      memcmp(got, keys[want], FACT_KEY_SIZE) == 0);
                /* an insert's place: the same key, where its entry starts and the
                 * key before it in the block (none before the first) */
                uint8_t prev[FACT_KEY_SIZE];
                size_t at = 0, placed_used = 0;
                bool has_prev = false;
                rc = fact_run_place(order, base, block, len, target, got, &at, &placed_used, prev,
                                    &has_prev);
                size_t start = want > 1 ? ends[want - 2] : 0;
                agrees = agrees && rc == (want > KEYS ? 0 : 1) &&
                         at == (want > KEYS ? len : start) && has_prev == (want > 1) &&
                         (!has_prev || memcmp(prev, keys[want - 1], FACT_KEY_SIZE) == 0) &&
                         (want > KEYS || (placed_used == ends[want - 1] &&
                                          memcmp(got, keys[want], FACT_KEY_SIZE) == 0));
            }
            uint8_t got[FACT_KEY_SIZE];
            size_t used;
            agrees = agrees &&
                     fact_run_seek(order, base, block, ends[0] - 1, keys[KEYS], got, &used) == -1;
            size_t at;
            bool has_prev = true;
            agrees = agrees &&
                     fact_run_place(order, base, block, ends[0] - 1, keys[KEYS], got, &at, &used,
                                    got, &has_prev) == -1 &&
                     !has_prev;
        }
        CHECK(agrees);
    }
}

/* A record of a store transaction: few entities and attributes, values
 * of every type (refs among them, for VAET), some valid times set. */
static fact store_fact(uint64_t tx, char *text) {
    char name[16];
    int len = snprintf(name, sizeof name, ":e%u", (unsigned)(rng() % 200));
    fact f = {.entity = uuid_of_keyword(name, (size_t)len),
              .tx_count = tx,
              .tx_id = INT64_C(1764000000000) + (int64_t)tx,
              .valid_to = VALID_TO_FOREVER,
              .asserted = rng() % 6 != 0};
    static const char *const attrs[] = {":age", ":name", ":friend", ":score", ":tag"};
    const char *a = attrs[rng() % 5];
    f.attribute = value_keyword(a, strlen(a));
    f.valid_from = rng() % 3 ? f.tx_id : -INT64_C(1000) * (int64_t)(rng() % 50);
    len = snprintf(text, 16, ":k%u", (unsigned)(rng() % 30));
    switch (rng() % 6) {
    case 0: f.v = value_integer((int64_t)(rng() % 100) - 50); break;
    case 1: f.v = value_string(text + 1, (size_t)len - 1); break;
    case 2: f.v = value_keyword(text, (size_t)len); break;
    case 3: f.v = value_ref(uuid_of_keyword(name, strlen(name))); break;
    case 4: f.v = value_float((double)(rng() % 1000) / 8); break;
    default: f.v = value_boolean(rng() % 2); break;
    }
    return f;
}

/* Every record of the reader's snapshot in commit order: the model. */
static size_t all_records(store_reader *r, fact_ids *out, size_t cap) {
    store_scan *sc;
    err e = {0};
    size_t n = 0;
    if (store_scan_order(r, TREE_TXLOG, &sc, &e) != 0)
        return 0;
    while (n < cap && store_scan_next_ids(sc, &out[n], &e) == 1)
        n++;
    store_scan_close(sc);
    err_clear(&e);
    return n;
}

/* The keys of `order` of the model's records (VAET: refs only), sorted. */
static size_t order_keys(int order, const fact_ids *recs, size_t n, uint8_t *keys) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (order != TREE_VAET || recs[i].v[0] == VT_REF)
            fact_key_encode(order, &recs[i], keys + k++ * FACT_KEY_SIZE);
    qsort(keys, k, FACT_KEY_SIZE, key_cmp);
    return k;
}

/* A store scan of `order` from `from` under `bound` reads the model's
 * keys[first...] sharing the bound. */
static bool store_scan_agrees(store_reader *r, int order, const uint8_t *from, size_t len,
                              size_t bound, const uint8_t *keys, size_t n, size_t max) {
    size_t first, count = expected(keys, n, from, len, bound, &first), got = 0;
    store_scan *sc;
    err e = {0};
    if (store_scan_from(r, order, from, len, bound, &sc, &e) != 0)
        return false;
    fact_ids ids[16];
    int rc;
    bool ok = true;
    uint8_t key[FACT_KEY_SIZE];
    size_t read = 0, asked = 0;
    bool short_read = false; /* fewer than asked: the last records */
    /* max 0: one record at a time; else batches of 1 to max records */
    while (ok && (rc = max ? store_scan_fill_ids(sc, ids, asked = 1 + rng() % max, &read, &e)
                           : store_scan_next_ids(sc, ids, &e)) == 1) {
        ok = !short_read;
        short_read = max && read < asked;
        for (size_t i = 0; i < (max ? read : 1); i++) {
            fact_key_encode(order, &ids[i], key);
            ok = ok && got < count &&
                 memcmp(key, keys + (first + got) * FACT_KEY_SIZE, FACT_KEY_SIZE) == 0;
            got++;
        }
    }
    store_scan_close(sc);
    err_clear(&e);
    return ok && rc == 0 && got == count;
}

static void test_store_scans_match_the_model(void) {
    enum { TXS = 60, PER_TX = 100, N = TXS * PER_TX };
    store *s;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    bool committed = true;
    for (uint64_t tx = 1; tx <= TXS; tx++) {
        fact facts[PER_TX];
        char texts[PER_TX][16];
        for (int i = 0; i < PER_TX; i++)
            facts[i] = store_fact(tx, texts[i]);
        committed = committed && store_commit(s, facts, PER_TX, &e) == 0;
    }
    CHECK(committed);
    store_reader *r;
    CHECK(store_reader_open(s, &r, &e) == 0);
    fact_ids *recs = malloc(N * sizeof *recs);
    uint8_t *keys = malloc((size_t)N * FACT_KEY_SIZE);
    CHECK(all_records(r, recs, N) == N);
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        size_t n = order_keys(order, recs, N, keys);
        bool ok = store_scan_agrees(r, order, keys, 0, 0, keys, n, 0) &&
                  store_scan_agrees(r, order, keys, 0, 0, keys, n, 16);
        for (int probe = 0; probe < 300; probe++) {
            uint8_t from[FACT_KEY_SIZE];
            memcpy(from, keys + (rng() % n) * FACT_KEY_SIZE, FACT_KEY_SIZE);
            size_t len = rng() % (FACT_KEY_SIZE + 1), bound = len ? rng() % (len + 1) : 0;
            if (len && probe % 3 == 0)
                from[rng() % len] ^= (uint8_t)(1 + rng() % 255);
            ok = ok && store_scan_agrees(r, order, from, len, bound, keys, n, (size_t)probe % 17);
        }
        CHECK(ok);
    }
    free(recs);
    free(keys);
    store_reader_close(r);
    store_close(s);
    err_clear(&e);
}

int main(void) {
    test_runs_match_the_codec();
    test_store_scans_match_the_model();
    test_bad_entry_ends_the_run();
    test_fill_matches_next();
    test_fill_rows_matches_fill();
    test_fill_rows_bad_value_type();
    test_room_past_the_end_reads_the_same();
    test_room_at_every_distance_past_the_end();
    test_longest_entry_at_the_room_end();
    test_block_seek_matches_decoding();
    return CHECK_DONE();
}
