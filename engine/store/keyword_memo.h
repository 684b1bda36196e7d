/* The entity of each keyword value a reader decoded, by the keyword's
 * dictionary location: deriving it is a SHA-1 of the text (language.md
 * §6.1) after reading the text, about 4,000 instructions a record, and a
 * scan that joins on keyword values (a hash join's build side) derives
 * every one of them again on each run. A location's text never changes,
 * so an entry stays true for the reader's life; the table is kept with a
 * pooled reader between queries. */
#ifndef MG_STORE_KEYWORD_MEMO_H
#define MG_STORE_KEYWORD_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/uuid.h"

/* Past this many slots (24 B each: 48 MiB, room for 1.5 million
 * keywords; the grant may stop it sooner) the table stops growing and
 * later keywords are derived each time, each a dictionary read that at
 * 10M facts misses the page cache: a cap of 6 MiB made a join on 1.7
 * million keyword values read 477 MB a run instead of 244 (issue 18). */
#define KEYWORD_MEMO_MAX_SLOTS (1u << 21)

typedef struct keyword_slot {
    uint64_t key; /* location + 1; 0: empty */
    uuid128 u;
} keyword_slot;

typedef struct keyword_memo {
    keyword_slot *slots;
    size_t cap, count; /* cap: 0 or a power of two */
} keyword_memo;

/* Asked before the table grows to `bytes`: true lets it (the old array
 * is freed once the new one is filled). */
typedef bool (*keyword_memo_grant)(void *ctx, size_t bytes);

bool keyword_memo_find(const keyword_memo *m, uint64_t loc, uuid128 *u);
/* Starts loading the slot keyword_memo_find(m, loc, ..) reads first. */
void keyword_memo_prefetch(const keyword_memo *m, uint64_t loc);
/* Remembers loc's entity; best effort (full, refused or out of memory:
 * not remembered). */
void keyword_memo_put(keyword_memo *m, uint64_t loc, const uuid128 *u, keyword_memo_grant grant,
                      void *ctx);
void keyword_memo_free(keyword_memo *m);

#endif
