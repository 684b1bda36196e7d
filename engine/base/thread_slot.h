/* A small number per thread, for spreading threads over striped counters
 * and pools so that concurrent readers do not all write one cache line. */
#ifndef MG_BASE_THREAD_SLOT_H
#define MG_BASE_THREAD_SLOT_H

/* The thread's slot + 1; 0 until its first thread_slot(). */
extern _Thread_local unsigned thread_slot_mine;
/* Numbers the calling thread (thread_slot's first call on it). */
unsigned thread_slot_assign(void);

/* This thread's number: threads are numbered 0, 1, 2 ... in the order of
 * their first call; the same for the thread's whole life. Take it modulo
 * the number of stripes. Inline: a query takes a dozen. */
static inline unsigned thread_slot(void) {
    unsigned mine = thread_slot_mine;
    return mine ? mine - 1 : thread_slot_assign();
}

/* Stripes live in malloc'd structs, 16-byte aligned, not on cache-line
 * boundaries: a stripe whose data shared a line with another stripe's, or
 * with a field every thread reads next to the stripes, would pass that
 * line between the cores on every write, as one shared counter would.
 * So each stripe begins with this much padding, and the stripes are
 * followed by as much again: any two stripes' data, and the fields around
 * them, are then a whole line apart whatever the alignment. */
#define THREAD_STRIPE_GAP 64

#endif
