/* The writer's filter of the hashes the DICT tree holds: a bitmap probed
 * at two places per hash (a Bloom filter), so that interning a new text
 * or UUID usually skips the tree search that would find nothing. It
 * never forgets a hash (no false "absent"); a false "maybe" only costs
 * the search. Sized to DICT_FILTER_BITS_PER_ENTRY bits per hash held,
 * up to DICT_FILTER_MAX_BITS (so at most 8 MiB; past that the share of
 * false "maybe" grows). Writer only; the dictionary fills and rebuilds
 * it (dict.c), this file only holds the bits. */
#ifndef MG_STORAGE_DICT_FILTER_H
#define MG_STORAGE_DICT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_FILTER_BITS_PER_ENTRY 16
#define DICT_FILTER_MIN_BITS (UINT64_C(1) << 16)
#define DICT_FILTER_MAX_BITS (UINT64_C(1) << 26)

typedef struct dict_filter {
    uint64_t *words; /* NULL: not built (every hash may be present) */
    uint64_t mask;   /* bits - 1 */
    size_t count;    /* hashes added since the last reset */
} dict_filter;

void dict_filter_free(dict_filter *f);
/* Empties the filter and sizes it for `expected` hashes: false when the
 * bits cannot be allocated (the filter is then not built). */
bool dict_filter_reset(dict_filter *f, size_t expected);
static inline bool dict_filter_built(const dict_filter *f) {
    return f->words != NULL;
}
/* Adds a hash; true when the filter now holds more than its size was
 * meant for (the caller rebuilds it larger), never once at the cap. */
bool dict_filter_add(dict_filter *f, uint32_t hash);
/* False only when `hash` was never added since the last reset. */
bool dict_filter_may_hold(const dict_filter *f, uint32_t hash);

#endif
