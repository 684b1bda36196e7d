/* Exclusive use of a database file. Within the process a registry of open
 * files (by device and inode) refuses a second descriptor (STG-025: a
 * second open of the file shares the first one's store instead, see
 * store_share.c, so it only reaches here if the path was replaced); between
 * processes a POSIX record lock does (STG-026): shared for read-only
 * opens, exclusive for writers. STG-027: the filesystem cannot lock;
 * `allow_unlocked` then opens without the inter-process lock (the
 * in-process registry still applies). */
#ifndef MG_STORAGE_STORE_LOCK_H
#define MG_STORAGE_STORE_LOCK_H

#include <stdbool.h>

#include "base/error.h"

typedef struct store_lock store_lock;

/* Opens `path` (read-only, or read-write creating it) and claims it. On
 * success *fd and *out are set. A file this process already has open is
 * refused before a second descriptor is opened: closing any descriptor of a
 * file drops the process's record locks on it. STG-010: open failed. */
int store_lock_open(const char *path, bool read_only, bool allow_unlocked, int *fd,
                    store_lock **out, err *e);
/* Call before closing the descriptor. NULL: no-op. */
void store_lock_release(store_lock *l);

#endif
