/* The envelope fixture of spec/BENCHMARKS.md §1, shared by the benchmark
 * programs: built once per scale through minigraf.h and cached on disk. */
#ifndef MINIGRAF_BENCH_FIXTURE_H
#define MINIGRAF_BENCH_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>

#include "minigraf.h"

/* A growable text buffer for building commands. */
typedef struct fixture_text {
    char *p;
    size_t len, cap;
} fixture_text;

void fixture_text_init(fixture_text *t);
void fixture_text_free(fixture_text *t);
/* Appends printf-style; grows the buffer as needed. */
void fixture_put(fixture_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Executes one command; on failure prints it with the error and exits. */
void fixture_run(MiniGrafDb *db, const char *text);

/* Drains a cursor and frees it: the rows it gave, its first batch into
 * `first` (when given). On an error prints it and exits. */
long fixture_drain(MiniGrafCursor *c, char *first, size_t size);

/* E = n / 6, the number of keyword entities :p0 … :p{E-1}. */
long fixture_entities(long n);
/* Transactions that write the entities (three per batch of 200); the hot
 * entity's 2,001 transactions follow them. */
long fixture_entity_txs(long n);
/* tx_half: the counter after the first half of the entity batches, so
 * `:as-of tx_half` sees exactly the first half of the batches' entities. */
long fixture_tx_half(long n);

/* Writes the fixture's n facts (entities only, no hot entity) into `db`,
 * in transactions of 200 entities; with `checkpoints`, a checkpoint every
 * 200K facts. */
void fixture_write_envelope(MiniGrafDb *db, long n, int checkpoints);

/* Builds the fixture with n facts (plus the hot entity) into a new file at
 * `path`: transactions of 200 entities, a checkpoint every 200K facts and
 * at the end, opened as a bulk load (synchronous "normal"). */
void fixture_build(const char *path, long n);

/* "<dir>/envelope-<n>.graph" into `out`. */
void fixture_path(char *out, size_t size, const char *dir, long n);

#endif
