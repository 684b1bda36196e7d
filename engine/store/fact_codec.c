#include "store/fact_codec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "model/value.h"
#include "store/fact_format.h"
#include "store/fact_run.h"
#include "store/fact_summary.h"

/* Restart blocks of fact trees: about a dozen entries. */
#define FACT_BLOCK_BYTES 96

typedef struct fact_codec_def {
    btree_codec base; /* first: the trees see only this */
    int order;
    int field[FACT_LEADING];
    size_t off[FACT_LEADING];
    fact_sum_layout sum;
} fact_codec_def;

/* What a restart entry is encoded against: every field 0, the times the
 * sortable form of 0. */
static uint8_t base_key[FACT_KEY_SIZE];

/* E and A (6 bytes) are never among a key's last 8 bytes: they go through
 * 8-byte loads and stores that keep the two bytes after them. */
static inline uint64_t load48(const uint8_t *p) {
    return load64(p) >> 16;
}

static inline void store48(uint8_t *p, uint64_t v) {
    store64(p, v << 16 | (load64(p) & 0xffff));
}

static inline uint64_t load(const uint8_t *p, int w) {
    return w == 6 ? load48(p) : load64(p);
}

static inline int width(int field) {
    return field == FACT_E || field == FACT_A ? 6 : 8;
}

/* A V field's payload number: integers as themselves (the key flips
 * their sign bit), other payloads as they are. */
static inline uint64_t value_number(const uint8_t *v) {
    return load64(v + 1) ^ (v[0] == VT_INTEGER ? SORTABLE_ZERO : 0);
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

/* Field f of two keys is equal: compares of constant sizes, inlined (an
 * insert encodes a key or two). */
static bool same_field(int f, const uint8_t *a, const uint8_t *b) {
    if (f == FACT_V)
        return memcmp(a, b, FACT_V_SIZE) == 0;
    return width(f) == 6 ? memcmp(a, b, 6) == 0 : memcmp(a, b, 8) == 0;
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
        if (f != FACT_SEQ && same_field(f, key + off, p + off))
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
        n += put_delta(out + n, load(key + FACT_KEY_VALID_FROM, 8),
                       load(p + FACT_KEY_VALID_FROM, 8));
    }
    if (load(key + FACT_KEY_VALID_TO, 8) != SORTABLE_FOREVER) {
        flags |= VALID_TO_STORED;
        n += put_delta(out + n, load(key + FACT_KEY_VALID_TO, 8), load(p + FACT_KEY_VALID_TO, 8));
    }
    out[0] = (uint8_t)flags;
    return n;
}

/* Applies a varint difference to the big-endian field at k, which holds
 * the previous key's value (6 bytes: E, A; 8: the others). */
DECODE_STEP bool read_number64(reader *r, uint8_t *k) {
    uint64_t z;
    if (!read_varint(r, &z))
        return false;
    store64(k, zigzag_apply(load64(k), z));
    return true;
}

DECODE_STEP bool read_number48(reader *r, uint8_t *k) {
    uint64_t z;
    if (!read_varint(r, &z))
        return false;
    uint64_t v = zigzag_apply(load48(k), z);
    store48(k, v);
    return (v >> 48) == 0;
}

DECODE_STEP bool read_value(reader *r, uint8_t *k) {
    uint64_t z;
    if (r->p >= r->end)
        return false;
    uint8_t type = *r->p++;
    uint64_t base = k[0] == type ? value_number(k) : 0;
    if (!read_varint(r, &z))
        return false;
    k[0] = type;
    store64(k + 1, zigzag_apply(base, z) ^ (type == VT_INTEGER ? SORTABLE_ZERO : 0));
    return true;
}

/* One leading field, unless flagged equal to the previous key's. */
DECODE_STEP bool read_field(reader *r, unsigned flags, int field, uint8_t *k) {
    if (field != FACT_SEQ && (flags & (1u << field)))
        return true;
    if (field == FACT_V)
        return read_value(r, k);
    return width(field) == 6 ? read_number48(r, k) : read_number64(r, k);
}

