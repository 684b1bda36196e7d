#include "storage/torn_create.h"

#include <string.h>

#include "storage/format.h"

#define SECTOR 512u

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* The sector starting at `at`, `n` bytes of it in the file. */
static bool sector_matches(const uint8_t *have, const uint8_t *fresh, uint64_t at, size_t n) {
    if (all_zero(have + at, n) || memcmp(have + at, fresh + at, n) == 0)
        return true;
    uint64_t page_end = (at / FORMAT_PAGE_SIZE + 1) * FORMAT_PAGE_SIZE;
    size_t words = FORMAT_PAGE_SIZE - FORMAT_PAGE_PAYLOAD;
    bool last_of_page = at + SECTOR == page_end && n == SECTOR;
    return last_of_page && all_zero(have + at, n - words);
}

bool torn_create_matches(const uint8_t *have, uint64_t size, const uint8_t *fresh) {
    if (size > 2 * FORMAT_PAGE_SIZE)
        return false;
    for (uint64_t at = 0; at < size; at += SECTOR) {
        size_t n = size - at < SECTOR ? (size_t)(size - at) : SECTOR;
        if (!sector_matches(have, fresh, at, n))
            return false;
    }
    return true;
}

static bool has_header(const uint8_t *have, uint64_t size, uint64_t page) {
    uint64_t at = page * FORMAT_PAGE_SIZE;
    return size >= at + FORMAT_DB_ID_OFFSET + FORMAT_DB_ID_SIZE &&
           memcmp(have + at, FORMAT_MAGIC, strlen(FORMAT_MAGIC)) == 0;
}

const uint8_t *torn_create_id(const uint8_t *have, uint64_t size) {
    for (uint64_t page = 0; page < 2; page++)
        if (has_header(have, size, page))
            return have + page * FORMAT_PAGE_SIZE + FORMAT_DB_ID_OFFSET;
    return NULL;
}
