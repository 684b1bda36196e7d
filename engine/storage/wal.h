/* The write-ahead log sidecar `<real path of the file>.wal`: every
 * committed transaction is appended as one checksummed frame and
 * (synchronous "full") synced before the commit returns; a checkpoint
 * folds the frames into the main file and resets the log.
 *
 *   header (48 bytes): "MGRAFWAL" | u32 version (2) | u32 salt |
 *                      u64 base generation | database id[16] |
 *                      u32 CRC-32 of bytes 0..39 | u32 0
 *   frame:  u32 payload length (>= 12) | u32 CRC-32 | u64 generation |
 *           u32 flags | u32 0 | payload  (payload layout: store/store_codec.h)
 *           The CRC covers the database id, the length field, bytes 8..23
 *           and the payload: a frame of another database never verifies.
 *           Flags: WAL_FRAME_ORDERED, WAL_FRAME_JUMP.
 *
 * Identity (docs/file-format.md §6): the header's database id must be the
 * main file's (else STG-044); frames replay only when their generation is
 * the main file's header generation, or (by tx_count: a commit the main
 * file holds is skipped) between the log's base generation and it when
 * the header names this log (its salt, random at each reset: another log
 * of the same file, under a second hard link, has another); any other
 * older one is a frame left behind by a reset (the end of the log, by
 * rule), a newer one means the main file lost a checkpoint (STG-004). The base generation is the
 * header generation the log continued when it was reset. A frame carries the generation of the
 * newest durable header when it was written; a checkpoint whose header
 * became durable while commits were appended after its mark does not
 * reset the log (its frames still hold those commits) but moves the
 * frames' generation on (wal_continue).
 *
 * Damage: a frame that is short or fails its checksum is a torn tail (it
 * and what follows are cut away; ignored when read-only) unless a later
 * frame of this generation, written after it was durable (ORDERED),
 * verifies: that is corruption, STG-045, and nothing is changed, unless
 * the open asked to recover (then it is cut like a torn tail).
 *
 * A version-1 log (32-byte header, 8-byte frame headers, no identity)
 * comes from an earlier release: replayed by that release's rules beside
 * a file without an identity, ignored beside one that has one (written by
 * the checkpoint that gave the file its identity, which folded the log in).
 * Little-endian throughout.
 *
 * Codes: WAL-001 bad magic, WAL-002 unsupported version, STG-004, STG-044,
 * STG-045, STG-010..015 I/O. */
#ifndef MG_STORAGE_WAL_H
#define MG_STORAGE_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "storage/format.h"

#define WAL_HEADER_SIZE 48
#define WAL_FRAME_HEADER 24

/* Frame flags. ORDERED: every earlier frame of the log was durable when
 * this one was written (no sync was pending: store_sync.c), so a damaged frame
 * before it cannot be a write a crash lost. JUMP: the transaction counter
 * jumps to the payload's tx_count; the payload holds no facts. */
#define WAL_FRAME_ORDERED 1u
#define WAL_FRAME_JUMP 2u

typedef struct wal wal;

/* `<real path of db_path>.wal` (malloc'd; NULL when out of memory): the
 * file's symlinks, `..` and relative spellings resolved, so every path to
 * one file finds one log. When the file does not exist yet, its directory
 * is resolved instead. */
char *wal_path_for(const char *db_path);

typedef struct wal_ident {
    const uint8_t *db_id; /* FORMAT_DB_ID_SIZE bytes; all zero: none yet */
    uint64_t generation;  /* the main file's header generation */
    uint32_t salt;        /* the main file's header's wal_salt */
    bool recover;         /* cut a corrupt log at its damaged frame */
} wal_ident;

/* Opens the log of the database at `db_path`, creating it when absent or
 * empty (and writable). *base gets the stored base generation (0 when
 * unknown: a header torn while being reset). A read-only open of a missing
 * log is an empty log. */
int wal_open(const char *db_path, bool read_only, const wal_ident *id, wal **out, uint64_t *base,
             err *e);
void wal_close(wal *w);

typedef int (*wal_apply_fn)(void *ctx, const uint8_t *payload, size_t len, bool jump, err *e);
/* Calls `apply` on every frame to replay, in order; then cuts off a torn
 * tail (or, recovering, a corrupt one) and, when writable, leaves a log
 * to which frames of this generation can be appended. */
int wal_replay(wal *w, wal_apply_fn apply, void *ctx, err *e);

/* Appends one frame, unsynced; `frame` starts with WAL_FRAME_HEADER bytes
 * filled in here. `jump`: a counter jump (WAL_FRAME_JUMP). `ordered`:
 * every earlier frame is durable (WAL_FRAME_ORDERED). On failure the
 * log's logical end does not move. */
int wal_append(wal *w, uint8_t *frame, size_t frame_len, bool jump, bool ordered, err *e);
/* Syncs every frame written so far. Touches no state of `w` but reads its
 * descriptor, so it may run beside an append (store_sync.c's group commit). */
int wal_sync(wal *w, err *e);
/* After a checkpoint to `generation` (its header synced), of a file whose
 * identity is `db_id`: an empty log continuing it. Synced only when
 * `sync`; otherwise the next commit's sync makes it durable, and until
 * then a crash may keep the old frames, whose older generation ends the
 * log. Pass `sync` when commits are not synced. */
int wal_reset(wal *w, uint64_t generation, const uint8_t *db_id, bool sync, err *e);
/* Frames appended from now on carry `generation` (a checkpoint's, once
 * its header is durable), the log is not reset: its frames, of the
 * generations since its base, still replay (by tx_count). */
void wal_continue(wal *w, uint64_t generation);
/* The log's salt (0 for a log of an earlier release until its reset):
 * a checkpoint's header records it (format_header.wal_salt). */
uint32_t wal_salt(const wal *w);
/* Bytes of frames in the log. */
uint64_t wal_size(const wal *w);

/* A new log taking over the frames a checkpoint's durable header does not
 * hold, so that the log restarts while commits go on (store_checkpoint.c):
 * `<log>.next` gets a header continuing `generation` (a new salt) and
 * copies of the log's frames from byte `from` (wal_size terms) on, each
 * restamped with `generation` and not ORDERED; renamed over the log, it
 * is the log. Until the rename the old log is whole and replays beside
 * the header (its salt is the one the header names); after it the new
 * one does (its frames are of the header's generation). Open, copy and
 * drop only read `w`'s descriptor, path and identity: they may run beside
 * appends past the bytes they copy. */
typedef struct wal_next wal_next;
int wal_next_open(const wal *w, uint64_t from, uint64_t generation, wal_next **out, err *e);
/* Copies the frames up to byte `to` (whole frames), syncing the new log
 * when `sync`. */
int wal_next_copy(const wal *w, wal_next *n, uint64_t to, bool sync, err *e);
/* Renames the new log over the log and makes `w` it (frames appended
 * from now on go there); every frame of `w` must be copied. On failure
 * `w` is unchanged and `n` dropped. The rename is durable once
 * wal_sync_dir returned. */
int wal_next_take(wal *w, wal_next *n, err *e);
/* Deletes a new log not taken (NULL: nothing). */
void wal_next_drop(const wal *w, wal_next *n);
int wal_sync_dir(const wal *w, err *e);

#endif
