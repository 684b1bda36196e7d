#include "storage/btree.h"

#include <string.h>

static size_t prefix_encode(const btree_codec *c, const uint8_t *prev, const uint8_t *key,
                            uint8_t *out) {
    size_t shared = 0, ks = c->key_size;
    while (prev && shared < ks && shared < 255 && prev[shared] == key[shared])
        shared++;
    out[0] = (uint8_t)shared;
    memcpy(out + 1, key + shared, ks - shared);
    return 1 + ks - shared;
}

static size_t prefix_decode(const btree_codec *c, const uint8_t *prev, const uint8_t *in,
                            size_t avail, uint8_t *key) {
    size_t ks = c->key_size;
    if (avail < 1 || in[0] > ks || (in[0] > 0 && !prev) || avail < 1 + ks - in[0])
        return 0;
    size_t shared = in[0];
    if (shared)
        memcpy(key, prev, shared);
    memcpy(key + shared, in + 1, ks - shared);
    return 1 + ks - shared;
}

btree_codec btree_prefix_codec(size_t key_size) {
    return (btree_codec){key_size, 64, prefix_encode, prefix_decode, 0, NULL};
}
