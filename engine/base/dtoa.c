#include "base/dtoa.h"

#include <stdio.h>
#include <stdlib.h>

/* printf rounds correctly, so the first precision whose text reads back
 * exactly gives the shortest correctly rounded digits. Only the digits and
 * the exponent are taken from the text, so the locale's decimal separator
 * does not matter. */
size_t dtoa_shortest(double x, char digits[DTOA_DIGITS_MAX], int *exp10) {
    char text[40];
    for (int precision = 0; precision < 17; precision++) {
        snprintf(text, sizeof text, "%.*e", precision, x);
        if (strtod(text, NULL) == x)
            break;
    }
    size_t n = 0;
    const char *p = text;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && n + 1 < DTOA_DIGITS_MAX)
            digits[n++] = *p;
    *exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return n;
}
