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

DECODE_STEP bool read_number(reader *rd, uint64_t *x, bool room) {
    uint64_t z;
    if (!read_varint_in(rd, &z, room))
        return false;
    *x = zigzag_apply(*x, z);
    return true;
}

/* V: its type, then its payload number's difference from the previous
 * key's when the type is the same, else from 0. */
DECODE_STEP bool read_value(reader *rd, uint64_t *col, bool room) {
    if (!room && rd->p >= rd->end)
        return false;
    uint64_t type = *rd->p++;
    if (type != col[RUN_VTYPE])
        col[FACT_V] = 0;
    col[RUN_VTYPE] = type;
    return read_number(rd, &col[FACT_V], room);
}

/* One leading field, unless flagged equal to the previous key's; E and A
 * are 48-bit. `room`: read_varint_in's, for the whole entry. */
DECODE_STEP bool read_field(reader *rd, unsigned flags, int field, uint64_t *col, bool room) {
    if (field != FACT_SEQ && (flags & (1u << field)))
        return true;
    if (field == FACT_V)
        return read_value(rd, col, room);
    if (!read_number(rd, &col[field], room))
        return false;
    return (field != FACT_E && field != FACT_A) || col[field] >> 48 == 0;
}

DECODE_STEP bool read_tail(reader *rd, unsigned flags, uint64_t *col, bool room) {
    bool ok = (flags & SAME_TXID) || read_number(rd, &col[RUN_TXID], room);
    if (!(flags & VALID_FROM_STORED))
        col[RUN_VALID_FROM] = col[RUN_TXID];
    else
        ok = ok && read_number(rd, &col[RUN_VALID_FROM], room);
    if (!(flags & VALID_TO_STORED))
        col[RUN_VALID_TO] = FOREVER_BITS;
    else
        ok = ok && read_number(rd, &col[RUN_VALID_TO], room);
    col[RUN_ASSERTED] = (flags & ASSERTED) ? 1 : 0;
    return ok;
}

/* Whether the entry just read (its columns `col`) is inside the bound. */
DECODE_STEP bool in_bound(const fact_run *r, const uint64_t *col) {
    for (size_t i = 0; i < r->bounds; i++)
        if ((col[r->bound_col[i]] ^ r->bound[i].want) & r->bound[i].mask)
            return false;
    return true;
}

