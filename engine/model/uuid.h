/* 128-bit entity ids and the keyword → entity mapping (language.md §6.1). */
#ifndef MG_MODEL_UUID_H
#define MG_MODEL_UUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/htab.h"

typedef struct uuid128 {
    uint8_t bytes[16];
} uuid128;

#define UUID_TEXT_LEN 36 /* lowercase 8-4-4-4-12, without the NUL */

/* Parses the hyphenated 8-4-4-4-12 form, the 32-hex "simple" form, the
 * braced {...} form and the urn:uuid: form, case-insensitively. */
bool uuid_parse(const char *s, size_t len, uuid128 *out);

/* Writes the lowercase hyphenated form plus a NUL (37 bytes). */
void uuid_format(const uuid128 *u, char out[UUID_TEXT_LEN + 1]);

bool uuid_equal(const uuid128 *a, const uuid128 *b);
int uuid_compare(const uuid128 *a, const uuid128 *b); /* by bytes */

/* entity_id(k) of language.md §6.1: `keyword` is the full text including the
 * leading ':'. The body, if it spells a UUID (hyphenated or simple), is
 * that UUID; otherwise UUIDv5(OID namespace, keyword bytes). */
uuid128 uuid_of_keyword(const char *keyword, size_t len);

/* A keyword -> UUID cache for one long computation on the calling thread
 * (rule evaluation derives the UUID of the same few thousand keywords
 * millions of times: hashing, E2 comparisons, head entities). Between
 * uuid_cache_begin and uuid_cache_end, on the same thread, uuid_of_keyword
 * remembers every keyword it derives (up to UUID_CACHE_MAX of them) in `c`.
 * Scopes nest; `end` restores the enclosing one and frees `c`. Best
 * effort: out of memory only stops the cache from growing. */
#define UUID_CACHE_MAX (1u << 20)

typedef struct uuid_cache_entry uuid_cache_entry;

/* A stored keyword's UUID by its source and dictionary id (valid within
 * the scope: its sources outlive it and their ids name fixed texts). */
#define UUID_CACHE_STORED 64
typedef struct uuid_cache_stored {
    const void *src; /* NULL: empty */
    uint64_t id;
    uuid128 u;
} uuid_cache_stored;

typedef struct uuid_cache {
    uuid_cache_stored stored[UUID_CACHE_STORED]; /* direct-mapped */
    htab index; /* hash of the keyword text -> entry */
    uuid_cache_entry *entries;
    uint32_t count; /* an htab id */
    size_t cap;
    arena text;
    struct uuid_cache *outer;
} uuid_cache;

void uuid_cache_begin(uuid_cache *c);
void uuid_cache_end(uuid_cache *c);

/* The UUID of the keyword with dictionary id `id` in `src`, remembered by
 * the current scope: true with *out set, false when there is no scope or
 * the scope has not seen it. uuid_cache_put_stored remembers one (a
 * decoded text hashed and looked up again per use costs more than the
 * rest of a rule body's seek). */
bool uuid_cache_find_stored(const void *src, uint64_t id, uuid128 *out);
void uuid_cache_put_stored(const void *src, uint64_t id, const uuid128 *u);

#endif
