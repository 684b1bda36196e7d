/* Typed values (language.md §6.2) and the comparison relations of language.md §6.4/§6.5.
 *
 * A value is a small POD. String and keyword payloads are borrowed: they
 * point into whatever owns the value (a parse arena, the store's string
 * pool, a result set's arena). */
#ifndef MG_MODEL_VALUE_H
#define MG_MODEL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "model/uuid.h"

/* Declared in the O3 type-rank order: String < Integer < Float < Boolean <
 * Ref < Keyword < Null < List. A List (language.md D4) is never stored: it is
 * the result of the collect-set aggregate only. */
typedef enum value_type {
    VT_STRING = 0,
    VT_INTEGER,
    VT_FLOAT,
    VT_BOOLEAN,
    VT_REF,
    VT_KEYWORD, /* text includes the leading ':' */
    VT_NULL,
    VT_LIST /* items borrowed from the owner, like string payloads */
} value_type;

/* Where stored values come from: a store reader's snapshot, which turns
 * a dictionary id into the entity's UUID or the text's bytes (valid as
 * long as the source) — 0, or an error code with `e` set. The comparisons
 * below cannot report a failure: they pass no `e`, and the source then
 * keeps the error and sets `failed` for its owner to report. */
typedef struct value_source value_source;
typedef struct value value;
struct value_source {
    int (*entity)(const value_source *src, uint64_t id, uuid128 *out, err *e);
    int (*text)(const value_source *src, uint64_t id, const char **ptr, size_t *len, err *e);
    /* The entity a stored keyword names (uuid_of_keyword of its text), or
     * NULL: derived from `text` each time. */
    int (*keyword_entity)(const value_source *src, uint64_t id, uuid128 *out, err *e);
    /* Starts loading what keyword_entity will read for `id` (a hint: a
     * loop over many records issues it a batch ahead, so the memory
     * waits overlap), or NULL. */
    void (*keyword_prefetch)(const value_source *src, uint64_t id);
    /* Resolves v[0..count) in order (value_resolve_all), stopping at the
     * first failure (*done: the values before it), or NULL. One call for
     * a block of rows where each value would make two (the Ref's UUID is
     * decoded inline). */
    int (*resolve_all)(const value_source *src, value *v, size_t count, size_t *done, err *e);
    bool failed;
};

struct value {
    value_type type;
    /* VT_REF, VT_STRING, VT_KEYWORD: the payload is as.stored, not yet
     * as.ref or as.str (a stored value, value_stored). */
    bool stored;
    union {
        int64_t i;
        double f;
        bool b;
        uuid128 ref;
        struct {
            uint64_t id;
            const value_source *src;
        } stored;
        struct {
            const char *ptr;
            size_t len;
        } str; /* VT_STRING and VT_KEYWORD */
        struct {
            const struct value *items;
            size_t count;
        } list; /* VT_LIST */
    } as;
};

/* Constructors (inline: scans build one per record position). */
static inline value value_string(const char *ptr, size_t len) {
    return (value){.type = VT_STRING, .as.str = {ptr, len}};
}
static inline value value_keyword(const char *ptr, size_t len) {
    return (value){.type = VT_KEYWORD, .as.str = {ptr, len}};
}
static inline value value_integer(int64_t i) {
    return (value){.type = VT_INTEGER, .as.i = i};
}
static inline value value_float(double f) {
    return (value){.type = VT_FLOAT, .as.f = f};
}
static inline value value_boolean(bool b) {
    return (value){.type = VT_BOOLEAN, .as.b = b};
}
static inline value value_ref(uuid128 u) {
    return (value){.type = VT_REF, .as.ref = u};
}
static inline value value_null(void) {
    return (value){.type = VT_NULL};
}
static inline value value_list(const value *items, size_t count) {
    return (value){.type = VT_LIST, .as.list = {items, count}};
}

/* value_integer, value_null and value_ref written into *v in place. A hot loop
 * uses these: gcc builds the compound literal of the union on the stack
 * and copies it in pieces that straddle its own stores, so each value
 * waits for a failed store-to-load forwarding (in perf, most of a typed-
 * row scan's time in the two functions that make its rows' values). */
