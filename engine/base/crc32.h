/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of the
 * store file's header and transaction records. */
#ifndef MG_BASE_CRC32_H
#define MG_BASE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues a running CRC: start with crc32_update(0, ...). */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
