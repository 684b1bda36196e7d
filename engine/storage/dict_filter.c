#include "storage/dict_filter.h"

#include <stdlib.h>

/* The two probes: the hash's low bits, and the high half of its product
 * with a large odd constant (every bit of the hash moves it), each cut to
 * the bitmap's size. The DICT hash is already mixed (dict.c, entry_hash). */
static uint64_t probe_a(const dict_filter *f, uint32_t hash) {
    return hash & f->mask;
}

static uint64_t probe_b(const dict_filter *f, uint32_t hash) {
    return ((uint64_t)hash * UINT64_C(0x9e3779b97f4a7c15)) >> 32 & f->mask;
}

static void set_bit(uint64_t *words, uint64_t bit) {
    words[bit >> 6] |= UINT64_C(1) << (bit & 63);
}

static bool get_bit(const uint64_t *words, uint64_t bit) {
    return words[bit >> 6] >> (bit & 63) & 1;
}

void dict_filter_free(dict_filter *f) {
    free(f->words);
    *f = (dict_filter){0};
}

bool dict_filter_reset(dict_filter *f, size_t expected) {
    uint64_t bits = DICT_FILTER_MIN_BITS;
    while (bits < DICT_FILTER_MAX_BITS && bits < (uint64_t)expected * DICT_FILTER_BITS_PER_ENTRY)
        bits <<= 1;
    dict_filter_free(f);
    f->words = calloc((size_t)(bits / 64), sizeof *f->words);
    if (!f->words)
        return false;
    f->mask = bits - 1;
    return true;
}

bool dict_filter_add(dict_filter *f, uint32_t hash) {
    set_bit(f->words, probe_a(f, hash));
    set_bit(f->words, probe_b(f, hash));
    f->count++;
    uint64_t bits = f->mask + 1;
    return bits < DICT_FILTER_MAX_BITS && (uint64_t)f->count * DICT_FILTER_BITS_PER_ENTRY > bits;
}

bool dict_filter_may_hold(const dict_filter *f, uint32_t hash) {
    return get_bit(f->words, probe_a(f, hash)) && get_bit(f->words, probe_b(f, hash));
}
