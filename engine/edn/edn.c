/* The EDN reader (language.md §2.5, §2.6): tokens → a datum tree. Recursion follows
 * the nesting of the input and is cut at EDN_MAX_DEPTH levels. */
#include "edn/edn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "edn/lexer.h"

#define EDN_MAX_DEPTH 100
#define EDN_OOM ERR(INT, 0)
#define EDN_MISC ERR(PRS, 76) /* reader errors without a spec code */
#define EDN_DESCRIBE_MAX 64   /* bytes of text quoted by edn_describe */

typedef struct edn_reader {
    lexer lx;
    arena *a;
    err *e;
} edn_reader;

static int edn_read_value(edn_reader *r, const lex_token *tok, int depth, edn *out);

static int edn_unexpected(edn_reader *r, const lex_token *tok) {
    char what[96];
    lex_describe(tok, what, sizeof what);
    return err_set(r->e, ERR(PRS, 3), "Unexpected token: %s (at line %u, column %u)", what,
                   (unsigned)tok->line, (unsigned)tok->column);
}

static int edn_unclosed(edn_reader *r, edn_kind kind, const edn *open) {
    int code = kind == EDN_LIST ? ERR(PRS, 5) : kind == EDN_VECTOR ? ERR(PRS, 4) : ERR(PRS, 6);
    const char *text = kind == EDN_LIST     ? "Unclosed list"
                       : kind == EDN_VECTOR ? "Unclosed vector"
                                            : "Unterminated map: missing '}'";
    return err_set(r->e, code, "%s (opened at line %u, column %u)", text, (unsigned)open->line,
                   (unsigned)open->column);
}

/* Appends one slot to a sequence under construction. The array grows by
 * doubling inside the arena; the abandoned copies die with the arena. */
static edn *edn_push(edn_reader *r, edn *seq, size_t *cap) {
    size_t count = seq->as.seq.count;
    edn *items = arena_grow_array(r->a, seq->as.seq.items, count, cap, count + 1, sizeof *items, 4);
    if (!items)
        return NULL;
    seq->as.seq.items = items;
    return &seq->as.seq.items[seq->as.seq.count++];
}

static lex_kind edn_closer(edn_kind kind) {
    return kind == EDN_LIST ? TOK_RPAREN : kind == EDN_VECTOR ? TOK_RBRACKET : TOK_RBRACE;
}

static bool edn_is_closer(lex_kind k) {
    return k == TOK_RPAREN || k == TOK_RBRACKET || k == TOK_RBRACE;
}

/* Reads the items of a list, vector or map whose opener is already in `out`. */
static int edn_read_seq(edn_reader *r, int depth, edn *out) {
    size_t cap = 0;
    for (;;) {
        lex_token tok;
        int rc = lex_next(&r->lx, &tok, r->e);
        if (rc)
            return rc;
        if (tok.kind == TOK_EOF)
            return edn_unclosed(r, out->kind, out);
        if (tok.kind == edn_closer(out->kind)) {
            if (out->kind == EDN_MAP && out->as.seq.count % 2 != 0)
                return edn_unexpected(r, &tok);
            return 0;
        }
        if (edn_is_closer(tok.kind))
            return edn_unexpected(r, &tok);
        edn *slot = edn_push(r, out, &cap);
        if (!slot)
            return err_set(r->e, EDN_OOM, "Out of memory");
        rc = edn_read_value(r, &tok, depth, slot);
        if (rc)
            return rc;
    }
}

static int edn_read_uuid(edn_reader *r, edn *out) {
    lex_token tok;
    int rc = lex_next(&r->lx, &tok, r->e);
    if (rc)
        return rc;
    if (tok.kind != TOK_STRING)
        return err_set(r->e, ERR(PRS, 71),
                       "Expected UUID string after #uuid tag (at line %u, column %u)",
                       (unsigned)tok.line, (unsigned)tok.column);
    if (!uuid_parse(tok.text, tok.len, &out->as.uuid))
        return err_set(r->e, ERR(PRS, 72), "Invalid UUID: \"%.*s\" (at line %u, column %u)",
                       (int)utf8_clip(tok.text, tok.len, EDN_DESCRIBE_MAX), tok.text,
                       (unsigned)tok.line, (unsigned)tok.column);
    out->kind = EDN_UUID;
    return 0;
}

/* Length first: most symbols are none of true/false/nil. */
static inline bool token_is(const lex_token *tok, const char *s) {
    return tok->len == strlen(s) && memcmp(tok->text, s, tok->len) == 0;
}

/* A symbol token: true/false/nil are their own kinds only when the whole
 * symbol is exactly that text. */
static void edn_from_symbol(const lex_token *tok, edn *out) {
    if (token_is(tok, "true") || token_is(tok, "false")) {
        out->kind = EDN_BOOLEAN;
        out->as.b = tok->text[0] == 't';
    } else if (token_is(tok, "nil")) {
        out->kind = EDN_NIL;
    } else {
        out->kind = EDN_SYMBOL;
        out->as.text.ptr = tok->text;
        out->as.text.len = tok->len;
    }
}

