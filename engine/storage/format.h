/* The on-disk layout shared by the pager, the B+trees, the dictionary and
 * the WAL (docs/file-format.md describes it byte by byte): page geometry,
 * the header, and fixed-width integer coding. Integers inside B+tree keys
 * are big-endian so that memcmp orders them; everything else is
 * little-endian. */
#ifndef MG_STORAGE_FORMAT_H
#define MG_STORAGE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FORMAT_MAGIC "MINIGRAF"
/* Version 5 lacks only the child summaries of the branches over fact
 * leaves: its branches are read as branches without them (btree.c), and
 * keep none. */
#define FORMAT_VERSION 6u
/* Version 4 lacks only the leaf summaries: its leaves are read as leaves
 * without one (btree_leaf.h), and its pages keep none until rewritten. */
#define FORMAT_VERSION_NO_SUMMARY 4u
/* Version 3 also lacks the history index (TREE_HIST) and the header
 * flags: it is read as a version 4 file without the index. */
#define FORMAT_VERSION_NO_HISTORY 3u
#define FORMAT_FLAG_HISTORY 1u /* the header's flags: the file keeps TREE_HIST */
#define FORMAT_PAGE_SIZE 4096u
/* Every page ends with a CRC-32 of its payload followed by its page number,
 * so a page written at the wrong place fails its check too. */
#define FORMAT_PAGE_PAYLOAD (FORMAT_PAGE_SIZE - 4u)
/* Pages 0 and 1 are the two header slots; checkpoints alternate. */
#define FORMAT_HEADER_SLOTS 2u
#define FORMAT_FIRST_DATA_PAGE 2u
#define FORMAT_DB_ID_SIZE 16
#define FORMAT_DB_ID_OFFSET 96 /* in a header slot */

/* The B+trees whose roots the header holds. */
enum {
    TREE_EAVT,
    TREE_AEVT,
    TREE_AVET,
    TREE_VAET,
    TREE_TXLOG, /* every record in commit order */
    TREE_DICT,  /* dictionary: hash of an entry -> its heap location */
    TREE_HIST,  /* every record by (E, A, commit order): store/history.h */
    TREE_COUNT
};

/* The logical content of a header slot (byte offsets in file-format.md). */
typedef struct format_header {
    uint64_t generation; /* +1 per checkpoint; the newest valid slot wins */
    uint64_t page_count; /* pages in use, header slots included */
    uint64_t tx_count;
    uint64_t fact_count;        /* records; also the next record sequence number */
    uint64_t entity_count;      /* distinct entities in the dictionary */
    uint32_t roots[TREE_COUNT]; /* 0: empty tree */
    uint32_t freelist;          /* first free-list page (0: none); storage/freelist.h */
    uint64_t free_count;        /* pages the free list holds */
    /* Random at creation, the same in both slots and in the WAL header
     * (wal.h), so a log is never replayed into another database. All
     * zero: a file written before identities existed (it gets one at its
     * next read-write open, store.c). */
    uint8_t db_id[FORMAT_DB_ID_SIZE];
    /* The file keeps the history index (roots[TREE_HIST]; an empty one
     * has root 0 too, hence the flag): the header's flags, opt-in per
     * database (store_options.history_index). Without it readers read
     * EAVT and writers skip the tree. */
    bool history;
    /* Read from a version 3 or 4 header: rewritten as the current
     * version at the next read-write open (store.c). */
    bool old_version;
    /* The salt of the WAL whose frames this header's checkpoint did not
     * fold in (wal.h): only that log's frames of older generations
     * replay beside it. 0: none (headers of earlier releases too). */
    uint32_t wal_salt;
} format_header;

/* A fresh random database identifier (never all zero). */
void format_new_db_id(uint8_t id[FORMAT_DB_ID_SIZE]);
bool format_has_db_id(const uint8_t id[FORMAT_DB_ID_SIZE]);

/* Fixed-width integers of n <= 8 bytes. On a little-endian host with
 * GCC builtins, a copy (and a byte swap): the compiler's loop over the
 * bytes stayed a loop in page headers, restart arrays and key fields. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FORMAT_LE_HOST 1
#endif

static inline void format_put_le(uint8_t *p, uint64_t v, int n) {
#ifdef FORMAT_LE_HOST
    if (n <= 8) {
        memcpy(p, &v, (size_t)n);
        return;
    }
#endif
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t format_get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
#ifdef FORMAT_LE_HOST
    if (n <= 8) {
        memcpy(&v, p, (size_t)n);
        return v;
    }
#endif
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void format_put_be(uint8_t *p, uint64_t v, int n) {
#ifdef FORMAT_LE_HOST
    if (n > 0 && n <= 8) {
        uint64_t be = __builtin_bswap64(v << (8 * (8 - n)));
        memcpy(p, &be, (size_t)n);
        return;
    }
#endif
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* The 8- and 6-byte fields of every index key (and a lead's 4-byte tail)
 * are read on every record a scan visits: one load and a byte swap where
 * the host allows it. */
static inline uint64_t format_get_be(const uint8_t *p, int n) {
#ifdef FORMAT_LE_HOST
    if (n == 8 || n == 6 || n == 4) {
        uint64_t v = 0;
        memcpy(&v, p, (size_t)n);
        return __builtin_bswap64(v) >> (8 * (8 - n));
    }
#endif
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Signed values flip the sign bit so that big-endian memcmp order is
 * numeric order; memcpy avoids implementation-defined conversions. */
static inline uint64_t format_sortable_i64(int64_t v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u ^ UINT64_C(0x8000000000000000);
}

static inline int64_t format_from_sortable(uint64_t u) {
    u ^= UINT64_C(0x8000000000000000);
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Page checksum over the payload and the page number. */
uint32_t format_page_crc(const uint8_t *page, uint32_t pgno);
void format_seal_page(uint8_t *page, uint32_t pgno);
bool format_page_ok(const uint8_t *page, uint32_t pgno);

/* Encodes a header into a full page (sealed for slot `slot`). */
void format_encode_header(const format_header *h, uint32_t slot, uint8_t *page);

typedef enum format_slot_state {
    SLOT_VALID,
    SLOT_BAD_MAGIC,
    SLOT_OLD_VERSION, /* an earlier format this release cannot read */
    SLOT_NEW_VERSION, /* a later format */
    SLOT_BAD_PAGE_SIZE,
    SLOT_BAD_CHECKSUM
} format_slot_state;

/* Checks and decodes one header slot; *version gets the stored version. */
format_slot_state format_decode_header(const uint8_t *page, uint32_t slot, format_header *h,
                                       uint32_t *version);

#endif
