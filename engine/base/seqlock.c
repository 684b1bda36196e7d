/* Records read under a sequence count (base/seqlock.h). The orderings are
 * Boehm's ("Can seqlocks get along with programming language memory
 * models?", 2012): the reader's acquire fence keeps its copy before its
 * second look at the count, the writer's release fence keeps its first
 * bump before the record's new words. */
#include "base/seqlock.h"

#include <string.h>

#if defined(__SANITIZE_THREAD__)
#define SEQLOCK_ATOMIC_COPY 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SEQLOCK_ATOMIC_COPY 1
#endif
#endif

void seqlock_init(seqlock *l) {
    atomic_init(&l->seq, 0);
}

unsigned seqlock_read_begin(const seqlock *l) {
    return atomic_load_explicit(&l->seq, memory_order_acquire);
}

bool seqlock_read_end(const seqlock *l, unsigned begin) {
    atomic_thread_fence(memory_order_acquire);
    return (begin & 1u) == 0 && atomic_load_explicit(&l->seq, memory_order_relaxed) == begin;
}

void seqlock_write_begin(seqlock *l) {
    unsigned s = atomic_load_explicit(&l->seq, memory_order_relaxed);
    atomic_store_explicit(&l->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

void seqlock_write_end(seqlock *l) {
    unsigned s = atomic_load_explicit(&l->seq, memory_order_relaxed);
    atomic_store_explicit(&l->seq, s + 1, memory_order_release);
}

#ifdef SEQLOCK_ATOMIC_COPY
void seqlock_copy_out(void *dst, const seq_word *src, size_t words) {
    for (size_t i = 0; i < words; i++) {
        uint64_t w = atomic_load_explicit(&src[i], memory_order_relaxed);
        memcpy((char *)dst + i * sizeof w, &w, sizeof w);
    }
}

void seqlock_copy_in(seq_word *dst, const void *src, size_t words) {
    for (size_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, (const char *)src + i * sizeof w, sizeof w);
        atomic_store_explicit(&dst[i], w, memory_order_relaxed);
    }
}
#else
void seqlock_copy_out(void *dst, const seq_word *src, size_t words) {
    memcpy(dst, (const void *)src, words * sizeof *src);
}

void seqlock_copy_in(seq_word *dst, const void *src, size_t words) {
    memcpy((void *)dst, src, words * sizeof *dst);
}
#endif
