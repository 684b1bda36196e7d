/* Writing datums back as text the reader accepts (for the Datalog printer). */
#ifndef MG_EDN_EDN_PRINT_H
#define MG_EDN_EDN_PRINT_H

#include <stddef.h>

#include "base/buf.h"
#include "edn/edn.h"

void edn_print(const edn *d, buf *out);

/* A string literal with the escapes of language.md §2.3 ("\"", "\\", "\n", "\t", "\r"). */
void edn_print_string(const char *s, size_t len, buf *out);

/* A float literal that reads back as the same double: positional digits
 * with a '.', since the language has no exponent syntax; infinities as a
 * literal that overflows. */
void edn_print_float(double f, buf *out);

/* #uuid "xxxxxxxx-xxxx-..." */
void edn_print_uuid(const uuid128 *u, buf *out);

#endif
