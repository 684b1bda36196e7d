/* Read scalability (issues 14 and 18): N threads (1, 2, 4) running one
 * shape at a time on the envelope fixture (spec/BENCHMARKS.md §1) for a
 * fixed time, in three modes:
 *
 *   shared    one handle shared by every thread, text queries
 *   per-handle one handle per thread on the same file (one shared store)
 *   prepared  one shared handle, one prepared statement per thread
 *
 * Shapes: point_entity, join_2, join_3_selective (bench/shapes.c). Each
 * thread checks the first answer it gets, then counts the queries it
 * finishes until the time is up. Printed per mode, shape and N: queries/s
 * (wall clock), the ratio to one thread's rate, and CPU µs per query (the
 * process's CPU time over all threads, divided by the queries: on a
 * machine shared with other work the wall-clock rate misleads, and CPU per
 * query that rises with N is contention), the cores the process used
 * (CPU time over wall time), the times a thread blocked (voluntary context
 * switches: lock waits) per 1,000 queries, and "cpu-x": N × one thread's
 * CPU per query over this CPU per query, the speed-up N threads would give
 * with N idle cores. Targets: ≥ 1.8× one thread's
 * rate with 2 threads (issue 18), ≥ 1.6× with 4 (issue 14), on 2 cores.
 *
 *   bench_concurrency DIR [N] [-t SECONDS] [-s SHAPE]...
 *
 * N defaults to 1000000; the fixture is built into DIR when missing. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"
#include "shapes.h"

#define MAX_THREADS 4

typedef enum mode { M_SHARED, M_PER_HANDLE, M_PREPARED, M_COUNT } mode;
static const char *const MODE_NAMES[M_COUNT] = {"shared handle", "handle per thread",
                                                "prepared, shared handle"};

typedef struct run {
    const char *path;
    const char *text; /* the shape's command */
    const char *want; /* its first batch ("" when not checked) */
    long rows;        /* its expected rows (-1: not checked) */
    mode m;
    MiniGrafDb *shared;
    atomic_int go, stop;
} run;

typedef struct worker {
    run *r;
    pthread_t thread;
    MiniGrafDb *own;
    MiniGrafStmt *stmt;
    long done;
} worker;

static void die(const char *what, const char *why) {
    fprintf(stderr, "%s: %s\n", what, why ? why : "(no message)");
    exit(1);
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Times a thread of this process gave up the CPU to wait (a lock, I/O). */
static long waits(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw;
}

static long query_once(worker *w, char *first, size_t size) {
    MiniGrafCursor *c;
    if (w->stmt) {
        if (!(c = minigraf_stmt_query(w->stmt)))
            die("stmt_query", minigraf_stmt_last_error(w->stmt));
    } else {
        MiniGrafDb *db = w->own ? w->own : w->r->shared;
        if (!(c = minigraf_query(db, w->r->text)))
            die("query", minigraf_last_error(db));
    }
    return fixture_drain(c, first, size);
}

static void check(worker *w) {
    char first[512] = "";
    long rows = query_once(w, first, sizeof first);
    if ((w->r->rows >= 0 && rows != w->r->rows) || (w->r->want[0] && strcmp(first, w->r->want))) {
        fprintf(stderr, "%s: %ld rows, first batch %s; expected %ld rows, %s\n", w->r->text, rows,
                first, w->r->rows, w->r->want);
        exit(1);
    }
}

static void *work(void *arg) {
    worker *w = arg;
    run *r = w->r;
    check(w);
    for (int i = 0; i < 200; i++) /* warm this thread's caches */
        query_once(w, NULL, 0);
    atomic_fetch_add(&r->go, 1);
    while (atomic_load(&r->go) >= 0) /* main sets -1 when all are ready */
        nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    long n = 0;
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        query_once(w, NULL, 0);
        n++;
    }
    w->done = n;
    return NULL;
}

typedef struct figure {
    double qps, cpu_us, cores, waits_per_kq;
} figure;

