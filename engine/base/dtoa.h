/* Shortest round-trip decimal digits of a double (for JSON and the
 * canonical printer). */
#ifndef MG_BASE_DTOA_H
#define MG_BASE_DTOA_H

#include <stddef.h>

#define DTOA_DIGITS_MAX 18 /* 17 significant digits and a NUL */

/* For a finite x > 0: the fewest digits d1..dn (no trailing zeros) that
 * read back as x, correctly rounded, and the decimal exponent of d1, so
 * x = d1.d2…dn × 10^exp10. Returns n. */
size_t dtoa_shortest(double x, char digits[DTOA_DIGITS_MAX], int *exp10);

#endif
