#include "store/fact_key.h"

#include <string.h>

enum { F_E, F_A, F_V, F_TXC, F_SEQ, F_COUNT };

static const int field_order[TREE_TXLOG + 1][F_COUNT] = {
    [TREE_EAVT] = {F_E, F_A, F_V, F_TXC, F_SEQ},
    [TREE_AEVT] = {F_A, F_E, F_V, F_TXC, F_SEQ},
    [TREE_AVET] = {F_A, F_V, F_E, F_TXC, F_SEQ},
    [TREE_VAET] = {F_V, F_A, F_E, F_TXC, F_SEQ},
    [TREE_TXLOG] = {F_SEQ, F_TXC, F_E, F_A, F_V},
};

static size_t put_field(int field, const fact_ids *f, uint8_t *p) {
    switch (field) {
    case F_E: format_put_be(p, f->e, 6); return 6;
    case F_A: format_put_be(p, f->a, 6); return 6;
    case F_V: memcpy(p, f->v, FACT_V_SIZE); return FACT_V_SIZE;
    case F_TXC: format_put_be(p, f->tx_count, 8); return 8;
    default: format_put_be(p, f->seq, 8); return 8;
    }
}

static size_t get_field(int field, const uint8_t *p, fact_ids *f) {
    switch (field) {
    case F_E: f->e = format_get_be(p, 6); return 6;
    case F_A: f->a = format_get_be(p, 6); return 6;
    case F_V: memcpy(f->v, p, FACT_V_SIZE); return FACT_V_SIZE;
    case F_TXC: f->tx_count = format_get_be(p, 8); return 8;
    default: f->seq = format_get_be(p, 8); return 8;
    }
}

size_t fact_key_prefix(int order, const fact_ids *f, int fields, uint8_t *key) {
    size_t n = 0;
    for (int i = 0; i < fields && i < F_COUNT; i++)
        n += put_field(field_order[order][i], f, key + n);
    return n;
}

void fact_key_encode(int order, const fact_ids *f, uint8_t *key) {
    size_t n = fact_key_prefix(order, f, F_COUNT, key);
    format_put_be(key + n, format_sortable_i64(f->tx_id), 8);
    format_put_be(key + n + 8, format_sortable_i64(f->valid_from), 8);
    format_put_be(key + n + 16, format_sortable_i64(f->valid_to), 8);
    key[n + 24] = f->asserted ? 1 : 0;
}

void fact_key_decode(int order, const uint8_t *key, fact_ids *f) {
    size_t n = 0;
    for (int i = 0; i < F_COUNT; i++)
        n += get_field(field_order[order][i], key + n, f);
    f->tx_id = format_from_sortable(format_get_be(key + n, 8));
    f->valid_from = format_from_sortable(format_get_be(key + n + 8, 8));
    f->valid_to = format_from_sortable(format_get_be(key + n + 16, 8));
    f->asserted = key[n + 24] != 0;
}
