/* The write-ahead log sidecar `<path>.wal`: every committed transaction is
 * appended as one checksummed frame and (synchronous "full") synced before
 * the commit returns; a checkpoint folds the frames into the main file and
 * resets the log.
 *
 *   header (32 bytes): "MGRAFWAL" | u32 version (1) | u32 0 |
 *                      u64 base generation | u32 CRC-32 of bytes 0..23 | u32 0
 *   frame:  u32 payload length (>= 12) | u32 CRC-32 of the length field
 *           and the payload | payload
 *           (payload layout: store/store_codec.h)
 *
 * The base generation is the header generation of the main file the log
 * continues; a main file whose newest valid header is older than that has
 * lost a checkpoint, which open refuses (STG-004) instead of silently
 * showing old data. A frame that is short or fails its checksum is a torn
 * tail: it and what follows are cut away (ignored when read-only).
 * Little-endian throughout.
 *
 * Codes: WAL-001 bad magic, WAL-002 unsupported version, STG-010..015 I/O. */
#ifndef MG_STORAGE_WAL_H
#define MG_STORAGE_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define WAL_FRAME_HEADER 8

typedef struct wal wal;

/* Opens `<db_path>.wal`, creating it (with base `generation`) when absent
 * or empty. *base gets the stored base generation (0 when unknown: a header
 * torn while being reset). A read-only open of a missing log is an empty
 * log. */
int wal_open(const char *db_path, bool read_only, uint64_t generation, wal **out, uint64_t *base,
             err *e);
void wal_close(wal *w);

typedef int (*wal_apply_fn)(void *ctx, const uint8_t *payload, size_t len, err *e);
/* Calls `apply` on every intact frame in order, then cuts off a torn tail. */
int wal_replay(wal *w, wal_apply_fn apply, void *ctx, err *e);

/* Appends one frame; `frame` starts with WAL_FRAME_HEADER bytes filled in
 * here. Syncs when `sync`. On failure the log's logical end does not move. */
int wal_append(wal *w, uint8_t *frame, size_t frame_len, bool sync, err *e);
int wal_sync(wal *w, err *e);
/* After a checkpoint to `generation` (its header synced): an empty log
 * continuing it. Synced only when `sync`; otherwise the next commit's sync
 * makes it durable, and until then a crash may keep the old frames, which
 * replay skips by tx_count. Pass `sync` when commits are not synced. */
int wal_reset(wal *w, uint64_t generation, bool sync, err *e);
/* Bytes of frames in the log. */
uint64_t wal_size(const wal *w);

#endif
