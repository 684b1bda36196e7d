/* The leaf entries of the history tree (history.h; docs/file-format.md
 * §3): against the key before it (zeros at a restart),
 *
 *   u8 flags: bit 0 E, bit 1 A equal to the previous key's; bit 2
 *   asserted; bit 3 V's type equal to the previous key's; bit 4
 *   VALID_FROM stored (else it equals TXID); bit 5 VALID_TO stored (else
 *   forever); bits 6-7 zero
 *   then E, A (unless flagged equal), ~TXC, ~SEQ: varints of the zigzag
 *   difference from the previous key's; V's type (unless flagged); V's
 *   payload: varint of the zigzag difference from the previous key's
 *   payload when the type is the same, else from 0; LIVE, TXID, then
 *   VALID_FROM and VALID_TO when flagged: varints of the zigzag
 *   difference from the previous key's (the times as their sortable
 *   forms). */
#include "store/history.h"

#include <string.h>

#include "storage/format.h"
#include "storage/varint.h"

/* The decoding steps every seek and scan of the tree runs per entry:
 * forced inline (left to itself the compiler kept them calls). */
#define STEP static inline __attribute__((always_inline))

/* The columns of a key, in key order. */
enum { C_E, C_A, C_TXC, C_SEQ, C_VTYPE, C_VPAY, C_ASSERTED, C_LIVE, C_TXID, C_VF, C_VT, C_COUNT };
enum {
    SAME_E = 1,
    SAME_A = 2,
    IS_ASSERTED = 4,
    SAME_VTYPE = 8,
    VF_STORED = 16,
    VT_STORED = 32,
    FLAGS_USED = 63
};
/* The sortable form of forever. */
#define SORTABLE_FOREVER UINT64_MAX

/* A key's columns (offsets in history.h), each read and written with a
 * constant width: a codec call takes the previous key apart every time. */
static void key_cols(const uint8_t *key, uint64_t *col) {
    if (!key) {
        memset(col, 0, C_COUNT * sizeof *col);
        return;
    }
    col[C_E] = format_get_be(key, 6);
    col[C_A] = format_get_be(key + 6, 6);
    col[C_TXC] = format_get_be(key + 12, 8);
    col[C_SEQ] = format_get_be(key + 20, 8);
    col[C_VTYPE] = key[28];
    col[C_VPAY] = format_get_be(key + 29, 8);
    col[C_ASSERTED] = key[37];
    col[C_LIVE] = format_get_be(key + 38, 8);
    col[C_TXID] = format_get_be(key + 46, 8);
    col[C_VF] = format_get_be(key + 54, 8);
    col[C_VT] = format_get_be(key + 62, 8);
}

static void cols_key(const uint64_t *col, uint8_t *key) {
    format_put_be(key, col[C_E], 6);
    format_put_be(key + 6, col[C_A], 6);
    format_put_be(key + 12, col[C_TXC], 8);
    format_put_be(key + 20, col[C_SEQ], 8);
    key[28] = (uint8_t)col[C_VTYPE];
    format_put_be(key + 29, col[C_VPAY], 8);
    key[37] = (uint8_t)col[C_ASSERTED];
    format_put_be(key + 38, col[C_LIVE], 8);
    format_put_be(key + 46, col[C_TXID], 8);
    format_put_be(key + 54, col[C_VF], 8);
    format_put_be(key + 62, col[C_VT], 8);
}

static size_t put_delta(uint8_t *out, uint64_t cur, uint64_t prev) {
    return varint_put(out, zigzag_delta(cur, prev));
}

static size_t encode(const btree_codec *c, const uint8_t *prev, const uint8_t *key, uint8_t *out) {
    (void)c;
    uint64_t p[C_COUNT], k[C_COUNT];
    key_cols(prev, p);
    key_cols(key, k);
    unsigned flags = (k[C_ASSERTED] ? IS_ASSERTED : 0u);
    if (prev && k[C_E] == p[C_E])
        flags |= SAME_E;
    if (prev && k[C_A] == p[C_A])
        flags |= SAME_A;
    if (prev && k[C_VTYPE] == p[C_VTYPE])
        flags |= SAME_VTYPE;
    if (k[C_VF] != k[C_TXID])
        flags |= VF_STORED;
    if (k[C_VT] != SORTABLE_FOREVER)
        flags |= VT_STORED;
    size_t n = 0;
    out[n++] = (uint8_t)flags;
    if (!(flags & SAME_E))
        n += put_delta(out + n, k[C_E], p[C_E]);
    if (!(flags & SAME_A))
        n += put_delta(out + n, k[C_A], p[C_A]);
    n += put_delta(out + n, k[C_TXC], p[C_TXC]);
    n += put_delta(out + n, k[C_SEQ], p[C_SEQ]);
    if (!(flags & SAME_VTYPE))
        out[n++] = (uint8_t)k[C_VTYPE];
    n += put_delta(out + n, k[C_VPAY], (flags & SAME_VTYPE) ? p[C_VPAY] : 0);
    n += put_delta(out + n, k[C_LIVE], p[C_LIVE]);
    n += put_delta(out + n, k[C_TXID], p[C_TXID]);
    if (flags & VF_STORED)
        n += put_delta(out + n, k[C_VF], p[C_VF]);
    if (flags & VT_STORED)
        n += put_delta(out + n, k[C_VT], p[C_VT]);
    return n;
}

