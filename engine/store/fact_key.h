/* A fact record as B+tree keys. Every index holds whole records, so a scan
 * of any order needs no second lookup. Fields (big-endian; signed ones with
 * the sign bit flipped so memcmp orders them numerically):
 *
 *   E   6  entity: dictionary location of its UUID
 *   A   6  attribute: dictionary location of its text
 *   V   9  u8 value type (value_type) + 8-byte payload: integer; float bits
 *          (NaNs canonical); boolean 0/1; 0 for null; the dictionary
 *          location of a string's or keyword's text or a ref's UUID
 *   TXC 8  tx_count      SEQ 8  record number in commit order
 *   TXID 8, VF 8, VT 8 (tx_id, valid_from, valid_to)   ASS 1 (asserted)
 *
 * Orders: EAVT = E A V TXC SEQ …, AEVT = A E V TXC SEQ …, AVET = A V E TXC
 * SEQ …, VAET = V A E TXC SEQ … (ref values only), TXLOG = SEQ TXC E A V …;
 * the tail is always TXID VF VT ASS. Within one (E, A, V) group, EAVT keeps
 * the records in commit order: the order language.md §7.4 decides by. */
#ifndef MG_STORE_FACT_KEY_H
#define MG_STORE_FACT_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/format.h"

#define FACT_KEY_SIZE 62
#define FACT_V_SIZE 9
/* Offsets of the tail fields, the same in every order. */
#define FACT_KEY_TXID 37
#define FACT_KEY_VALID_FROM 45
#define FACT_KEY_VALID_TO 53
#define FACT_KEY_ASSERTED 61

/* The five leading fields; an order lists them in its own sequence. */
enum { FACT_E, FACT_A, FACT_V, FACT_TXC, FACT_SEQ, FACT_LEADING };

/* The field at position i (< FACT_LEADING) of `order`, and field sizes. */
int fact_key_field(int order, int i);
size_t fact_key_field_size(int field);
/* Where `field` starts in a key of `order`. */
size_t fact_key_field_at(int order, int field);

typedef struct fact_ids {
    uint64_t e, a;
    uint8_t v[FACT_V_SIZE];
    uint64_t tx_count, seq;
    int64_t tx_id, valid_from, valid_to;
    bool asserted;
} fact_ids;

/* TREE_EAVT … TREE_TXLOG of storage/format.h. */
void fact_key_encode(int order, const fact_ids *f, uint8_t *key);
void fact_key_decode(int order, const uint8_t *key, fact_ids *f);

/* The bytes of (first, second, third) prefixes for seeks: writes the
 * leading `fields` fields of `order` from `f` and returns their length. */
size_t fact_key_prefix(int order, const fact_ids *f, int fields, uint8_t *key);

#endif
