/* Fair locking (issue 20): writer threads beside reader threads spinning
 * queries on one file database opened with `synchronous: "normal"`.
 *
 *   bench_fairness [seconds-per-phase [seed-entities [writers [readers [options-json]]]]]
 *                  (default: 3 1000 4 3 {"synchronous": "normal"}; a bad argument
 *                  prints the usage and exits 2)
 *
 * Three phases of the same length: the writers alone (each commit one
 * new fact on the writer's own entity, its values going on from phase to
 * phase), the readers alone (each query a count over
 * the seeded entities, read through a cursor), then both together. The
 * targets: writers keep >= 50% of their commit rate alone, readers >= 50%
 * of their query rate alone, and the worst commit latency beside the
 * readers is <= 20 ms. Prints the rates, both ratios, the worst and 99th
 * percentile commit latencies, how many commits took over 20 ms (one slow
 * event, or many), and whether each target is met (exit 0
 * either way: a bench reports, it does not judge the machine). Each phase
 * also prints the CPU the process used, in cores (CPU seconds per second):
 * when the together phase uses all the cores the machine gives, the two
 * ratios share that CPU, and their sum near 100% means no thread waited
 * for another; a sum well below means waiting. A thread a CPU sleeps 5 ms
 * at a time through each phase (machine_watch.h): the bench prints the
 * longest oversleep, how much of the worst commit was overslept, and the
 * worst commit with no stop of a CPU inside, a stop the virtual machine
 * makes, not a lock. */
#include <sys/resource.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "machine_watch.h"
#include "minigraf.h"

#define MAX_LATENCIES 1000000
#define MAX_THREADS 64 /* writers and readers of a phase */

static long thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* A commit's span of time. */
typedef struct span {
    double start, end;
} span;

typedef struct phase {
    MiniGrafDb *db;
    double until;
    machine_watch *watch; /* the machine's stops (NULL: not watched) */
    atomic_long commits;
    atomic_long queries;
    atomic_long failures;
    atomic_long writer_cpu_ns, reader_cpu_ns; /* the threads' own CPU time */
    pthread_mutex_t mu;                       /* commit_spans */
    span *commit_spans;
    size_t commit_count;
} phase;

typedef struct worker {
    phase *p;
    int id;
} worker;

static void note_progress(worker *w, double now) {
    if (w->p->watch)
        machine_watch_progress(w->p->watch, w->id, now);
}

static void note_commit(phase *p, double start, double end) {
    pthread_mutex_lock(&p->mu);
    if (p->commit_spans && p->commit_count < MAX_LATENCIES)
        p->commit_spans[p->commit_count++] = (span){start, end};
    pthread_mutex_unlock(&p->mu);
}

static double stopped_within(const phase *p, span c, bool stops_only) {
    return p->watch ? machine_watch_within(p->watch, c.start, c.end, stops_only) : 0;
}

/* The next value of each writer's facts. It carries over from phase to
 * phase, so that every phase's commits add new facts after the writer's
 * last ones, as the first phase's do: starting each phase at 0 made the
 * together phase re-assert the facts of the writers' phase alone, inserts
 * into the middle of leaves written long before, which cost 3.9-4.3 us a
 * commit against 3.3-3.4 for new facts beside the same readers. */
static long next_value[MAX_THREADS];

static void *writer_main(void *arg) {
    worker *w = arg;
    char text[128];
    long k = next_value[w->id];
    for (; bench_now_s() < w->p->until; k++) {
        snprintf(text, sizeof text, "(transact [[:writer-%d :n %ld]])", w->id, k);
        double t0 = bench_now_s();
        char *r = minigraf_execute(w->p->db, text);
        double t1 = bench_now_s();
        if (!r) {
            atomic_fetch_add(&w->p->failures, 1);
            continue;
        }
        minigraf_string_free(r);
        note_commit(w->p, t0, t1);
        note_progress(w, t1);
        atomic_fetch_add(&w->p->commits, 1);
    }
    next_value[w->id] = k;
    atomic_fetch_add(&w->p->writer_cpu_ns, thread_cpu_ns());
    return NULL;
}

