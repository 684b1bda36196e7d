/* Region allocator. Blocks form a singly linked list; big requests get a
 * block of their own so the standard block size stays small.
 *
 * Freed blocks are kept and handed out again. A query uses several
 * short-lived arenas, and a fresh 64 KiB malloc and free for each (glibc's
 * large-chunk path, which also consolidates the small free lists every
 * time) was a measurable part of a point query: each thread keeps up to
 * THREAD_SPARES standard blocks without any lock (a query's arenas are
 * opened and freed on one thread, and a mutex pair per block was ~4% of a
 * point query). A large query's blocks (its work rows, its growing arrays,
 * a window's scratch) would otherwise go back to glibc, which unmaps them
 * or trims the heap, and be faulted in afresh by the next query (~1,000
 * page faults, a tenth of a 1M window query's time): beyond the thread's
 * spares they go to a process-wide pool, under a mutex, that keeps at
 * most POOL_BYTES whatever the number of threads. A thread's own spares
 * are freed when it exits; the pool lives as long as the process. */
#include "base/arena.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

#define ARENA_BLOCK_SIZE (64 * 1024)

struct arena_block {
    arena_block *next;
    size_t cap;
    /* Keeps `data` 16-byte aligned whatever the header size. */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

#define THREAD_SPARES 6
#define POOL_BYTES ((size_t)32 << 20)

/* The pool: standard blocks (taken last in, first out) and others (taken
 * by the smallest that fits, if it is at most twice the size asked). */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static arena_block *pool_standard, *pool_large;
static size_t pool_bytes;

/* The calling thread's spares: a list through `next`. One struct, so that
 * a function finds it with one thread-local lookup. */
typedef struct thread_spares {
    arena_block *head;
    size_t count;
    bool exit_hooked;
} thread_spares;

static _Thread_local thread_spares mine;
static pthread_key_t thread_exit_key;
static bool have_thread_exit_key;
static pthread_once_t thread_exit_once = PTHREAD_ONCE_INIT;

static void free_thread_spares(void *unused) {
    (void)unused;
    thread_spares *t = &mine;
    while (t->head) {
        arena_block *next = t->head->next;
        free(t->head);
        t->head = next;
    }
    t->count = 0;
    t->exit_hooked = false;
}

static void create_thread_exit_key(void) {
    have_thread_exit_key = pthread_key_create(&thread_exit_key, free_thread_spares) == 0;
}

/* When the library is unloaded (dlclose) while threads that used it live
 * on, their exit must not call into unmapped code: the key goes with it
 * (those threads' spares are then not freed). */
__attribute__((destructor)) static void delete_thread_exit_key(void) {
    if (have_thread_exit_key)
        pthread_key_delete(thread_exit_key);
}

/* A thread keeps spares only once its exit is hooked, so none leaks. The
 * key's value only has to be non-NULL for the destructor to run. */
static bool hook_thread_exit(thread_spares *t) {
    if (t->exit_hooked)
        return true;
    pthread_once(&thread_exit_once, create_thread_exit_key);
    t->exit_hooked = have_thread_exit_key &&
                     pthread_setspecific(thread_exit_key, &thread_exit_key) == 0;
    return t->exit_hooked;
}

/* The pool's block for `cap` bytes, or NULL. */
static arena_block *pool_take(size_t cap) {
    pthread_mutex_lock(&pool_mu);
    arena_block **at = NULL;
    if (cap == ARENA_BLOCK_SIZE) {
        at = pool_standard ? &pool_standard : NULL;
    } else {
        for (arena_block **b = &pool_large; *b; b = &(*b)->next)
            if ((*b)->cap >= cap && (*b)->cap / 2 <= cap && (!at || (*b)->cap < (*at)->cap))
                at = b;
    }
    arena_block *taken = at ? *at : NULL;
    if (taken) {
        *at = taken->next;
        pool_bytes -= taken->cap;
    }
    pthread_mutex_unlock(&pool_mu);
    return taken;
}

/* Keeps `b` in the pool if it has room: false when not. */
static bool pool_give(arena_block *b) {
    pthread_mutex_lock(&pool_mu);
    bool kept = b->cap <= POOL_BYTES - pool_bytes;
    if (kept) {
        arena_block **list = b->cap == ARENA_BLOCK_SIZE ? &pool_standard : &pool_large;
        b->next = *list;
        *list = b;
        pool_bytes += b->cap;
    }
    pthread_mutex_unlock(&pool_mu);
    return kept;
}

/* A block of at least `cap` bytes (b->cap: how many). */
static arena_block *block_take(size_t cap) {
    thread_spares *t = &mine;
    arena_block *b = NULL;
    if (cap == ARENA_BLOCK_SIZE && t->head) {
        b = t->head;
        t->head = b->next;
        t->count--;
        return b;
    }
    if (cap >= ARENA_BLOCK_SIZE)
        b = pool_take(cap);
    if (!b && (b = malloc(sizeof(arena_block) + cap)) != NULL)
        b->cap = cap;
    return b;
}

static void block_give(arena_block *b) {
    thread_spares *t = &mine;
    if (b->cap == ARENA_BLOCK_SIZE && t->count < THREAD_SPARES && hook_thread_exit(t)) {
        b->next = t->head;
        t->head = b;
        t->count++;
        return;
    }
    if (b->cap < ARENA_BLOCK_SIZE || !pool_give(b))
        free(b);
}

void arena_init(arena *a) {
    arena_init_blocks(a, ARENA_BLOCK_SIZE);
}

void arena_init_blocks(arena *a, size_t block_size) {
    a->head = NULL;
    a->free = NULL;
    a->avail = 0;
    a->bytes_used = 0;
    a->block_size = block_size;
}

/* A new block for `rounded` bytes. A dedicated one (a big request) goes
 * behind the head, so the head's free space stays available to later
 * small requests; otherwise the new block becomes the head and its rest
 * the free space. */
void *arena_alloc_block(arena *a, size_t rounded) {
    size_t block_size = a->block_size ? a->block_size : ARENA_BLOCK_SIZE;
    int dedicated = rounded > block_size / 4;
    size_t cap = dedicated ? rounded : block_size;
    if (cap > SIZE_MAX - sizeof(arena_block))
        return NULL;
    arena_block *b = block_take(cap);
    if (!b)
        return NULL;
    if (dedicated && a->head) {
        b->next = a->head->next;
        a->head->next = b;
    } else {
        b->next = a->head;
        a->head = b;
        a->free = b->data + rounded;
        a->avail = b->cap - rounded;
    }
    a->bytes_used += rounded;
    return b->data;
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

void *arena_grow_array(arena *a, void *items, size_t count, size_t *cap, size_t need, size_t size,
                       size_t first) {
    size_t n;
    if (need <= *cap)
        return items;
    if (!array_capacity(*cap, need, size, first, &n))
        return NULL;
    unsigned char *grown = arena_calloc(a, n, size);
    if (!grown)
        return NULL;
    if (count)
        memcpy(grown, items, count * size);
    *cap = n;
    return grown;
}

void arena_free(arena *a) {
    for (arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        block_give(b);
    }
    a->head = NULL;
    a->free = NULL;
    a->avail = 0;
    a->bytes_used = 0;
}

void arena_rewind(arena *a) {
    arena_block *b = a->head;
    size_t block_size = a->block_size ? a->block_size : ARENA_BLOCK_SIZE;
    if (!b || b->next || b->cap != block_size) {
        arena_free(a);
        return;
    }
    a->free = b->data;
    a->avail = b->cap;
    a->bytes_used = 0;
}

size_t arena_footprint(const arena *a) {
    size_t bytes = 0;
    for (const arena_block *b = a->head; b; b = b->next)
        bytes += sizeof *b + b->cap;
    return bytes;
}
