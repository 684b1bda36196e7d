/* The machine's stops (machine_watch.h). */
#define _GNU_SOURCE 1 /* sched_getcpu, sched_setaffinity */
#include "machine_watch.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_WATCHERS 64
#define MAX_OVERSLEEPS 4096
#define TICK_S 0.005 /* 1 ms wake-ups on every CPU moved bench_fairness's figures */
#define OVERSLEEP_S 0.005

typedef struct oversleep {
    double start, end;
    int cpu; /* -1: the watcher could not be pinned */
} oversleep;

typedef struct watcher {
    machine_watch *m;
    int cpu;
    pthread_t thread;
} watcher;

struct machine_watch {
    double start, until;
    size_t ms_count; /* the milliseconds watched, and calls finishing a little after */
    int threads;
    uint8_t **progress; /* [thread][ms]: bit cpu % 8 set when a call finished there */
    watcher watchers[MAX_WATCHERS];
    int watcher_count;
    pthread_mutex_t mu; /* oversleeps, longest */
    oversleep oversleeps[MAX_OVERSLEEPS];
    size_t count;
    double longest;
};

static uint8_t cpu_bit(int cpu) {
    return cpu < 0 ? 0xff : (uint8_t)(1u << (cpu % 8));
}

static void note_oversleep(machine_watch *m, oversleep o) {
    pthread_mutex_lock(&m->mu);
    if (o.end - o.start > m->longest) /* the oversleep: the span starts after the tick */
        m->longest = o.end - o.start;
    if (o.end - o.start > OVERSLEEP_S && m->count < MAX_OVERSLEEPS)
        m->oversleeps[m->count++] = o;
    pthread_mutex_unlock(&m->mu);
}

static void *watcher_main(void *arg) {
    watcher *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        w->cpu = -1;
    const struct timespec tick = {0, (long)(TICK_S * 1e9)};
    for (double last = bench_now_s(); last < w->m->until;) {
        nanosleep(&tick, NULL);
        double now = bench_now_s();
        note_oversleep(w->m, (oversleep){last + TICK_S, now, w->cpu});
        last = now;
    }
    return NULL;
}

/* A watcher for `cpu`, started; it pins itself, or watches any CPU. */
static bool start_watcher(machine_watch *m, int cpu) {
    watcher *w = &m->watchers[m->watcher_count];
    w->m = m;
    w->cpu = cpu;
    if (pthread_create(&w->thread, NULL, watcher_main, w) != 0)
        return false;
    m->watcher_count++;
    return true;
}

machine_watch *machine_watch_start(double until, int threads) {
    machine_watch *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->mu, NULL);
    m->start = bench_now_s();
    m->until = until;
    m->ms_count = (size_t)((until - m->start) * 1e3) + 1000;
    m->threads = threads;
    m->progress = calloc((size_t)threads, sizeof *m->progress);
    bool ok = m->progress != NULL;
    for (int i = 0; ok && i < threads; i++)
        ok = (m->progress[i] = calloc(m->ms_count, 1)) != NULL;
    if (!ok) {
        machine_watch_free(m);
        return NULL;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; cpu < cpus && cpu < MAX_WATCHERS; cpu++)
        if (!start_watcher(m, cpu))
            break;
    return m;
}

void machine_watch_progress(machine_watch *m, int thread, double now) {
    size_t ms = (size_t)((now - m->start) * 1e3);
    uint8_t bit = cpu_bit(sched_getcpu());
    if (thread < m->threads && ms < m->ms_count && (m->progress[thread][ms] & bit) != bit)
        m->progress[thread][ms] |= bit;
}

void machine_watch_join(machine_watch *m) {
    for (int i = 0; i < m->watcher_count; i++)
        pthread_join(m->watchers[i].thread, NULL);
}

double machine_watch_longest(const machine_watch *m) {
    return m->longest;
}

/* Whether no call finished on the oversleeping watcher's CPU in any whole
 * millisecond of its oversleep. */
static bool cpu_stopped(const machine_watch *m, oversleep o) {
    size_t from = (size_t)((o.start - m->start) * 1e3) + 1, to = (size_t)((o.end - m->start) * 1e3);
    if (to > m->ms_count)
        to = m->ms_count;
    uint8_t bit = cpu_bit(o.cpu);
    for (size_t ms = from; ms < to; ms++)
        for (int i = 0; i < m->threads; i++)
            if (m->progress[i][ms] & bit)
                return false;
    return from < to;
}

double machine_watch_within(const machine_watch *m, double start, double end, bool stops_only) {
    double sum = 0;
    for (size_t i = 0; i < m->count; i++) {
        oversleep o = m->oversleeps[i];
        double from = o.start > start ? o.start : start, to = o.end < end ? o.end : end;
        if (to > from && (!stops_only || cpu_stopped(m, o)))
            sum += to - from;
    }
    return sum < end - start ? sum : end - start;
}

void machine_watch_free(machine_watch *m) {
    if (!m)
        return;
    for (int i = 0; m->progress && i < m->threads; i++)
        free(m->progress[i]);
    free(m->progress);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
