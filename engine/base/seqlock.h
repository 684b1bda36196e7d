/* Read-mostly records that any number of threads read without writing
 * anything shared (issue 18): a sequence count, odd while a writer is
 * changing the record, lets a reader copy the record out and then check
 * that no writer came in meanwhile. A reader that takes a lock (or adds to
 * a reference count) writes the lock's cache line, and two threads reading
 * the same hot record then pass that line between their cores on every
 * read; a reader here only reads it, so each core keeps its own copy.
 *
 * Writers are serialised by the caller (a mutex of the structure holding
 * the records). A record is an array of seq_word; a reader copies it out
 * whole before trusting any of it:
 *
 *     unsigned s = seqlock_read_begin(&rec->seq);
 *     seqlock_copy_out(&copy, rec->words, WORDS);
 *     if (!seqlock_read_end(&rec->seq, s))
 *         ... a writer came in: try again, or treat it as absent ...
 *
 * A record must never be freed while a reader may be copying it: the
 * structures using this keep their records until they are freed whole.
 *
 * The copy itself is a plain memcpy, which may overlap a writer's: that
 * torn copy is what seqlock_read_end rejects. ThreadSanitizer would
 * rightly call the overlap a race, so its builds copy word by word with
 * relaxed atomic loads and stores instead (four times slower: a page is
 * copied several times per query). */
#ifndef MG_BASE_SEQLOCK_H
#define MG_BASE_SEQLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef _Atomic uint64_t seq_word;

typedef struct seqlock {
    atomic_uint seq; /* odd while a writer is in */
} seqlock;

void seqlock_init(seqlock *l);

/* The count to give seqlock_read_end; odd when a writer is in (the copy
 * will then be rejected). */
unsigned seqlock_read_begin(const seqlock *l);
/* True when nothing was written since seqlock_read_begin gave `begin`
 * (and no writer was in then): what was copied out meanwhile is whole. */
bool seqlock_read_end(const seqlock *l, unsigned begin);
/* Copies `words` words out of a record, between begin and end. */
void seqlock_copy_out(void *dst, const seq_word *src, size_t words);

/* A writer, serialised with the others by the caller. */
void seqlock_write_begin(seqlock *l);
void seqlock_write_end(seqlock *l);
/* Copies `words` words into a record, between write begin and end. */
void seqlock_copy_in(seq_word *dst, const void *src, size_t words);

#endif