DECODE_STEP bool read_tail(reader *r, unsigned flags, uint8_t *key) {
    bool ok = (flags & SAME_TXID) || read_number64(r, key + FACT_KEY_TXID);
    if (!(flags & VALID_FROM_STORED))
        memcpy(key + FACT_KEY_VALID_FROM, key + FACT_KEY_TXID, 8);
    else
        ok = ok && read_number64(r, key + FACT_KEY_VALID_FROM);
    if (!(flags & VALID_TO_STORED))
        store64(key + FACT_KEY_VALID_TO, SORTABLE_FOREVER);
    else
        ok = ok && read_number64(r, key + FACT_KEY_VALID_TO);
    key[FACT_KEY_ASSERTED] = (flags & ASSERTED) ? 1 : 0;
    return ok;
}

/* A decoder per order, its field sequence and offsets spelled out so that
 * each field's decoding is specialised (fact_key.c defines the orders; the
 * round-trip tests check that these agree). Decodes into a copy of the
 * previous key, replacing what changed. */
#define FACT_DECODER(name, f0, o0, f1, o1, f2, o2, f3, o3, f4, o4)                                 \
    static size_t name(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail, \
                       uint8_t *key) {                                                             \
        (void)c;                                                                                   \
        if (avail < 1)                                                                             \
            return 0;                                                                              \
        memcpy(key, prev ? prev : base_key, FACT_KEY_SIZE);                                        \
        reader r = {in + 1, in + avail};                                                           \
        unsigned flags = in[0];                                                                    \
        bool ok = read_field(&r, flags, f0, key + o0) && read_field(&r, flags, f1, key + o1) &&    \
                  read_field(&r, flags, f2, key + o2) && read_field(&r, flags, f3, key + o3) &&    \
                  read_field(&r, flags, f4, key + o4) && read_tail(&r, flags, key);                \
        return ok ? (size_t)(r.p - in) : 0;                                                        \
    }

/* And the lead of each order: its first two fields (o1 + w1 bytes). */
#define FACT_LEAD(name, f0, f1, o1, size)                                                          \
    static size_t name(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail, \
                       uint8_t *key) {                                                             \
        (void)c;                                                                                   \
        if (avail < 1)                                                                             \
            return 0;                                                                              \
        memcpy(key, prev ? prev : base_key, size + 2); /* store48's neighbours */                  \
        reader r = {in + 1, in + avail};                                                           \
        return read_field(&r, in[0], f0, key) && read_field(&r, in[0], f1, key + o1);              \
    }

FACT_DECODER(decode_eavt, FACT_E, 0, FACT_A, 6, FACT_V, 12, FACT_TXC, 21, FACT_SEQ, 29)
FACT_DECODER(decode_aevt, FACT_A, 0, FACT_E, 6, FACT_V, 12, FACT_TXC, 21, FACT_SEQ, 29)
FACT_DECODER(decode_avet, FACT_A, 0, FACT_V, 6, FACT_E, 15, FACT_TXC, 21, FACT_SEQ, 29)
FACT_DECODER(decode_vaet, FACT_V, 0, FACT_A, 9, FACT_E, 15, FACT_TXC, 21, FACT_SEQ, 29)
FACT_DECODER(decode_txlog, FACT_SEQ, 0, FACT_TXC, 8, FACT_E, 16, FACT_A, 22, FACT_V, 28)
FACT_LEAD(lead_eavt, FACT_E, FACT_A, 6, 12)
FACT_LEAD(lead_aevt, FACT_A, FACT_E, 6, 12)
FACT_LEAD(lead_avet, FACT_A, FACT_V, 6, 15)
FACT_LEAD(lead_vaet, FACT_V, FACT_A, 9, 15)
FACT_LEAD(lead_txlog, FACT_SEQ, FACT_TXC, 8, 16)

