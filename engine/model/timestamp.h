/* Timestamp strings of language.md §7.2. */
#ifndef MG_MODEL_TIMESTAMP_H
#define MG_MODEL_TIMESTAMP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* The forever bound of valid_to: i64 max. */
#define VALID_TO_FOREVER INT64_MAX

/* Parses "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.fraction]Z" (UTC only) into
 * ms since the epoch. Errors (all PRS-075, see docs/errors.md):
 * offsets, missing Z, bad dates. Returns 0 or the error code. */
int timestamp_parse(const char *s, size_t len, int64_t *out_ms, err *e);

/* Writes ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" (the inverse of timestamp_parse
 * for years 0000-9999). `out` holds at least TIMESTAMP_TEXT_CAP bytes. */
#define TIMESTAMP_TEXT_CAP 48
void timestamp_format(int64_t ms, char *out);

#endif
