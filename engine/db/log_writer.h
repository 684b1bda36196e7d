/* The log writer: builds a new database file from fact records, keeping
 * each record's tx_count, tx_id, valid window and asserted flag exactly (a
 * bulk path beside transact, which would assign new ones).
 *
 * Records arrive in non-decreasing tx_count order; the records sharing a
 * tx_count are one transaction. The writer keeps the transaction numbered
 * by its counter open until a record of a later one (or finish) arrives,
 * and fills gaps in the numbering with empty transactions, so the rebuilt
 * counter and every :as-of cut match the source. Nothing of the target
 * survives unless finish succeeds. Single-threaded. */
#ifndef MG_DB_LOG_WRITER_H
#define MG_DB_LOG_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/fact.h"
#include "store/store.h"

typedef struct log_writer log_writer;

/* Creates the file at `path` (STG-043 when it or `<path>.wal` exists). */
int log_writer_create(const char *path, const store_options *o, log_writer **out, err *e);

/* Checks records without writing anything (API-017: tx_count 0 or below
 * the counter or decreasing, an attribute that is not a keyword, an
 * assertion whose valid_to is not after its valid_from; WAL-003 sizes). */
int log_writer_check(const log_writer *w, const fact *facts, size_t count, err *e);

/* Checks, then appends the records (their texts are copied). */
int log_writer_append(log_writer *w, const fact *facts, size_t count, err *e);

/* Raises the counter to `tx_count` with empty transactions; API-017 below
 * the counter. */
int log_writer_advance(log_writer *w, uint64_t tx_count, err *e);

uint64_t log_writer_tx_count(const log_writer *w);

/* Commits the open transaction, checkpoints and closes the file. */
int log_writer_finish(log_writer *w, err *e);
bool log_writer_finished(const log_writer *w);

/* Frees the writer; an unfinished one deletes its file and WAL. */
void log_writer_free(log_writer *w);

#endif