static int fact_seek(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                     const uint8_t *target, uint8_t *key, size_t *used) {
    return fact_run_seek(((const fact_codec_def *)c)->order, base, in, len, target, key, used);
}

static int fact_place(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                      const uint8_t *target, uint8_t *key, size_t *at, size_t *used, uint8_t *prev,
                      bool *has_prev) {
    return fact_run_place(((const fact_codec_def *)c)->order, base, in, len, target, key, at, used,
                          prev, has_prev);
}

static void fact_sum_add(const btree_codec *c, uint8_t *sum, const uint8_t *anchor,
                         const uint8_t *prev, const uint8_t *key, const uint8_t *next) {
    fact_summary_add(&((const fact_codec_def *)c)->sum, sum, anchor, prev, key, next);
}

static void fact_child_sum_of(const btree_codec *c, uint8_t *out, const uint8_t *leaf_sum,
                              const uint8_t *last, const uint8_t *next) {
    (void)c;
    fact_child_sum(out, leaf_sum, last, next);
}

static fact_codec_def codecs[TREE_TXLOG + 1];
static pthread_once_t codecs_once = PTHREAD_ONCE_INIT;
static atomic_bool codecs_ready; /* every seek asks: no pthread_once call once set */

static void codecs_init(void) {
    typedef size_t (*decoder)(const btree_codec *, const uint8_t *, const uint8_t *, size_t,
                              uint8_t *);
    static const decoder decoders[TREE_TXLOG + 1] = {[TREE_EAVT] = decode_eavt,
                                                     [TREE_AEVT] = decode_aevt,
                                                     [TREE_AVET] = decode_avet,
                                                     [TREE_VAET] = decode_vaet,
                                                     [TREE_TXLOG] = decode_txlog};
    static const decoder leads[TREE_TXLOG + 1] = {[TREE_EAVT] = lead_eavt,
                                                  [TREE_AEVT] = lead_aevt,
                                                  [TREE_AVET] = lead_avet,
                                                  [TREE_VAET] = lead_vaet,
                                                  [TREE_TXLOG] = lead_txlog};
    static const size_t lead_sizes[TREE_TXLOG + 1] = {12, 12, 15, 15, 16};
    for (size_t off = FACT_KEY_TXID; off < FACT_KEY_ASSERTED; off += 8)
        format_put_be(base_key + off, SORTABLE_ZERO, 8);
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++) {
        fact_codec_def *d = &codecs[order];
        d->base = (btree_codec){FACT_KEY_SIZE,
                                FACT_BLOCK_BYTES,
                                fact_encode,
                                decoders[order],
                                lead_sizes[order],
                                leads[order],
                                fact_seek,
                                false,
                                fact_place,
                                NULL,
                                0,
                                NULL};
        d->order = order;
        size_t off = 0;
        for (int i = 0; i < FACT_LEADING; i++) {
            d->field[i] = fact_key_field(order, i);
            d->off[i] = off;
            size_t *at = d->field[i] == FACT_E   ? &d->sum.e
                         : d->field[i] == FACT_A ? &d->sum.a
                         : d->field[i] == FACT_V ? &d->sum.v
                                                 : NULL;
            if (at)
                *at = off;
            off += fact_key_field_size(d->field[i]);
        }
        /* TXLOG's groups are not contiguous: no summary. */
        d->base.sum_add = order == TREE_TXLOG ? NULL : fact_sum_add;
        d->base.child_sum_bytes = order == TREE_TXLOG ? 0 : FACT_CHILD_SUM_BYTES;
        d->base.child_sum = order == TREE_TXLOG ? NULL : fact_child_sum_of;
    }
    atomic_store_explicit(&codecs_ready, true, memory_order_release);
}

const btree_codec *fact_codec(int order) {
    if (!atomic_load_explicit(&codecs_ready, memory_order_acquire))
        pthread_once(&codecs_once, codecs_init);
    return &codecs[order].base;
}
