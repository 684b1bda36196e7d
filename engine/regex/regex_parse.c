/* Pattern text → syntax tree (regex-lite syntax). Recursive descent:
 *   alt    = concat ("|" concat)*
 *   concat = repeat*
 *   repeat = atom (("*" | "+" | "?" | "{m}" | "{m,}" | "{m,n}") "?"?)?
 * Flags (?i) (?m) (?s) (?U) apply from their position to the end of the
 * enclosing group; (?flags:...) scopes them to the group. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "regex/regex_internal.h"

typedef struct rx_flags {
    bool fold, multi, dotall;
} rx_flags;

typedef struct rx_parser {
    const char *p;
    size_t len, pos;
    arena *a;
    char *why;
    size_t why_cap;
    bool failed;
    int depth;
} rx_parser;

static rx_node *rx_alt(rx_parser *ps, rx_flags *fl);

static rx_node *rx_fail(rx_parser *ps, const char *msg) {
    if (!ps->failed)
        snprintf(ps->why, ps->why_cap, "%s at offset %zu", msg, ps->pos);
    ps->failed = true;
    return NULL;
}

static rx_node *rx_new(rx_parser *ps, rx_node_kind kind) {
    rx_node *n = arena_calloc(ps->a, 1, sizeof *n);
    if (!n)
        return rx_fail(ps, "out of memory");
    n->kind = kind;
    return n;
}

static bool rx_eof(const rx_parser *ps) {
    return ps->pos >= ps->len;
}
static char rx_peek(const rx_parser *ps) {
    return rx_eof(ps) ? '\0' : ps->p[ps->pos];
}

/* Next code point of the pattern (invalid UTF-8 bytes stand for themselves). */
static uint32_t rx_next_cp(rx_parser *ps) {
    uint32_t cp;
    size_t n = utf8_decode(ps->p + ps->pos, ps->len - ps->pos, &cp);
    if (n == 0) {
        cp = (unsigned char)ps->p[ps->pos];
        n = 1;
    }
    ps->pos += n;
    return cp;
}

static rx_node *rx_set_node(rx_parser *ps, rx_set *s, const rx_flags *fl, bool negate) {
    if (fl->fold && !rx_set_add_ascii_fold(ps->a, s))
        return rx_fail(ps, "out of memory");
    rx_set_normalize(s);
    if (negate && !rx_set_negate(ps->a, s))
        return rx_fail(ps, "out of memory");
    rx_node *n = rx_new(ps, RN_SET);
    if (n)
        n->set = *s;
    return n;
}

static rx_node *rx_assert_node(rx_parser *ps, rx_assert kind) {
    rx_node *n = rx_new(ps, RN_ASSERT);
    if (n)
        n->assertion = kind;
    return n;
}

/* ---- escapes ------------------------------------------------------------- */

static bool rx_is_meta(uint32_t c) {
    return c < 128 && strchr("\\.+*?()|[]{}^$#&-~", (int)c) != NULL && c != 0;
}

static int rx_hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* \xHH or \x{H...}; the 'x' is consumed. */
static bool rx_hex_escape(rx_parser *ps, uint32_t *cp) {
    uint32_t v = 0;
    int digits = 0;
    if (rx_peek(ps) == '{') {
        ps->pos++;
        while (!rx_eof(ps) && rx_peek(ps) != '}' && digits < 8) {
            int h = rx_hex(rx_peek(ps));
            if (h < 0)
                return false;
            v = v * 16 + (uint32_t)h, digits++, ps->pos++;
        }
        if (rx_peek(ps) != '}' || digits == 0)
            return false;
        ps->pos++;
    } else {
        for (; digits < 2; digits++, ps->pos++) {
            int h = rx_eof(ps) ? -1 : rx_hex(rx_peek(ps));
            if (h < 0)
                return false;
            v = v * 16 + (uint32_t)h;
        }
    }
    *cp = v;
    return v <= RX_MAX_CP && !(v >= 0xD800 && v <= 0xDFFF);
}

typedef enum rx_esc_kind { ESC_CHAR, ESC_PERL, ESC_ASSERT, ESC_ERROR } rx_esc_kind;

typedef struct rx_escape {
    rx_esc_kind kind;
    uint32_t cp; /* CHAR */
    char perl;   /* PERL: d D w W s S */
    rx_assert assertion;
} rx_escape;

/* After a backslash. Literal escapes, classes and assertions; the rest of
 * the ASCII letters and digits are errors (backreferences among them). */