/* The identifiers of the entry just read (its columns `col`). */
DECODE_STEP void write_ids(const uint64_t *col, fact_ids *out) {
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

/* A fill's rows (run_rows) in locals: the row written next. */
typedef struct row_sink {
    value *row;
    size_t width;
    int at[3];
    const value_source *src;
} row_sink;

DECODE_STEP row_sink row_sink_of(const run_rows *rows) {
    if (!rows)
        return (row_sink){NULL, 0, {-1, -1, -1}, NULL};
    return (row_sink){rows->slot, rows->width, {rows->at[0], rows->at[1], rows->at[2]}, rows->src};
}

/* The V field of the columns' entry into *out (field_value_set): false
 * when it has no type. An integer is its column already: its case is
 * made apart, so that flipping the sign bit twice folds away. */
DECODE_STEP bool write_value(uint64_t type, uint64_t x, value *out, const value_source *src) {
    if (type == VT_INTEGER)
        return field_value_set(out, VT_INTEGER, x ^ TOP_BIT, src);
    return field_value_set(out, (unsigned)type, x, src);
}

/* The entry just read (its columns `col`) into the next row of `to`: 1,
 * or -1 when its V has no type. The columns are read before the first
 * store (a value's id may alias them). */
DECODE_STEP int write_row(const uint64_t *col, row_sink *to) {
    uint64_t e = col[FACT_E], a = col[FACT_A], type = col[RUN_VTYPE], x = col[FACT_V];
    value *row = to->row;
    to->row += to->width;
    if (to->at[0] >= 0)
        value_set_stored(&row[to->at[0]], VT_REF, to->src, e);
    if (to->at[1] >= 0)
        value_set_stored(&row[to->at[1]], VT_KEYWORD, to->src, a);
    return to->at[2] < 0 || write_value(type, x, &row[to->at[2]], to->src) ? 1 : -1;
}

/* Entry i of a fill into ids[i], or into the next row of `to` (ids NULL). */
DECODE_STEP int put(const uint64_t *col, fact_ids *ids, size_t i, row_sink *to) {
    if (!ids)
        return write_row(col, to);
    write_ids(col, &ids[i]);
    return 1;
}

/* The entry flag that says column `col` equals the previous entry's. */
DECODE_STEP unsigned same_flag(int col) {
    switch (col) {
    case FACT_E: return SAME_E;
    case FACT_A: return SAME_A;
    case FACT_V:
    case RUN_VTYPE: return SAME_V;
    case FACT_TXC: return SAME_TXC;
    case RUN_TXID: return SAME_TXID;
    default: return RUN_NO_FLAG;
    }
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
    r->bound_same |= same_flag(col);
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

/* ---- seeking inside a block (fact_run_seek) ----------------------------
 * Keys as columns: the leading fields' big-endian numbers (V as its type
 * and payload number), the times' bit patterns, the asserted byte. Each
 * helper takes one field at its offset, so that an order's sequence of
 * calls is specialised. */

DECODE_STEP size_t field_width(int field) {
    return field == FACT_E || field == FACT_A ? 6 : field == FACT_V ? FACT_V_SIZE : 8;
}

/* The field at key + off into its columns: the offset after it. */
DECODE_STEP size_t key_col(const uint8_t *key, size_t off, int field, uint64_t *col) {
    if (field == FACT_V) {
        col[RUN_VTYPE] = key[off];
        col[FACT_V] = load64(key + off + 1) ^ payload_flip(key[off]);
    } else {
        col[field] = field_width(field) == 6 ? load64(key + off) >> 16 : load64(key + off);
    }
    return off + field_width(field);
}

DECODE_STEP void key_tail_cols(const uint8_t *key, uint64_t *col) {
    col[RUN_TXID] = load64(key + FACT_KEY_TXID) ^ TOP_BIT;
    col[RUN_VALID_FROM] = load64(key + FACT_KEY_VALID_FROM) ^ TOP_BIT;
    col[RUN_VALID_TO] = load64(key + FACT_KEY_VALID_TO) ^ TOP_BIT;
    col[RUN_ASSERTED] = key[FACT_KEY_ASSERTED];
}

/* The field's columns into key + off: the offset after it. */
DECODE_STEP size_t col_key(const uint64_t *col, int field, uint8_t *key, size_t off) {
    if (field == FACT_V) {
        key[off] = (uint8_t)col[RUN_VTYPE];
        store64(key + off + 1, col[FACT_V] ^ payload_flip(col[RUN_VTYPE]));
    } else if (field_width(field) == 6) {
        uint8_t be[8];
        store64(be, col[field] << 16);
        memcpy(key + off, be, 6);
    } else {
        store64(key + off, col[field]);
    }
    return off + field_width(field);
}

DECODE_STEP void tail_cols_key(const uint64_t *col, uint8_t *key) {
    store64(key + FACT_KEY_TXID, col[RUN_TXID] ^ TOP_BIT);
    store64(key + FACT_KEY_VALID_FROM, col[RUN_VALID_FROM] ^ TOP_BIT);
    store64(key + FACT_KEY_VALID_TO, col[RUN_VALID_TO] ^ TOP_BIT);
    key[FACT_KEY_ASSERTED] = (uint8_t)col[RUN_ASSERTED];
}

/* Branching, not the (a > b) - (a < b) idiom: a seek compares every
 * entry it passes, most of them decided by one field (the others equal),
 * and a branch per field is fewer instructions than computing each sign. */
DECODE_STEP int cmp_u64(uint64_t a, uint64_t b) {
    if (a == b)
        return 0;
    return a < b ? -1 : 1;
}

/* One field of two keys as columns, in key order (memcmp's). */
DECODE_STEP int cmp_col(const uint64_t *a, const uint64_t *b, int field) {
    if (field != FACT_V)
        return cmp_u64(a[field], b[field]);
    if (a[RUN_VTYPE] != b[RUN_VTYPE])
        return cmp_u64(a[RUN_VTYPE], b[RUN_VTYPE]);
    return cmp_u64(a[FACT_V] ^ payload_flip(a[RUN_VTYPE]), b[FACT_V] ^ payload_flip(b[RUN_VTYPE]));
}

DECODE_STEP int cmp_tail(const uint64_t *a, const uint64_t *b) {
    for (int t = RUN_TXID; t <= RUN_VALID_TO; t++)
        if (a[t] != b[t])
            return cmp_u64(a[t] ^ TOP_BIT, b[t] ^ TOP_BIT);
    return cmp_u64(a[RUN_ASSERTED], b[RUN_ASSERTED]);
}

/* The most bytes an entry's decoding reads: its flags, V's type, and
 * eight numbers (the leading fields' and the tail's) of at most
 * VARINT_MAX bytes each (read_varint_in reads no further). */
#define RUN_ENTRY_MAX (2 + 8 * VARINT_MAX)

/* Per order, its field sequence spelled out (fact_key.c defines the
 * orders; the tests check that these agree with fact_codec.c's): the
 * decoder of an entry, the seek inside a block, and the setting of a
 * prefix's bounds. */
#define RUN_ORDER(name, f0, f1, f2, f3, f4)                                                        \
    /* An entry's fields after its flags byte (`room`: read_field's). */                           \
    DECODE_STEP bool name##_entry(reader *rd, unsigned flags, uint64_t *col, bool room) {          \
        return read_field(rd, flags, f0, col, room) && read_field(rd, flags, f1, col, room) &&     \
               read_field(rd, flags, f2, col, room) && read_field(rd, flags, f3, col, room) &&     \
               read_field(rd, flags, f4, col, room) && read_tail(rd, flags, col, room);            \
    }                                                                                              \
    /* The entry at *p (of run `r`, whose end is `end`; *p moves past it). */                      \
    DECODE_STEP int name##_step(fact_run *r, const uint8_t **p, const uint8_t *end, bool room) {   \
        uint64_t *col = r->col;                                                                    \
        reader rd = {*p + 1, end};                                                                 \
        unsigned flags = **p;                                                                      \
        bool ok = name##_entry(&rd, flags, col, room) && (!room || rd.p <= end);                   \
        *p = ok ? rd.p : end;                                                                      \
        if (!ok)                                                                                   \
            return -1;                                                                             \
        if ((flags & r->pass) != r->pass) {                                                        \
            if (!in_bound(r, col))                                                                 \
                return FACT_RUN_PAST;                                                              \
            r->pass = r->bound_same;                                                               \
        }                                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    static int name##_next(fact_run *r, fact_ids *out) {                                           \
        int rc = name##_step(r, &r->p, r->end, false);                                             \
        if (rc == 1)                                                                               \
            write_ids(r->col, out);                                                                \
        return rc;                                                                                 \
    }                                                                                              \
    /* The entries with RUN_ENTRY_MAX readable bytes left (r->room) read                           \
     * without bound tests, an entry checked against the run's end once                            \
     * it is read; the last few of the page with them. */                                          \
    /* Into ids[i], or (ids NULL) into the rows of `rows`. */                                      \
    DECODE_STEP int name##_fill_to(fact_run *r, fact_ids *ids, const run_rows *rows, size_t max,   \
                                   size_t *n) {                                                    \
        size_t i = 0;                                                                              \
        int rc = 1;                                                                                \
        const uint8_t *p = r->p, *end = r->end, *room = r->room;                                   \
        row_sink to = row_sink_of(rows);                                                           \
        /* the entries starting before `sure` have RUN_ENTRY_MAX bytes */                          \
        const uint8_t *sure = room - p < RUN_ENTRY_MAX ? p : room - RUN_ENTRY_MAX + 1;             \
        if (sure > end)                                                                            \
            sure = end;                                                                            \
        for (; i < max && p < sure; i++)                                                           \
            if ((rc = name##_step(r, &p, end, true)) != 1 || (rc = put(r->col, ids, i, &to)) != 1) \
                break;                                                                             \
        while (rc == 1 && i < max && p < end)                                                      \
            if ((rc = name##_step(r, &p, end, false)) == 1 &&                                      \
                (rc = put(r->col, ids, i, &to)) == 1)                                              \
                i++;                                                                               \
        r->p = p;                                                                                  \
        *n = i;                                                                                    \
        return rc == 1 ? 0 : rc;                                                                   \
    }                                                                                              \
    static int name##_fill(fact_run *r, fact_ids *out, size_t max, size_t *n) {                    \
        return name##_fill_to(r, out, NULL, max, n);                                               \
    }                                                                                              \
    static int name##_fill_rows(fact_run *r, const run_rows *out, size_t max, size_t *n) {         \
        return name##_fill_to(r, NULL, out, max, n);                                               \
    }                                                                                              \
    static void name##_key_cols(const uint8_t *key, uint64_t *col) {                               \
        key_col(key,                                                                               \
                key_col(key,                                                                       \
                        key_col(key, key_col(key, key_col(key, 0, f0, col), f1, col), f2, col),    \
                        f3, col),                                                                  \
                f4, col);                                                                          \
        key_tail_cols(key, col);                                                                   \
    }                                                                                              \
    static void name##_cols_key(const uint64_t *col, uint8_t *key) {                               \
        col_key(col, f4, key,                                                                      \
                col_key(col, f3, key,                                                              \
                        col_key(col, f2, key, col_key(col, f1, key, col_key(col, f0, key, 0)))));  \
        tail_cols_key(col, key);                                                                   \
    }                                                                                              \
    /* The seek, keeping the entry before the one read (`before`, when                             \
     * given) and where the one found starts (*at). */                                             \
    DECODE_STEP int name##_scan(const uint8_t *base, const uint8_t *in, size_t len,                \
                                const uint8_t *target, uint8_t *key, size_t *used,                 \
                                uint64_t *before, size_t *at) {                                    \
        uint64_t col[RUN_COLS] = {0}, want[RUN_COLS];                                              \
        if (base)                                                                                  \
            name##_key_cols(base, col);                                                            \
        name##_key_cols(target, want);                                                             \
        reader rd = {in, in + len};                                                                \
        while (rd.p < rd.end) {                                                                    \
            *at = (size_t)(rd.p - in);                                                             \
            if (before)                                                                            \
                memcpy(before, col, sizeof col);                                                   \
            unsigned flags = *rd.p++;                                                              \
            if (!name##_entry(&rd, flags, col, false))                                             \
                return -1;                                                                         \
            int c = cmp_col(col, want, f0);                                                        \
            c = c ? c : cmp_col(col, want, f1);                                                    \
            c = c ? c : cmp_col(col, want, f2);                                                    \
            c = c ? c : cmp_col(col, want, f3);                                                    \
            c = c ? c : cmp_col(col, want, f4);                                                    \
            if ((c ? c : cmp_tail(col, want)) >= 0) {                                              \
                name##_cols_key(col, key);                                                         \
                *used = (size_t)(rd.p - in);                                                       \
                return 1;                                                                          \
            }                                                                                      \
        }                                                                                          \
        *at = len;                                                                                 \
        if (before)                                                                                \
            memcpy(before, col, sizeof col);                                                       \
        return 0;                                                                                  \
    }                                                                                              \
    static int name##_seek(const uint8_t *base, const uint8_t *in, size_t len,                     \
                           const uint8_t *target, uint8_t *key, size_t *used) {                    \
        size_t at;                                                                                 \
        return name##_scan(base, in, len, target, key, used, NULL, &at);                           \
    }                                                                                              \
    static int name##_place(const uint8_t *base, const uint8_t *in, size_t len,                    \
                            const uint8_t *target, uint8_t *key, size_t *at, size_t *used,         \
                            uint8_t *prev, bool *has_prev) {                                       \
        uint64_t before[RUN_COLS];                                                                 \
        int rc = name##_scan(base, in, len, target, key, used, before, at);                        \
        *has_prev = rc >= 0 && *at > 0;                                                            \
        if (*has_prev)                                                                             \
            name##_cols_key(before, prev);                                                         \
        return rc;                                                                                 \
    }                                                                                              \
    static void name##_bounds(fact_run *r, const uint8_t *key, size_t len) {                       \
        size_t off = 0;                                                                            \
        r->bounds = 0;                                                                             \
        r->bound_same = 0;                                                                         \
        if (off < len)                                                                             \
            off = field_bound(r, f0, key, off, len);                                               \
        if (off < len)                                                                             \
            off = field_bound(r, f1, key, off, len);                                               \
        if (off < len)                                                                             \
            off = field_bound(r, f2, key, off, len);                                               \
        if (off < len)                                                                             \
            off = field_bound(r, f3, key, off, len);                                               \
        if (off < len)                                                                             \
            off = field_bound(r, f4, key, off, len);                                               \
        if (off < len)                                                                             \
            tail_bounds(r, key, len);                                                              \
    }

