/* A small number per thread, for spreading threads over striped counters
 * and pools so that concurrent readers do not all write one cache line. */
#ifndef MG_BASE_THREAD_SLOT_H
#define MG_BASE_THREAD_SLOT_H

/* This thread's number: threads are numbered 0, 1, 2 ... in the order of
 * their first call; the same for the thread's whole life. Take it modulo
 * the number of stripes. */
unsigned thread_slot(void);

#endif
