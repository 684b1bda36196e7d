/* Growable arrays. See array.h. */
#include "base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool array_grow(void *items, size_t *cap, size_t need, size_t size, size_t first) {
    size_t n = *cap ? *cap : first;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return false;
        n *= 2;
    }
    if (n > SIZE_MAX / size)
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
