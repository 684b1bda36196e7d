/* A fault-injecting I/O layer (storage/vfs.h) for crash tests. Counted
 * operations are writes, syncs, truncates and renames; at operation `crash_at` the
 * process "dies": that operation fails (a write may first land half its
 * bytes: a torn write) and so does every later one. With `lose` the crash
 * is a power loss: every write and truncate since its file's last sync is
 * undone. With `scramble` the power loss is less kind: of what was not
 * synced, each 512-byte sector of each write, and each truncate, is kept
 * or lost by a coin flip (seeded by the crash point, so a failure
 * replays), as a disk that reorders and tears unsynced writes may leave
 * them. Durability is modelled by this undo log, so syncs cost nothing.
 *
 * Counted operations run one at a time (a mutex), so several threads may
 * write and sync; fault_now is read by the tests once they are done. */
#ifndef MG_TESTS_ENGINE_FAULT_VFS_H
#define MG_TESTS_ENGINE_FAULT_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fault {
    long ops;      /* operations seen */
    long crash_at; /* 0: never */
    bool torn;     /* the crashing write lands half its bytes */
    bool lose;     /* the crash loses every write not yet synced */
    bool scramble; /* the crash keeps a random part of them (implies lose) */
    bool crashed;
    bool at_reset; /* the crash hit a WAL reset or the frame after it */
} fault;

/* The run in progress (tests read ops, crashed and at_reset). */
extern fault fault_now;

/* Whether the run has crashed and lost unsynced writes (power loss or
 * scramble), read safely from a thread other than the one doing I/O. */
bool fault_lost_power(void);

/* Starts a run: installs the layer as the default VFS. */
void fault_begin(fault f);
/* Ends it: plain POSIX again; the undo log is dropped (what is on disk
 * now is what the "reboot" finds). */
void fault_end(void);

/* Calls `fn` before each sync (not counted itself; `fn` may do I/O
 * through the layer), until fault_end. Single-threaded tests only: it
 * is read without a lock. */
void fault_before_sync(void (*fn)(int fd));

/* The crash modes the sweeps go through, by number: 0 a clean stop, 1 a
 * torn write, 2 a power loss, 3 a scrambling power loss with a torn write. */
#define FAULT_MODES 4
fault fault_mode(int mode, long crash_at);
const char *fault_mode_name(int mode);

/* A fresh directory for the test's files: under /dev/shm when it exists
 * (real fsyncs of file creation cost a shared disk seconds), else /tmp.
 * `out` gets the path; 0 or -1. */
int fault_tmpdir(const char *prefix, char *out, size_t cap);

/* Deletes a database file and its WAL. */
void fault_remove_db(const char *path);
/* Makes database `to` (file and WAL) what `from` is now: each file copied,
 * or deleted when `from` has none (saving or restoring a crashed state).
 * False when a copy could not be written. */
bool fault_copy_db(const char *from, const char *to);

#endif