static rx_escape rx_read_escape(rx_parser *ps) {
    rx_escape out = {ESC_ERROR, 0, 0, RX_TEXT_START};
    if (rx_eof(ps)) {
        rx_fail(ps, "incomplete escape sequence");
        return out;
    }
    uint32_t c = rx_next_cp(ps);
    static const char simple[] = "n\nt\tr\rf\fv\va\a";
    const char *hit = c < 128 && c ? strchr(simple, (int)c) : NULL;
    if (hit && (hit - simple) % 2 == 0)
        return (rx_escape){ESC_CHAR, (uint32_t)(unsigned char)hit[1], 0, RX_TEXT_START};
    if (rx_is_meta(c) || c == ' ')
        return (rx_escape){ESC_CHAR, c, 0, RX_TEXT_START};
    if (c < 128 && strchr("dDwWsS", (int)c))
        return (rx_escape){ESC_PERL, 0, (char)c, RX_TEXT_START};
    if (c == 'b' || c == 'B' || c == 'A' || c == 'z') {
        out.kind = ESC_ASSERT;
        out.assertion = c == 'b'   ? RX_WORD
                        : c == 'B' ? RX_NOT_WORD
                        : c == 'A' ? RX_TEXT_START
                                   : RX_TEXT_END;
        return out;
    }
    if (c == 'x') {
        if (rx_hex_escape(ps, &out.cp))
            out.kind = ESC_CHAR;
        else
            rx_fail(ps, "invalid hexadecimal escape");
        return out;
    }
    if (c >= '1' && c <= '9')
        rx_fail(ps, "backreferences are not supported");
    else if (c == 'p' || c == 'P')
        rx_fail(ps, "Unicode classes are not supported");
    else
        rx_fail(ps, "unrecognized escape sequence");
    return out;
}

/* ---- bracket classes ------------------------------------------------------ */

/* One class member's code point (a literal or a \-escape); false on error
 * or when the escape is a Perl class (then added to `s`). */
static bool rx_class_cp(rx_parser *ps, rx_set *s, uint32_t *cp, bool *was_perl) {
    *was_perl = false;
    if (rx_peek(ps) != '\\') {
        *cp = rx_next_cp(ps);
        return true;
    }
    ps->pos++;
    rx_escape esc = rx_read_escape(ps);
    if (esc.kind == ESC_CHAR) {
        *cp = esc.cp;
        return true;
    }
    if (esc.kind == ESC_PERL) {
        *was_perl = true;
        if (!rx_set_add_perl(ps->a, s, esc.perl))
            rx_fail(ps, "out of memory");
        return !ps->failed;
    }
    if (esc.kind == ESC_ASSERT)
        rx_fail(ps, "assertions are not allowed in a character class");
    return false;
}

static bool rx_class_item(rx_parser *ps, rx_set *s) {
    if (rx_peek(ps) == '[') {
        rx_fail(ps, "nested character classes are not supported");
        return false;
    }
    uint32_t lo, hi;
    bool perl;
    if (!rx_class_cp(ps, s, &lo, &perl))
        return false;
    if (perl)
        return true;
    hi = lo;
    if (rx_peek(ps) == '-' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] != ']') {
        ps->pos++;
        if (!rx_class_cp(ps, s, &hi, &perl) || perl) {
            rx_fail(ps, "invalid range in character class");
            return false;
        }
        if (hi < lo) {
            rx_fail(ps, "invalid range in character class (start > end)");
            return false;
        }
    }
    if (!rx_set_add(ps->a, s, lo, hi))
        rx_fail(ps, "out of memory");
    return !ps->failed;
}

/* After '['. A ']' right after '[' or '[^' is a literal. */
static rx_node *rx_class(rx_parser *ps, const rx_flags *fl) {
    rx_set s = {0};
    bool negate = false;
    if (rx_peek(ps) == '^')
        negate = true, ps->pos++;
    bool first = true;
    for (;;) {
        if (rx_eof(ps))
            return rx_fail(ps, "unclosed character class");
        if (rx_peek(ps) == ']' && !first)
            break;
        if (first && rx_peek(ps) == ']') {
            ps->pos++;
            if (!rx_set_add(ps->a, &s, ']', ']'))
                return rx_fail(ps, "out of memory");
        } else if (!rx_class_item(ps, &s)) {
            return NULL;
        }
        first = false;
    }
    ps->pos++;
    return rx_set_node(ps, &s, fl, negate);
}