static inline void value_set_integer(value *v, int64_t i) {
    v->type = VT_INTEGER;
    v->stored = false;
    v->as.stored.src = NULL; /* the rest of the union, zero as in value_integer */
    v->as.i = i;
}
static inline void value_set_null(value *v) {
    v->type = VT_NULL;
    v->stored = false;
    v->as.stored.id = 0; /* the union zero, as in value_null */
    v->as.stored.src = NULL;
}
static inline void value_set_ref(value *v, const uuid128 *u) {
    v->type = VT_REF;
    v->stored = false;
    memcpy(v->as.ref.bytes, u->bytes, sizeof u->bytes);
}

/* value_stored written into *v in place (the same reason). */
static inline void value_set_stored(value *v, value_type type, const value_source *src,
                                    uint64_t id) {
    v->type = type;
    v->stored = true;
    v->as.stored.id = id;
    v->as.stored.src = src;
}

/* *dst = *src, field by field: a value just made by the setters above or
 * by value_stored is read back in the pieces it was written in (a
 * struct copy loads it 16 bytes at a time, across them: the same stall). */
static inline void value_copy_fields(value *dst, const value *src) {
#if UINTPTR_MAX == UINT64_MAX /* as.stored's two words are the whole union */
    _Static_assert(sizeof src->as == sizeof src->as.stored, "as.stored covers the union");
    dst->type = src->type;
    dst->stored = src->stored;
    dst->as.stored.id = src->as.stored.id;
    dst->as.stored.src = src->as.stored.src;
#else
    *dst = *src;
#endif
}

/* A Ref, String or Keyword that stays in its stored form, the dictionary
 * id `id` of `src`, until something needs its bytes. It is the value it
 * names for every relation below: two of one type from the same source
 * compare by id (a snapshot's dictionary holds each UUID and each text
 * once), anything else decodes it through the source. Code that reads
 * as.ref or as.str itself calls value_resolve first. */
static inline value value_stored(value_type type, const value_source *src, uint64_t id) {
    return (value){.type = type, .stored = true, .as.stored = {id, src}};
}
/* Hints that the entity of `v` (value_hash_entity, value_equal_entity)
 * is wanted soon: a stored keyword's source starts loading it. */
static inline void value_prefetch_entity(const value *v) {
    if (v->type == VT_KEYWORD && v->stored && v->as.stored.src->keyword_prefetch)
        v->as.stored.src->keyword_prefetch(v->as.stored.src, v->as.stored.id);
}
/* Replaces a stored value by the one it names (other values are left
 * alone): 0, or the source's error code. */
int value_resolve_stored(value *v, err *e);
static inline int value_resolve(value *v, err *e) {
    return v->stored ? value_resolve_stored(v, e) : 0;
}
/* value_resolve of v[0..count) in order, through the source of the first
 * stored value (value_source.resolve_all) when it has that call: 0, or
 * the error of the first that fails with *done the values before it. */
int value_resolve_all(value *v, size_t count, size_t *done, err *e);

/* E1 strict equality: same type and payload; floats by IEEE ==. */
bool value_equal_strict(const value *a, const value *b);
/* E2 entity equivalence: E1 plus Keyword k ≡ Ref(uuid_of_keyword(k)). */
bool value_equal_entity(const value *a, const value *b);
/* E3 record identity: type + canonical bytes (all NaNs equal, 0.0 != -0.0). */
bool value_identical(const value *a, const value *b);
/* Hash consistent with E3. */
uint64_t value_hash_identity(const value *v);
/* Hash consistent with O3 equality (value_equal_total): every NaN alike,
 * -0.0 as 0.0. */
uint64_t value_hash_total(const value *v);
/* Hash consistent with E2 (keywords hash as their entity's UUID). */
uint64_t value_hash_entity(const value *v);
/* O3 total order: type rank, then payload (<0, 0, >0); two lists compare
 * element by element under O3, then by length. E1/E2 compare lists element
 * by element under E1, E3 under E3; value_hash_identity hashes the items. */
int value_compare_total(const value *a, const value *b);
/* O3 equality (value_compare_total == 0), which needs no order: two stored
 * references of one source compare by id alone. */
bool value_equal_total(const value *a, const value *b);
/* E4: does a pattern constant match a stored value (language.md §8.3.2)? Keyword and Ref
 * constants match under E2; float constants within machine epsilon (NaN
 * never); other types under E1. */
bool value_match_constant(const value *constant, const value *stored);

/* The entity a value names, for E/V positions: Ref → itself; Keyword →
 * uuid_of_keyword. Returns false for other types. */
bool value_as_entity(const value *v, uuid128 *out);

/* "String", "Integer", "Float", "Boolean", "Ref", "Keyword", "Null". */
const char *value_type_name(value_type t);

#endif
