/* Typed rows against JSON batches: the attribute_scan shape of
 * spec/BENCHMARKS.md §2 (`:find ?e ?a :where [?e :age ?a]`, E rows) on the
 * envelope fixture, drained two ways in the same process, runs
 * alternating so both see the same machine:
 *
 *   json  minigraf_cursor_next_batch in batches of 1,000 rows (the text
 *         is only counted, as a binding would hand it to its decoder);
 *   step  minigraf_cursor_step + minigraf_cursor_column_uuid (?e) and
 *         minigraf_cursor_column_int64 (?a) for every row.
 *
 * BENCH_ROWS_SHAPE=window drains the window shape instead
 * (`:find ?e (rank :over (:order-by ?a)) ...`: the same rows, the rank
 * in column 1).
 *
 * Reports p50 / min per query and per row for both, wall clock and the
 * process's CPU time (on a shared machine the CPU time is the steadier of
 * the two, and what the bindings' per-row benchmarks, bench_node_rows.js
 * and BenchRows.java, measure too), checks the row count and that both
 * paths see the same sum of ages, and writes <dir>/rows-N.json. The fixture is built once per scale
 * and cached in DIR (bench_storage / bench_query build the same files).
 *
 *   bench_rows DIR [N [OPTIONS]]   (default N: 1000000; OPTIONS: open
 *                                   options as JSON, read_only added)
 *
 * BENCH_ROWS_COUNT="PATH RUNS" (PATH json or step) drains RUNS times one
 * way, untimed, after one check, and nothing else: for instruction counts
 * under callgrind, whose difference between two RUNS is the cost of a
 * drained query. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"

#define RUNS 21
#define QUERY "(query [:find ?e ?a :where [?e :age ?a]])"
#define WINDOW_QUERY "(query [:find ?e (rank :over (:order-by ?a)) :where [?e :age ?a]])"

/* BENCH_ROWS_SHAPE (top of file): the shape drained. */
static const char *shape_name(void) {
    const char *env = getenv("BENCH_ROWS_SHAPE");
    return env && strcmp(env, "window") == 0 ? "window" : "attribute_scan";
}

typedef struct drained {
    long rows;
    int64_t age_sum; /* step only */
    double seconds, cpu_seconds;
} drained;

static double cpu_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static MiniGrafCursor *open_cursor(MiniGrafDb *db) {
    MiniGrafCursor *c = minigraf_query(db,
                                       strcmp(shape_name(), "window") == 0 ? WINDOW_QUERY : QUERY);
    if (!c) {
        fprintf(stderr, "query failed: %s\n", minigraf_last_error(db));
        exit(1);
    }
    return c;
}

static drained drain_json(MiniGrafDb *db) {
    drained d = {0};
    double t0 = bench_now_s(), c0 = cpu_now_s();
    MiniGrafCursor *c = open_cursor(db);
    char *batch;
    while ((batch = minigraf_cursor_next_batch(c, 1000)) != NULL) {
        d.rows += bench_batch_rows(batch);
        minigraf_string_free(batch);
    }
    if (minigraf_cursor_last_error(c)) {
        fprintf(stderr, "batch failed: %s\n", minigraf_cursor_last_error(c));
        exit(1);
    }
    minigraf_cursor_free(c);
    d.seconds = bench_now_s() - t0;
    d.cpu_seconds = cpu_now_s() - c0;
    return d;
}

static drained drain_step(MiniGrafDb *db) {
    drained d = {0};
    unsigned char seen = 0;
    double t0 = bench_now_s(), c0 = cpu_now_s();
    MiniGrafCursor *c = open_cursor(db);
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        const unsigned char *e = minigraf_cursor_column_uuid(c, 0);
        d.age_sum += minigraf_cursor_column_int64(c, 1);
        seen ^= e ? e[15] : 0;
        d.rows++;
    }
    if (rc < 0) {
        fprintf(stderr, "step failed: %s\n", minigraf_cursor_last_error(c));
        exit(1);
    }
    minigraf_cursor_free(c);
    d.seconds = bench_now_s() - t0;
    d.cpu_seconds = cpu_now_s() - c0;
    d.age_sum += seen & 0; /* keeps the UUID read */
    return d;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static MiniGrafDb *open_fixture(const char *dir, long n, const char *extra) {
    char path[512], options[512], *error = NULL;
    mkdir(dir, 0755);
    fixture_path(path, sizeof path, dir, n);
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "building the %ld-fact fixture at %s\n", n, path);
        fixture_build(path, n);
    }
    /* `extra` is a JSON object: its members follow read_only */
    snprintf(options, sizeof options, "{\"read_only\":true%s%.*s}", extra[0] ? "," : "",
             extra[0] ? (int)strlen(extra) - 2 : 0, extra[0] ? extra + 1 : "");
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    if (!db) {
        fprintf(stderr, "open %s: %s\n", path, error);
        exit(1);
    }
    return db;
}