/* ---- groups and flags ------------------------------------------------------- */

/* Reads flags after "(?" up to ':' or ')'. Returns the terminator or 0. */
static char rx_flags_read(rx_parser *ps, rx_flags *fl) {
    bool neg = false, any = false;
    while (!rx_eof(ps)) {
        char c = ps->p[ps->pos++];
        if (c == ':' || c == ')')
            return (neg && !any) ? 0 : c;
        if (c == '-' && !neg) {
            neg = true, any = false;
            continue;
        }
        if (c == 'i')
            fl->fold = !neg;
        else if (c == 'm')
            fl->multi = !neg;
        else if (c == 's')
            fl->dotall = !neg;
        else if (c != 'U') /* swapping greed does not change whether a match exists */
            return 0;
        any = true;
    }
    return 0;
}

static rx_node *rx_group_body(rx_parser *ps, rx_flags fl) {
    if (++ps->depth > RX_MAX_NEST)
        return rx_fail(ps, "groups nested too deeply");
    rx_node *n = rx_alt(ps, &fl);
    ps->depth--;
    if (!n)
        return NULL;
    if (rx_peek(ps) != ')')
        return rx_fail(ps, "unclosed group");
    ps->pos++;
    return n;
}

static bool rx_skip_group_name(rx_parser *ps) {
    while (!rx_eof(ps) && rx_peek(ps) != '>')
        ps->pos++;
    if (rx_eof(ps))
        return false;
    ps->pos++;
    return true;
}

/* After '('. `fl` is the enclosing flags, updated by a bare (?flags). */
static rx_node *rx_group(rx_parser *ps, rx_flags *fl) {
    if (rx_peek(ps) != '?')
        return rx_group_body(ps, *fl);
    ps->pos++;
    const char *rest = ps->p + ps->pos;
    size_t left = ps->len - ps->pos;
    if (left >= 1 && (rest[0] == '=' || rest[0] == '!'))
        return rx_fail(ps, "look-around is not supported");
    if (left >= 2 && rest[0] == '<' && (rest[1] == '=' || rest[1] == '!'))
        return rx_fail(ps, "look-around is not supported");
    if ((left >= 1 && rest[0] == '<') || (left >= 2 && rest[0] == 'P' && rest[1] == '<')) {
        if (!rx_skip_group_name(ps))
            return rx_fail(ps, "unclosed group name");
        return rx_group_body(ps, *fl);
    }
    rx_flags inner = *fl;
    char end = rx_flags_read(ps, &inner);
    if (end == 0)
        return rx_fail(ps, "invalid flag group");
    if (end == ':')
        return rx_group_body(ps, inner);
    *fl = inner;
    return rx_new(ps, RN_EMPTY);
}

/* ---- atoms, repetition, concatenation, alternation -------------------------- */

static rx_node *rx_escape_atom(rx_parser *ps, const rx_flags *fl) {
    rx_escape esc = rx_read_escape(ps);
    rx_set s = {0};
    switch (esc.kind) {
    case ESC_CHAR:
        if (!rx_set_add(ps->a, &s, esc.cp, esc.cp))
            return rx_fail(ps, "out of memory");
        return rx_set_node(ps, &s, fl, false);
    case ESC_PERL:
        if (!rx_set_add_perl(ps->a, &s, esc.perl))
            return rx_fail(ps, "out of memory");
        return rx_set_node(ps, &s, fl, false);
    case ESC_ASSERT: return rx_assert_node(ps, esc.assertion);
    default: return NULL;
    }
}

static rx_node *rx_atom(rx_parser *ps, rx_flags *fl) {
    uint32_t c = rx_next_cp(ps);
    rx_set s = {0};
    switch (c) {
    case '(': return rx_group(ps, fl);
    case '[': return rx_class(ps, fl);
    case '\\': return rx_escape_atom(ps, fl);
    case '^': return rx_assert_node(ps, fl->multi ? RX_LINE_START : RX_TEXT_START);
    case '$': return rx_assert_node(ps, fl->multi ? RX_LINE_END : RX_TEXT_END);
    case '.':
        if (!(fl->dotall ? rx_set_add(ps->a, &s, 0, RX_MAX_CP)
                         : rx_set_add(ps->a, &s, 0, '\n' - 1) &&
                               rx_set_add(ps->a, &s, '\n' + 1, RX_MAX_CP)))
            return rx_fail(ps, "out of memory");
        return rx_set_node(ps, &s, &(rx_flags){false, false, false}, false);
    case '*':
    case '+':
    case '?':
    case '{': ps->pos--; return rx_fail(ps, "repetition operator missing expression");
    case ')': ps->pos--; return rx_fail(ps, "unopened group");
    default:
        if (!rx_set_add(ps->a, &s, c, c))
            return rx_fail(ps, "out of memory");
        return rx_set_node(ps, &s, fl, false);
    }
}

