/* The per-query memory meter: a counter with a ceiling. */
#include "exec/meter.h"

#include <stdbool.h>
#include <stdint.h>

void meter_init(meter *m, size_t limit_bytes) {
    m->limit = limit_bytes;
    m->used = 0;
    m->peak = 0;
}

int meter_charge(meter *m, size_t bytes, const char *op, err *e) {
    if (!m)
        return 0;
    /* Tested before adding, so that a huge request cannot wrap around. */
    bool wraps = bytes > SIZE_MAX - m->used;
    if (wraps || (m->limit != 0 && m->used + bytes > m->limit))
        return err_set(e, ERR(QRY, 12), "query memory limit of %zu bytes exceeded in %s",
                       m->limit, op);
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
