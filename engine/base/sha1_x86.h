/* SHA-1 blocks on the x86 SHA extensions (SHA-NI), when the processor has
 * them: a name-based UUID (language.md §6.1) per keyword value read costs about a
 * tenth of the portable code's work. Used only by sha1.c. */
#ifndef MG_BASE_SHA1_X86_H
#define MG_BASE_SHA1_X86_H

#include <stdbool.h>
#include <stdint.h>

/* Whether sha1_x86_block may run here (decided once, then remembered). */
bool sha1_x86_available(void);
/* Compresses one 64-byte block into state (FIPS 180-4 6.1.2). */
void sha1_x86_block(uint32_t state[5], const uint8_t block[64]);

#endif
