/* Rule benchmarks (issue 6; spec/BENCHMARKS.md shapes recursive_ancestors
 * and recursive), through minigraf.h only:
 *
 *   recursive_ancestors  (boss :p{leaf} ?b)   on the envelope fixture
 *   recursive            (boss ?x ?b)         on the envelope fixture
 *   chain_100/1000       (reach :n0 ?y)       over a linear chain
 *   chain_all_100        (reach ?x ?y)        over the chain of 100
 *   tree_10x4            (reach :t ?y)        over a fan-out tree, width 10, depth 4
 *
 * p50 / p99 per shape (wall clock), the p50 of CPU time, and the peak RSS
 * of one process per shape and scale (fork), so RSS per derived fact is
 * honest. Answers are read through a cursor in batches of 1,000 rows, so
 * the RSS is the engine's, not that of one answer-sized JSON text. The
 * envelope fixture is
 * built in memory by fixture.c with the facts of BENCHMARKS.md §1, without
 * the hot entity (the rule shapes read :manager only).
 *
 *   bench_rules [N ...]        (default N: 100000 1000000)
 *
 * BENCH_SHAPE=name runs only the shapes of that name, BENCH_RUNS=n runs
 * each query n times (profiling). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"

/* ---- fixtures ----------------------------------------------------------------- */

static const char *BOSS_RULES[] = {
    "(rule [(boss ?x ?b) [?x :manager ?b]])",
    "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])",
};

static const char *REACH_RULES[] = {
    "(rule [(reach ?x ?y) [?x :edge ?y]])",
    "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])",
};

static MiniGrafDb *envelope(long n) {
    MiniGrafDb *db = minigraf_open_in_memory();
    fixture_write_envelope(db, n, 0);
    for (int r = 0; r < 2; r++)
        fixture_run(db, BOSS_RULES[r]);
    return db;
}

static MiniGrafDb *chain(long depth) {
    MiniGrafDb *db = minigraf_open_in_memory();
    fixture_text t;
    fixture_text_init(&t);
    fixture_put(&t, "(transact [");
    for (long i = 0; i < depth; i++)
        fixture_put(&t, "[:n%ld :edge :n%ld]", i, i + 1);
    fixture_put(&t, "])");
    fixture_run(db, t.p);
    fixture_text_free(&t);
    for (int r = 0; r < 2; r++)
        fixture_run(db, REACH_RULES[r]);
    return db;
}

/* Node k's children are 10k+1 .. 10k+10; :t0 is the root. */
static MiniGrafDb *tree(int width, int depth) {
    MiniGrafDb *db = minigraf_open_in_memory();
    fixture_text t;
    fixture_text_init(&t);
    long nodes = 1, level = 1;
    for (int d = 0; d < depth; d++)
        nodes += (level *= width);
    fixture_put(&t, "(transact [");
    for (long k = 1; k < nodes; k++)
        fixture_put(&t, "[:t%ld :edge :t%ld]", (k - 1) / width, k);
    fixture_put(&t, "])");
    fixture_run(db, t.p);
    fixture_text_free(&t);
    for (int r = 0; r < 2; r++)
        fixture_run(db, REACH_RULES[r]);
    return db;
}

/* ---- measuring ---------------------------------------------------------------- */

/* Runs `query` and reads its answer as a user reading a large answer would:
 * batches of 1,000 rows through a cursor. The row count, or -1. */
static long run_query(MiniGrafDb *db, const char *query) {
    MiniGrafCursor *c = minigraf_query(db, query);
    if (!c)
        return -1;
    long rows = 0;
    char *batch;
    while ((batch = minigraf_cursor_next_batch(c, 1000)) != NULL) {
        rows += bench_batch_rows(batch);
        minigraf_string_free(batch);
    }
    if (minigraf_cursor_last_error(c))
        rows = -1;
    minigraf_cursor_free(c);
    return rows;
}

