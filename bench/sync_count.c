/* fdatasync counted (sync_count.h). syscall() needs _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include "sync_count.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_long syncs;

/* Visible to the dynamic linker, though the build hides symbols. */
__attribute__((visibility("default"))) int fdatasync(int fd) {
    atomic_fetch_add_explicit(&syncs, 1, memory_order_relaxed);
    return (int)syscall(SYS_fdatasync, fd);
}

long sync_count(void) {
    return atomic_load_explicit(&syncs, memory_order_relaxed);
}
