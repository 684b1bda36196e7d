/* The history index (TREE_HIST, format version 4): every record once more,
 * keyed by entity, attribute and commit order, each carrying how many
 * (E, A, V) groups of its entity-attribute are live right after it (their
 * latest record is an assertion, whatever its window). Reading the
 * visible records of one (E, A) at a counter cut then costs a seek and a
 * walk back from the cut until that many live groups are found
 * (docs/file-format.md §3), not a pass over every version the EAVT order
 * keeps (visibility is decided per (E, A, V) group in commit order, so
 * EAVT reads every group of the pair).
 *
 * Key (big-endian, 70 bytes): E 6, A 6, ~TXC 8, ~SEQ 8 (complemented: the
 * newest record first, so a read seeks once and reads forwards), V 9,
 * ASSERTED 1, LIVE 8, then the record's TXID, VALID_FROM, VALID_TO 8 each
 * (sortable forms), so that a read needs no other index. */
#ifndef MG_STORE_HISTORY_H
#define MG_STORE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "storage/btree.h"
#include "storage/pager.h"
#include "store/fact_key.h"

#define HIST_KEY_SIZE 70

const btree_codec *history_codec(void);

/* A writer's state: its B+tree hint and the last key it added (the
 * newest record of its pair: a history of one pair reads no neighbour). */
typedef struct history_writer {
    btree_hint hint;
    uint8_t last[HIST_KEY_SIZE];
    bool has_last;
} history_writer;

/* Forgets everything (at checkpoints, as other hints). */
void history_writer_reset(history_writer *w);

/* Adds record `f` (already in, or about to go into, the EAVT tree at
 * `eavt`, which tells whether its group's previous record asserted) to
 * the history tree at *root, after every earlier record of its (E, A):
 * commits apply records in commit order. */
int history_add(pager *pg, uint32_t *root, uint32_t eavt, const fact_ids *f, history_writer *w,
                err *e);

/* Builds the history tree of a file written before it existed: every
 * record of the TXLOG tree, in commit order. */
int history_build(pager *pg, uint32_t *root, uint32_t txlog, uint32_t eavt, err *e);

/* The records of (e, a) that decide their group at counter cut `max_txc`
 * (UINT64_MAX: none) and are assertions, in EAVT order (by V): *count of
 * them at *out, which is `buf` (of buf_cap > 0 records) when they fit,
 * else a malloc'd array. */
int history_latest(pager *pg, uint64_t view, uint32_t root, uint64_t e_id, uint64_t a_id,
                   uint64_t max_txc, fact_ids *buf, size_t buf_cap, fact_ids **out, size_t *count,
                   err *e);

#endif