static bool rx_number(rx_parser *ps, int *out) {
    size_t start = ps->pos;
    long v = 0;
    while (!rx_eof(ps) && rx_peek(ps) >= '0' && rx_peek(ps) <= '9') {
        v = v * 10 + (rx_peek(ps) - '0');
        if (v > RX_MAX_REPEAT)
            return false;
        ps->pos++;
    }
    *out = (int)v;
    return ps->pos > start;
}

/* After '{': m}, m,} or m,n}. */
static bool rx_counted(rx_parser *ps, int *min, int *max) {
    if (!rx_number(ps, min))
        return false;
    *max = *min;
    if (rx_peek(ps) == ',') {
        ps->pos++;
        *max = -1;
        if (rx_peek(ps) != '}' && !rx_number(ps, max))
            return false;
    }
    if (rx_peek(ps) != '}' || (*max >= 0 && *max < *min))
        return false;
    ps->pos++;
    return true;
}

static rx_node *rx_repeat(rx_parser *ps, rx_flags *fl) {
    rx_node *atom = rx_atom(ps, fl);
    if (!atom || rx_eof(ps))
        return atom;
    int min, max;
    char c = rx_peek(ps);
    if (c == '*')
        min = 0, max = -1;
    else if (c == '+')
        min = 1, max = -1;
    else if (c == '?')
        min = 0, max = 1;
    else if (c != '{')
        return atom;
    ps->pos++;
    if (c == '{' && !rx_counted(ps, &min, &max))
        return rx_fail(ps, "invalid repetition count (at most 1000)");
    if (rx_peek(ps) == '?')
        ps->pos++; /* lazy: the same language, so the same answer to "is there a match" */
    if (!rx_eof(ps) && strchr("*+?{", rx_peek(ps)))
        return rx_fail(ps, "repetition operator missing expression");
    if (atom->kind == RN_ASSERT || atom->kind == RN_EMPTY)
        return atom; /* repeating an empty match changes nothing */
    rx_node *n = rx_new(ps, RN_REPEAT);
    if (n)
        n->sub = atom, n->min = min, n->max = max;
    return n;
}

/* Appends `item` to the n-ary node `n` (growing its array in the arena). */
static bool rx_push(rx_parser *ps, rx_node *n, size_t *cap, rx_node *item) {
    rx_node **items = arena_grow_array(ps->a, n->items, n->count, cap, n->count + 1, sizeof *items,
                                       4);
    if (!items) {
        rx_fail(ps, "out of memory");
        return false;
    }
    n->items = items;
    n->items[n->count++] = item;
    return true;
}

static rx_node *rx_concat(rx_parser *ps, rx_flags *fl) {
    rx_node *cat = rx_new(ps, RN_CAT);
    size_t cap = 0;
    while (cat && !rx_eof(ps) && rx_peek(ps) != '|' && rx_peek(ps) != ')') {
        rx_node *n = rx_repeat(ps, fl);
        if (!n || !rx_push(ps, cat, &cap, n))
            return NULL;
    }
    return cat;
}

static rx_node *rx_alt(rx_parser *ps, rx_flags *fl) {
    rx_node *first = rx_concat(ps, fl);
    if (!first || rx_peek(ps) != '|')
        return first;
    rx_node *alt = rx_new(ps, RN_ALT);
    size_t cap = 0;
    if (!alt || !rx_push(ps, alt, &cap, first))
        return NULL;
    while (rx_peek(ps) == '|') {
        ps->pos++;
        rx_node *n = rx_concat(ps, fl);
        if (!n || !rx_push(ps, alt, &cap, n))
            return NULL;
    }
    return alt;
}

rx_node *rx_parse(const char *pat, size_t len, arena *a, char *why, size_t why_cap) {
    rx_parser ps = {pat, len, 0, a, why, why_cap, false, 0};
    rx_flags fl = {false, false, false};
    rx_node *n = rx_alt(&ps, &fl);
    if (n && !rx_eof(&ps))
        n = rx_fail(&ps, "unopened group");
    return ps.failed ? NULL : n;
}