typedef struct figure {
    double p50_ms, p99_ms, cpu_p50_ms;
    long rows, peak_kib, base_kib;
} figure;

/* CPU time of this process: less disturbed than wall time on a machine
 * shared with other work. */
static double cpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void measure(MiniGrafDb *db, const char *query, int runs, figure *f) {
    double *t = calloc((size_t)runs, sizeof *t), *cpu = calloc((size_t)runs, sizeof *cpu);
    f->base_kib = bench_peak_rss_kib();
    for (int i = 0; i < runs; i++) {
        double t0 = bench_now_s(), c0 = cpu_now_s();
        f->rows = run_query(db, query);
        t[i] = (bench_now_s() - t0) * 1000.0;
        cpu[i] = (cpu_now_s() - c0) * 1000.0;
        if (f->rows < 0) {
            fprintf(stderr, "failed: %s\n%s\n", query, minigraf_last_error(db));
            exit(1);
        }
    }
    bench_sort_doubles(t, (size_t)runs);
    bench_sort_doubles(cpu, (size_t)runs);
    f->p50_ms = t[runs / 2];
    f->p99_ms = t[(runs * 99) / 100 < runs ? (runs * 99) / 100 : runs - 1];
    f->cpu_p50_ms = cpu[runs / 2];
    f->peak_kib = bench_peak_rss_kib();
    free(t);
    free(cpu);
}

static void report(const char *shape, long scale, const figure *f) {
    printf("%-22s %9ld %12.4f %12.4f %12.4f %10ld %10ld %12.1f\n", shape, scale, f->p50_ms,
           f->p99_ms, f->cpu_p50_ms, f->rows, f->peak_kib - f->base_kib,
           f->rows ? (double)(f->peak_kib - f->base_kib) * 1024.0 / (double)f->rows : 0.0);
    fflush(stdout);
}

/* One shape in its own process: fixture, then the query `runs` times. */
static void shape(const char *name, long scale, MiniGrafDb *(*make)(long), const char *query,
                  int runs) {
    const char *only = getenv("BENCH_SHAPE");
    if (only && strcmp(only, name) != 0)
        return;
    const char *force_runs = getenv("BENCH_RUNS");
    if (force_runs && atoi(force_runs) > 0)
        runs = atoi(force_runs);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        MiniGrafDb *db = make(scale);
        figure f = {0};
        measure(db, query, runs, &f);
        report(name, scale, &f);
        minigraf_close(db);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

static MiniGrafDb *make_tree(long scale) {
    (void)scale;
    return tree(10, 4);
}

int main(int argc, char **argv) {
    long scales[8] = {100000, 1000000};
    int count = 2;
    if (argc > 1) {
        count = 0;
        for (int i = 1; i < argc && count < 8; i++)
            scales[count++] = atol(argv[i]);
    }
    printf("%-22s %9s %12s %12s %12s %10s %10s %12s\n", "shape", "scale", "p50 ms", "p99 ms",
           "cpu p50 ms", "rows", "RSS KiB", "B/row");
    char q[128];
    for (int i = 0; i < count; i++) {
        snprintf(q, sizeof q, "(query [:find ?b :where (boss :p%ld ?b)])", scales[i] / 6 - 1);
        shape("recursive_ancestors", scales[i], envelope, q, 200);
        shape("recursive", scales[i], envelope, "(query [:find ?x ?b :where (boss ?x ?b)])", 3);
    }
    shape("chain_100", 100, chain, "(query [:find ?y :where (reach :n0 ?y)])", 50);
    shape("chain_all_100", 100, chain, "(query [:find ?x ?y :where (reach ?x ?y)])", 20);
    shape("chain_1000", 1000, chain, "(query [:find ?y :where (reach :n0 ?y)])", 5);
    shape("tree_10x4", 11111, make_tree, "(query [:find ?y :where (reach :t0 ?y)])", 20);
    return 0;
}
