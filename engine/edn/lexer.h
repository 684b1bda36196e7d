/* The tokenizer of language.md §2.1-§2.4. Pull-based: the EDN reader asks for one
 * token at a time. Token texts are allocated in the lexer's arena. */
#ifndef MG_EDN_LEXER_H
#define MG_EDN_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

/* Limits of language.md §2.4. */
#define LEX_MAX_STRING 1048576
#define LEX_MAX_NAME 1024 /* keyword (with ':'), symbol, tag, slot name */

typedef enum lex_kind {
    TOK_EOF,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_LBRACKET,
    TOK_RBRACKET,
    TOK_LBRACE,
    TOK_RBRACE,
    TOK_STRING,  /* text: decoded, NUL-terminated */
    TOK_KEYWORD, /* text includes the ':' */
    TOK_SYMBOL,  /* also operators, true/false/nil and ?variables */
    TOK_INTEGER,
    TOK_FLOAT,
    TOK_TAG, /* text: the name after '#', possibly empty */
    TOK_SLOT /* text: the name after '$' */
} lex_kind;

typedef struct lex_token {
    lex_kind kind;
    uint32_t line, column; /* 1-based; column counts bytes */
    const char *text;      /* STRING, KEYWORD, SYMBOL, TAG, SLOT */
    size_t len;
    int64_t i; /* INTEGER */
    double f;  /* FLOAT */
} lex_token;

typedef struct lexer {
    const char *src;
    size_t len, pos;
    uint32_t line;
    size_t line_start; /* offset of the current line's first byte */
    arena *a;
} lexer;

void lex_init(lexer *lx, const char *text, size_t len, arena *a);

/* Whether s[0..len) is one whole keyword token (language.md §2.2: ':' and keyword
 * constituents, well-formed UTF-8, at most LEX_MAX_NAME bytes): text the
 * language can write as a keyword. */
bool lex_is_keyword(const char *s, size_t len);

/* Reads the next token (TOK_EOF at the end, repeatedly). Returns 0 or an
 * error code with `e` set: PRS-002, PRS-007, PRS-008, PRS-009, PRS-074, or
 * PRS-076 for out-of-range integers, long symbols and a bare '$'. */
int lex_next(lexer *lx, lex_token *tok, err *e);

/* A short printable form of a token for messages: ")" or "Symbol(foo)". */
void lex_describe(const lex_token *tok, char *out, size_t cap);

#endif
