#include "base/cancel.h"

#include <time.h>

void cancel_source_init(cancel_source *s) {
    atomic_init(&s->interrupts, 0);
}

void cancel_interrupt(cancel_source *s) {
    atomic_fetch_add_explicit(&s->interrupts, 1, memory_order_relaxed);
}

static int64_t monotonic_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void cancel_begin(cancel *c, const cancel_source *src, int64_t timeout_ms,
                  cancel_progress_fn progress, void *progress_ctx, int64_t every) {
    *c = (cancel){.src = src, .timeout_ms = timeout_ms, .poll_every = CANCEL_POLL_TICKS};
    if (src)
        c->seen = atomic_load_explicit(&src->interrupts, memory_order_relaxed);
    if (timeout_ms > 0)
        c->deadline_ns = monotonic_ns() + timeout_ms * 1000000;
    if (progress) {
        c->progress = progress;
        c->progress_ctx = progress_ctx;
        c->progress_every = c->progress_left = every < 1 ? 1 : every;
        if (c->progress_every < c->poll_every)
            c->poll_every = c->progress_every;
    }
}

static int stop(cancel *c, err *e, const char *why) {
    c->stopped = ERR(API, 13);
    return err_set(e, c->stopped, "interrupted%s", why);
}

int cancel_poll(cancel *c, int64_t ticks, err *e) {
    if (!c)
        return 0;
    if (c->stopped)
        return stop(c, e, "");
    if (c->src && atomic_load_explicit(&c->src->interrupts, memory_order_relaxed) != c->seen)
        return stop(c, e, "");
    if (c->deadline_ns && monotonic_ns() >= c->deadline_ns) {
        err_set(e, ERR(API, 13),
                "interrupted: the query ran longer than query_timeout_ms (%lld ms)",
                (long long)c->timeout_ms);
        return c->stopped = ERR(API, 13);
    }
    if (c->progress && (c->progress_left -= ticks) <= 0) {
        c->progress_left = c->progress_every;
        if (c->progress(c->progress_ctx) != 0)
            return stop(c, e, " by the progress handler");
    }
    return 0;
}