RUN_ORDER(eavt, FACT_E, FACT_A, FACT_V, FACT_TXC, FACT_SEQ)
RUN_ORDER(aevt, FACT_A, FACT_E, FACT_V, FACT_TXC, FACT_SEQ)
RUN_ORDER(avet, FACT_A, FACT_V, FACT_E, FACT_TXC, FACT_SEQ)
RUN_ORDER(vaet, FACT_V, FACT_A, FACT_E, FACT_TXC, FACT_SEQ)
RUN_ORDER(txlog, FACT_SEQ, FACT_TXC, FACT_E, FACT_A, FACT_V)

void fact_run_init(fact_run *r, int order, const uint8_t *prefix, size_t len) {
    static int (*const decoders[TREE_TXLOG + 1])(fact_run *,
                                                 fact_ids *) = {[TREE_EAVT] = eavt_next,
                                                                [TREE_AEVT] = aevt_next,
                                                                [TREE_AVET] = avet_next,
                                                                [TREE_VAET] = vaet_next,
                                                                [TREE_TXLOG] = txlog_next};
    static void (*const bounds[TREE_TXLOG + 1])(fact_run *, const uint8_t *,
                                                size_t) = {[TREE_EAVT] = eavt_bounds,
                                                           [TREE_AEVT] = aevt_bounds,
                                                           [TREE_AVET] = avet_bounds,
                                                           [TREE_VAET] = vaet_bounds,
                                                           [TREE_TXLOG] = txlog_bounds};
    static int (*const fills[TREE_TXLOG + 1])(fact_run *, fact_ids *, size_t,
                                              size_t *) = {[TREE_EAVT] = eavt_fill,
                                                           [TREE_AEVT] = aevt_fill,
                                                           [TREE_AVET] = avet_fill,
                                                           [TREE_VAET] = vaet_fill,
                                                           [TREE_TXLOG] = txlog_fill};
    static void (*const key_cols[TREE_TXLOG + 1])(const uint8_t *,
                                                  uint64_t *) = {[TREE_EAVT] = eavt_key_cols,
                                                                 [TREE_AEVT] = aevt_key_cols,
                                                                 [TREE_AVET] = avet_key_cols,
                                                                 [TREE_VAET] = vaet_key_cols,
                                                                 [TREE_TXLOG] = txlog_key_cols};
    r->next = decoders[order];
    static int (*const fill_rows[TREE_TXLOG + 1])(fact_run *, const run_rows *, size_t,
                                                  size_t *) = {[TREE_EAVT] = eavt_fill_rows,
                                                               [TREE_AEVT] = aevt_fill_rows,
                                                               [TREE_AVET] = avet_fill_rows,
                                                               [TREE_VAET] = vaet_fill_rows,
                                                               [TREE_TXLOG] = txlog_fill_rows};
    r->fill = fills[order];
    r->fill_rows = fill_rows[order];
    r->key_cols = key_cols[order];
    fact_run_clear(r);
    bounds[order](r, prefix, len);
}