static int edn_read_scalar(edn_reader *r, const lex_token *tok, edn *out) {
    switch (tok->kind) {
    case TOK_STRING:
    case TOK_KEYWORD:
    case TOK_SLOT:
        out->kind = tok->kind == TOK_STRING    ? EDN_STRING
                    : tok->kind == TOK_KEYWORD ? EDN_KEYWORD
                                               : EDN_SLOT;
        out->as.text.ptr = tok->text;
        out->as.text.len = tok->len;
        return 0;
    case TOK_SYMBOL: edn_from_symbol(tok, out); return 0;
    case TOK_INTEGER:
        out->kind = EDN_INTEGER;
        out->as.i = tok->i;
        return 0;
    case TOK_FLOAT:
        out->kind = EDN_FLOAT;
        out->as.f = tok->f;
        return 0;
    case TOK_TAG:
        if (strcmp(tok->text, "uuid") == 0)
            return edn_read_uuid(r, out);
        return err_set(r->e, ERR(PRS, 73), "Unknown tagged literal: #%.*s (at line %u, column %u)",
                       (int)utf8_clip(tok->text, tok->len, EDN_DESCRIBE_MAX), tok->text,
                       (unsigned)tok->line, (unsigned)tok->column);
    case TOK_EOF:
        return err_set(r->e, ERR(PRS, 1), "Unexpected end of input (at line %u, column %u)",
                       (unsigned)tok->line, (unsigned)tok->column);
    default: return edn_unexpected(r, tok);
    }
}

/* `depth` is the number of collections enclosing this value. */
static int edn_read_value(edn_reader *r, const lex_token *tok, int depth, edn *out) {
    memset(out, 0, sizeof *out);
    out->line = tok->line;
    out->column = tok->column;
    edn_kind kind;
    switch (tok->kind) {
    case TOK_LPAREN: kind = EDN_LIST; break;
    case TOK_LBRACKET: kind = EDN_VECTOR; break;
    case TOK_LBRACE: kind = EDN_MAP; break;
    default: return edn_read_scalar(r, tok, out);
    }
    if (depth >= EDN_MAX_DEPTH)
        return err_set(r->e, EDN_MISC,
                       "Exceeded maximum recursion depth of %d (at line %u, column %u)",
                       EDN_MAX_DEPTH, (unsigned)tok->line, (unsigned)tok->column);
    out->kind = kind;
    return edn_read_seq(r, depth + 1, out);
}

int edn_read(const char *text, size_t len, arena *a, edn **out, err *e) {
    edn_reader r = {.a = a, .e = e};
    lex_init(&r.lx, text, len, a);
    edn *root = arena_alloc(a, sizeof(edn));
    if (!root)
        return err_set(e, EDN_OOM, "Out of memory");
    lex_token tok;
    int rc = lex_next(&r.lx, &tok, e);
    if (!rc)
        rc = edn_read_value(&r, &tok, 0, root);
    if (!rc)
        rc = lex_next(&r.lx, &tok, e);
    if (rc)
        return rc;
    if (tok.kind != TOK_EOF)
        return err_set(e, EDN_MISC,
                       "Unexpected trailing input after the command (at line %u, column %u)",
                       (unsigned)tok.line, (unsigned)tok.column);
    *out = root;
    return 0;
}

/* The shortest %g form that reads back as the same double. */
static void edn_describe_float(double f, char *out, size_t cap) {
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, f);
        if (strtod(tmp, NULL) == f)
            break;
    }
    snprintf(out, cap, "Float(%s)", tmp);
}

void edn_describe(const edn *d, char *out, size_t cap) {
    if (cap == 0)
        return;
    int w = 0;
    if (d->kind == EDN_STRING || d->kind == EDN_KEYWORD || d->kind == EDN_SYMBOL ||
        d->kind == EDN_SLOT)
        w = (int)utf8_clip(d->as.text.ptr, d->as.text.len, EDN_DESCRIBE_MAX);
    switch (d->kind) {
    case EDN_LIST: snprintf(out, cap, "List"); break;
    case EDN_VECTOR: snprintf(out, cap, "Vector"); break;
    case EDN_MAP: snprintf(out, cap, "Map"); break;
    case EDN_STRING: snprintf(out, cap, "String(\"%.*s\")", w, d->as.text.ptr); break;
    case EDN_INTEGER: snprintf(out, cap, "Integer(%lld)", (long long)d->as.i); break;
    case EDN_FLOAT: edn_describe_float(d->as.f, out, cap); break;
    case EDN_BOOLEAN: snprintf(out, cap, "Boolean(%s)", d->as.b ? "true" : "false"); break;
    case EDN_NIL: snprintf(out, cap, "Nil"); break;
    case EDN_KEYWORD: snprintf(out, cap, "Keyword(%.*s)", w, d->as.text.ptr); break;
    case EDN_SYMBOL: snprintf(out, cap, "Symbol(%.*s)", w, d->as.text.ptr); break;
    case EDN_UUID: {
        char u[UUID_TEXT_LEN + 1];
        uuid_format(&d->as.uuid, u);
        snprintf(out, cap, "Uuid(%s)", u);
        break;
    }
    case EDN_SLOT: snprintf(out, cap, "BindSlot($%.*s)", w, d->as.text.ptr); break;
    }
}
