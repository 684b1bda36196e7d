/* The fact log: every stored record of a database, streamed in commit order
 * (the TXLOG tree) or storage order (the EAVT tree), filtered while it
 * streams.
 *
 * A log sees the store as it stood when the log opened: records committed
 * later (their sequence numbers are at or past the snapshot's record count)
 * are never produced. It holds no lock between calls: each call takes a
 * store reader, resumes from the successor of the last key it read, and
 * releases the reader before returning, so writers are never blocked by an
 * idle log. The caller keeps the store open while the log lives. */
#ifndef MG_DB_FACT_LOG_H
#define MG_DB_FACT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/fact.h"
#include "store/store.h"

typedef enum fact_log_order {
    FACT_LOG_TX,     /* commit order; statement order within a transaction */
    FACT_LOG_STORAGE /* entity, attribute, value, tx_count, record number */
} fact_log_order;

typedef struct fact_log_text {
    const char *ptr;
    size_t len;
} fact_log_text;

/* Borrowed by fact_log_open only. A record passes when it passes every
 * filter present; with both attribute lists, matching either is enough.
 * An empty list that is present matches nothing. */
typedef struct fact_log_filter {
    fact_log_order order;
    bool has_attributes, has_prefixes, has_entities;
    const fact_log_text *attributes; /* full keyword texts, ':' included */
    size_t attribute_count;
    const fact_log_text *prefixes; /* attribute text prefixes */
    size_t prefix_count;
    const uuid128 *entities;
    size_t entity_count;
    uint64_t tx_from, tx_to; /* inclusive bounds on tx_count */
    bool has_window_from, has_window_to;
    int64_t window_from, window_to; /* [valid_from, valid_to) overlaps [from, to) */
} fact_log_filter;

/* No filter at all: every record, in commit order. */
void fact_log_filter_default(fact_log_filter *f);

typedef struct fact_log fact_log;

int fact_log_open(store *s, const fact_log_filter *f, fact_log **out, err *e);

/* Receives one record; its texts are valid during the call only. Returns 0
 * or an error code, which stops the stream call. */
typedef int (*fact_log_sink)(void *ctx, const fact *f, err *e);

/* Feeds the next at most `max` records to `sink`; *produced gets how many
 * (fewer than `max` only at the end of the stream). */
int fact_log_next(fact_log *l, size_t max, fact_log_sink sink, void *ctx, size_t *produced, err *e);

/* The transaction counter of the snapshot the log reads (empty
 * transactions included), whatever the filter. */
uint64_t fact_log_tx_count(const fact_log *l);

bool fact_log_done(const fact_log *l);
void fact_log_close(fact_log *l);

#endif
