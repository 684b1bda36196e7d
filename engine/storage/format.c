#include "storage/format.h"

#include "base/crc32.h"

uint32_t format_page_crc(const uint8_t *page, uint32_t pgno) {
    uint8_t no[4];
    format_put_le(no, pgno, 4);
    return crc32_update(crc32_update(0, page, FORMAT_PAGE_PAYLOAD), no, 4);
}

void format_seal_page(uint8_t *page, uint32_t pgno) {
    format_put_le(page + FORMAT_PAGE_PAYLOAD, format_page_crc(page, pgno), 4);
}

bool format_page_ok(const uint8_t *page, uint32_t pgno) {
    return format_get_le(page + FORMAT_PAGE_PAYLOAD, 4) == format_page_crc(page, pgno);
}

/* Header offsets; see docs/file-format.md. */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_PAGE_SIZE = 12,
    H_GENERATION = 16,
    H_PAGE_COUNT = 24,
    H_TX_COUNT = 32,
    H_FACT_COUNT = 40,
    H_ENTITY_COUNT = 48,
    H_ROOTS = 56,
    H_FREELIST = 80,  /* zero in files of earlier releases: no free list */
    H_HIST_ROOT = 84, /* version 4 */
    H_FREE_COUNT = 88,
    H_DB_ID = FORMAT_DB_ID_OFFSET, /* zero in files of earlier releases: no identity */
    H_FLAGS = FORMAT_DB_ID_OFFSET + FORMAT_DB_ID_SIZE, /* version 4 */
    H_WAL_SALT = H_FLAGS + 4                           /* zero in files of earlier releases */
};

void format_encode_header(const format_header *h, uint32_t slot, uint8_t *page) {
    memset(page, 0, FORMAT_PAGE_SIZE);
    memcpy(page + H_MAGIC, FORMAT_MAGIC, 8);
    format_put_le(page + H_VERSION, FORMAT_VERSION, 4);
    format_put_le(page + H_PAGE_SIZE, FORMAT_PAGE_SIZE, 4);
    format_put_le(page + H_GENERATION, h->generation, 8);
    format_put_le(page + H_PAGE_COUNT, h->page_count, 8);
    format_put_le(page + H_TX_COUNT, h->tx_count, 8);
    format_put_le(page + H_FACT_COUNT, h->fact_count, 8);
    format_put_le(page + H_ENTITY_COUNT, h->entity_count, 8);
    for (int i = 0; i <= TREE_DICT; i++)
        format_put_le(page + H_ROOTS + 4 * i, h->roots[i], 4);
    format_put_le(page + H_HIST_ROOT, h->roots[TREE_HIST], 4);
    format_put_le(page + H_FREELIST, h->freelist, 4);
    format_put_le(page + H_FREE_COUNT, h->free_count, 8);
    memcpy(page + H_DB_ID, h->db_id, FORMAT_DB_ID_SIZE);
    format_put_le(page + H_FLAGS, h->history ? FORMAT_FLAG_HISTORY : 0, 4);
    format_put_le(page + H_WAL_SALT, h->wal_salt, 4);
    format_seal_page(page, slot);
}

format_slot_state format_decode_header(const uint8_t *page, uint32_t slot, format_header *h,
                                       uint32_t *version) {
    *version = (uint32_t)format_get_le(page + H_VERSION, 4);
    if (memcmp(page + H_MAGIC, FORMAT_MAGIC, 8) != 0)
        return SLOT_BAD_MAGIC;
    /* Version before checksum: an older format has another layout (and
     * the format-1 file has no page checksum at all). */
    if (*version < FORMAT_VERSION_NO_HISTORY)
        return SLOT_OLD_VERSION;
    if (!format_page_ok(page, slot))
        return SLOT_BAD_CHECKSUM;
    if (*version > FORMAT_VERSION)
        return SLOT_NEW_VERSION;
    if (format_get_le(page + H_PAGE_SIZE, 4) != FORMAT_PAGE_SIZE)
        return SLOT_BAD_PAGE_SIZE;
    h->generation = format_get_le(page + H_GENERATION, 8);
    h->page_count = format_get_le(page + H_PAGE_COUNT, 8);
    h->tx_count = format_get_le(page + H_TX_COUNT, 8);
    h->fact_count = format_get_le(page + H_FACT_COUNT, 8);
    h->entity_count = format_get_le(page + H_ENTITY_COUNT, 8);
    for (int i = 0; i <= TREE_DICT; i++)
        h->roots[i] = (uint32_t)format_get_le(page + H_ROOTS + 4 * i, 4);
    h->old_version = *version < FORMAT_VERSION;
    h->history = *version > FORMAT_VERSION_NO_HISTORY &&
                 (format_get_le(page + H_FLAGS, 4) & FORMAT_FLAG_HISTORY);
    h->roots[TREE_HIST] = h->history ? (uint32_t)format_get_le(page + H_HIST_ROOT, 4) : 0;
    h->freelist = (uint32_t)format_get_le(page + H_FREELIST, 4);
    h->free_count = format_get_le(page + H_FREE_COUNT, 8);
    memcpy(h->db_id, page + H_DB_ID, FORMAT_DB_ID_SIZE);
    h->wal_salt = (uint32_t)format_get_le(page + H_WAL_SALT, 4);
    return SLOT_VALID;
}
