/* A reader's state, shared by store_reader.c (the snapshot, the reader
 * pool and the decoding memos) and store_scan.c (index scans, estimates
 * and bounds over the reader's snapshot). */
#ifndef MG_STORE_STORE_READER_INTERNAL_H
#define MG_STORE_STORE_READER_INTERNAL_H

#include "base/arena.h"
#include "base/htab.h"
#include "store/keyword_memo.h"
#include "store/store_internal.h"

typedef struct decoded {
    uint64_t loc;
    const char *ptr;
    size_t len;
} decoded;

/* A recent dictionary lookup, in a direct-mapped memo (by
 * lookup_key_hash). Rule evaluation seeks the same attribute keywords and
 * entities again on every scan it opens, round after round, and a
 * repeated query its constants; lookups are kept while the reader's
 * snapshot is the same (tx count and generation: a pooled reader keeps
 * them for its next query), so a hit (found or not) is the answer the
 * tree would give. */
#define LOOKUP_MEMO 32 /* a power of two */
#define LOOKUP_KEY 48  /* longer keys are not kept */
typedef struct lookup {
    uint8_t key[LOOKUP_KEY]; /* inline: misses must not grow the reader */
    size_t len;
    uint64_t id;
    uint64_t epoch;  /* the reader's lookup_epoch when kept; 0: empty */
    uint64_t seeded; /* the reader's query that seeded its decoding (a UUID: seed_decoded) */
    int kind, rc;
} lookup;

/* A direct-mapped memo of entity UUIDs, kept with a pooled reader
 * between queries (96 KiB, allocated at the first UUID): an answer of a
 * thousand-odd entities spread over the dictionary otherwise reads each
 * one's dictionary page from the file again on every run, since they lie
 * on more pages than the page cache holds. */
#define UUID_SLOTS 4096
typedef struct uuid_slot {
    uint64_t loc;
    uuid128 u;
} uuid_slot;

/* The last attribute keyword a seek bound, while the reader's snapshot
 * is the one it was looked up in (`epoch`, as the lookups): a join seeks
 * the same attribute for every row, and a repeated or prepared query on
 * an unchanged database on every run. Keywords longer than the text kept
 * are looked up each time. */
#define ATTR_MEMO_TEXT 48
typedef struct attr_memo {
    uint64_t epoch; /* the reader's lookup_epoch then; 0: empty (an open reader's is at least 1) */
    size_t len;
    char text[ATTR_MEMO_TEXT];
    uint64_t id;
    int rc; /* store_reader_text_id's: 1 found, 0 not stored */
} attr_memo;

/* The last entity UUID looked up (store_reader_entity_id), while the
 * snapshot is the one it was looked up in: a repeated or prepared point
 * query looks up its entity on every run, a join its constant entity
 * for every row; a hit skips hashing the key and probing the memo. */
typedef struct entity_memo {
    uint64_t epoch; /* the reader's lookup_epoch then; 0: empty */
    uuid128 u;
    uint64_t id;
    uint64_t seeded; /* the reader's query whose UUID slots it seeded */
    int rc;          /* dict_lookup's: 1 found, 0 not stored */
} entity_memo;

/* store_value_types' last answer, while the reader's pages are the ones it
 * was read from (`view`: every publish moves it): a query ordered by an
 * attribute's values asks on every run. */
typedef struct types_memo {
    bool known;
    uint64_t view, attr;
    int rc, lowest, highest;
} types_memo;

struct store_reader {
    value_source src; /* of the stored values it hands out */
    err failure;      /* the last failure to decode one inside a comparison */
    store *s;
    format_header h;                     /* the snapshot */
    uint64_t view;                       /* its pages (pager.h) */
    int64_t newest_tx_id;                /* store.pub_newest_tx_id then */
    const dict_recent *recent;           /* store.pub_recent then */
    struct reader_list *list;            /* the one it is on, while open */
    store_reader *open_prev, *open_next; /* in it */
    lookup lookups[LOOKUP_MEMO];
    uint64_t lookup_epoch;                 /* moves when the snapshot does: voids the lookups */
    uint64_t lookup_tx, lookup_generation; /* the snapshot of the lookups */
    uint64_t query;                        /* how many times the reader was opened */
    arena mem;
    decoded *memo;
    size_t memo_count, memo_cap;
    htab memo_map;
    store_budget budget;                   /* charge NULL: none */
    size_t charged;                        /* bytes charged to the budget */
    size_t charged_cap;                    /* the memo capacity they cover */
    decoded attr;                          /* the last attribute decoded (ptr NULL: none) */
    uint8_t *scratch;                      /* one page, allocated when first needed */
    uint32_t scratch_pgno;                 /* the dictionary page it holds, 0: none */
    uint8_t entry[LOOKUP_CACHE_KEY];       /* an entry from the shared cache */
    size_t entry_reads;                    /* dictionary entries read so far */
    uuid_slot *uuids;                      /* allocated at the first UUID, never zeroed: */
    uint64_t uuid_filled[UUID_SLOTS / 64]; /* which slots hold one */
    store_scan *spares[STORE_SPARE_SCANS]; /* closed scans, the last closed on top */
    size_t spare_count;                    /* of spares[] */
    attr_memo last_attr;                   /* store_bound_attribute's last answer */
    entity_memo last_entity;               /* store_reader_entity_id's */
    types_memo last_types;                 /* store_value_types' */
    keyword_memo keywords; /* kept between queries: a location's text never changes */
};

/* The dictionary id of a stored value this reader handed out, if it is one. */
static inline bool store_reader_own_id(const store_reader *r, const value *v, uint64_t *id) {
    if (!v->stored || v->as.stored.src != &r->src)
        return false;
    *id = v->as.stored.id;
    return true;
}

/* Gives the cursors of the reader's spare scans (store_scan_close keeps them
 * set up for the next scan, and an idle reader keeps it for its next
 * query) back to the pager: before the reader is freed, which is before
 * the pager closes. */
void store_scan_idle(store_reader *r);

#endif
