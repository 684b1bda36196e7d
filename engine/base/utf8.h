#ifndef MG_BASE_UTF8_H
#define MG_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
bool utf8_valid(const char *s, size_t len);

/* Decodes one code point at s[0..len); returns its byte length (>= 1) and
 * stores it in *cp, or returns 0 on malformed input. */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);

/* The longest prefix of s[0..len) of at most `max` bytes that does not
 * split a UTF-8 sequence (for quoting input in messages). */
size_t utf8_clip(const char *s, size_t len, size_t max);

/* Unicode letter / alphanumeric tests used by the lexer (language.md §2.2). */
bool unicode_is_alpha(uint32_t cp);
bool unicode_is_alnum(uint32_t cp);

#endif
