/* Turning a parsed transact / retract into the fact records of one
 * transaction (language.md §4, §5). Nothing here touches the store: the caller
 * commits the records, so a conversion error writes nothing and consumes
 * no transaction number. */
#ifndef MG_DB_WRITE_H
#define MG_DB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "model/fact.h"

/* Whether an attribute is one of the pseudo-attributes queries
 * reinterpret (language.md §8.9): :db/valid-from, :db/valid-to, :db/tx-count,
 * :db/tx-id, :db/valid-at. Transacting one fails with API-004. */
bool write_is_pseudo_attribute(const char *s, size_t len);

/* The identity of a record's (entity, attribute, value) that duplicates
 * collapse on (value identity: 1 and 1.0 differ), for hash tables of
 * records: here, and a write transaction's merge of its statements. */
uint64_t write_triple_hash(const fact *f);
bool write_same_triple(const fact *a, const fact *b);

/* Builds the records of a transaction numbered `tx_count`, committed at
 * `tx_id`, into `a`. Errors: INT-001 bad entity, API-003 attribute not a
 * keyword, API-004 a :db/ pseudo-attribute, INT-002 bad value, API-019
 * empty validity window, API-011 one fact with two windows. Identical
 * duplicates collapse into one record. */
int write_transact(const ast_write *w, uint64_t tx_count, int64_t tx_id, arena *a, fact **out,
                   size_t *count, err *e);

/* One retraction record per distinct triple (valid_from 0, valid_to
 * forever); the conversion errors are those of write_transact. */
int write_retract(const ast_write *w, uint64_t tx_count, int64_t tx_id, arena *a, fact **out,
                  size_t *count, err *e);

#endif
