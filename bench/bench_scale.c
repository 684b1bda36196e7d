/* What one shape costs per run on a cached fixture, for comparing scales
 * (issue 18: 1M against 10M): CPU time, bytes read from the file and page
 * faults per run, the first run (a fresh reader: its memos empty, the page
 * cache filling) apart from the later ones, and the peak RSS. Wall time
 * drifts with the machine's load; CPU time and bytes read do much less.
 *
 *   bench_scale DIR N SHAPE [RUNS] [PAGE_CACHE_PAGES]   (default RUNS: 5)
 *
 * The fixture (bench_query's) must exist; it is opened read-only. Exits
 * non-zero when a run fails or gives the wrong number of rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "fixture.h"
#include "shapes.h"
#include "minigraf.h"

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Bytes this process has read through read/pread so far (/proc/self/io). */
static long long bytes_read(void) {
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "rchar:", 6) == 0)
            v = atoll(line + 6);
    if (f)
        fclose(f);
    return v;
}

static long minor_faults(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* One run: its rows, or -1 after printing the error. */
static long run(MiniGrafDb *db, const char *text) {
    MiniGrafCursor *c = minigraf_query(db, text);
    if (!c) {
        fprintf(stderr, "query: %s\n", minigraf_last_error(db));
        return -1;
    }
    return fixture_drain(c, NULL, 0);
}

static int measure(MiniGrafDb *db, const char *text, long want, int runs) {
    printf("%4s %10s %10s %10s %9s\n", "run", "cpu ms", "read MB", "minflt", "rows");
    for (int i = 0; i < runs; i++) {
        double c0 = cpu_ms();
        long long r0 = bytes_read();
        long f0 = minor_faults();
        long rows = run(db, text);
        printf("%4d %10.1f %10.1f %10ld %9ld\n", i, cpu_ms() - c0,
               (double)(bytes_read() - r0) / 1e6, minor_faults() - f0, rows);
        if (rows < 0 || (want >= 0 && rows != want)) {
            fprintf(stderr, "run %d: %ld rows, expected %ld\n", i, rows, want);
            return 1;
        }
    }
    printf("peak RSS %ld KiB\n", bench_peak_rss_kib());
    return 0;
}

int main(int argc, char **argv) {
    const shape *sh = argc >= 4 ? shape_named(argv[3]) : NULL;
    if (!sh || sh->rules) {
        fprintf(stderr, "usage: bench_scale DIR N SHAPE [RUNS] [PAGE_CACHE_PAGES]\n"
                        "(SHAPE one of bench_query's shapes without rules)\n");
        return 2;
    }
    long n = atol(argv[2]);
    int runs = argc >= 5 ? atoi(argv[4]) : 5;
    char path[512], options[96], text[512];
    fixture_path(path, sizeof path, argv[1], n);
    params p;
    shape_params(n, &p);
    long long ms = shape_read_tx_half_ms(path, &p);
    if (ms <= 0) {
        fprintf(stderr, "cannot read %s (build it with bench_query)\n", path);
        return 1;
    }
    shape_set_tx_half_ms(&p, ms);
    shape_expand(sh->query, &p, 1, text, sizeof text);
    snprintf(options, sizeof options, "{\"read_only\": true, \"page_cache_size\": %ld}",
             argc >= 6 ? atol(argv[5]) : 4096L);
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    if (!db) {
        fprintf(stderr, "%s\n", error);
        minigraf_string_free(error);
        return 1;
    }
    printf("%s at %ld facts, %s\n", sh->name, n, options);
    int rc = measure(db, text, shape_expected_rows(sh, &p), runs);
    minigraf_close(db);
    return rc;
}
