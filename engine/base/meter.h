/* The per-query memory meter (language.md §8.14, D8).
 *
 * Every operator that retains rows (hash tables, aggregate states, window
 * buffers, sort buffers, derived relations) charges the bytes it keeps and
 * releases them when it lets go. Crossing the limit fails the query with
 * QRY-012 naming the operator; nothing is charged by a failed call, so the
 * caller can unwind normally.
 *
 * One meter belongs to one query and is used by one thread at a time. */
#ifndef MG_BASE_METER_H
#define MG_BASE_METER_H

#include <stddef.h>
#include <stdint.h>

#include "base/cancel.h"
#include "base/error.h"

typedef struct meter {
    size_t limit; /* bytes; 0 = unlimited */
    size_t used;
    size_t peak;
    /* Work: ticks (records read, rows produced) left before the next poll
     * of `stop`, the call running the query (base/cancel.h). */
    int64_t work_left;
    cancel *stop; /* NULL: nothing stops the query */
} meter;

void meter_init(meter *m, size_t limit_bytes);

/* Adds `bytes` to the meter. Returns 0, or QRY-012 "query memory limit of N
 * bytes exceeded in <op>" (with `used` unchanged) when the total would pass
 * the limit. `m` may be NULL: then nothing is counted and 0 is returned. */
int meter_charge(meter *m, size_t bytes, const char *op, err *e);

/* Gives back bytes charged earlier (never more than `used`). NULL: no-op. */
void meter_release(meter *m, size_t bytes);

/* The call the query runs for now (a cursor's query runs for one fetch
 * after another): its interrupts, time limit and progress handler apply
 * from here on. NULL: none. */
void meter_set_cancel(meter *m, cancel *c);

int meter_poll(meter *m, err *e);

/* Counts `ticks` units of work (a record read, a row produced, a row
 * sorted): 0, or API-013 when the call was stopped (base/cancel.h). A
 * decrement and a test on the hot path; the poll itself comes every
 * CANCEL_POLL_TICKS ticks. `m` may be NULL. */
static inline int meter_tick(meter *m, size_t ticks, err *e) {
    if (!m || (m->work_left -= (int64_t)ticks) > 0)
        return 0;
    return meter_poll(m, e);
}

#endif
