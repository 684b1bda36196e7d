/* The fact store: an append-only log of fact records, in memory or backed
 * by a durable file. (The paged B+tree storage of issue #4 replaces the
 * file format behind this same interface.) */
#ifndef MG_STORE_STORE_H
#define MG_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/fact.h"

typedef struct store store;

int store_open_memory(store **out, err *e);
/* Opens or creates the file at `path`; a torn tail left by a crash is
 * discarded. Errors: STG codes for bad files, I/O failures. */
int store_open_file(const char *path, bool read_only, store **out, err *e);
void store_close(store *s);

uint64_t store_tx_count(const store *s);

/* Commits one transaction: the records must all carry tx_count ==
 * store_tx_count(s) + 1 (an empty transaction is legal and still advances
 * the counter). String payloads are copied into the store. Durable on
 * return for file-backed stores. */
int store_commit(store *s, const fact *facts, size_t count, err *e);
/* Errors of store_commit: API-014 on a read-only store; WAL-003 (file-backed
 * only) for an attribute or keyword over 1024 bytes or a string over 4068;
 * STG-012/013/016 for write failures (store_file.h); INT-000 out of memory. */

/* Records in commit order; pointers stay valid until the next commit. */
size_t store_fact_count(const store *s);
const fact *store_fact(const store *s, size_t i);

/* Flushes to disk. The current file format is self-contained (every
 * commit is already durable), so this is an fsync. */
int store_checkpoint(store *s, err *e);

/* Index lookups for the query executor. Each returns record indexes (for
 * store_fact) in commit order, or NULL with *count 0; valid until the next
 * commit. */
const uint32_t *store_records_by_attribute(const store *s, const char *attr, size_t len,
                                           size_t *count);
const uint32_t *store_records_by_entity(const store *s, const uuid128 *entity, size_t *count);
/* The records sharing record `record`'s (entity, attribute, value identity
 * E3) — the group of the visibility rule, spec 7.4 — `record` included. */
const uint32_t *store_same_triple(const store *s, size_t record, size_t *count);
/* Distinct entities seen (for cost estimates). */
size_t store_entity_count(const store *s);

#endif
