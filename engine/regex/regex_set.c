/* Code point range sets: the classes, literals and `.` of a pattern. */
#include <stdlib.h>
#include <string.h>

#include "regex/regex_internal.h"

bool rx_set_add(arena *a, rx_set *s, uint32_t lo, uint32_t hi) {
    rx_range *r = arena_grow_array(a, s->r, s->n, &s->cap, s->n + 1, sizeof *r, 4);
    if (!r)
        return false;
    s->r = r;
    s->r[s->n++] = (rx_range){lo, hi};
    return true;
}

/* For every part of a range inside a-z (A-Z), adds the same part of A-Z (a-z). */
bool rx_set_add_ascii_fold(arena *a, rx_set *s) {
    size_t n = s->n;
    for (size_t i = 0; i < n; i++) {
        uint32_t lo = s->r[i].lo, hi = s->r[i].hi;
        uint32_t l1 = lo > 'a' ? lo : 'a', h1 = hi < 'z' ? hi : 'z';
        if (l1 <= h1 && !rx_set_add(a, s, l1 - 32, h1 - 32))
            return false;
        uint32_t l2 = lo > 'A' ? lo : 'A', h2 = hi < 'Z' ? hi : 'Z';
        if (l2 <= h2 && !rx_set_add(a, s, l2 + 32, h2 + 32))
            return false;
    }
    return true;
}

static int rx_range_cmp(const void *x, const void *y) {
    const rx_range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

void rx_set_normalize(rx_set *s) {
    if (s->n < 2)
        return;
    qsort(s->r, s->n, sizeof *s->r, rx_range_cmp);
    size_t w = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->r[i].lo <= s->r[w].hi + 1) {
            if (s->r[i].hi > s->r[w].hi)
                s->r[w].hi = s->r[i].hi;
        } else {
            s->r[++w] = s->r[i];
        }
    }
    s->n = w + 1;
}

bool rx_set_negate(arena *a, rx_set *s) {
    rx_set out = {0};
    uint32_t next = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->r[i].lo > next && !rx_set_add(a, &out, next, s->r[i].lo - 1))
            return false;
        next = s->r[i].hi + 1;
    }
    if (next <= RX_MAX_CP && !rx_set_add(a, &out, next, RX_MAX_CP))
        return false;
    *s = out;
    return true;
}

/* \d \w \s and their negations, ASCII-only as in regex-lite. */
bool rx_set_add_perl(arena *a, rx_set *s, char cls) {
    rx_set t = {0};
    bool ok = true;
    switch (cls | 0x20) {
    case 'd': ok = rx_set_add(a, &t, '0', '9'); break;
    case 'w':
        ok = rx_set_add(a, &t, '0', '9') && rx_set_add(a, &t, 'A', 'Z') &&
             rx_set_add(a, &t, '_', '_') && rx_set_add(a, &t, 'a', 'z');
        break;
    default: /* s: \t \n \v \f \r and space */
        ok = rx_set_add(a, &t, '\t', '\r') && rx_set_add(a, &t, ' ', ' ');
        break;
    }
    if (ok && cls >= 'A' && cls <= 'Z')
        ok = rx_set_negate(a, &t);
    for (size_t i = 0; ok && i < t.n; i++)
        ok = rx_set_add(a, s, t.r[i].lo, t.r[i].hi);
    return ok;
}
