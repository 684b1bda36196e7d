/* Growable arrays: a pointer to the items and a capacity beside it. */
#ifndef MG_BASE_ARRAY_H
#define MG_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Room for `need` items of `size` bytes in the array `*items` (any object
 * pointer, passed as its address) of capacity `*cap`, which doubles from
 * `first`. False when out of memory or the size would overflow; the array
 * is unchanged then. */
/* The capacity for `need` items of `size` bytes: `cap` (`first` when 0)
 * doubled until it holds them. False when that many bytes would overflow.
 * Every growth of a doubling array takes its capacity from here. */
bool array_capacity(size_t cap, size_t need, size_t size, size_t first, size_t *out);
/* array_reserve when the array is full (out of line). */
bool array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first);
static inline bool array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first) {
    return need <= *cap || array_grow(items, cap, need, size, first);
}

/* array_reserve for two parallel arrays `*a` and `*b` (items of `a_size`
 * and `b_size` bytes) that share the capacity `*cap`. On failure either
 * may have grown, but both still hold at least `*cap` items, which is
 * unchanged. */
bool array_reserve2(void *a, size_t a_size, void *b, size_t b_size, size_t *cap, size_t need,
                    size_t first);

#endif
