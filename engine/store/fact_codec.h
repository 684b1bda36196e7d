/* How fact keys (store/fact_key.h) are stored in B+tree leaves: each entry
 * against the key before it, field by field (docs/file-format.md §3):
 *
 *   u8 flags: bit 0..3 E, A, V, TXC equal to the previous key's; bit 4
 *   TXID equal to the previous key's; bit 5 asserted; bit 6 VALID_FROM
 *   stored (else it equals this key's TXID); bit 7 VALID_TO stored (else
 *   forever)
 *   then in the order's field order, each field not flagged equal:
 *     E, A, TXC, SEQ: varint of the zigzag difference from the previous
 *       key's field (SEQ always present)
 *     V: u8 value type, varint of the zigzag difference of the payload
 *       number from the previous key's when it has the same type, else
 *       from 0 (the payload number is the integer itself for integers,
 *       the payload otherwise)
 *   then TXID (unless flagged), VALID_FROM, VALID_TO (when flagged stored):
 *   varint of the zigzag difference of the sortable 64-bit form from the
 *   previous key's (from the form of 0 at a restart).
 *
 * Entries at a restart point (no previous key) flag nothing equal. */
#ifndef MG_STORE_FACT_CODEC_H
#define MG_STORE_FACT_CODEC_H

#include "storage/btree.h"

/* The codec of TREE_EAVT … TREE_TXLOG. */
const btree_codec *fact_codec(int order);

#endif
