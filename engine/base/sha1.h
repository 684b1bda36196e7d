#ifndef MG_BASE_SHA1_H
#define MG_BASE_SHA1_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha1_ctx {
    uint32_t state[5];
    uint64_t length;
    uint8_t block[64];
    size_t used;
} sha1_ctx;

void sha1_init(sha1_ctx *c);
void sha1_update(sha1_ctx *c, const void *data, size_t len);
void sha1_final(sha1_ctx *c, uint8_t digest[20]);
/* The portable compression function, whatever the processor offers
 * (tests compare the accelerated one with it). */
void sha1_block_reference(uint32_t state[5], const uint8_t block[64]);

#endif