STEP bool get_delta(const uint8_t *in, size_t avail, size_t *n, uint64_t *col) {
    uint64_t z;
    size_t got = *n < avail ? varint_get(in + *n, avail - *n, &z) : 0;
    if (!got)
        return false;
    *n += got;
    *col = zigzag_apply(*col, z);
    return true;
}

/* The flags and the fields that order keys (E, A, TXC) of an entry into
 * k[] (holding the previous key's): the flags, or -1 when they do not
 * decode; *n the bytes read. */
STEP int read_order(const uint8_t *in, size_t avail, uint64_t *k, size_t *n) {
    if (avail == 0 || (in[0] & ~FLAGS_USED))
        return -1;
    unsigned flags = in[0];
    *n = 1;
    bool ok = ((flags & SAME_E) || get_delta(in, avail, n, &k[C_E])) &&
              ((flags & SAME_A) || get_delta(in, avail, n, &k[C_A])) &&
              get_delta(in, avail, n, &k[C_TXC]);
    return ok && !(k[C_E] >> 48) && !(k[C_A] >> 48) ? (int)flags : -1;
}

/* An entry into k[] (holding the previous key's columns): its length, or
 * 0 when it does not decode. */
STEP size_t decode_cols(const uint8_t *in, size_t avail, uint64_t *k) {
    size_t n;
    int read = read_order(in, avail, k, &n);
    if (read < 0)
        return 0;
    unsigned flags = (unsigned)read;
    bool ok = get_delta(in, avail, &n, &k[C_SEQ]);
    if (ok && !(flags & SAME_VTYPE)) {
        ok = n < avail;
        if (ok) {
            k[C_VTYPE] = in[n++];
            k[C_VPAY] = 0;
        }
    }
    ok = ok && get_delta(in, avail, &n, &k[C_VPAY]) && get_delta(in, avail, &n, &k[C_LIVE]) &&
         get_delta(in, avail, &n, &k[C_TXID]);
    if (!(flags & VF_STORED))
        k[C_VF] = k[C_TXID];
    else
        ok = ok && get_delta(in, avail, &n, &k[C_VF]);
    if (!(flags & VT_STORED))
        k[C_VT] = SORTABLE_FOREVER;
    else
        ok = ok && get_delta(in, avail, &n, &k[C_VT]);
    k[C_ASSERTED] = (flags & IS_ASSERTED) ? 1 : 0;
    return ok ? n : 0;
}

static size_t decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                     uint8_t *key) {
    (void)c;
    uint64_t k[C_COUNT];
    key_cols(prev, k);
    size_t n = decode_cols(in, avail, k);
    if (n)
        cols_key(k, key);
    return n;
}

/* Keys as columns compare as their bytes do: the columns are big-endian
 * fields, in key order. */
static int cmp_cols(const uint64_t *a, const uint64_t *b) {
    for (int i = 0; i < C_COUNT; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The codec's seek inside one restart block: entries decoded as columns,
 * only the key found built. */
static int seek(const btree_codec *c, const uint8_t *base, const uint8_t *in, size_t len,
                const uint8_t *target, uint8_t *key, size_t *used) {
    (void)c;
    uint64_t k[C_COUNT], want[C_COUNT];
    key_cols(base, k);
    key_cols(target, want);
    for (size_t off = 0; off < len;) {
        size_t n = decode_cols(in + off, len - off, k);
        if (!n)
            return -1;
        off += n;
        if (cmp_cols(k, want) >= 0) {
            cols_key(k, key);
            *used = off;
            return 1;
        }
    }
    return 0;
}

/* The lead of a key: E, A and ~TXC, which decide the comparisons of a
 * binary search over restarts but for records of one transaction (a
 * history of one pair differs in ~TXC alone). */
#define LEAD_SIZE 20

static size_t lead(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                   uint8_t *key) {
    (void)c;
    uint64_t k[C_TXC + 1] = {0};
    if (prev) {
        k[C_E] = format_get_be(prev, 6);
        k[C_A] = format_get_be(prev + 6, 6);
        k[C_TXC] = format_get_be(prev + 12, 8);
    }
    size_t n;
    if (read_order(in, avail, k, &n) < 0)
        return 0;
    format_put_be(key, k[C_E], 6);
    format_put_be(key + 6, k[C_A], 6);
    format_put_be(key + 12, k[C_TXC], 8);
    return n;
}

const btree_codec *history_codec(void) {
    /* Blocks as small as the fact trees' keep a seek's decoding short. */
    static const btree_codec codec = {HIST_KEY_SIZE, 96,   encode, decode, LEAD_SIZE, lead,
                                      seek,          true, NULL,   NULL,   0,         NULL};
    return &codec;
}