int fact_run_seek(int order, const uint8_t *base, const uint8_t *in, size_t len,
                  const uint8_t *target, uint8_t *key, size_t *used) {
    static int (*const seeks[TREE_TXLOG + 1])(const uint8_t *, const uint8_t *, size_t,
                                              const uint8_t *, uint8_t *,
                                              size_t *) = {[TREE_EAVT] = eavt_seek,
                                                           [TREE_AEVT] = aevt_seek,
                                                           [TREE_AVET] = avet_seek,
                                                           [TREE_VAET] = vaet_seek,
                                                           [TREE_TXLOG] = txlog_seek};
    return seeks[order](base, in, len, target, key, used);
}

int fact_run_place(int order, const uint8_t *base, const uint8_t *in, size_t len,
                   const uint8_t *target, uint8_t *key, size_t *at, size_t *used, uint8_t *prev,
                   bool *has_prev) {
    static int (*const places[TREE_TXLOG + 1])(const uint8_t *, const uint8_t *, size_t,
                                               const uint8_t *, uint8_t *, size_t *, size_t *,
                                               uint8_t *, bool *) = {[TREE_EAVT] = eavt_place,
                                                                     [TREE_AEVT] = aevt_place,
                                                                     [TREE_AVET] = avet_place,
                                                                     [TREE_VAET] = vaet_place,
                                                                     [TREE_TXLOG] = txlog_place};
    return places[order](base, in, len, target, key, at, used, prev, has_prev);
}

/* Reads bytes[0..len) next; the caller sets the base's columns. */
static void run_bytes(fact_run *r, const uint8_t *bytes, size_t len) {
    r->pass = r->bounds ? RUN_NO_FLAG : 0; /* the base need not be inside the bound */
    r->p = bytes;
    r->end = len ? bytes + len : bytes; /* bytes may be NULL when len is 0 */
    r->room = r->end;
}

void fact_run_room(fact_run *r, const uint8_t *room) {
    if (room && r->end && room > r->end)
        r->room = room;
}

void fact_run_start_key(fact_run *r, const uint8_t *base, const uint8_t *bytes, size_t len) {
    if (!base) {
        fact_run_start(r, NULL, bytes, len);
        return;
    }
    run_bytes(r, bytes, len);
    r->key_cols(base, r->col);
}

void fact_run_start(fact_run *r, const fact_ids *base, const uint8_t *bytes, size_t len) {
    run_bytes(r, bytes, len);
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
