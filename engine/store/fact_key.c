#include "store/fact_key.h"

#include <string.h>

static const int field_order[TREE_TXLOG + 1][FACT_LEADING] = {
    [TREE_EAVT] = {FACT_E, FACT_A, FACT_V, FACT_TXC, FACT_SEQ},
    [TREE_AEVT] = {FACT_A, FACT_E, FACT_V, FACT_TXC, FACT_SEQ},
    [TREE_AVET] = {FACT_A, FACT_V, FACT_E, FACT_TXC, FACT_SEQ},
    [TREE_VAET] = {FACT_V, FACT_A, FACT_E, FACT_TXC, FACT_SEQ},
    [TREE_TXLOG] = {FACT_SEQ, FACT_TXC, FACT_E, FACT_A, FACT_V},
};

int fact_key_field(int order, int i) {
    return field_order[order][i];
}

size_t fact_key_field_size(int field) {
    return field == FACT_E || field == FACT_A ? 6 : field == FACT_V ? FACT_V_SIZE : 8;
}

size_t fact_key_field_at(int order, int field) {
    size_t at = 0;
    for (int i = 0; i < FACT_LEADING && field_order[order][i] != field; i++)
        at += fact_key_field_size(field_order[order][i]);
    return at;
}

static size_t put_field(int field, const fact_ids *f, uint8_t *p) {
    switch (field) {
    case FACT_E: format_put_be(p, f->e, 6); return 6;
    case FACT_A: format_put_be(p, f->a, 6); return 6;
    case FACT_V: memcpy(p, f->v, FACT_V_SIZE); return FACT_V_SIZE;
    case FACT_TXC: format_put_be(p, f->tx_count, 8); return 8;
    default: format_put_be(p, f->seq, 8); return 8;
    }
}

/* Inline, so that with a constant field each read is a load and a byte
 * swap: scans and seeks decode a key per record they hand out. */
static inline __attribute__((always_inline)) size_t get_field(int field, const uint8_t *p,
                                                              fact_ids *f) {
    switch (field) {
    case FACT_E: f->e = format_get_be(p, 6); return 6;
    case FACT_A: f->a = format_get_be(p, 6); return 6;
    case FACT_V: memcpy(f->v, p, FACT_V_SIZE); return FACT_V_SIZE;
    case FACT_TXC: f->tx_count = format_get_be(p, 8); return 8;
    default: f->seq = format_get_be(p, 8); return 8;
    }
}

static inline __attribute__((always_inline)) void get_fields(const uint8_t *key, fact_ids *f,
                                                             int f0, int f1, int f2, int f3,
                                                             int f4) {
    size_t n = get_field(f0, key, f);
    n += get_field(f1, key + n, f);
    n += get_field(f2, key + n, f);
    n += get_field(f3, key + n, f);
    get_field(f4, key + n, f);
}

size_t fact_key_prefix(int order, const fact_ids *f, int fields, uint8_t *key) {
    size_t n = 0;
    for (int i = 0; i < fields && i < FACT_LEADING; i++)
        n += put_field(field_order[order][i], f, key + n);
    return n;
}

void fact_key_encode(int order, const fact_ids *f, uint8_t *key) {
    size_t n = fact_key_prefix(order, f, FACT_LEADING, key);
    format_put_be(key + n, format_sortable_i64(f->tx_id), 8);
    format_put_be(key + n + 8, format_sortable_i64(f->valid_from), 8);
    format_put_be(key + n + 16, format_sortable_i64(f->valid_to), 8);
    key[n + 24] = f->asserted ? 1 : 0;
}

void fact_key_decode(int order, const uint8_t *key, fact_ids *f) {
    switch (order) { /* field_order, spelled out */
    case TREE_EAVT: get_fields(key, f, FACT_E, FACT_A, FACT_V, FACT_TXC, FACT_SEQ); break;
    case TREE_AEVT: get_fields(key, f, FACT_A, FACT_E, FACT_V, FACT_TXC, FACT_SEQ); break;
    case TREE_AVET: get_fields(key, f, FACT_A, FACT_V, FACT_E, FACT_TXC, FACT_SEQ); break;
    case TREE_VAET: get_fields(key, f, FACT_V, FACT_A, FACT_E, FACT_TXC, FACT_SEQ); break;
    default: get_fields(key, f, FACT_SEQ, FACT_TXC, FACT_E, FACT_A, FACT_V); break;
    }
    f->tx_id = format_from_sortable(format_get_be(key + FACT_KEY_TXID, 8));
    f->valid_from = format_from_sortable(format_get_be(key + FACT_KEY_VALID_FROM, 8));
    f->valid_to = format_from_sortable(format_get_be(key + FACT_KEY_VALID_TO, 8));
    f->asserted = key[FACT_KEY_ASSERTED] != 0;
}
