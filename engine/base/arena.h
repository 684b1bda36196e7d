/* Region allocator: many allocations, one free. Used for everything whose
 * lifetime is one parse, one query or one result set. */
#ifndef MG_BASE_ARENA_H
#define MG_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;
    unsigned char *free; /* the head block's free space: `avail` bytes */
    size_t avail;
    size_t bytes_used; /* total bytes handed out, for memory meters */
    size_t block_size; /* 0: the standard 64 KiB */
} arena;

void arena_init(arena *a);
/* An arena of smaller blocks (0: the standard size), for memory kept long
 * (blocks smaller than the standard size are malloc'd and freed, not kept
 * for reuse as larger ones are: arena.c). */
void arena_init_blocks(arena *a, size_t block_size);
/* arena_alloc and arena_calloc: 16-byte aligned, never NULL unless out of
 * memory (defined below: inline, so that a query's many small fixed-size
 * allocations cost a few instructions each). */
static inline void *arena_alloc(arena *a, size_t size);
static inline void *arena_calloc(arena *a, size_t count, size_t size);
/* Copies `len` bytes and appends a NUL. */
char *arena_strndup(arena *a, const char *s, size_t len);
/* Growable arrays in an arena: `items` (of `count` items of `size` bytes)
 * itself when its capacity `*cap` holds `need` items, else a copy in a new
 * allocation whose capacity doubles from `first`, zeroed past `count`; the
 * outgrown array stays in the arena until it is freed. NULL (and *cap
 * unchanged) when out of memory. Arrays that must charge a memory meter
 * for each growth use finish_grow (exec/finish_plan.c) instead. */
void *arena_grow_array(arena *a, void *items, size_t count, size_t *cap, size_t need, size_t size,
                       size_t first);
/* Gives every block back (arena.c keeps up to 32 MiB of them, process-wide,
 * for the next arenas); the arena may be reused. */
void arena_free(arena *a);
/* Empties the arena like arena_free, but a one-block arena of standard
 * blocks keeps its block for the next allocations: for an arena emptied
 * and refilled by every query (a pooled store reader's). */
void arena_rewind(arena *a);
/* Bytes the arena's blocks take, headers included. */
size_t arena_footprint(const arena *a);

#define ARENA_ALIGN 16

/* What arena_alloc(size) adds to bytes_used (0 when it would fail), for
 * callers that charge a memory meter before they allocate. */
static inline size_t arena_size(size_t size) {
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        return 0;
    return (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

/* arena_alloc when the head block has no room for `rounded` bytes. */
void *arena_alloc_block(arena *a, size_t rounded);

static inline void *arena_alloc(arena *a, size_t size) {
    size_t rounded = arena_size(size);
    if (rounded == 0)
        return NULL;
    if (a->avail < rounded)
        return arena_alloc_block(a, rounded);
    void *p = a->free;
    a->free += rounded;
    a->avail -= rounded;
    a->bytes_used += rounded;
    return p;
}

static inline void *arena_calloc(arena *a, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = arena_alloc(a, bytes);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

#endif
