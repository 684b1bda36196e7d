/* Region allocator. Blocks form a singly linked list; big requests get a
 * block of their own so the standard block size stays small.
 *
 * The block of a one-block arena is kept when it is freed (up to
 * ARENA_SPARES, process-wide) and handed out again: a query uses several
 * short-lived arenas, and a fresh 64 KiB malloc and free for each (glibc's
 * large-chunk path, which also consolidates the small free lists every
 * time) was a measurable part of a point query. */
#include "base/arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)

struct arena_block {
    arena_block *next;
    size_t used, cap;
    /* Keeps `data` 16-byte aligned whatever the header size. */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

#define ARENA_SPARES 16

static pthread_mutex_t spares_mu = PTHREAD_MUTEX_INITIALIZER;
static arena_block *spares[ARENA_SPARES];
static size_t spare_count;

static arena_block *block_take(size_t cap) {
    arena_block *b = NULL;
    if (cap == ARENA_BLOCK_SIZE) {
        pthread_mutex_lock(&spares_mu);
        if (spare_count > 0)
            b = spares[--spare_count];
        pthread_mutex_unlock(&spares_mu);
    }
    return b ? b : malloc(sizeof(arena_block) + cap);
}

static void block_give(arena_block *b) {
    if (b->cap == ARENA_BLOCK_SIZE) {
        pthread_mutex_lock(&spares_mu);
        if (spare_count < ARENA_SPARES) {
            spares[spare_count++] = b;
            b = NULL;
        }
        pthread_mutex_unlock(&spares_mu);
    }
    free(b);
}

void arena_init(arena *a) {
    a->head = NULL;
    a->bytes_used = 0;
}

/* A dedicated block goes behind the head, so the head's free space stays
 * available to later small requests. */
static arena_block *arena_new_block(arena *a, size_t cap, int dedicated) {
    if (cap > SIZE_MAX - sizeof(arena_block))
        return NULL;
    arena_block *b = block_take(cap);
    if (!b)
        return NULL;
    b->used = 0;
    b->cap = cap;
    if (dedicated && a->head) {
        b->next = a->head->next;
        a->head->next = b;
    } else {
        b->next = a->head;
        a->head = b;
    }
    return b;
}

void *arena_alloc(arena *a, size_t size) {
    size_t rounded = arena_size(size);
    if (rounded == 0)
        return NULL;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < rounded) {
        int dedicated = rounded > ARENA_BLOCK_SIZE / 4;
        b = arena_new_block(a, dedicated ? rounded : ARENA_BLOCK_SIZE, dedicated);
        if (!b)
            return NULL;
    }
    void *p = b->data + b->used;
    b->used += rounded;
    a->bytes_used += rounded;
    return p;
}

void *arena_calloc(arena *a, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = arena_alloc(a, bytes);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t len) {
    if (len == SIZE_MAX)
        return NULL;
    char *p = arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* Only the block of a one-block arena is kept: blocks of a large arena
 * kept scattered through the heap stopped glibc from reusing that space
 * for the next large query (+4 MiB peak RSS on 1M scans). */
void arena_free(arena *a) {
    arena_block *b = a->head;
    if (b && !b->next) {
        block_give(b);
        b = NULL;
    }
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    arena_init(a);
}
