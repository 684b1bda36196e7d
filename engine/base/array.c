/* Growable arrays. See array.h. */
#include "base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool array_capacity(size_t cap, size_t need, size_t size, size_t first, size_t *out) {
    size_t n = cap ? cap : first;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return false;
        n *= 2;
    }
    *out = n;
    return n <= SIZE_MAX / size;
}

bool array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first) {
    size_t n;
    if (!array_capacity(*cap, need, size, first, &n))
        return false;
    void *old; /* the caller's pointer, whatever its type */
    memcpy(&old, items, sizeof old);
    void *grown = realloc(old, n * size);
    if (!grown)
        return false;
    memcpy(items, &grown, sizeof grown);
    *cap = n;
    return true;
}

bool array_reserve2(void *a, size_t a_size, void *b, size_t b_size, size_t *cap, size_t need,
                    size_t first) {
    if (need <= *cap)
        return true;
    /* Both double from the same start to the same size. */
    size_t a_cap = *cap, b_cap = *cap;
    if (!array_grow(a, &a_cap, need, a_size, first) || !array_grow(b, &b_cap, need, b_size, first))
        return false;
    *cap = a_cap;
    return true;
}