static figure measure(run *r, int threads, double seconds) {
    worker w[MAX_THREADS] = {0};
    atomic_store(&r->go, 0);
    atomic_store(&r->stop, 0);
    for (int i = 0; i < threads; i++) {
        w[i].r = r;
        if (r->m == M_PER_HANDLE && !(w[i].own = minigraf_open(r->path)))
            die("open", r->path);
        if (r->m == M_PREPARED && !(w[i].stmt = minigraf_prepare(r->shared, r->text)))
            die("prepare", minigraf_last_error(r->shared));
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0)
            die("pthread_create", "failed");
    }
    while (atomic_load(&r->go) < threads)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    long w0 = waits();
    double t0 = bench_now_s(), c0 = cpu_s();
    atomic_store(&r->go, -1);
    struct timespec d = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&d, NULL);
    atomic_store(&r->stop, 1);
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        total += w[i].done;
    }
    double wall = bench_now_s() - t0, cpu = cpu_s() - c0;
    long waited = waits() - w0 - 1; /* less the main thread's sleep */
    if (waited < 0)
        waited = 0; /* the joins may not have waited */
    for (int i = 0; i < threads; i++) {
        minigraf_stmt_free(w[i].stmt);
        minigraf_close(w[i].own);
    }
    double q = (double)(total ? total : 1);
    return (figure){total / wall, cpu * 1e6 / q, cpu / wall, (double)waited * 1000 / q};
}

typedef struct args {
    const char *dir;
    long n;
    double seconds;
    const char *only[16];
    int only_count;
} args;

static int parse(int argc, char **argv, args *a) {
    *a = (args){.n = 1000000, .seconds = 2.0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            a->seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc && a->only_count < 16)
            a->only[a->only_count++] = argv[++i];
        else if (!a->dir)
            a->dir = argv[i];
        else
            a->n = atol(argv[i]);
    }
    return a->dir && a->n > 0 && a->seconds > 0 ? 0 : -1;
}

static int wanted(const args *a, const char *name) {
    if (a->only_count == 0)
        return 1;
    for (int i = 0; i < a->only_count; i++)
        if (!strcmp(a->only[i], name))
            return 1;
    return 0;
}

static void bench_shape(run *r, const char *name, double seconds) {
    static const int COUNTS[] = {1, 2, 4};
    figure one = {0};
    for (int k = 0; k < 3; k++) {
        figure f = measure(r, COUNTS[k], seconds);
        if (k == 0)
            one = f;
        printf("%-24s %-17s %2d %10.0f %6.2fx %8.2f %6.2f %8.2f %6.2fx\n", MODE_NAMES[r->m], name,
               COUNTS[k], f.qps, f.qps / one.qps, f.cpu_us, f.cores, f.waits_per_kq,
               one.cpu_us / f.cpu_us * COUNTS[k]);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    static const char *const NAMES[] = {"point_entity", "join_2", "join_3_selective"};
    args a;
    if (parse(argc, argv, &a) != 0) {
        fprintf(stderr, "usage: bench_concurrency DIR [N] [-t SECONDS] [-s SHAPE]...\n");
        return 2;
    }
    char path[1024];
    struct stat st;
    fixture_path(path, sizeof path, a.dir, a.n);
    if (stat(path, &st) != 0) {
        printf("building the %ld-fact fixture into %s ...\n", a.n, path);
        fixture_build(path, a.n);
    }
    params p;
    shape_params(a.n, &p);
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = -1;
        fclose(la);
    }
    printf("%ld facts, %.1f s per figure, load average %.2f %.2f %.2f\n", a.n, a.seconds, load[0],
           load[1], load[2]);
    printf("%-24s %-17s %2s %10s %7s %8s %6s %8s %7s\n", "mode", "shape", "N", "queries/s", "vs 1",
           "cpu us/q", "cores", "waits/kq", "cpu-x");
    MiniGrafDb *shared = minigraf_open(path);
    if (!shared)
        die("open", path);
    for (int m = 0; m < M_COUNT; m++)
        for (size_t s = 0; s < sizeof NAMES / sizeof NAMES[0]; s++) {
            const shape *sh = shape_named(NAMES[s]);
            if (!sh || !wanted(&a, NAMES[s]))
                continue;
            char text[1024], want[256];
            shape_expand(sh->query, &p, 1, text, sizeof text);
            shape_expected_text(sh, &p, want, sizeof want);
            run r = {.path = path, .text = text, .want = want, .m = (mode)m, .shared = shared};
            r.rows = shape_expected_rows(sh, &p);
            bench_shape(&r, NAMES[s], a.seconds);
        }
    minigraf_close(shared);
    return 0;
}
