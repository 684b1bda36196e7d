/* Syntax tree → VM program (Thompson construction). Counted repetition is
 * expanded into copies, so the program size is bounded by RX_MAX_INSTS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "regex/regex.h"
#include "regex/regex_internal.h"

typedef struct rx_emitter {
    rx_inst *code;
    size_t n, cap;
    rx_range *ranges;
    size_t nranges, rcap;
    arena *a;
    bool too_big, oom;
} rx_emitter;

static bool rx_grow(rx_emitter *em, void **arr, size_t count, size_t *cap, size_t need,
                    size_t elem) {
    void *p = arena_grow_array(em->a, *arr, count, cap, need, elem, 16);
    if (!p) {
        em->oom = true;
        return false;
    }
    *arr = p;
    return true;
}

static size_t rx_emit(rx_emitter *em, rx_op op, uint32_t x, uint32_t y) {
    if (em->n >= RX_MAX_INSTS) {
        em->too_big = true;
        return em->n;
    }
    if (!rx_grow(em, (void **)&em->code, em->n, &em->cap, em->n + 1, sizeof(rx_inst)))
        return em->n;
    em->code[em->n] = (rx_inst){(uint8_t)op, 0, x, y};
    return em->n++;
}

static bool rx_failed(const rx_emitter *em) {
    return em->too_big || em->oom;
}

static void rx_emit_set(rx_emitter *em, const rx_set *s) {
    if (!rx_grow(em, (void **)&em->ranges, em->nranges, &em->rcap, em->nranges + s->n,
                 sizeof(rx_range)))
        return;
    if (s->n)
        memcpy(em->ranges + em->nranges, s->r, s->n * sizeof(rx_range));
    rx_emit(em, RI_SET, (uint32_t)em->nranges, (uint32_t)s->n);
    em->nranges += s->n;
}

static void rx_gen(rx_emitter *em, const rx_node *n);

/* sub* : L: SPLIT body, out; body; JMP L */
static void rx_gen_star(rx_emitter *em, const rx_node *sub) {
    size_t split = rx_emit(em, RI_SPLIT, 0, 0);
    rx_gen(em, sub);
    rx_emit(em, RI_JMP, (uint32_t)split, 0);
    if (rx_failed(em))
        return;
    em->code[split].x = (uint32_t)split + 1;
    em->code[split].y = (uint32_t)em->n;
}

/* sub? : SPLIT body, out; body */
static void rx_gen_optional(rx_emitter *em, const rx_node *sub) {
    size_t split = rx_emit(em, RI_SPLIT, 0, 0);
    rx_gen(em, sub);
    if (rx_failed(em))
        return;
    em->code[split].x = (uint32_t)split + 1;
    em->code[split].y = (uint32_t)em->n;
}

static void rx_gen_repeat(rx_emitter *em, const rx_node *n) {
    for (int i = 0; i < n->min && !rx_failed(em); i++)
        rx_gen(em, n->sub);
    if (n->max < 0)
        rx_gen_star(em, n->sub);
    for (int i = n->min; i < n->max && !rx_failed(em); i++)
        rx_gen_optional(em, n->sub);
}

/* a|b|c : SPLIT La, L1; La: a; JMP end; L1: SPLIT Lb, Lc; Lb: b; JMP end; Lc: c */
static void rx_gen_alt(rx_emitter *em, const rx_node *n) {
    size_t *jumps = arena_alloc(em->a, n->count * sizeof *jumps);
    if (!jumps) {
        em->oom = true;
        return;
    }
    for (size_t i = 0; i < n->count && !rx_failed(em); i++) {
        size_t split = i + 1 < n->count ? rx_emit(em, RI_SPLIT, 0, 0) : SIZE_MAX;
        rx_gen(em, n->items[i]);
        jumps[i] = i + 1 < n->count ? rx_emit(em, RI_JMP, 0, 0) : SIZE_MAX;
        if (split != SIZE_MAX && !rx_failed(em)) {
            em->code[split].x = (uint32_t)split + 1;
            em->code[split].y = (uint32_t)em->n;
        }
    }
    for (size_t i = 0; i + 1 < n->count && !rx_failed(em); i++)
        em->code[jumps[i]].x = (uint32_t)em->n;
}

static void rx_gen(rx_emitter *em, const rx_node *n) {
    if (rx_failed(em))
        return;
    switch (n->kind) {
    case RN_EMPTY: break;
    case RN_SET: rx_emit_set(em, &n->set); break;
    case RN_CAT:
        for (size_t i = 0; i < n->count && !rx_failed(em); i++)
            rx_gen(em, n->items[i]);
        break;
    case RN_ALT: rx_gen_alt(em, n); break;
    case RN_REPEAT: rx_gen_repeat(em, n); break;
    case RN_ASSERT: {
        size_t i = rx_emit(em, RI_ASSERT, 0, 0);
        if (!rx_failed(em))
            em->code[i].assertion = (uint8_t)n->assertion;
        break;
    }
    }
}

int regex_compile(const char *pattern, size_t len, arena *a, regex_prog **out, char *why,
                  size_t why_cap) {
    rx_node *tree = rx_parse(pattern, len, a, why, why_cap);
    if (!tree)
        return -1;
    rx_emitter em = {.a = a};
    rx_gen(&em, tree);
    rx_emit(&em, RI_MATCH, 0, 0);
    regex_prog *p = arena_calloc(a, 1, sizeof *p);
    if (em.too_big || em.oom || !p) {
        snprintf(why, why_cap, "%s", em.too_big ? "pattern too large" : "out of memory");
        return -1;
    }
    *p = (regex_prog){em.code, em.n, em.ranges, em.nranges};
    *out = p;
    return 0;
}
