/* The leaf-entry format of fact trees (fact_codec.h describes it), shared
 * by its two decoders: fact_codec.c's into keys (seeks, inserts) and
 * fact_run.c's straight into identifiers (scans). */
#ifndef MG_STORE_FACT_FORMAT_H
#define MG_STORE_FACT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/format.h"
#include "storage/varint.h"
#include "store/fact_key.h"

/* The flags byte. */
enum {
    SAME_E = 1 << FACT_E,
    SAME_A = 1 << FACT_A,
    SAME_V = 1 << FACT_V,
    SAME_TXC = 1 << FACT_TXC,
    SAME_TXID = 1 << 4,
    ASSERTED = 1 << 5,
    VALID_FROM_STORED = 1 << 6,
    VALID_TO_STORED = 1 << 7
};

/* The sortable forms of 0 (the base at a restart) and of forever. */
#define SORTABLE_ZERO (UINT64_C(1) << 63)
#define SORTABLE_FOREVER UINT64_MAX

/* Big-endian fields of 8 bytes (and 6, through them): a load or store
 * and a byte swap where the host allows it (storage/format.h; the byte
 * by byte store was left so by gcc, ~25 instructions a decoded record).
 * Decoding is the inner loop of every seek, scan and insert. */
static inline uint64_t load64(const uint8_t *p) {
    return format_get_be(p, 8);
}

static inline void store64(uint8_t *p, uint64_t v) {
    format_put_be(p, v, 8);
}

/* Decoding is the inner loop of every seek, scan and insert: its steps
 * are forced inline so that each order's decoder is specialised to its
 * field sequence (left to itself the compiler kept them calls). */
#define DECODE_STEP static inline __attribute__((always_inline))

/* A cursor over an entry's bytes. */
typedef struct reader {
    const uint8_t *p, *end;
} reader;

/* With `room`, the caller knows VARINT_MAX bytes are left at r->p: no
 * bound to test. */
DECODE_STEP bool read_varint_in(reader *r, uint64_t *v, bool room) {
    if ((room || r->p < r->end) && *r->p < 0x80) {
        *v = *r->p++;
        return true;
    }
    size_t n = varint_get(r->p, room ? VARINT_MAX : (size_t)(r->end - r->p), v);
    r->p += n;
    return n != 0;
}

DECODE_STEP bool read_varint(reader *r, uint64_t *v) {
    return read_varint_in(r, v, false);
}

#endif
