/* A small JSON reader for the inputs of the fact log and the log writer:
 * the whole text becomes a tree of nodes in an arena (inputs are records
 * and filters, already in memory as text). Strict RFC 8259: no trailing
 * commas, no comments, no leading zeros, no lone surrogates, no raw
 * control characters in strings, no leading '+', no duplicate member
 * names; nesting deeper than JSON_MAX_DEPTH is refused. Every failure is API-017 "invalid <what>
 * JSON: ...". */
#ifndef MG_CAPI_JSON_READ_H
#define MG_CAPI_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

#define JSON_MAX_DEPTH 32

typedef enum json_kind {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_node json_node;
struct json_node {
    json_kind kind;
    bool boolean;
    const char *text; /* STRING: decoded, NUL-terminated; NUMBER: its source text */
    size_t len;
    const char *key; /* a member of an object: its decoded name */
    size_t key_len;
    json_node *first, *next; /* ARRAY / OBJECT children; the next sibling */
    size_t count;            /* ARRAY / OBJECT: number of children */
};

/* Parses the whole of `text`; `what` names the input in messages. */
int json_parse(const char *text, const char *what, arena *a, json_node **out, err *e);

/* The member `key` of an object, or NULL. */
const json_node *json_member(const json_node *object, const char *key);

/* A NUMBER written as an integer (no fraction or exponent) that fits. */
bool json_as_int64(const json_node *n, int64_t *out);
bool json_as_uint64(const json_node *n, uint64_t *out);
/* Any finite NUMBER (false when it overflows a double). */
bool json_as_double(const json_node *n, double *out);

#endif
