/* LEB128 varints and zigzag signed deltas, the building blocks of the
 * compressed B+tree leaf entries (storage/btree.h codecs). */
#ifndef MG_STORAGE_VARINT_H
#define MG_STORAGE_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10

static inline size_t varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Reads a varint of at most `avail` bytes: its length, or 0 when it does
 * not end in time (or is longer than a u64 needs). */
static inline size_t varint_get(const uint8_t *p, size_t avail, uint64_t *v) {
    if (avail > 0 && p[0] < 0x80) {
        *v = p[0];
        return 1;
    }
    uint64_t x = 0;
    if (avail >= VARINT_MAX) { /* the usual case inside a page: no bound to check */
        x = p[0] & 0x7f;       /* unrolled: no variable shifts (dictionary hashes take 5 bytes) */
#pragma GCC unroll 10
        for (size_t n = 1; n < VARINT_MAX; n++) {
            x |= (uint64_t)(p[n] & 0x7f) << (7 * n);
            if (!(p[n] & 0x80)) {
                *v = x;
                return n + 1;
            }
        }
        return 0;
    }
    for (size_t n = 0; n < avail; n++) {
        x |= (uint64_t)(p[n] & 0x7f) << (7 * n);
        if (!(p[n] & 0x80)) {
            *v = x;
            return n + 1;
        }
    }
    return 0;
}

/* The difference cur - prev (mod 2^64) as a signed number, zigzag-coded so
 * that small differences of either sign are small varints. */
static inline uint64_t zigzag_delta(uint64_t cur, uint64_t prev) {
    uint64_t d = cur - prev;
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t zigzag_apply(uint64_t prev, uint64_t z) {
    return prev + ((z >> 1) ^ (0 - (z & 1)));
}

#endif