static void *reader_main(void *arg) {
    worker *w = arg;
    static const char *q = "(query [:find (count ?e) :where [?e :seed _]])";
    while (bench_now_s() < w->p->until) {
        MiniGrafCursor *c = minigraf_query(w->p->db, q);
        char *batch = c ? minigraf_cursor_next_batch(c, 16) : NULL;
        if (batch)
            atomic_fetch_add(&w->p->queries, 1);
        else
            atomic_fetch_add(&w->p->failures, 1);
        minigraf_string_free(batch);
        minigraf_cursor_free(c);
        note_progress(w, bench_now_s());
    }
    atomic_fetch_add(&w->p->reader_cpu_ns, thread_cpu_ns());
    return NULL;
}

#define SLOW_COMMIT_S 0.020 /* the worst-commit target */

typedef struct outcome {
    double commit_rate, query_rate, worst_ms, p99_ms, cores;
    double writer_cores, reader_cores; /* the writer and reader threads' CPU */
    double longest_stall_ms;           /* the watch's longest oversleep (machine_watch.h) */
    double worst_stalled_ms;           /* how much of the worst commit was overslept */
    double worst_unstalled_ms;         /* the worst commit with no machine stop inside */
    long failures;
    size_t slow; /* commits slower than SLOW_COMMIT_S */
} outcome;

