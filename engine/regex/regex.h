/* A small regex engine for `matches?` (language.md §8.5.1): the syntax of Rust's
 * regex-lite (ASCII classes and case folding; `.` matches a code point),
 * compiled to a program run by a Pike VM in time linear in the subject.
 * No backreferences, no look-around. */
#ifndef MG_REGEX_REGEX_H
#define MG_REGEX_REGEX_H

#include <stddef.h>

#include "base/arena.h"

typedef struct regex_prog regex_prog;

/* Compiles pattern[0..len) into a program allocated in `a`. Returns 0, or
 * -1 with a reason such as "unclosed group" written to why[0..why_cap). */
int regex_compile(const char *pattern, size_t len, arena *a, regex_prog **out, char *why,
                  size_t why_cap);

/* Does the program match anywhere in subject[0..len) (UTF-8)? Returns 1
 * or 0, or -1 when out of memory. Safe to call from several threads. */
int regex_match(const regex_prog *p, const char *subject, size_t len);

#endif
