/*
 * gil.c — releasing the GIL around an engine call, and taking it back
 * after a short spin rather than going to sleep behind its holder.
 *
 * Why: with several threads querying one database, a query's Python side
 * (the call, the cursor, the tuples) is short, about a third of a point
 * query's 1.5 µs. A thread whose engine call ends while another holds the
 * GIL would, in PyEval_RestoreThread, sleep on the GIL's condition
 * variable: a futex wait, a wake-up from the holder's next release and
 * often two context switches, several µs of CPU, more than the query.
 * So before taking the GIL back, a thread spins (up to SPIN_NS) while
 * this module saw another thread take it and not yet release it.
 *
 * The module cannot see the GIL itself (nothing in the Limited API shows
 * it), only its own takes and releases: `holder` is the thread state that
 * last took the GIL through this module, NULL once it released it through
 * this module. A holder that released the GIL otherwise (time.sleep, I/O,
 * another library) leaves a stale hint; the first waiter to spin SPIN_NS
 * on it marks it given up, and no one spins on that thread again until it
 * releases the GIL through this module. A wrong guess costs at most one
 * spin, and PyEval_RestoreThread is always what takes the GIL: the spin
 * changes when, never whether.
 */
#include "mgpy.h"

#include <stdatomic.h>
#include <time.h>

/* A few Python-side parts of a query (1-3 µs of other threads' work). */
enum { SPIN_NS = 4000, CHECK_CLOCK_EVERY = 32 };

static _Atomic(PyThreadState *) holder;   /* holds the GIL, NULL: released */
static _Atomic(PyThreadState *) given_up; /* a holder spun on for SPIN_NS */

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins while another thread holds the GIL by this module's count, then
 * claims it for `me`: of several threads waiting, one goes on to take the
 * GIL and the others spin on, rather than all rushing at it and the
 * losers going to sleep on its condition variable. */
static void wait_for_release(PyThreadState *me) {
    PyThreadState *seen = atomic_load_explicit(&holder, memory_order_relaxed);
    long long start = 0;
    int i;

    if (seen && seen == atomic_load_explicit(&given_up, memory_order_relaxed)) {
        return;
    }
    for (i = 1;; i++) {
        if (!seen && atomic_compare_exchange_weak_explicit(&holder, &seen, me, memory_order_acquire,
                                                           memory_order_relaxed)) {
            return;
        }
        cpu_relax();
        seen = atomic_load_explicit(&holder, memory_order_relaxed);
        if (i == 1) {
            start = now_ns();
        } else if (i % CHECK_CLOCK_EVERY == 0 && now_ns() - start > SPIN_NS) {
            atomic_store_explicit(&given_up, seen, memory_order_relaxed);
            return;
        }
    }
}

void mgpy_gil_release(mgpy_released *r) {
    PyThreadState *mine;

    r->state = mine = PyEval_SaveThread();
    atomic_compare_exchange_strong(&holder, &mine, NULL);
    if (atomic_load_explicit(&given_up, memory_order_relaxed) == r->state) {
        mine = r->state;
        atomic_compare_exchange_strong(&given_up, &mine, NULL);
    }
}

void mgpy_gil_take(mgpy_released *r) {
    wait_for_release(r->state);
    PyEval_RestoreThread(r->state);
    atomic_store_explicit(&holder, r->state, memory_order_release);
}
