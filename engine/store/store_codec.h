/* The byte layout of one committed transaction in the store file
 * (little-endian throughout):
 *
 *   u64 tx_count, u32 fact_count, then per fact:
 *     entity[16], u32 attr_len, attr bytes, u8 value_tag, value payload,
 *     u64 tx_count, i64 tx_id, i64 valid_from, i64 valid_to, u8 asserted
 *
 *   value payload by tag (= value_type): String / Keyword: u32 len + bytes;
 *   Integer: i64; Float: the IEEE-754 bits as u64; Boolean: u8; Ref: 16
 *   bytes; Null: nothing. */
#ifndef MG_STORE_STORE_CODEC_H
#define MG_STORE_STORE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "model/fact.h"

/* Appends the payload to `out` (check out->oom). */
void store_codec_encode(uint64_t tx_count, const fact *facts, size_t count, buf *out);

/* Decodes a payload. On success *facts is a malloc'd array (the caller
 * frees it) whose strings point into `payload`. A malformed payload fails
 * with STG-005. */
int store_codec_decode(const uint8_t *payload, size_t len, uint64_t *tx_count, fact **facts,
                       size_t *count, err *e);

#endif
