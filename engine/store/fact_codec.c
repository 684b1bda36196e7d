#include "store/fact_codec.h"

#include <pthread.h>
#include <string.h>

#include "model/value.h"
#include "storage/varint.h"
#include "store/fact_key.h"

enum {
    SAME_E = 1 << FACT_E,
    SAME_A = 1 << FACT_A,
    SAME_V = 1 << FACT_V,
    SAME_TXC = 1 << FACT_TXC,
    SAME_TXID = 1 << 4,
    ASSERTED = 1 << 5,
    VALID_FROM_STORED = 1 << 6,
    VALID_TO_STORED = 1 << 7
};

/* Restart blocks of fact trees: about a dozen entries. */
#define FACT_BLOCK_BYTES 96

/* The sortable forms of 0 (the base at a restart) and of forever. */
#define SORTABLE_ZERO (UINT64_C(1) << 63)
#define SORTABLE_FOREVER UINT64_MAX

typedef struct fact_codec_def {
    btree_codec base; /* first: the trees see only this */
    int field[FACT_LEADING];
    size_t off[FACT_LEADING];
} fact_codec_def;

/* What a restart entry is encoded against: every field 0, the times the
 * sortable form of 0. */
static uint8_t base_key[FACT_KEY_SIZE];

/* Big-endian fields of 6 or 8 bytes, unrolled: decoding is the inner loop
 * of every seek and insert. */
static uint64_t load(const uint8_t *p, int w) {
    uint64_t v = (uint64_t)p[0] << 40 | (uint64_t)p[1] << 32 | (uint64_t)p[2] << 24 |
                 (uint64_t)p[3] << 16 | (uint64_t)p[4] << 8 | p[5];
    return w == 6 ? v : v << 16 | (uint64_t)p[6] << 8 | p[7];
}

static void store(uint8_t *p, uint64_t v, int w) {
    if (w == 8) {
        p[0] = (uint8_t)(v >> 56);
        p[1] = (uint8_t)(v >> 48);
        p += 2;
    }
    p[0] = (uint8_t)(v >> 40);
    p[1] = (uint8_t)(v >> 32);
    p[2] = (uint8_t)(v >> 24);
    p[3] = (uint8_t)(v >> 16);
    p[4] = (uint8_t)(v >> 8);
    p[5] = (uint8_t)v;
}

static int width(int field) {
    return field == FACT_E || field == FACT_A ? 6 : 8;
}

/* A V field's payload number: integers as themselves (the key flips
 * their sign bit), other payloads as they are. */
static uint64_t value_number(const uint8_t *v) {
    return load(v + 1, 8) ^ (v[0] == VT_INTEGER ? SORTABLE_ZERO : 0);
}

static size_t put_delta(uint8_t *out, uint64_t cur, uint64_t prev) {
    return varint_put(out, zigzag_delta(cur, prev));
}

static size_t put_field(int field, const uint8_t *k, const uint8_t *p, uint8_t *out) {
    if (field != FACT_V)
        return put_delta(out, load(k, width(field)), load(p, width(field)));
    out[0] = k[0];
    return 1 + put_delta(out + 1, value_number(k), p[0] == k[0] ? value_number(p) : 0);
}

static size_t fact_encode(const btree_codec *c, const uint8_t *prev, const uint8_t *key,
                          uint8_t *out) {
    const fact_codec_def *d = (const fact_codec_def *)c;
    const uint8_t *p = prev ? prev : base_key;
    unsigned flags = key[FACT_KEY_ASSERTED] ? ASSERTED : 0;
    size_t n = 1;
    for (int i = 0; i < FACT_LEADING; i++) {
        int f = d->field[i];
        size_t off = d->off[i];
        if (f != FACT_SEQ && memcmp(key + off, p + off, f == FACT_V ? FACT_V_SIZE : (size_t)width(f)) == 0)
            flags |= 1u << f;
        else
            n += put_field(f, key + off, p + off, out + n);
    }
    if (memcmp(key + FACT_KEY_TXID, p + FACT_KEY_TXID, 8) == 0)
        flags |= SAME_TXID;
    else
        n += put_delta(out + n, load(key + FACT_KEY_TXID, 8), load(p + FACT_KEY_TXID, 8));
    if (memcmp(key + FACT_KEY_VALID_FROM, key + FACT_KEY_TXID, 8) != 0) {
        flags |= VALID_FROM_STORED;
        n += put_delta(out + n, load(key + FACT_KEY_VALID_FROM, 8), load(p + FACT_KEY_VALID_FROM, 8));
    }
    if (load(key + FACT_KEY_VALID_TO, 8) != SORTABLE_FOREVER) {
        flags |= VALID_TO_STORED;
        n += put_delta(out + n, load(key + FACT_KEY_VALID_TO, 8), load(p + FACT_KEY_VALID_TO, 8));
    }
    out[0] = (uint8_t)flags;
    return n;
}