/* The commit figures of `o` from the phase's commits and stalls. */
static void judge_commits(const phase *p, outcome *o) {
    size_t n = p->commit_count;
    if (n == 0)
        return;
    double *seconds = malloc(sizeof(double) * n);
    if (!seconds)
        return;
    span worst = p->commit_spans[0];
    for (size_t i = 0; i < n; i++) {
        span c = p->commit_spans[i];
        seconds[i] = c.end - c.start;
        if (seconds[i] > worst.end - worst.start)
            worst = c;
        if (seconds[i] * 1e3 > o->worst_unstalled_ms && stopped_within(p, c, true) <= 0)
            o->worst_unstalled_ms = seconds[i] * 1e3;
    }
    o->worst_stalled_ms = stopped_within(p, worst, false) * 1e3;
    bench_sort_doubles(seconds, n);
    o->worst_ms = seconds[n - 1] * 1e3;
    o->p99_ms = seconds[(n * 99) / 100] * 1e3;
    while (o->slow < n && seconds[n - 1 - o->slow] > SLOW_COMMIT_S)
        o->slow++;
    free(seconds);
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static outcome run_phase(MiniGrafDb *db, double seconds, int writers, int readers) {
    phase p = {.db = db};
    pthread_mutex_init(&p.mu, NULL);
    p.commit_spans = malloc(sizeof(span) * MAX_LATENCIES);
    pthread_t th[MAX_THREADS];
    worker ws[MAX_THREADS];
    int n = 0;
    double cpu0 = cpu_seconds();
    p.until = bench_now_s() + seconds;
    p.watch = machine_watch_start(p.until, writers + readers);
    for (int i = 0; i < writers + readers; i++, n++) {
        ws[n] = (worker){&p, i};
        pthread_create(&th[n], NULL, i < writers ? writer_main : reader_main, &ws[n]);
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    if (p.watch)
        machine_watch_join(p.watch);
    outcome o = {.commit_rate = (double)atomic_load(&p.commits) / seconds,
                 .query_rate = (double)atomic_load(&p.queries) / seconds,
                 .failures = atomic_load(&p.failures),
                 .cores = (cpu_seconds() - cpu0) / seconds,
                 .writer_cores = (double)atomic_load(&p.writer_cpu_ns) * 1e-9 / seconds,
                 .reader_cores = (double)atomic_load(&p.reader_cpu_ns) * 1e-9 / seconds,
                 .longest_stall_ms = p.watch ? machine_watch_longest(p.watch) * 1e3 : 0};
    judge_commits(&p, &o);
    machine_watch_free(p.watch);
    free(p.commit_spans);
    pthread_mutex_destroy(&p.mu);
    return o;
}

static int seed(MiniGrafDb *db, long entities) {
    for (long i = 0; i < entities; i += 100) {
        char text[100 * 40 + 32];
        size_t len = (size_t)snprintf(text, sizeof text, "(transact [");
        for (long j = i; j < i + 100 && j < entities; j++)
            len += (size_t)snprintf(text + len, sizeof text - len, "[:seed-%ld :seed %ld]", j, j);
        snprintf(text + len, sizeof text - len, "])");
        char *r = minigraf_execute(db, text);
        if (!r) {
            fprintf(stderr, "seed: %s\n", minigraf_last_error(db));
            return 1;
        }
        minigraf_string_free(r);
    }
    return 0;
}

static void report(const char *name, outcome o) {
    printf("%-16s commits %9.0f/s  queries %9.0f/s  worst commit %8.2f ms  p99 %7.2f ms"
           "  over 20 ms %zu  failures %ld  cpu %.2f cores\n",
           name, o.commit_rate, o.query_rate, o.worst_ms, o.p99_ms, o.slow, o.failures, o.cores);
    printf("%-16s writers %.2f cores (%.2f us a commit), readers %.2f cores (%.2f us a query)\n",
           "", o.writer_cores, o.commit_rate > 0 ? o.writer_cores * 1e6 / o.commit_rate : 0,
           o.reader_cores, o.query_rate > 0 ? o.reader_cores * 1e6 / o.query_rate : 0);
    printf("%-16s a thread a CPU sleeping 5 ms at a time overslept by up to %.2f ms", "",
           o.longest_stall_ms);
    if (o.commit_rate > 0)
        printf(", %.2f ms of it within the worst commit; the worst commit with no machine stop "
               "inside %.2f ms",
               o.worst_stalled_ms, o.worst_unstalled_ms);
    printf("\n");
}

/* argv[i] as a number in [low, high], or `fallback` when not given;
 * anything else ends the program with the usage. */
static double number_arg(int argc, char **argv, int i, double fallback, double low, double high) {
    if (argc <= i)
        return fallback;
    char *end;
    double v = strtod(argv[i], &end);
    if (end == argv[i] || *end || !(v >= low && v <= high)) {
        fprintf(stderr,
                "bench_fairness: argument %d, '%s', is not a number in [%g, %g]\n"
                "usage: bench_fairness [seconds-per-phase [seed-entities [writers [readers "
                "[options-json]]]]]\n",
                i, argv[i], low, high);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    double seconds = number_arg(argc, argv, 1, 3.0, 0.01, 3600);
    long entities = (long)number_arg(argc, argv, 2, 1000, 1, 1e8);
    int writers = (int)number_arg(argc, argv, 3, 4, 1, MAX_THREADS - 1);
    int readers = (int)number_arg(argc, argv, 4, 3, 1, MAX_THREADS - writers);
    char dir[] = "/tmp/bench_fairness_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/db.graph", dir);
    char *error = NULL;
    const char *options = argc > 5 ? argv[5] : "{\"synchronous\": \"normal\"}";
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    if (!db) {
        fprintf(stderr, "open: %s\n", error ? error : "?");
        return 1;
    }
    int rc = seed(db, entities);
    if (rc == 0) {
        printf("%d writers, %d readers, %.1f s per phase, %ld seeded entities, options %s\n",
               writers, readers, seconds, entities, options);
        outcome w = run_phase(db, seconds, writers, 0);
        report("writers alone", w);
        outcome r = run_phase(db, seconds, 0, readers);
        report("readers alone", r);
        outcome b = run_phase(db, seconds, writers, readers);
        report("together", b);
        double wr = w.commit_rate > 0 ? b.commit_rate / w.commit_rate : 0;
        double rr = r.query_rate > 0 ? b.query_rate / r.query_rate : 0;
        printf("writer ratio %.0f%% (target >= 50%%: %s)\n", wr * 100,
               wr >= 0.5 ? "met" : "NOT met");
        printf("reader ratio %.0f%% (target >= 50%%: %s)\n", rr * 100,
               rr >= 0.5 ? "met" : "NOT met");
        printf("worst commit beside readers %.2f ms (target <= 20 ms: %s)\n", b.worst_ms,
               b.worst_ms <= 20.0 ? "met" : "NOT met");
        printf(
            "  the sleeping threads overslept %.2f ms of it; the worst commit with no machine stop "
            "inside %.2f ms (%s)\n",
            b.worst_stalled_ms, b.worst_unstalled_ms,
            b.worst_unstalled_ms <= 20.0 ? "met" : "NOT met");
        printf("ratios' sum %.0f%% at %.2f cores together (%.2f writers alone, %.2f readers "
               "alone)\n",
               (wr + rr) * 100, b.cores, w.cores, r.cores);
    }
    minigraf_close(db);
    char wal[sizeof path + 8];
    snprintf(wal, sizeof wal, "%s.wal", path);
    unlink(path);
    unlink(wal);
    rmdir(dir);
    return rc;
}
