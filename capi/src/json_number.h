#ifndef MG_CAPI_JSON_NUMBER_H
#define MG_CAPI_JSON_NUMBER_H

#include <stddef.h>

/* Room for any finite double in the shortest form, plus the NUL. */
#define JSON_DOUBLE_MAX 32

/* Writes a finite double as the shortest decimal that reads back to the
 * same value, laid out as the spec's JSON (Ryu's layout): plain notation
 * with ".0" for integral values when the decimal point falls within the
 * first 16 digits, e.g. "95.0", "0.00001"; exponent notation otherwise,
 * e.g. "1e16", "1.5e-7". Returns the length. */
size_t json_format_double(double x, char out[JSON_DOUBLE_MAX]);

#endif
