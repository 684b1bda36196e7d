/* The leaf entries of the history tree (history.h; docs/file-format.md
 * §3): against the key before it (zeros at a restart),
 *
 *   u8 flags: bit 0 E, bit 1 A equal to the previous key's; bit 2
 *   asserted; bit 3 V's type equal to the previous key's; bits 4-7 zero
 *   then E, A (unless flagged equal), TXC, SEQ: varints of the zigzag
 *   difference from the previous key's; V's type (unless flagged); V's
 *   payload: varint of the zigzag difference from the previous key's
 *   payload when the type is the same, else from 0; LIVE: varint of the
 *   zigzag difference from the previous key's. */
#include "store/history.h"

#include <string.h>

#include "storage/format.h"
#include "storage/varint.h"

enum { C_E, C_A, C_TXC, C_SEQ, C_VTYPE, C_VPAY, C_ASSERTED, C_LIVE, C_COUNT };
enum { SAME_E = 1, SAME_A = 2, IS_ASSERTED = 4, SAME_VTYPE = 8, FLAGS_USED = 15 };

/* Offsets and widths of the columns in a key. */
static const uint8_t col_off[C_COUNT] = {0, 6, 12, 20, 28, 29, 37, 38};
static const uint8_t col_width[C_COUNT] = {6, 6, 8, 8, 1, 8, 1, 8};

static void key_cols(const uint8_t *key, uint64_t *col) {
    for (int i = 0; i < C_COUNT; i++)
        col[i] = key ? format_get_be(key + col_off[i], col_width[i]) : 0;
}

static void cols_key(const uint64_t *col, uint8_t *key) {
    for (int i = 0; i < C_COUNT; i++)
        format_put_be(key + col_off[i], col[i], col_width[i]);
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
    return n;
}

static bool get_delta(const uint8_t *in, size_t avail, size_t *n, uint64_t *col) {
    uint64_t z;
    size_t got = *n < avail ? varint_get(in + *n, avail - *n, &z) : 0;
    if (!got)
        return false;
    *n += got;
    *col = zigzag_apply(*col, z);
    return true;
}

static size_t decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in, size_t avail,
                     uint8_t *key) {
    (void)c;
    uint64_t k[C_COUNT];
    key_cols(prev, k);
    if (avail == 0 || (in[0] & ~FLAGS_USED))
        return 0;
    unsigned flags = in[0];
    size_t n = 1;
    bool ok = ((flags & SAME_E) || get_delta(in, avail, &n, &k[C_E])) &&
              ((flags & SAME_A) || get_delta(in, avail, &n, &k[C_A])) &&
              get_delta(in, avail, &n, &k[C_TXC]) && get_delta(in, avail, &n, &k[C_SEQ]);
    if (ok && !(flags & SAME_VTYPE)) {
        ok = n < avail;
        if (ok) {
            k[C_VTYPE] = in[n++];
            k[C_VPAY] = 0;
        }
    }
    ok = ok && get_delta(in, avail, &n, &k[C_VPAY]) && get_delta(in, avail, &n, &k[C_LIVE]);
    if (!ok || k[C_E] >> 48 || k[C_A] >> 48)
        return 0;
    k[C_ASSERTED] = (flags & IS_ASSERTED) ? 1 : 0;
    cols_key(k, key);
    return n;
}

const btree_codec *history_codec(void) {
    /* Blocks as small as the fact trees' keep a seek's decoding short. */
    static const btree_codec codec = {HIST_KEY_SIZE, 96, encode, decode, 0, NULL, NULL};
    return &codec;
}
