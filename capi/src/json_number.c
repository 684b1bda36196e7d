#include "json_number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest digit string d1..dn and exponent k with x = 0.d1..dn * 10^k.
 * printf rounds correctly, so the first precision that reads back exactly
 * gives the shortest correctly rounded digits. */
static size_t shortest_digits(double x, char digits[18], int *k)
{
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*e", precision - 1, x);
        if (strtod(text, NULL) == x || precision == 17)
            break;
    }
    size_t n = 0;
    const char *p = text;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    *k = atoi(p + 1) + 1;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return n;
}

static size_t put_zeros(char *out, size_t at, int count)
{
    for (int i = 0; i < count; i++)
        out[at++] = '0';
    return at;
}

size_t json_format_double(double x, char out[JSON_DOUBLE_MAX])
{
    size_t at = 0;
    if (x < 0 || (x == 0 && 1 / x < 0)) {
        out[at++] = '-';
        x = -x;
    }
    if (x == 0) {
        memcpy(out + at, "0.0", 4);
        return at + 3;
    }
    char digits[18];
    int k;
    int n = (int)shortest_digits(x, digits, &k);

    if (k >= n && k <= 16) { /* integral: 1234e3 -> 1234000.0 */
        memcpy(out + at, digits, (size_t)n);
        at = put_zeros(out, at + (size_t)n, k - n);
        memcpy(out + at, ".0", 2);
        at += 2;
    } else if (k > 0 && k <= 16) { /* 12.34 */
        memcpy(out + at, digits, (size_t)k);
        at += (size_t)k;
        out[at++] = '.';
        memcpy(out + at, digits + k, (size_t)(n - k));
        at += (size_t)(n - k);
    } else if (k > -5 && k <= 0) { /* 0.001234 */
        out[at++] = '0';
        out[at++] = '.';
        at = put_zeros(out, at, -k);
        memcpy(out + at, digits, (size_t)n);
        at += (size_t)n;
    } else { /* 1.234e33, 1e-7 */
        out[at++] = digits[0];
        if (n > 1) {
            out[at++] = '.';
            memcpy(out + at, digits + 1, (size_t)(n - 1));
            at += (size_t)(n - 1);
        }
        at += (size_t)snprintf(out + at, JSON_DOUBLE_MAX - at, "e%d", k - 1);
    }
    out[at] = '\0';
    return at;
}
