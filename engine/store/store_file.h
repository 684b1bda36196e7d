/* The durable file behind a file-backed store: a 16-byte header, then one
 * framed record per committed transaction, appended and synced before the
 * commit returns. A temporary format until the paged storage engine lands.
 *
 *   header: "MINIGRAF" | u32 format version (1) | u32 CRC-32 of bytes 0..11
 *   frame:  u32 payload length | u32 CRC-32 of payload | payload
 *           (payload layout: store_codec.h)
 *
 * A frame that is short or fails its checksum is a torn tail left by a
 * crash: it and everything after it are cut away when the file is opened
 * for writing (and ignored when opened read-only); earlier transactions are
 * kept. All values are little-endian.
 *
 * STG codes raised here:
 *   STG-001 header shorter than 16 bytes (and not a torn header we wrote)
 *   STG-002 not a minigraf database file (bad magic)
 *   STG-003 unsupported format version
 *   STG-004 header checksum mismatch
 *   STG-005 a record whose checksum holds but whose content is inconsistent
 *   STG-010 cannot open          STG-011 read failed
 *   STG-012 write failed         STG-013 sync failed
 *   STG-014 truncate failed      STG-015 stat failed
 *   STG-016 transaction too large for one record
 *   STG-025/026/027 already open in this process / locked by another
 *   process / locking unsupported (store_lock.h)
 * I/O errors carry strerror(errno) and the path. */
#ifndef MG_STORE_STORE_FILE_H
#define MG_STORE_STORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define STORE_FILE_FRAME_HEADER 8

typedef struct store_file store_file;

/* Opens (creating it unless read-only) and checks the header. */
int store_file_open(const char *path, bool read_only, store_file **out, err *e);

typedef int (*store_file_apply_fn)(void *ctx, const uint8_t *payload, size_t len, err *e);
/* Calls `apply` on every intact record in file order, then cuts off a torn
 * tail. An error from `apply` stops the replay and is returned. */
int store_file_replay(store_file *f, store_file_apply_fn apply, void *ctx, err *e);

/* Appends one record and makes it durable (fdatasync). `frame` starts with
 * STORE_FILE_FRAME_HEADER bytes that this function fills in; the payload
 * follows. On failure the file's logical end does not move. */
int store_file_append(store_file *f, uint8_t *frame, size_t frame_len, err *e);

int store_file_sync(store_file *f, err *e);
void store_file_close(store_file *f);

#endif
