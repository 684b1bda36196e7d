/* Growable arrays: a pointer to the items and a capacity beside it. */
#ifndef MG_BASE_ARRAY_H
#define MG_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Room for `need` items of `size` bytes in the array `*items` (any object
 * pointer, passed as its address) of capacity `*cap`, which doubles from
 * `first`. False when out of memory or the size would overflow; the array
 * is unchanged then. */
/* array_reserve when the array is full (out of line). */
bool array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first);
static inline bool array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first) {
    return need <= *cap || array_grow(items, cap, need, size, first);
}

#endif
