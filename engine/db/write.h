/* Turning a parsed transact / retract into the fact records of one
 * transaction (spec 4, 5). Nothing here touches the store: the caller
 * commits the records, so a conversion error writes nothing and consumes
 * no transaction number. */
#ifndef MG_DB_WRITE_H
#define MG_DB_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "model/fact.h"

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
