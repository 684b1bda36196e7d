/* The tokenizer of language.md §2.1-§2.4. */
#include "edn/lexer.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define LEX_OOM ERR(INT, 0)
#define LEX_MISC ERR(PRS, 76) /* lexer errors without a spec code */

void lex_init(lexer *lx, const char *text, size_t len, arena *a) {
    lx->src = text;
    lx->len = len;
    lx->pos = 0;
    lx->line = 1;
    lx->line_start = 0;
    lx->a = a;
}

static uint32_t lex_column(const lexer *lx, size_t pos) {
    return (uint32_t)(pos - lx->line_start + 1);
}

/* The code point at byte offset `pos`; returns its length, 0 at the end or
 * on malformed UTF-8. */
static size_t lex_cp_at(const lexer *lx, size_t pos, uint32_t *cp) {
    if (pos >= lx->len)
        return 0;
    unsigned char c = (unsigned char)lx->src[pos];
    if (c < 0x80) { /* most of a query: no call into the decoder */
        *cp = c;
        return 1;
    }
    return utf8_decode(lx->src + pos, lx->len - pos, cp);
}

static bool lex_is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

static bool lex_is_digit(char c) {
    return c >= '0' && c <= '9';
}

static void lex_newline(lexer *lx, size_t pos_after) {
    lx->line++;
    lx->line_start = pos_after;
}

static void lex_skip_blank(lexer *lx) {
    while (lx->pos < lx->len) {
        char c = lx->src[lx->pos];
        if (c == ';') {
            while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else if (lex_is_space(c)) {
            lx->pos++;
            if (c == '\n')
                lex_newline(lx, lx->pos);
        } else {
            return;
        }
    }
}

static int lex_unexpected(lexer *lx, err *e) {
    uint32_t cp;
    size_t n = lex_cp_at(lx, lx->pos, &cp);
    uint32_t col = lex_column(lx, lx->pos);
    if (n == 0)
        return err_set(e, ERR(PRS, 2), "Unexpected character: \\x%02X (at line %u, column %u)",
                       (unsigned)(unsigned char)lx->src[lx->pos], (unsigned)lx->line,
                       (unsigned)col);
    return err_set(e, ERR(PRS, 2), "Unexpected character: %.*s (at line %u, column %u)", (int)n,
                   lx->src + lx->pos, (unsigned)lx->line, (unsigned)col);
}

/* ---- names: keywords, symbols, tags, slots ---------------------------- */

typedef bool (*lex_name_pred)(uint32_t cp);

/* unicode_is_alnum with the ASCII test inline. */
static bool lex_is_alnum(uint32_t cp) {
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    return unicode_is_alnum(cp);
}

static bool lex_keyword_char(uint32_t cp) {
    return lex_is_alnum(cp) || cp == '/' || cp == '-' || cp == '_' || cp == '?';
}

static bool lex_symbol_char(uint32_t cp) {
    return lex_is_alnum(cp) || cp == '?' || cp == '_' || cp == '-' || cp == '/';
}

static bool lex_tag_char(uint32_t cp) {
    return lex_is_alnum(cp) || cp == '-';
}

static bool lex_slot_char(uint32_t cp) {
    return lex_is_alnum(cp) || cp == '_' || cp == '-';
}

bool lex_is_keyword(const char *s, size_t len) {
    if (len == 0 || len > LEX_MAX_NAME || s[0] != ':')
        return false;
    for (size_t i = 1, n; i < len; i += n) {
        uint32_t cp;
        n = utf8_decode(s + i, len - i, &cp);
        if (n == 0 || !lex_keyword_char(cp))
            return false;
    }
    return true;
}

/* Advances from `pos` while `pred` holds; returns the end offset. */
static size_t lex_scan(const lexer *lx, size_t pos, lex_name_pred pred) {
    uint32_t cp;
    size_t n;
    while ((n = lex_cp_at(lx, pos, &cp)) != 0 && pred(cp))
        pos += n;
    return pos;
}

static int lex_set_text(lexer *lx, lex_token *tok, size_t from, size_t to, err *e) {
    char *t = arena_strndup(lx->a, lx->src + from, to - from);
    if (!t)
        return err_set(e, LEX_OOM, "Out of memory");
    tok->text = t;
    tok->len = to - from;
    return 0;
}

static int lex_keyword(lexer *lx, lex_token *tok, err *e) {
    size_t end = lex_scan(lx, lx->pos + 1, lex_keyword_char);
    if (end - lx->pos > LEX_MAX_NAME)
        return err_set(e, ERR(PRS, 8),
                       "Keyword exceeds maximum length of %d bytes (at line %u, column %u)",
                       LEX_MAX_NAME, (unsigned)tok->line, (unsigned)tok->column);
    tok->kind = TOK_KEYWORD;
    int rc = lex_set_text(lx, tok, lx->pos, end, e);
    lx->pos = end;
    return rc;
}

/* A symbol starts at lx->pos; its first character was already accepted. */
static int lex_symbol(lexer *lx, lex_token *tok, size_t first_len, err *e) {
    size_t end = lex_scan(lx, lx->pos + first_len, lex_symbol_char);
    if (end - lx->pos > LEX_MAX_NAME)
        return err_set(e, LEX_MISC,
                       "Symbol exceeds maximum length of %d bytes (at line %u, column %u)",
                       LEX_MAX_NAME, (unsigned)tok->line, (unsigned)tok->column);
    tok->kind = TOK_SYMBOL;
    int rc = lex_set_text(lx, tok, lx->pos, end, e);
    lx->pos = end;
    return rc;
}

static int lex_tag(lexer *lx, lex_token *tok, err *e) {
    size_t end = lex_scan(lx, lx->pos + 1, lex_tag_char);
    if (end - lx->pos - 1 > LEX_MAX_NAME)
        return err_set(e, ERR(PRS, 9),
                       "Tag name exceeds maximum length of %d bytes (at line %u, column %u)",
                       LEX_MAX_NAME, (unsigned)tok->line, (unsigned)tok->column);
    tok->kind = TOK_TAG;
    int rc = lex_set_text(lx, tok, lx->pos + 1, end, e);
    lx->pos = end;
    return rc;
}

static int lex_slot(lexer *lx, lex_token *tok, err *e) {
    size_t end = lex_scan(lx, lx->pos + 1, lex_slot_char);
    if (end == lx->pos + 1)
        return err_set(e, LEX_MISC,
                       "Bind slot '$' must be followed by an identifier (e.g. $entity) "
                       "(at line %u, column %u)",
                       (unsigned)tok->line, (unsigned)tok->column);
    if (end - lx->pos - 1 > LEX_MAX_NAME)
        return err_set(e, ERR(PRS, 74),
                       "Bind slot name exceeds maximum length of %d bytes (at line %u, column %u)",
                       LEX_MAX_NAME, (unsigned)tok->line, (unsigned)tok->column);
    tok->kind = TOK_SLOT;
    int rc = lex_set_text(lx, tok, lx->pos + 1, end, e);
    lx->pos = end;
    return rc;
}

/* ---- strings ----------------------------------------------------------- */

static char lex_unescape(char c) {
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    default: return c; /* \" \\ and any other character stand for themselves */
    }
}

