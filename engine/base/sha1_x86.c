/* SHA-1 compression on SHA-NI (see sha1_x86.h). Each step runs four
 * rounds: sha1rnds4 does the rounds, sha1nexte derives E, sha1msg1 and
 * sha1msg2 (with an xor between them) extend the message schedule four
 * words at a time, the sixteen live words held in four registers that
 * take turns. Other compilers and processors keep the portable code. */
#include "base/sha1_x86.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>

bool sha1_x86_available(void) {
    static atomic_int known = -1; /* relaxed: every thread computes the same */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        unsigned a, b, c, d;
        bool ssse3_sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19));
        bool sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
        v = ssse3_sse41 && sha;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v == 1;
}

/* Four rounds with message words `mi` into E register `ei` (the other,
 * `ej`, keeps ABCD for the next step), and the schedule's work on the
 * other registers: MSG2 finishes `mj`, MSG1 starts `ml`, XOR feeds `mk`. */
#define ROUNDS(mi, ei, ej, f)         \
    ei = _mm_sha1nexte_epu32(ei, mi); \
    ej = abcd;                        \
    abcd = _mm_sha1rnds4_epu32(abcd, ei, f)
#define MSG2(mj, mi) mj = _mm_sha1msg2_epu32(mj, mi)
#define MSG1(ml, mi) ml = _mm_sha1msg1_epu32(ml, mi)
#define XOR(mk, mi) mk = _mm_xor_si128(mk, mi)
/* The steady state of rounds 12 to 63. */
#define STEP(mi, mj, mk, ml, ei, ej, f) \
    MSG2(mj, mi);                       \
    ROUNDS(mi, ei, ej, f);              \
    MSG1(ml, mi);                       \
    XOR(mk, mi)

__attribute__((target("sha,sse4.1,ssse3"))) void sha1_x86_block(uint32_t state[5],
                                                                const uint8_t block[64]) {
    const __m128i swap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)state), 0x1b);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0), e1;
    const __m128i abcd_in = abcd, e_in = e0;
    __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(block + 0)),
                                  swap);
    __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(block + 16)),
                                  swap);
    __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(block + 32)),
                                  swap);
    __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(block + 48)),
                                  swap);

    /* rounds 0-11: the schedule starts */
    e0 = _mm_add_epi32(e0, m0);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    ROUNDS(m1, e1, e0, 0);
    MSG1(m0, m1);
    ROUNDS(m2, e0, e1, 0);
    MSG1(m1, m2);
    XOR(m0, m2);
    /* rounds 12-67 */
    STEP(m3, m0, m1, m2, e1, e0, 0);
    STEP(m0, m1, m2, m3, e0, e1, 0);
    STEP(m1, m2, m3, m0, e1, e0, 1);
    STEP(m2, m3, m0, m1, e0, e1, 1);
    STEP(m3, m0, m1, m2, e1, e0, 1);
    STEP(m0, m1, m2, m3, e0, e1, 1);
    STEP(m1, m2, m3, m0, e1, e0, 1);
    STEP(m2, m3, m0, m1, e0, e1, 2);
    STEP(m3, m0, m1, m2, e1, e0, 2);
    STEP(m0, m1, m2, m3, e0, e1, 2);
    STEP(m1, m2, m3, m0, e1, e0, 2);
    STEP(m2, m3, m0, m1, e0, e1, 2);
    STEP(m3, m0, m1, m2, e1, e0, 3);
    STEP(m0, m1, m2, m3, e0, e1, 3);
    /* rounds 68-79: the schedule ends */
    MSG2(m2, m1);
    ROUNDS(m1, e1, e0, 3);
    XOR(m3, m1);
    MSG2(m3, m2);
    ROUNDS(m2, e0, e1, 3);
    ROUNDS(m3, e1, e0, 3);

    e0 = _mm_sha1nexte_epu32(e0, e_in);
    abcd = _mm_add_epi32(abcd, abcd_in);
    _mm_storeu_si128((__m128i *)(void *)state, _mm_shuffle_epi32(abcd, 0x1b));
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#else

bool sha1_x86_available(void) {
    return false;
}

void sha1_x86_block(uint32_t state[5], const uint8_t block[64]) {
    (void)state;
    (void)block;
}

#endif
