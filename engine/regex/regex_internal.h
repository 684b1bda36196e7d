/* Shared by the regex_*.c files: the syntax tree, the range sets and the
 * instruction set of the VM. */
#ifndef MG_REGEX_REGEX_INTERNAL_H
#define MG_REGEX_REGEX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

#define RX_MAX_CP 0x10FFFFu
#define RX_MAX_REPEAT 1000  /* largest {m,n} bound */
#define RX_MAX_INSTS 100000 /* program size limit after expanding {m,n} */
#define RX_MAX_NEST 100     /* group nesting */

typedef struct rx_range {
    uint32_t lo, hi; /* inclusive */
} rx_range;

/* A growable, then normalised (sorted, merged) set of code point ranges. */
typedef struct rx_set {
    rx_range *r;
    size_t n, cap;
} rx_set;

bool rx_set_add(arena *a, rx_set *s, uint32_t lo, uint32_t hi);
bool rx_set_add_ascii_fold(arena *a, rx_set *s); /* (?i): add the other ASCII case */
void rx_set_normalize(rx_set *s);
bool rx_set_negate(arena *a, rx_set *s);             /* normalised input */
bool rx_set_add_perl(arena *a, rx_set *s, char cls); /* d D w W s S */

typedef enum rx_assert {
    RX_TEXT_START, /* ^ or \A */
    RX_TEXT_END,   /* $ or \z */
    RX_LINE_START, /* ^ under (?m) */
    RX_LINE_END,   /* $ under (?m) */
    RX_WORD,       /* \b */
    RX_NOT_WORD    /* \B */
} rx_assert;

typedef enum rx_node_kind { RN_EMPTY, RN_SET, RN_CAT, RN_ALT, RN_REPEAT, RN_ASSERT } rx_node_kind;

/* CAT and ALT are n-ary, so long patterns (abcd..., a|b|c|...) do not
 * make deep trees. */
typedef struct rx_node rx_node;
struct rx_node {
    rx_node_kind kind;
    rx_set set;      /* SET (normalised) */
    rx_node **items; /* CAT, ALT */
    size_t count;
    rx_node *sub;        /* REPEAT */
    int min, max;        /* REPEAT; max -1 = unbounded */
    rx_assert assertion; /* ASSERT */
};

/* Pattern → tree. Returns the tree or NULL with `why` filled. */
rx_node *rx_parse(const char *pat, size_t len, arena *a, char *why, size_t why_cap);

typedef enum rx_op { RI_SET, RI_SPLIT, RI_JMP, RI_ASSERT, RI_MATCH } rx_op;

typedef struct rx_inst {
    uint8_t op;
    uint8_t assertion;
    uint32_t x, y; /* SET: first range, range count; SPLIT: targets; JMP: x */
} rx_inst;

struct regex_prog {
    rx_inst *code;
    size_t n;
    rx_range *ranges;
    size_t nranges;
};

#endif
