/* 128-bit entity ids and the keyword → entity mapping (spec 6.1). */
#ifndef MG_MODEL_UUID_H
#define MG_MODEL_UUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct uuid128 {
    uint8_t bytes[16];
} uuid128;

#define UUID_TEXT_LEN 36 /* lowercase 8-4-4-4-12, without the NUL */

/* Parses the hyphenated 8-4-4-4-12 form, the 32-hex "simple" form, the
 * braced {...} form and the urn:uuid: form, case-insensitively. */
bool uuid_parse(const char *s, size_t len, uuid128 *out);

/* Writes the lowercase hyphenated form plus a NUL (37 bytes). */
void uuid_format(const uuid128 *u, char out[UUID_TEXT_LEN + 1]);

bool uuid_equal(const uuid128 *a, const uuid128 *b);
int uuid_compare(const uuid128 *a, const uuid128 *b); /* by bytes */

/* entity_id(k) of spec 6.1: `keyword` is the full text including the
 * leading ':'. The body, if it spells a UUID (hyphenated or simple), is
 * that UUID; otherwise UUIDv5(OID namespace, keyword bytes). */
uuid128 uuid_of_keyword(const char *keyword, size_t len);

#endif
