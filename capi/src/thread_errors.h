/* Per-thread last errors of one shared handle: a thread reads the error of
 * its own last call, whatever other threads do with the handle meanwhile. */
#ifndef MG_CAPI_THREAD_ERRORS_H
#define MG_CAPI_THREAD_ERRORS_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/error.h"

typedef struct thread_error thread_error;

typedef struct thread_errors {
    pthread_mutex_t lock;
    thread_error *head;
    /* Entries holding an error: while none does, a successful call clears
     * nothing and takes no lock. Only a thread itself gives its entry an
     * error, so seeing 0 means the caller's entry holds none. */
    atomic_size_t held;
} thread_errors;

void thread_errors_init(thread_errors *t);
void thread_errors_destroy(thread_errors *t);
/* Records the calling thread's error, taking `e`'s message (e is left
 * empty). Returns e's code. When out of memory the error is dropped. */
int thread_errors_set(thread_errors *t, err *e);
/* The calling thread's call succeeded. */
void thread_errors_clear(thread_errors *t);
/* The calling thread's last error, or NULL. The pointer stays valid until
 * this thread's next call on the handle. */
const err *thread_errors_get(thread_errors *t);

#endif