/* Reads a varint difference and applies it to the w-byte big-endian field
 * at k (which holds the previous key's value): bytes used, or 0. */
static size_t get_delta(const uint8_t *in, size_t avail, uint8_t *k, int w) {
    uint64_t z = 0, v;
    size_t n = varint_get(in, avail, &z);
    v = zigzag_apply(load(k, w), z);
    if (!n || (w == 6 && (v >> 48) != 0))
        return 0;
    store(k, v, w);
    return n;
}

static size_t get_value(const uint8_t *in, size_t avail, uint8_t *k) {
    uint64_t z = 0;
    if (avail < 1)
        return 0;
    uint64_t base = k[0] == in[0] ? value_number(k) : 0;
    size_t n = varint_get(in + 1, avail - 1, &z);
    k[0] = in[0];
    store(k + 1, zigzag_apply(base, z) ^ (k[0] == VT_INTEGER ? SORTABLE_ZERO : 0), 8);
    return n ? n + 1 : 0;
}

/* Decodes into a copy of the previous key, replacing what changed. */
static size_t fact_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in,
                          size_t avail, uint8_t *key) {
    const fact_codec_def *d = (const fact_codec_def *)c;
    if (avail < 1)
        return 0;
    memcpy(key, prev ? prev : base_key, FACT_KEY_SIZE);
    unsigned flags = in[0];
    size_t n = 1, got = 1;
    for (int i = 0; i < FACT_LEADING && got; i++) {
        int f = d->field[i];
        if (f != FACT_SEQ && (flags & (1u << f)))
            continue;
        uint8_t *k = key + d->off[i];
        got = f == FACT_V ? get_value(in + n, avail - n, k) : get_delta(in + n, avail - n, k, width(f));
        n += got;
    }
    if (got && !(flags & SAME_TXID))
        n += got = get_delta(in + n, avail - n, key + FACT_KEY_TXID, 8);
    if (got && (flags & VALID_FROM_STORED))
        n += got = get_delta(in + n, avail - n, key + FACT_KEY_VALID_FROM, 8);
    else
        memcpy(key + FACT_KEY_VALID_FROM, key + FACT_KEY_TXID, 8);
    if (got && (flags & VALID_TO_STORED))
        n += got = get_delta(in + n, avail - n, key + FACT_KEY_VALID_TO, 8);
    else
        store(key + FACT_KEY_VALID_TO, SORTABLE_FOREVER, 8);
    key[FACT_KEY_ASSERTED] = (flags & ASSERTED) ? 1 : 0;
    return got ? n : 0;
}

static fact_codec_def codecs[TREE_TXLOG + 1];
static pthread_once_t codecs_once = PTHREAD_ONCE_INIT;

static void codecs_init(void) {
    for (size_t off = FACT_KEY_TXID; off < FACT_KEY_ASSERTED; off += 8)
        format_put_be(base_key + off, SORTABLE_ZERO, 8);
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        fact_codec_def *d = &codecs[order];
        d->base = (btree_codec){FACT_KEY_SIZE, FACT_BLOCK_BYTES, fact_encode, fact_decode};
        size_t off = 0;
        for (int i = 0; i < FACT_LEADING; i++) {
            d->field[i] = fact_key_field(order, i);
            d->off[i] = off;
            off += fact_key_field_size(d->field[i]);
        }
    }
}

const btree_codec *fact_codec(int order) {
    pthread_once(&codecs_once, codecs_init);
    return &codecs[order].base;
}
