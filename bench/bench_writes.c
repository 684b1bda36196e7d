/* Write latency and throughput (issue 18's write targets), through
 * minigraf.h only: single-fact transacts in memory (p50 / p90 µs per
 * commit), batch_100 file-backed with `synchronous: "normal"` (facts per
 * second), and retracting the same facts at the same sizes. Each fact
 * names a new keyword entity, `[:wN :v N]`, as bench_storage's inserts do.
 *
 *   bench_writes [DIR] [COUNT]   (DIR for the file, default /tmp; COUNT
 *                                 single-fact commits, default 20000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"

/* Runs `count` facts `per` to a command; returns facts per second and
 * fills `lat` (one µs figure per command) when given. */
static double run(MiniGrafDb *db, const char *op, long count, long per, double *lat) {
    fixture_text t;
    fixture_text_init(&t);
    double t0 = bench_now_s();
    for (long i = 0; i < count; i += per) {
        t.len = 0;
        fixture_put(&t, "(%s [", op);
        for (long k = i; k < i + per; k++)
            fixture_put(&t, "[:w%ld :v %ld]", k, k);
        fixture_put(&t, "])");
        double c0 = lat ? bench_now_s() : 0;
        fixture_run(db, t.p);
        if (lat)
            lat[i / per] = (bench_now_s() - c0) * 1e6;
    }
    double s = bench_now_s() - t0;
    fixture_text_free(&t);
    return (double)count / s;
}

static void pct(const char *what, double *lat, long n, double fps) {
    bench_sort_doubles(lat, (size_t)n);
    printf("%-28s p50 %6.2f us  p90 %6.2f us  %9.0f facts/s\n", what, lat[n / 2],
           lat[n * 9 / 10], fps);
}

static void memory_single(long count) {
    double *lat = malloc(sizeof *lat * (size_t)count);
    MiniGrafDb *db = minigraf_open_in_memory();
    double fps = run(db, "transact", count, 1, lat);
    pct("single transact, memory", lat, count, fps);
    fps = run(db, "retract", count, 1, lat);
    pct("single retract, memory", lat, count, fps);
    minigraf_close(db);
    free(lat);
}

static void file_batch(const char *dir, long count) {
    char path[1024], wal[1100];
    snprintf(path, sizeof path, "%s/bench-writes-%ld.graph", dir, (long)getpid());
    snprintf(wal, sizeof wal, "%s.wal", path);
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"synchronous\": \"normal\"}", NULL);
    if (!db) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    double fps = run(db, "transact", count, 100, NULL);
    printf("%-28s %9.0f facts/s\n", "batch_100 transact, file", fps);
    fps = run(db, "retract", count, 100, NULL);
    printf("%-28s %9.0f facts/s\n", "batch_100 retract, file", fps);
    minigraf_close(db);
    unlink(path);
    unlink(wal);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    long count = argc > 2 ? atol(argv[2]) : 20000;
    if (count < 100)
        count = 100;
    memory_single(count);
    file_batch(dir, count * 10);
    return 0;
}
