/* fdatasync counted and timed (sync_count.h). syscall() needs
 * _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include "sync_count.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_long syncs, sync_ns;

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Visible to the dynamic linker, though the build hides symbols. */
__attribute__((visibility("default"))) int fdatasync(int fd) {
    long start = now_ns();
    int rc = (int)syscall(SYS_fdatasync, fd);
    atomic_fetch_add_explicit(&sync_ns, now_ns() - start, memory_order_relaxed);
    atomic_fetch_add_explicit(&syncs, 1, memory_order_relaxed);
    return rc;
}

long sync_count(void) {
    return atomic_load_explicit(&syncs, memory_order_relaxed);
}

double sync_seconds(void) {
    return (double)atomic_load_explicit(&sync_ns, memory_order_relaxed) / 1e9;
}