/* Decodes the string starting at the opening quote. An unterminated string
 * runs to the end of input, and a trailing lone backslash is dropped. */
static int lex_string(lexer *lx, lex_token *tok, err *e) {
    size_t end = lx->pos + 1;
    while (end < lx->len && lx->src[end] != '"')
        end += lx->src[end] == '\\' ? 2 : 1;
    size_t raw = (end < lx->len ? end : lx->len) - lx->pos - 1;
    char *out = arena_alloc(lx->a, raw + 1);
    if (!out)
        return err_set(e, LEX_OOM, "Out of memory");
    size_t n = 0, p = lx->pos + 1;
    while (p < lx->len && lx->src[p] != '"') {
        char c = lx->src[p++];
        if (c == '\\') {
            if (p >= lx->len)
                break;
            c = lex_unescape(lx->src[p++]);
        }
        if (n == LEX_MAX_STRING)
            return err_set(e, ERR(PRS, 7),
                           "String exceeds maximum length of %d bytes (at line %u, column %u)",
                           LEX_MAX_STRING, (unsigned)tok->line, (unsigned)tok->column);
        out[n++] = c;
        if (lx->src[p - 1] == '\n')
            lex_newline(lx, p);
    }
    out[n] = '\0';
    lx->pos = p < lx->len ? p + 1 : p;
    tok->kind = TOK_STRING;
    tok->text = out;
    tok->len = n;
    return 0;
}

/* ---- numbers ----------------------------------------------------------- */

/* Float literals are always written with '.', whatever the process locale
 * says, so strtod runs under a private "C" numeric locale. */
static locale_t lex_c_locale;
static pthread_once_t lex_locale_once = PTHREAD_ONCE_INIT;

static void lex_make_locale(void) {
    lex_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static double lex_strtod_c(const char *s) {
    pthread_once(&lex_locale_once, lex_make_locale);
    locale_t old = (locale_t)0;
    if (lex_c_locale != (locale_t)0)
        old = uselocale(lex_c_locale);
    double d = strtod(s, NULL); /* overflow gives ±HUGE_VAL = ±inf */
    if (old != (locale_t)0)
        uselocale(old);
    return d;
}

static int lex_integer(lexer *lx, lex_token *tok, size_t start, size_t end, err *e) {
    bool neg = lx->src[start] == '-';
    uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t i = start + neg; i < end; i++) {
        uint64_t d = (uint64_t)(lx->src[i] - '0');
        if (mag > (limit - d) / 10)
            return err_set(
                e, LEX_MISC, "Integer literal out of range: %.*s (at line %u, column %u)",
                (int)(end - start), lx->src + start, (unsigned)tok->line, (unsigned)tok->column);
        mag = mag * 10 + d;
    }
    tok->kind = TOK_INTEGER;
    /* -(2^63) has no positive counterpart: negate in unsigned arithmetic. */
    tok->i = neg ? (int64_t)(~mag + 1) : (int64_t)mag;
    return 0;
}

