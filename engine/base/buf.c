/* Growable byte buffer. See buf.h. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(buf *b) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = false;
}

/* Makes room for `extra` more bytes plus the terminating NUL. */
static bool buf_reserve(buf *b, size_t extra) {
    if (b->oom)
        return false;
    if (extra >= SIZE_MAX - b->len) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = b->data ? realloc(b->data, cap) : malloc(cap); /* most buffers stay in their first */
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void buf_append(buf *b, const char *s, size_t len) {
    if (!buf_reserve(b, len))
        return;
    if (len)
        memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void buf_puts(buf *b, const char *s) {
    buf_append(b, s, strlen(s));
}

char *buf_grow(buf *b, size_t n) {
    return buf_reserve(b, n) ? b->data + b->len : NULL;
}

void buf_printf(buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n > 0 && buf_reserve(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
    }
    va_end(ap);
}

char *buf_detach(buf *b) {
    char *s = NULL;
    if (!b->oom) {
        s = b->data ? b->data : malloc(1);
        if (s && !b->data)
            s[0] = '\0';
    } else {
        free(b->data);
    }
    buf_init(b);
    return s;
}

void buf_free(buf *b) {
    free(b->data);
    buf_init(b);
}
