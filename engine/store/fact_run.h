/* Scans read fact-tree entries straight into identifiers: the runs of
 * entries a B+tree cursor hands out (btree_next_run) are decoded field by
 * field as numbers kept from one entry to the next, instead of into key
 * bytes that fact_key_decode would then take apart again (the format is
 * fact_codec.h's; fact_codec.c decodes the same entries into keys). A
 * scan's bound, a prefix of the key, is tested on those numbers too. */
#ifndef MG_STORE_FACT_RUN_H
#define MG_STORE_FACT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/fact_key.h"
#include "store/row_values.h"

/* The numbers an entry's fields are differences of: the leading fields
 * by their FACT_ index (E, A; V's payload number, the integer itself for
 * integers; TXC, SEQ), then V's type, the times as int64 bit patterns and
 * the asserted flag. */
enum { RUN_VTYPE = FACT_LEADING, RUN_TXID, RUN_VALID_FROM, RUN_VALID_TO, RUN_ASSERTED, RUN_COLS };

/* The part of a column a bound fixes. */
typedef struct run_bound {
    uint64_t mask, want;
} run_bound;

typedef struct fact_run fact_run;
struct fact_run {
    uint64_t col[RUN_COLS];                  /* the last entry read, or the run's base */
    const uint8_t *p, *end;                  /* the entries not read yet */
    const uint8_t *room;                     /* readable up to here (fact_run_room) */
    int (*next)(fact_run *r, fact_ids *out); /* the order's decoder */
    /* The same over up to `max` entries (fact_run_fill). */
    int (*fill)(fact_run *r, fact_ids *out, size_t max, size_t *n);
    /* The same into rows (fact_run_fill_rows). */
    int (*fill_rows)(fact_run *r, const run_rows *out, size_t max, size_t *n);
    void (*key_cols)(const uint8_t *key, uint64_t *col); /* the order's key as columns */
    run_bound bound[RUN_COLS];
    uint8_t bound_col[RUN_COLS]; /* the column of each bound */
    uint8_t bounds;
    /* The entry flags that say every bound column equals the previous
     * entry's (RUN_NO_FLAG when a bound column has none), and those that
     * let an entry in without a test: bound_same once `col`'s bound
     * columns were found inside the bound, RUN_NO_FLAG before, 0 with no
     * bound (one test an entry). */
    unsigned bound_same, pass;
};

/* A flag no entry carries (entry flags are one byte). */
#define RUN_NO_FLAG 0x100u

/* A run of `order` with nothing to read, whose entries must start with
 * prefix[0..len) (len <= FACT_KEY_SIZE; 0: no bound). */
void fact_run_init(fact_run *r, int order, const uint8_t *prefix, size_t len);
/* Leaves nothing to read (until fact_run_start). */
static inline void fact_run_clear(fact_run *r) {
    r->p = r->end = NULL;
}
/* Reads `len` bytes of entries at `bytes` next, the first encoded against
 * the key of identifiers `base` (NULL: against nothing). */
void fact_run_start(fact_run *r, const fact_ids *base, const uint8_t *bytes, size_t len);
/* The same, the base given as the key's bytes (FACT_KEY_SIZE of them):
 * read straight into the columns, not decoded into identifiers first. */
void fact_run_start_key(fact_run *r, const uint8_t *base, const uint8_t *bytes, size_t len);

/* The bytes of the run's entries may be read up to `room` (NULL: not
 * past the end), the page's end, so that a decoder tests an entry's end
 * once, not each field's (fact_run_start resets it). */
void fact_run_room(fact_run *r, const uint8_t *room);

/* The seek of `order`'s codec inside one restart block (btree_codec's
 * seek): its entries decoded as numbers and compared with the target's,
 * only the key found built. */
int fact_run_seek(int order, const uint8_t *base, const uint8_t *in, size_t len,
                  const uint8_t *target, uint8_t *key, size_t *used);
/* The same for an insert (btree_codec's place): also the offset of the
 * entry found (len when none is) and the key before that place in the
 * block, when there is one. */
int fact_run_place(int order, const uint8_t *base, const uint8_t *in, size_t len,
                   const uint8_t *target, uint8_t *key, size_t *at, size_t *used, uint8_t *prev,
                   bool *has_prev);

/* What fact_run_next returns for an entry past the bound. */
#define FACT_RUN_PAST 2

/* Decodes the next entry: 1 with its identifiers in *out, 0 when the run
 * is read, FACT_RUN_PAST when the entry is past the bound, -1 when it
 * does not decode (then the run is left read). */
static inline int fact_run_next(fact_run *r, fact_ids *out) {
    return r->p < r->end ? r->next(r, out) : 0;
}

/* Decodes up to `max` entries into out[0..*n) in one loop (no call per
 * entry): 0 when it stopped at `max` or at the end of the run, otherwise
 * what fact_run_next returned for the entry it stopped at
 * (FACT_RUN_PAST or -1; that entry is not among the *n). */
static inline int fact_run_fill(fact_run *r, fact_ids *out, size_t max, size_t *n) {
    if (r->p >= r->end) {
        *n = 0;
        return 0;
    }
    return r->fill(r, out, max, n);
}

/* fact_run_fill writing the entries' positions straight into rows, no
 * identifiers in between: -1 also for an entry whose V has no type. */
static inline int fact_run_fill_rows(fact_run *r, const run_rows *out, size_t max, size_t *n) {
    if (r->p >= r->end) {
        *n = 0;
        return 0;
    }
    return r->fill_rows(r, out, max, n);
}

#endif
