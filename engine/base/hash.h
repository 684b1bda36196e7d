/* The engine's hash functions: every hash table and memo keys on these.
 *
 *   hash_bytes(p, n)          FNV-1a 64 over bytes: short names and texts
 *   hash_bytes_from(h, p, n)  the same, continuing from h (a seed, or the
 *                             hash of what came before)
 *   hash_words(h, p, n)       eight bytes a step, then hash_mix: longer
 *                             keys hashed on every call (query texts,
 *                             lookup keys)
 *   hash_mix(x)               MurmurHash3's 64-bit finalizer: integers,
 *                             pointers, page numbers, and the last step of
 *                             a hash whose low bits index a table
 *   hash_combine(h, x)        one FNV-1a step over a word: folds the hash
 *                             of a tuple's next part into the tuple's
 *
 * None of these values is stored anywhere: a process may change them
 * freely. The one hash written into the file, the dictionary's
 * (storage/dict.c), keeps its own finaliser for that reason. */
#ifndef MG_BASE_HASH_H
#define MG_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_FNV_BASIS UINT64_C(14695981039346656037) /* 0xcbf29ce484222325 */
#define HASH_FNV_PRIME UINT64_C(1099511628211)        /* 0x100000001b3 */

static inline uint64_t hash_bytes_from(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * HASH_FNV_PRIME;
    return h;
}

static inline uint64_t hash_bytes(const void *data, size_t len) {
    return hash_bytes_from(HASH_FNV_BASIS, data, len);
}

static inline uint64_t hash_mix(uint64_t x) {
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

static inline uint64_t hash_combine(uint64_t h, uint64_t word) {
    return (h ^ word) * HASH_FNV_PRIME;
}

static inline uint64_t hash_words(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    h ^= (uint64_t)len * UINT64_C(0x9e3779b97f4a7c15); /* "a" and "a\0" differ */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 29;
    }
    uint64_t w = 0;
    if (len > i)
        memcpy(&w, p + i, len - i);
    return hash_mix(h ^ w);
}

#endif
