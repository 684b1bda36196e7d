#include "store/fact_run.h"

#include <string.h>

#include "model/value.h"
#include "store/fact_format.h"

/* The times' differences are of their sortable forms, which are their bit
 * patterns with the top bit flipped: adding a difference to either gives
 * the same bits but that one, so the columns keep the plain patterns. */
#define TOP_BIT SORTABLE_ZERO
/* The bit pattern of VALID_TO_FOREVER, the sortable form of forever. */
#define FOREVER_BITS (SORTABLE_FOREVER ^ TOP_BIT)

static int64_t as_i64(uint64_t u) {
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static uint64_t as_u64(int64_t v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* What a V field's payload bytes add to its number: the key flips an
 * integer's sign bit. */
static uint64_t payload_flip(uint64_t type) {
    return type == VT_INTEGER ? TOP_BIT : 0;
}

DECODE_STEP bool read_number(reader *rd, uint64_t *x) {
    uint64_t z;
    if (!read_varint(rd, &z))
        return false;
    *x = zigzag_apply(*x, z);
    return true;
}

/* V: its type, then its payload number's difference from the previous
 * key's when the type is the same, else from 0. */
DECODE_STEP bool read_value(reader *rd, uint64_t *col) {
    if (rd->p >= rd->end)
        return false;
    uint64_t type = *rd->p++;
    if (type != col[RUN_VTYPE])
        col[FACT_V] = 0;
    col[RUN_VTYPE] = type;
    return read_number(rd, &col[FACT_V]);
}

/* One leading field, unless flagged equal to the previous key's; E and A
 * are 48-bit. */
DECODE_STEP bool read_field(reader *rd, unsigned flags, int field, uint64_t *col) {
    if (field != FACT_SEQ && (flags & (1u << field)))
        return true;
    if (field == FACT_V)
        return read_value(rd, col);
    if (!read_number(rd, &col[field]))
        return false;
    return (field != FACT_E && field != FACT_A) || col[field] >> 48 == 0;
}

DECODE_STEP bool read_tail(reader *rd, unsigned flags, uint64_t *col) {
    bool ok = (flags & SAME_TXID) || read_number(rd, &col[RUN_TXID]);
    if (!(flags & VALID_FROM_STORED))
        col[RUN_VALID_FROM] = col[RUN_TXID];
    else
        ok = ok && read_number(rd, &col[RUN_VALID_FROM]);
    if (!(flags & VALID_TO_STORED))
        col[RUN_VALID_TO] = FOREVER_BITS;
    else
        ok = ok && read_number(rd, &col[RUN_VALID_TO]);
    col[RUN_ASSERTED] = (flags & ASSERTED) ? 1 : 0;
    return ok;
}

/* Whether the entry just read is inside the bound. */
DECODE_STEP bool in_bound(const fact_run *r) {
    for (size_t i = 0; i < r->bounds; i++)
        if ((r->col[r->bound_col[i]] ^ r->bound[i].want) & r->bound[i].mask)
            return false;
    return true;
}

/* The identifiers of the entry just read. */
DECODE_STEP void write_ids(const fact_run *r, fact_ids *out) {
    const uint64_t *col = r->col;
    out->e = col[FACT_E];
    out->a = col[FACT_A];
    out->v[0] = (uint8_t)col[RUN_VTYPE];
    store64(out->v + 1, col[FACT_V] ^ payload_flip(col[RUN_VTYPE]));
    out->tx_count = col[FACT_TXC];
    out->seq = col[FACT_SEQ];
    out->tx_id = as_i64(col[RUN_TXID]);
    out->valid_from = as_i64(col[RUN_VALID_FROM]);
    out->valid_to = as_i64(col[RUN_VALID_TO]);
    out->asserted = col[RUN_ASSERTED] != 0;
}

/* Adds the bound on the column `col` whose key bytes are `size` bytes at
 * `off` of `key` (their big-endian number xor `flip` being the column's
 * value), when the bound's first `len` bytes reach them: all of the
 * column or its leading bytes. Inline, so that each size is a constant. */
DECODE_STEP void add_bound(fact_run *r, int col, const uint8_t *key, size_t off, int size,
                           uint64_t flip, size_t len) {
    if (len <= off)
        return;
    uint64_t mask = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    uint8_t part[8] = {0};
    if (len - off < (size_t)size) { /* the prefix ends inside the field */
        mask &= ~((UINT64_C(1) << (8 * ((size_t)size - (len - off)))) - 1);
        memcpy(part, key + off, len - off);
        key = part;
        off = 0;
    }
    uint64_t field = size == 1 ? key[off] : format_get_be(key + off, size);
    r->bound_col[r->bounds] = (uint8_t)col;
    r->bound[r->bounds++] = (run_bound){mask, (field ^ flip) & mask};
}

/* The bounds of a leading field at `off`: the offset after it. */
DECODE_STEP size_t field_bound(fact_run *r, int field, const uint8_t *key, size_t off, size_t len) {
    switch (field) {
    case FACT_E:
    case FACT_A: add_bound(r, field, key, off, 6, 0, len); return off + 6;
    case FACT_V:
        add_bound(r, RUN_VTYPE, key, off, 1, 0, len);
        add_bound(r, FACT_V, key, off + 1, 8, payload_flip(key[off]), len);
        return off + FACT_V_SIZE;
    default: add_bound(r, field, key, off, 8, 0, len); return off + 8;
    }
}

static void tail_bounds(fact_run *r, const uint8_t *key, size_t len) {
    add_bound(r, RUN_TXID, key, FACT_KEY_TXID, 8, TOP_BIT, len);
    add_bound(r, RUN_VALID_FROM, key, FACT_KEY_VALID_FROM, 8, TOP_BIT, len);
    add_bound(r, RUN_VALID_TO, key, FACT_KEY_VALID_TO, 8, TOP_BIT, len);
    add_bound(r, RUN_ASSERTED, key, FACT_KEY_ASSERTED, 1, 0, len);
}

/* Per order, its field sequence spelled out (fact_key.c defines the
 * orders; the tests check that these agree with fact_codec.c's): the
 * decoder of an entry, and the setting of a prefix's bounds. */
#define RUN_ORDER(name, f0, f1, f2, f3, f4)                                                     \
    static int name##_next(fact_run *r, fact_ids *out) {                                       \
        reader rd = {r->p + 1, r->end};                                                        \
        unsigned flags = r->p[0];                                                              \
        uint64_t *col = r->col;                                                                \
        bool ok = read_field(&rd, flags, f0, col) && read_field(&rd, flags, f1, col) &&        \
                  read_field(&rd, flags, f2, col) && read_field(&rd, flags, f3, col) &&        \
                  read_field(&rd, flags, f4, col) && read_tail(&rd, flags, col);               \
        r->p = ok ? rd.p : r->end;                                                             \
        if (!ok)                                                                               \
            return -1;                                                                         \
        if (!in_bound(r))                                                                      \
            return FACT_RUN_PAST;                                                              \
        write_ids(r, out);                                                                     \
        return 1;                                                                              \
    }                                                                                          \
    static void name##_bounds(fact_run *r, const uint8_t *key, size_t len) {                   \
        size_t off = 0;                                                                        \
        r->bounds = 0;                                                                         \
        if (off < len)                                                                         \
            off = field_bound(r, f0, key, off, len);                                           \
        if (off < len)                                                                         \
            off = field_bound(r, f1, key, off, len);                                           \
        if (off < len)                                                                         \
            off = field_bound(r, f2, key, off, len);                                           \
        if (off < len)                                                                         \
            off = field_bound(r, f3, key, off, len);                                           \
        if (off < len)                                                                         \
            off = field_bound(r, f4, key, off, len);                                           \
        if (off < len)                                                                         \
            tail_bounds(r, key, len);                                                          \
    }