/* BENCH_ROWS_COUNT (top of file): 1 when it asked for this run. */
static int count_only(MiniGrafDb *db, long want) {
    const char *env = getenv("BENCH_ROWS_COUNT");
    char path[8];
    long runs = 0;
    if (!env || sscanf(env, "%7s %ld", path, &runs) != 2)
        return 0;
    int step = strcmp(path, "step") == 0;
    for (long i = 0; i < runs; i++) {
        drained d = step ? drain_step(db) : drain_json(db);
        if (d.rows != want) {
            fprintf(stderr, "row count %ld (want %ld)\n", d.rows, want);
            exit(1);
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N [OPTIONS_JSON]]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    long want = fixture_entities(n);
    MiniGrafDb *db = open_fixture(argv[1], n, argc > 3 ? argv[3] : "");
    if (count_only(db, want)) {
        minigraf_close(db);
        return 0;
    }
    double json_s[RUNS], step_s[RUNS], json_cpu[RUNS], step_cpu[RUNS];
    int64_t sum = 0;
    for (int i = 0; i < 2; i++) { /* warm-up */
        drain_json(db);
        sum = drain_step(db).age_sum;
    }
    for (int i = 0; i < RUNS; i++) {
        drained j = drain_json(db), s = drain_step(db);
        if (j.rows != want || s.rows != want || s.age_sum != sum) {
            fprintf(stderr, "row count %ld / %ld (want %ld) or sum mismatch\n", j.rows, s.rows,
                    want);
            return 1;
        }
        json_s[i] = j.seconds;
        step_s[i] = s.seconds;
        json_cpu[i] = j.cpu_seconds;
        step_cpu[i] = s.cpu_seconds;
    }
    minigraf_close(db);
    qsort(json_s, RUNS, sizeof json_s[0], cmp_double);
    qsort(step_s, RUNS, sizeof step_s[0], cmp_double);
    qsort(json_cpu, RUNS, sizeof json_cpu[0], cmp_double);
    qsort(step_cpu, RUNS, sizeof step_cpu[0], cmp_double);
    double rows = (double)want;
    printf("%s at %ld facts, %ld rows, %d runs each (alternating)\n", shape_name(), n, want, RUNS);
    printf("%-6s %12s %12s %14s %14s %14s %14s\n", "path", "p50 ms", "min ms", "p50 ns/row",
           "min ns/row", "cpu p50 ns/row", "cpu min ns/row");
    printf("%-6s %12.2f %12.2f %14.1f %14.1f %14.1f %14.1f\n", "json", json_s[RUNS / 2] * 1e3,
           json_s[0] * 1e3, json_s[RUNS / 2] * 1e9 / rows, json_s[0] * 1e9 / rows,
           json_cpu[RUNS / 2] * 1e9 / rows, json_cpu[0] * 1e9 / rows);
    printf("%-6s %12.2f %12.2f %14.1f %14.1f %14.1f %14.1f\n", "step", step_s[RUNS / 2] * 1e3,
           step_s[0] * 1e3, step_s[RUNS / 2] * 1e9 / rows, step_s[0] * 1e9 / rows,
           step_cpu[RUNS / 2] * 1e9 / rows, step_cpu[0] * 1e9 / rows);
    printf("peak RSS %ld KiB\n", bench_peak_rss_kib());

    char out[512];
    snprintf(out, sizeof out, "%s/rows-%s%ld.json", argv[1],
             strcmp(shape_name(), "window") == 0 ? "window-" : "", n);
    FILE *f = fopen(out, "w");
    if (f) {
        fprintf(f,
                "{\"shape\":\"%s\",\"n\":%ld,\"rows\":%ld,\"runs\":%d,"
                "\"json\":{\"p50_ns_per_row\":%.1f,\"min_ns_per_row\":%.1f},"
                "\"step\":{\"p50_ns_per_row\":%.1f,\"min_ns_per_row\":%.1f,"
                "\"cpu_p50_ns_per_row\":%.1f,\"cpu_min_ns_per_row\":%.1f},"
                "\"peak_rss_kib\":%ld}\n",
                shape_name(), n, want, RUNS, json_s[RUNS / 2] * 1e9 / rows, json_s[0] * 1e9 / rows,
                step_s[RUNS / 2] * 1e9 / rows, step_s[0] * 1e9 / rows,
                step_cpu[RUNS / 2] * 1e9 / rows, step_cpu[0] * 1e9 / rows, bench_peak_rss_kib());
        fclose(f);
    }
    return 0;
}
