/* An open-addressing hash index from a 64-bit hash to a caller-owned id.
 * The table stores only (hash, id); the caller keeps the keys and answers
 * "is entry `id` equal to what I look for?" through a callback, so one table
 * type serves every key shape. */
#ifndef MG_BASE_HTAB_H
#define MG_BASE_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTAB_NONE UINT32_MAX

typedef bool (*htab_eq_fn)(const void *ctx, uint32_t id);

typedef struct htab {
    uint64_t *hashes;
    uint32_t *ids; /* HTAB_NONE marks an empty slot */
    size_t cap;    /* 0 or a power of two */
    size_t count;
} htab;

void htab_init(htab *h);
void htab_free(htab *h);
/* Empties the table, keeping its capacity. */
void htab_clear(htab *h);
/* The id of the entry with this hash for which eq(ctx, id) holds, or
 * HTAB_NONE. */
uint32_t htab_find(const htab *h, uint64_t hash, htab_eq_fn eq, const void *ctx);
/* Makes room for `extra` more inserts without reallocating. -1: no memory. */
int htab_reserve(htab *h, size_t extra);
/* The bytes of the arrays of a table that htab_reserve made room for
 * `count` entries from empty (SIZE_MAX when too many). */
size_t htab_bytes_for(size_t count);
/* Adds an entry (the caller checked it is absent). -1: no memory. */
int htab_insert(htab *h, uint64_t hash, uint32_t id);

#endif
