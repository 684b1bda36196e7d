/* The per-query memory meter: a counter with a ceiling. */
#include "base/meter.h"

#include <stdbool.h>
#include <stdint.h>

void meter_init(meter *m, size_t limit_bytes) {
    m->limit = limit_bytes;
    m->used = 0;
    m->peak = 0;
    m->stop = NULL;
    m->work_left = INT64_MAX;
}

void meter_set_cancel(meter *m, cancel *c) {
    m->stop = c;
    m->work_left = c ? c->poll_every : INT64_MAX;
}

int meter_poll(meter *m, err *e) {
    if (!m->stop) {
        m->work_left = INT64_MAX;
        return 0;
    }
    int64_t done = m->stop->poll_every - m->work_left;
    m->work_left = m->stop->poll_every;
    int rc = cancel_poll(m->stop, done, e);
    if (rc != 0)
        m->work_left = 0; /* every later tick fails too */
    return rc;
}

int meter_charge(meter *m, size_t bytes, const char *op, err *e) {
    if (!m)
        return 0;
    /* Tested before adding, so that a huge request cannot wrap around. */
    bool wraps = bytes > SIZE_MAX - m->used;
    if (wraps || (m->limit != 0 && m->used + bytes > m->limit))
        return err_set(e, ERR(QRY, 12), "query memory limit of %zu bytes exceeded in %s", m->limit,
                       op);
    m->used += bytes;
    if (m->used > m->peak)
        m->peak = m->used;
    return 0;
}

void meter_release(meter *m, size_t bytes) {
    if (!m)
        return;
    m->used = bytes > m->used ? 0 : m->used - bytes;
}