/* `-`? digit+ (`.` digit*)? starting at lx->pos. */
static int lex_number(lexer *lx, lex_token *tok, err *e) {
    size_t start = lx->pos, p = start + (lx->src[start] == '-');
    while (p < lx->len && lex_is_digit(lx->src[p]))
        p++;
    if (p >= lx->len || lx->src[p] != '.') {
        lx->pos = p;
        return lex_integer(lx, tok, start, p, e);
    }
    p++;
    while (p < lx->len && lex_is_digit(lx->src[p]))
        p++;
    char *text = arena_strndup(lx->a, lx->src + start, p - start);
    if (!text)
        return err_set(e, LEX_OOM, "Out of memory");
    lx->pos = p;
    tok->kind = TOK_FLOAT;
    tok->f = lex_strtod_c(text);
    return 0;
}

/* ---- operators and dispatch -------------------------------------------- */

static int lex_operator(lexer *lx, lex_token *tok, size_t n, err *e) {
    tok->kind = TOK_SYMBOL;
    int rc = lex_set_text(lx, tok, lx->pos, lx->pos + n, e);
    lx->pos += n;
    return rc;
}

static lex_kind lex_delimiter(char c) {
    switch (c) {
    case '(': return TOK_LPAREN;
    case ')': return TOK_RPAREN;
    case '[': return TOK_LBRACKET;
    case ']': return TOK_RBRACKET;
    case '{': return TOK_LBRACE;
    case '}': return TOK_RBRACE;
    default: return TOK_EOF;
    }
}

/* Everything that starts with a punctuation character. */
static int lex_punct(lexer *lx, lex_token *tok, char c, char next, err *e) {
    switch (c) {
    case '"': return lex_string(lx, tok, e);
    case ':': return lex_keyword(lx, tok, e);
    case '#': return lex_tag(lx, tok, e);
    case '$': return lex_slot(lx, tok, e);
    case '<':
    case '>': return lex_operator(lx, tok, next == '=' ? 2 : 1, e);
    case '=':
    case '+':
    case '*':
    case '/': return lex_operator(lx, tok, 1, e);
    case '!':
        if (next == '=')
            return lex_operator(lx, tok, 2, e);
        return lex_unexpected(lx, e);
    case '-':
        if (lex_is_digit(next))
            return lex_number(lx, tok, e);
        return lex_symbol(lx, tok, 1, e);
    case '?':
    case '_': return lex_symbol(lx, tok, 1, e);
    default: return lex_unexpected(lx, e);
    }
}

int lex_next(lexer *lx, lex_token *tok, err *e) {
    lex_skip_blank(lx);
    memset(tok, 0, sizeof *tok);
    tok->line = lx->line;
    tok->column = lex_column(lx, lx->pos);
    if (lx->pos >= lx->len) {
        tok->kind = TOK_EOF;
        return 0;
    }
    char c = lx->src[lx->pos];
    char next = lx->pos + 1 < lx->len ? lx->src[lx->pos + 1] : '\0';
    lex_kind d = lex_delimiter(c);
    if (d != TOK_EOF) {
        tok->kind = d;
        lx->pos++;
        return 0;
    }
    if (lex_is_digit(c))
        return lex_number(lx, tok, e);
    uint32_t cp;
    size_t n = lex_cp_at(lx, lx->pos, &cp);
    if (n != 0 && unicode_is_alpha(cp))
        return lex_symbol(lx, tok, n, e);
    return lex_punct(lx, tok, c, next, e);
}

void lex_describe(const lex_token *tok, char *out, size_t cap) {
    static const char *const delims = "()[]{}";
    switch (tok->kind) {
    case TOK_EOF: snprintf(out, cap, "end of input"); break;
    case TOK_LPAREN:
    case TOK_RPAREN:
    case TOK_LBRACKET:
    case TOK_RBRACKET:
    case TOK_LBRACE:
    case TOK_RBRACE: snprintf(out, cap, "%c", delims[tok->kind - TOK_LPAREN]); break;
    case TOK_TAG:
    case TOK_SLOT:
        snprintf(out, cap, "%c%.*s", tok->kind == TOK_TAG ? '#' : '$',
                 (int)utf8_clip(tok->text, tok->len, 64), tok->text);
        break;
    case TOK_INTEGER: snprintf(out, cap, "%lld", (long long)tok->i); break;
    case TOK_FLOAT: snprintf(out, cap, "%g", tok->f); break;
    default: snprintf(out, cap, "%.*s", (int)utf8_clip(tok->text, tok->len, 64), tok->text); break;
    }
}