RUN_ORDER(eavt, FACT_E, FACT_A, FACT_V, FACT_TXC, FACT_SEQ)
RUN_ORDER(aevt, FACT_A, FACT_E, FACT_V, FACT_TXC, FACT_SEQ)
RUN_ORDER(avet, FACT_A, FACT_V, FACT_E, FACT_TXC, FACT_SEQ)
RUN_ORDER(vaet, FACT_V, FACT_A, FACT_E, FACT_TXC, FACT_SEQ)
RUN_ORDER(txlog, FACT_SEQ, FACT_TXC, FACT_E, FACT_A, FACT_V)

void fact_run_init(fact_run *r, int order, const uint8_t *prefix, size_t len) {
    static int (*const decoders[TREE_TXLOG + 1])(fact_run *, fact_ids *) = {
        [TREE_EAVT] = eavt_next, [TREE_AEVT] = aevt_next, [TREE_AVET] = avet_next,
        [TREE_VAET] = vaet_next, [TREE_TXLOG] = txlog_next};
    static void (*const bounds[TREE_TXLOG + 1])(fact_run *, const uint8_t *, size_t) = {
        [TREE_EAVT] = eavt_bounds, [TREE_AEVT] = aevt_bounds, [TREE_AVET] = avet_bounds,
        [TREE_VAET] = vaet_bounds, [TREE_TXLOG] = txlog_bounds};
    r->next = decoders[order];
    fact_run_clear(r);
    bounds[order](r, prefix, len);
}

void fact_run_start(fact_run *r, const fact_ids *base, const uint8_t *bytes, size_t len) {
    r->p = bytes;
    r->end = bytes + len;
    if (!base) { /* every field 0, the times the sortable form of 0 */
        memset(r->col, 0, sizeof r->col);
        return;
    }
    r->col[FACT_E] = base->e;
    r->col[FACT_A] = base->a;
    r->col[RUN_VTYPE] = base->v[0];
    r->col[FACT_V] = load64(base->v + 1) ^ payload_flip(base->v[0]);
    r->col[FACT_TXC] = base->tx_count;
    r->col[FACT_SEQ] = base->seq;
    r->col[RUN_TXID] = as_u64(base->tx_id);
    r->col[RUN_VALID_FROM] = as_u64(base->valid_from);
    r->col[RUN_VALID_TO] = as_u64(base->valid_to);
    r->col[RUN_ASSERTED] = base->asserted;
}
