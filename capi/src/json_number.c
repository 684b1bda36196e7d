#include "json_number.h"

#include <stdio.h>
#include <string.h>

#include "base/dtoa.h"

static size_t put_zeros(char *out, size_t at, int count) {
    for (int i = 0; i < count; i++)
        out[at++] = '0';
    return at;
}

size_t json_format_double(double x, char out[JSON_DOUBLE_MAX]) {
    size_t at = 0;
    if (x < 0 || (x == 0 && 1 / x < 0)) {
        out[at++] = '-';
        x = -x;
    }
    if (x == 0) {
        memcpy(out + at, "0.0", 4);
        return at + 3;
    }
    char digits[DTOA_DIGITS_MAX];
    int k;
    int n = (int)dtoa_shortest(x, digits, &k);
    k++; /* x = 0.d1d2…dn × 10^k */

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
