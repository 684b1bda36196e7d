/*
 * runner_json.h — the small JSON reader and canonical writer of the C parity
 * runner (tests/parity/README.md, "Canonical transcript").
 *
 * The reader builds a tree; numbers keep their token text so that the
 * canonical writer can rewrite them textually (all 64 bits of an integer,
 * the shortest digits of a float exactly as the library printed them).
 */
#ifndef MINIGRAF_PARITY_RUNNER_JSON_H
#define MINIGRAF_PARITY_RUNNER_JSON_H

#include <stddef.h>

typedef enum jv_kind {
    JV_NULL,
    JV_FALSE,
    JV_TRUE,
    JV_NUMBER,
    JV_STRING,
    JV_ARRAY,
    JV_OBJECT
} jv_kind;

typedef struct jv {
    jv_kind kind;
    char *text;       /* JV_NUMBER: the token; JV_STRING: decoded UTF-8 */
    size_t len;       /* byte length of text */
    struct jv *items; /* JV_ARRAY elements / JV_OBJECT values */
    char **keys;      /* JV_OBJECT keys (decoded), parallel to items */
    size_t count;
} jv;

/* A growable byte buffer; `data` is always NUL-terminated. */
typedef struct sbuf {
    char *data;
    size_t len, cap;
} sbuf;

void sb_add(sbuf *b, const char *bytes, size_t len);
void sb_puts(sbuf *b, const char *s);
void sb_putc(sbuf *b, char c);
void sb_free(sbuf *b);

/* Parses one JSON text (surrounding whitespace allowed). Returns 0 and fills
 * *out, or -1 on malformed input. Free with jv_free(). */
int jv_parse(const char *text, jv *out);
void jv_free(jv *v);

/* The value of `key` in an object, or NULL. */
const jv *jv_get(const jv *object, const char *key);

/* Canonical forms of the README: strings escaped minimally (", \, and every
 * code point below U+0020 as \u00xx); numbers as an int64 integer when they
 * are one, else d1.d2…dne<x>; arrays and objects compact, in their order. */
void canon_string(sbuf *b, const char *s, size_t len);
void canon_number(sbuf *b, const char *token);
void canon_value(sbuf *b, const jv *v);

#endif
