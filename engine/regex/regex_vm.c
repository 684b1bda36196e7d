/* The Pike VM: all threads advance together one code point at a time, at
 * most one thread per instruction, so a match costs O(subject × program).
 * Only "is there a match anywhere" is asked, so thread priority (greedy vs
 * lazy) does not matter and the first thread to reach MATCH answers. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/utf8.h"
#include "regex/regex.h"
#include "regex/regex_internal.h"

typedef struct rx_vm {
    const regex_prog *p;
    const char *s;
    size_t len;
    uint32_t *mark; /* generation in which an instruction was last added */
    uint32_t *stack;
    uint32_t gen;
} rx_vm;

typedef struct rx_list {
    uint32_t *pc;
    size_t n;
} rx_list;

static bool rx_word_byte(const rx_vm *vm, size_t pos) {
    if (pos >= vm->len)
        return false;
    unsigned char c = (unsigned char)vm->s[pos];
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool rx_assert_holds(const rx_vm *vm, rx_assert kind, size_t pos) {
    switch (kind) {
    case RX_TEXT_START: return pos == 0;
    case RX_TEXT_END: return pos == vm->len;
    case RX_LINE_START: return pos == 0 || vm->s[pos - 1] == '\n';
    case RX_LINE_END: return pos == vm->len || vm->s[pos] == '\n';
    case RX_WORD:
    case RX_NOT_WORD: {
        bool before = pos > 0 && rx_word_byte(vm, pos - 1), after = rx_word_byte(vm, pos);
        return (before != after) == (kind == RX_WORD);
    }
    }
    return false;
}

/* Adds `pc` and everything reachable through JMP / SPLIT / ASSERT at `pos`.
 * Returns true when MATCH is reachable. */
static bool rx_add(rx_vm *vm, rx_list *l, uint32_t pc, size_t pos) {
    size_t top = 0;
    vm->stack[top++] = pc;
    while (top) {
        pc = vm->stack[--top];
        if (vm->mark[pc] == vm->gen)
            continue;
        vm->mark[pc] = vm->gen;
        const rx_inst *in = &vm->p->code[pc];
        switch (in->op) {
        case RI_MATCH: return true;
        case RI_JMP: vm->stack[top++] = in->x; break;
        case RI_SPLIT:
            vm->stack[top++] = in->y;
            vm->stack[top++] = in->x;
            break;
        case RI_ASSERT:
            if (rx_assert_holds(vm, (rx_assert)in->assertion, pos))
                vm->stack[top++] = pc + 1;
            break;
        default: l->pc[l->n++] = pc;
        }
    }
    return false;
}

static bool rx_in_set(const regex_prog *p, const rx_inst *in, uint32_t cp) {
    const rx_range *r = p->ranges + in->x;
    size_t lo = 0, hi = in->y;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* Every SPLIT pushes two entries but each instruction is visited once per
 * generation, so 2n+1 entries suffice. */
static int rx_run(rx_vm *vm, rx_list *cur, rx_list *next) {
    vm->gen++;
    for (size_t pos = 0;;) {
        /* Unanchored: a new thread starts at every position. */
        if (rx_add(vm, cur, 0, pos))
            return 1;
        if (pos >= vm->len)
            return 0;
        uint32_t cp;
        size_t w = utf8_decode(vm->s + pos, vm->len - pos, &cp);
        if (w == 0)
            cp = 0xFFFD, w = 1;
        vm->gen++;
        next->n = 0;
        for (size_t i = 0; i < cur->n; i++) {
            const rx_inst *in = &vm->p->code[cur->pc[i]];
            if (rx_in_set(vm->p, in, cp) && rx_add(vm, next, cur->pc[i] + 1, pos + w))
                return 1;
        }
        rx_list t = *cur;
        *cur = *next;
        *next = t;
        pos += w;
    }
}

int regex_match(const regex_prog *p, const char *subject, size_t len) {
    size_t n = p->n;
    uint32_t *mem = calloc(5 * n + 1, sizeof(uint32_t));
    if (!mem)
        return -1;
    rx_vm vm = {p, subject, len, mem, mem + n, 0};
    rx_list cur = {mem + 3 * n + 1, 0}, next = {mem + 4 * n + 1, 0};
    int rc = rx_run(&vm, &cur, &next);
    free(mem);
    return rc;
}
