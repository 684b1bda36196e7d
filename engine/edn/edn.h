/* The EDN reader (language.md §2): text → a tree of datums with source positions. */
#ifndef MG_EDN_EDN_H
#define MG_EDN_EDN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "model/uuid.h"

typedef enum edn_kind {
    EDN_LIST,
    EDN_VECTOR,
    EDN_MAP, /* items hold key, value, key, value, ... (duplicates kept) */
    EDN_STRING,
    EDN_INTEGER,
    EDN_FLOAT,
    EDN_BOOLEAN,
    EDN_NIL,
    EDN_KEYWORD, /* text includes the ':' */
    EDN_SYMBOL,  /* includes operator symbols and ?variables */
    EDN_UUID,    /* #uuid "..." */
    EDN_SLOT     /* $name; text excludes the '$' */
} edn_kind;

typedef struct edn edn;
struct edn {
    edn_kind kind;
    uint32_t line;   /* 1-based */
    uint32_t column; /* 1-based, in bytes */
    union {
        struct {
            edn *items;
            size_t count;
        } seq; /* LIST, VECTOR, MAP */
        struct {
            const char *ptr; /* NUL-terminated, decoded (strings) */
            size_t len;
        } text; /* STRING, KEYWORD, SYMBOL, SLOT */
        int64_t i;
        double f;
        bool b;
        uuid128 uuid;
    } as;
};

/* Reads exactly one top-level value from text[0..len) (trailing tokens are
 * an error). Everything is allocated in `a`. Returns 0, or the error code
 * with `e` set (PRS-001…009, PRS-071…074, and the uncoded lexer errors). */
int edn_read(const char *text, size_t len, arena *a, edn **out, err *e);

/* Inline so that strlen of a literal `s` folds: the parser tests each
 * query's keywords against a dozen names. */
static inline bool edn_is_text(const edn *d, edn_kind kind, const char *s) {
    return d && d->kind == kind && d->as.text.len == strlen(s) &&
           memcmp(d->as.text.ptr, s, d->as.text.len) == 0;
}

/* True when `d` is a symbol whose text is exactly `s`. */
static inline bool edn_is_symbol(const edn *d, const char *s) {
    return edn_is_text(d, EDN_SYMBOL, s);
}

/* True when `d` is a keyword whose text is exactly `s` (with the ':'). */
static inline bool edn_is_keyword(const edn *d, const char *s) {
    return edn_is_text(d, EDN_KEYWORD, s);
}

/* Writes a short description of a datum for messages, e.g. `Integer(10)`,
 * `Symbol(foo)`, `Vector`. */
void edn_describe(const edn *d, char *out, size_t cap);

#endif
