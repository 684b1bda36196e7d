#include "store/fact_summary.h"

#include <string.h>

#include "model/value.h"
#include "storage/format.h"

enum { S_GROUPS = 0, S_SHOWN = 2, S_FLAGS = 4, S_TXC = 8, S_TXID = 16, S_FROM = 24, S_TO = 32 };

/* E, A and V, in whatever order, are a key's first 21 bytes. */
#define GROUP_BYTES (6 + 6 + FACT_V_SIZE)
#define FOREVER UINT64_MAX /* INT64_MAX's sortable form */

static bool same_group(const uint8_t *x, const uint8_t *y) {
    return x && y && memcmp(x, y, GROUP_BYTES) == 0;
}

static bool shown(const uint8_t *key) {
    return key[FACT_KEY_ASSERTED] && format_get_be(key + FACT_KEY_VALID_TO, 8) == FOREVER;
}

static void raise_max(uint8_t *sum, size_t at, uint64_t v) {
    if (v > format_get_le(sum + at, 8))
        format_put_le(sum + at, v, 8);
}

static void add_count(uint8_t *sum, size_t at, long d) {
    format_put_le(sum + at, (uint64_t)((long)format_get_le(sum + at, 2) + d), 2);
}

/* What does not depend on the neighbours, added to `flags`: the largest
 * times, Null and the fields that differ from the leaf's first key (a
 * field already known to vary is not compared again: a leaf build adds
 * every key, and in most leaves one field varies from the second key on). */
static unsigned add_record(const fact_sum_layout *l, uint8_t *sum, unsigned flags,
                           const uint8_t *anchor, const uint8_t *key) {
    flags |= key[l->v] == VT_NULL ? FSUM_NULL : FSUM_NOT_NULL;
    if (!(flags & FSUM_E_VARIES) && memcmp(key + l->e, anchor + l->e, 6) != 0)
        flags |= FSUM_E_VARIES;
    if (!(flags & FSUM_A_VARIES) && memcmp(key + l->a, anchor + l->a, 6) != 0)
        flags |= FSUM_A_VARIES;
    if (!(flags & FSUM_V_VARIES) && memcmp(key + l->v, anchor + l->v, FACT_V_SIZE) != 0)
        flags |= FSUM_V_VARIES;
    raise_max(sum, S_TXC, format_get_be(key + GROUP_BYTES, 8));
    raise_max(sum, S_TXID, format_get_be(key + FACT_KEY_TXID, 8));
    raise_max(sum, S_FROM, format_get_be(key + FACT_KEY_VALID_FROM, 8));
    uint64_t to = format_get_be(key + FACT_KEY_VALID_TO, 8);
    if (to != FOREVER)
        raise_max(sum, S_TO, to);
    return flags;
}

/* A key between prev and next changes the groups only when it ends one
 * (its leaf-last then changes from prev to it) or starts one alone. */
void fact_summary_add(const fact_sum_layout *l, uint8_t *sum, const uint8_t *anchor,
                      const uint8_t *prev, const uint8_t *key, const uint8_t *next) {
    unsigned flags = add_record(l, sum, sum[S_FLAGS], anchor, key);
    bool with_prev = same_group(prev, key), with_next = same_group(key, next);
    if (with_prev && !with_next) {
        add_count(sum, S_SHOWN, (long)shown(key) - (long)shown(prev));
        if (same_group(prev, anchor))
            flags = shown(key) ? flags | FSUM_FIRST_SHOWN : flags & ~(unsigned)FSUM_FIRST_SHOWN;
    } else if (!with_prev && !with_next) {
        add_count(sum, S_GROUPS, 1);
        add_count(sum, S_SHOWN, shown(key));
        if (!prev && shown(key)) /* the leaf's first key */
            flags |= FSUM_FIRST_SHOWN;
    }
    sum[S_FLAGS] = (uint8_t)flags;
}

void fact_summary_read(const uint8_t *sum, fact_summary *out) {
    out->groups = (unsigned)format_get_le(sum + S_GROUPS, 2);
    out->shown = (unsigned)format_get_le(sum + S_SHOWN, 2);
    out->flags = sum[S_FLAGS];
    out->max_txc = format_get_le(sum + S_TXC, 8);
    out->max_txid = format_get_le(sum + S_TXID, 8);
    out->max_from = format_get_le(sum + S_FROM, 8);
    out->max_bounded_to = format_get_le(sum + S_TO, 8);
}

static uint64_t sortable(int64_t v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u ^ (UINT64_C(1) << 63);
}

bool fact_summary_admits(const fact_summary *s, const fact_view *v) {
    uint64_t point = sortable(v->valid_point);
    return s->groups > 0 && s->max_txc <= v->max_txc &&
           (!v->by_time || s->max_txid <= sortable(v->max_txid)) && s->max_from <= point &&
           s->max_bounded_to <= point;
}

enum { C_FLAGS = 4, C_ENDS = 5, C_TXC = 6, C_TXID = 10, C_POINT = 16 };
#define TOP48_ALL ((UINT64_C(1) << 48) - 1)

/* The top 48 bits of v, rounded up; all ones when that does not fit. */
static uint64_t top48_up(uint64_t v) {
    uint64_t t = (v >> 16) + ((v & 0xffff) != 0);
    return t < TOP48_ALL ? t : TOP48_ALL;
}

static uint64_t top48_read(const uint8_t *in) {
    uint64_t t = format_get_le(in, 6);
    return t == TOP48_ALL ? UINT64_MAX : t << 16;
}

unsigned fact_child_ends(const uint8_t *last, const uint8_t *next) {
    return (shown(last) ? FCHILD_LAST_SHOWN : 0u) |
           (same_group(last, next) ? FCHILD_CONTINUES : 0u);
}

void fact_child_sum(uint8_t *out, const uint8_t *leaf_sum, const uint8_t *last,
                    const uint8_t *next) {
    uint8_t ends = last ? (uint8_t)fact_child_ends(last, next) : out[C_ENDS];
    memset(out, 0, FACT_CHILD_SUM_BYTES);
    if (!leaf_sum)
        return;
    memcpy(out, leaf_sum, C_FLAGS + 1); /* groups, shown, flags */
    out[C_ENDS] = ends;
    uint64_t txc = format_get_le(leaf_sum + S_TXC, 8);
    uint64_t from = format_get_le(leaf_sum + S_FROM, 8), to = format_get_le(leaf_sum + S_TO, 8);
    format_put_le(out + C_TXC, txc < UINT32_MAX ? txc : UINT32_MAX, 4);
    format_put_le(out + C_TXID, top48_up(format_get_le(leaf_sum + S_TXID, 8)), 6);
    format_put_le(out + C_POINT, top48_up(from > to ? from : to), 6);
}

void fact_child_read(const uint8_t *in, fact_summary *out, unsigned *ends) {
    out->groups = (unsigned)format_get_le(in + S_GROUPS, 2);
    out->shown = (unsigned)format_get_le(in + S_SHOWN, 2);
    out->flags = in[C_FLAGS];
    *ends = in[C_ENDS];
    uint64_t txc = format_get_le(in + C_TXC, 4);
    out->max_txc = txc == UINT32_MAX ? UINT64_MAX : txc;
    out->max_txid = top48_read(in + C_TXID);
    /* admits compares both with the same valid-time point */
    out->max_from = out->max_bounded_to = top48_read(in + C_POINT);
}
