/* Growable byte buffer (for building text). */
#ifndef MG_BASE_BUF_H
#define MG_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    bool oom; /* set once an allocation failed; later appends are no-ops */
} buf;

void buf_init(buf *b);
void buf_append(buf *b, const char *s, size_t len);
void buf_puts(buf *b, const char *s);
/* Inline: JSON batches put a separator between every two values. */
static inline void buf_putc(buf *b, char c) {
    if (!b->oom && b->len + 1 < b->cap) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
    } else {
        buf_append(b, &c, 1);
    }
}
/* Room for `n` more bytes: where to write them (then buf_commit(b, n)),
 * or NULL when out of memory. Saves a copy for text formatted in place. */
char *buf_grow(buf *b, size_t n);
static inline char *buf_space(buf *b, size_t n) {
    return !b->oom && b->len + n < b->cap ? b->data + b->len : buf_grow(b, n);
}
static inline void buf_commit(buf *b, size_t n) {
    b->len += n;
    b->data[b->len] = '\0';
}
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the heap string to the caller (NULL if oom) and resets `b`. */
char *buf_detach(buf *b);
void buf_free(buf *b);

#endif
