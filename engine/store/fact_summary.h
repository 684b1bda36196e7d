/* Leaf summaries of the fact trees whose keys lead with E, A and V (EAVT,
 * AEVT, AVET, VAET): what a count needs of a leaf without decoding it
 * (docs/file-format.md §3, "Leaf summaries"). A leaf's records fall into
 * groups (the same E, A and V: one triple's records in commit order);
 * the last record of each group inside the leaf is its *leaf-last*.
 * Counted over those: a group whose leaf-last is an assertion valid
 * forever is *shown* by every view that every record of the leaf passes
 * (fact_summary_admits). The layout, 40 bytes, little-endian:
 *
 *   u16 groups, u16 shown, u8 flags (FSUM_*), 3 zero bytes,
 *   u64 largest TXC, then the largest TXID, VALID_FROM and bounded
 *   VALID_TO (one that is not forever; 0 when none) as their sortable
 *   64-bit forms (sign bit flipped). */
#ifndef MG_STORE_FACT_SUMMARY_H
#define MG_STORE_FACT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/fact_key.h"

enum {
    FSUM_FIRST_SHOWN = 1, /* the first group's leaf-last is shown */
    FSUM_NULL = 2,        /* some record's V is Null */
    FSUM_NOT_NULL = 4,    /* some record's V is not */
    FSUM_E_VARIES = 8,    /* records differ in E (from the leaf's first) */
    FSUM_A_VARIES = 16,
    FSUM_V_VARIES = 32
};

typedef struct fact_summary {
    unsigned groups, shown, flags;
    uint64_t max_txc, max_txid, max_from, max_bounded_to; /* the times sortable */
} fact_summary;

/* Where E, A and V sit in one order's keys. */
typedef struct fact_sum_layout {
    size_t e, a, v;
} fact_sum_layout;

/* Adds `key` (between prev and next; NULL: none) to the summary `sum` of
 * a leaf whose first key is `anchor` (btree_codec sum_add). */
void fact_summary_add(const fact_sum_layout *l, uint8_t *sum, const uint8_t *anchor,
                      const uint8_t *prev, const uint8_t *key, const uint8_t *next);
void fact_summary_read(const uint8_t *sum, fact_summary *out);

/* Would a record pass the view: an as-of cut (largest TXC, or largest
 * TXID when by_time) and the valid-time point? */
typedef struct fact_view {
    uint64_t max_txc;
    bool by_time;
    int64_t max_txid;
    int64_t valid_point;
} fact_view;

/* Whether every record of the leaf passes `v`'s cut and has a window
 * that has started by its valid-time point, and every bounded window
 * has ended by then: each group's leaf-last is then visible exactly when
 * it is shown (an assertion valid forever). */
bool fact_summary_admits(const fact_summary *s, const fact_view *v);

/* The summary of a leaf as its parent branch keeps it beside the child
 * (file format 6: docs/file-format.md §3, "Child summaries"), so that a
 * count decides the leaf without reading it: the leaf's summary with
 * its times rounded up (a view then admits the child only when it admits
 * the leaf), and what only the leaf's neighbours tell: whether its last
 * record is shown and whether its last group goes on into the next leaf.
 * FACT_CHILD_SUM_BYTES, little-endian:
 *
 *   u16 groups, u16 shown, u8 flags (FSUM_*), u8 ends (FCHILD_*), u32
 *   largest TXC (0xffffffff: larger), then the largest TXID and the
 *   larger of the largest VALID_FROM and bounded VALID_TO (a view's
 *   valid-time point must be at or above both) as the top 48 bits of
 *   their sortable forms, rounded up (all ones: larger). All zero: the
 *   leaf keeps no summary. */
#define FACT_CHILD_SUM_BYTES 22
enum {
    FCHILD_LAST_SHOWN = 1, /* the leaf's last record is shown */
    FCHILD_CONTINUES = 2   /* the first record of the next leaf is of its last group */
};

/* Writes the child summary of a leaf whose summary is `leaf_sum` (NULL:
 * none) into `out`; its ends from `last` (the leaf's last key) and
 * `next` (the next leaf's first key; NULL: none), or, when `last` is
 * NULL, as `out` has them (btree_codec child_sum). */
void fact_child_sum(uint8_t *out, const uint8_t *leaf_sum, const uint8_t *last,
                    const uint8_t *next);
/* Reads one: the summary (times as rounded up) and its FCHILD_ ends. */
void fact_child_read(const uint8_t *in, fact_summary *out, unsigned *ends);
/* The ends `last` and `next` give (fact_child_sum). */
unsigned fact_child_ends(const uint8_t *last, const uint8_t *next);

/* Whether a record counts as shown (an assertion valid forever). */
static inline bool fact_ids_shown(const fact_ids *f) {
    return f->asserted && f->valid_to == INT64_MAX;
}

#endif
