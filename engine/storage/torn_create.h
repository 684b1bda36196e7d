/* Recognising a new database file whose creation a crash cut short.
 *
 * Creating a file writes its two header pages and syncs them before
 * anything else happens to it (pager.c), so until that sync returns the
 * file holds no data. A power loss in between may leave any part of those
 * writes: a prefix, a file of the right size with some sectors still zero
 * (a disk that reorders or tears unsynced writes, a file system that
 * extends the size before the data lands), or only zeros. */
#ifndef MG_STORAGE_TORN_CREATE_H
#define MG_STORAGE_TORN_CREATE_H

#include <stdbool.h>
#include <stdint.h>

/* True when `have` (the whole file, `size` <= two pages) holds nothing
 * but pieces of `fresh` (the two pages a new file starts with): each
 * 512-byte sector is all zero, equal to fresh's at the same place, or
 * zero but for its page's checksum word (whose header sector was lost). */
bool torn_create_matches(const uint8_t *have, uint64_t size, const uint8_t *fresh);

/* Where a torn creation's database identifier is: the header sector of
 * page 0 or, when that one is lost, page 1 (both carry the same); NULL
 * when neither survived. */
const uint8_t *torn_create_id(const uint8_t *have, uint64_t size);

#endif
