#include "base/crc32.h"

#include <pthread.h>

/* Slicing-by-8 (Kounavis & Berry): eight 256-entry tables built once from
 * the polynomial, eight bytes per step. Every page read from the store file
 * is checked, so this sits on the path of every cache miss. */
static uint32_t crc32_table[8][256];
static pthread_once_t crc32_once = PTHREAD_ONCE_INIT;

static void crc32_build(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        crc32_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc32_table[t][i] = (crc32_table[t - 1][i] >> 8) ^
                                crc32_table[0][crc32_table[t - 1][i] & 0xffu];
}

static uint32_t crc32_byte(uint32_t crc, uint8_t b) {
    return (crc >> 8) ^ crc32_table[0][(crc ^ b) & 0xffu];
}

/* Eight bytes, assembled little-endian whatever the host order. */
static uint32_t crc32_word(uint32_t crc, const uint8_t *p) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                  (uint32_t)p[7] << 24;
    return crc32_table[7][lo & 0xffu] ^ crc32_table[6][(lo >> 8) & 0xffu] ^
           crc32_table[5][(lo >> 16) & 0xffu] ^ crc32_table[4][lo >> 24] ^
           crc32_table[3][hi & 0xffu] ^ crc32_table[2][(hi >> 8) & 0xffu] ^
           crc32_table[1][(hi >> 16) & 0xffu] ^ crc32_table[0][hi >> 24];
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len) {
    pthread_once(&crc32_once, crc32_build);
    const uint8_t *p = data;
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8)
        crc = crc32_word(crc, p);
    while (len--)
        crc = crc32_byte(crc, *p++);
    return ~crc;
}
