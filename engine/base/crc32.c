#include "base/crc32.h"

#include <pthread.h>

/* Slicing-by-8: eight 256-entry tables, built once from the polynomial, fold
 * eight bytes per step. Every page is checksummed when a checkpoint writes
 * it and when it is read from disk, and a bytewise loop made that most of a
 * small checkpoint's CPU time. tests/engine/test_model.c checks it against
 * the bitwise definition at every alignment and lengths up to a page. */
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 8; s++)
            table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xffu];
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len) {
    pthread_once(&table_once, build_tables);
    const uint8_t *p = data;
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = crc ^ le32(p), hi = le32(p + 4);
        crc = table[7][lo & 0xffu] ^ table[6][(lo >> 8) & 0xffu] ^ table[5][(lo >> 16) & 0xffu] ^
              table[4][lo >> 24] ^ table[3][hi & 0xffu] ^ table[2][(hi >> 8) & 0xffu] ^
              table[1][(hi >> 16) & 0xffu] ^ table[0][hi >> 24];
    }
    for (; len > 0; p++, len--)
        crc = (crc >> 8) ^ table[0][(crc ^ *p) & 0xffu];
    return ~crc;
}
