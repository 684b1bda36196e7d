#include "base/crc32.h"

#include <pthread.h>

/* Slicing-by-8: eight 256-entry tables (table k advances a byte through
 * k further zero bytes) fold eight input bytes per step. Checkpoints seal
 * every page they write and the WAL checksums every commit, so the
 * checksum is on the write path of every transaction; the byte-at-a-time
 * definition (tests/engine/test_model.c checks against it) is several times
 * slower. The tables are computed once, on first use. */
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xedb88320u : c >> 1;
        table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t i = 0; i < 256; i++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xffu];
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len) {
    pthread_once(&table_once, table_init);
    const uint8_t *p = data;
    crc = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        uint32_t lo = le32(p) ^ crc, hi = le32(p + 4);
        crc = table[7][lo & 0xffu] ^ table[6][(lo >> 8) & 0xffu] ^ table[5][(lo >> 16) & 0xffu] ^
              table[4][lo >> 24] ^ table[3][hi & 0xffu] ^ table[2][(hi >> 8) & 0xffu] ^
              table[1][(hi >> 16) & 0xffu] ^ table[0][hi >> 24];
    }
    for (; len > 0; len--, p++)
        crc = (crc >> 8) ^ table[0][(crc ^ *p) & 0xffu];
    return ~crc;
}
