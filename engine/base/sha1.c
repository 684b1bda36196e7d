/* SHA-1 (FIPS 180-4). Used only for name-based UUIDs (language.md §6.1), where its
 * cryptographic weakness does not matter. */
#include "base/sha1.h"

#include <string.h>

#include "base/sha1_x86.h"

static uint32_t rol32(uint32_t x, unsigned n) {
    return (x << n) | (x >> (32u - n));
}

static uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t round_f(unsigned t, uint32_t b, uint32_t c, uint32_t d) {
    if (t < 20)
        return (b & c) | (~b & d);
    if (t < 40 || t >= 60)
        return b ^ c ^ d;
    return (b & c) | (b & d) | (c & d);
}

static const uint32_t round_k[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};

static void sha1_block_portable(uint32_t state[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (unsigned t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (unsigned t = 16; t < 80; t++)
        w[t] = rol32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);

    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (unsigned t = 0; t < 80; t++) {
        uint32_t tmp = rol32(a, 5) + round_f(t, b, c, d) + e + w[t] + round_k[t / 20];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = tmp;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}

static void sha1_block(uint32_t state[5], const uint8_t block[64]) {
    if (sha1_x86_available())
        sha1_x86_block(state, block);
    else
        sha1_block_portable(state, block);
}

void sha1_block_reference(uint32_t state[5], const uint8_t block[64]) {
    sha1_block_portable(state, block);
}

void sha1_init(sha1_ctx *c) {
    c->state[0] = 0x67452301u;
    c->state[1] = 0xefcdab89u;
    c->state[2] = 0x98badcfeu;
    c->state[3] = 0x10325476u;
    c->state[4] = 0xc3d2e1f0u;
    c->length = 0;
    c->used = 0;
}

void sha1_update(sha1_ctx *c, const void *data, size_t len) {
    const uint8_t *p = data;
    c->length += (uint64_t)len;
    while (len > 0) {
        size_t take = 64 - c->used;
        if (take > len)
            take = len;
        memcpy(c->block + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used == 64) {
            sha1_block(c->state, c->block);
            c->used = 0;
        }
    }
}

void sha1_final(sha1_ctx *c, uint8_t digest[20]) {
    uint64_t bits = c->length * 8u;
    c->block[c->used++] = 0x80;
    if (c->used > 56) {
        memset(c->block + c->used, 0, 64 - c->used);
        sha1_block(c->state, c->block);
        c->used = 0;
    }
    memset(c->block + c->used, 0, 56 - c->used);
    store_be32(c->block + 56, (uint32_t)(bits >> 32));
    store_be32(c->block + 60, (uint32_t)bits);
    sha1_block(c->state, c->block);
    for (unsigned i = 0; i < 5; i++)
        store_be32(digest + 4 * i, c->state[i]);
    memset(c, 0, sizeof *c);
}
