/* Write latency and throughput (issue 18's write targets), through
 * minigraf.h only: single-fact transacts in memory (p50 / p90 µs per
 * commit), batch_100 file-backed with `synchronous: "normal"` (facts per
 * second, with the default automatic checkpoints (100,000 facts or 4 MB
 * of WAL), with one every 1,000 facts (the earlier default) and with
 * checkpoints only at close), and retracting the same facts at the same
 * sizes. Each fact names a new keyword entity, `[:wN :v N]`, as
 * bench_storage's inserts do. Beside wall-clock rates, facts per second of
 * this process's CPU time (the machine is shared; fsync waits are not CPU).
 * Group commit: single-fact commits per second with `synchronous: "full"`
 * from 1, 2, 4 and 8 threads on one handle, GROUP_ROUNDS turns of
 * GROUP_SECONDS each (12 s in all), with commits per fdatasync and an
 * fdatasync's mean time (sync_count.h).
 *
 *   bench_writes [DIR] [COUNT]   (DIR for the file, default /tmp; COUNT
 *                                 single-fact commits, default 20000) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"
#include "sync_count.h"

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_fps; /* of the last run */

/* Runs `count` facts `per` to a command; returns facts per second and
 * fills `lat` (one µs figure per command) when given. */
static double run(MiniGrafDb *db, const char *op, long count, long per, double *lat) {
    fixture_text t;
    fixture_text_init(&t);
    double t0 = bench_now_s(), c0 = cpu_s();
    for (long i = 0; i < count; i += per) {
        t.len = 0;
        fixture_put(&t, "(%s [", op);
        for (long k = i; k < i + per; k++)
            fixture_put(&t, "[:w%ld :v %ld]", k, k);
        fixture_put(&t, "])");
        double l0 = lat ? bench_now_s() : 0;
        fixture_run(db, t.p);
        if (lat)
            lat[i / per] = (bench_now_s() - l0) * 1e6;
    }
    double s = bench_now_s() - t0;
    cpu_fps = (double)count / (cpu_s() - c0);
    fixture_text_free(&t);
    return (double)count / s;
}

static void pct(const char *what, double *lat, long n, double fps) {
    bench_sort_doubles(lat, (size_t)n);
    printf("%-36s p50 %6.2f us  p90 %6.2f us  %9.0f facts/s  %9.0f per CPU s\n", what, lat[n / 2],
           lat[n * 9 / 10], fps, cpu_fps);
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

static void file_batch(const char *dir, long count, const char *opts, const char *label) {
    char path[1024], wal[1100], what[128];
    snprintf(path, sizeof path, "%s/bench-writes-%ld.graph", dir, (long)getpid());
    snprintf(wal, sizeof wal, "%s.wal", path);
    unlink(path);
    unlink(wal);
    MiniGrafDb *db = minigraf_open_with_options(path, opts, NULL);
    if (!db) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    const char *ops[2] = {"transact", "retract"};
    for (int k = 0; k < 2; k++) {
        double fps = run(db, ops[k], count, 100, NULL);
        snprintf(what, sizeof what, "batch_100 %s, file, %s", ops[k], label);
        printf("%-58s %9.0f facts/s  %9.0f per CPU s\n", what, fps, cpu_fps);
    }
    minigraf_close(db);
    unlink(path);
    unlink(wal);
}

/* Each thread count runs GROUP_ROUNDS times GROUP_SECONDS, the counts
 * taking turns: an fsync's time on a shared disk drifts by several times
 * within seconds, and the ratios compare counts run in the same seconds. */
#define GROUP_SECONDS 0.5
#define GROUP_ROUNDS 6
#define GROUP_MAX_THREADS 8
#define GROUP_COUNTS 4 /* 1, 2, 4 and 8 threads */

typedef struct {
    MiniGrafDb *db;
    int id;
    double until;
    long commits;
} committer;

static void *commit_loop(void *arg) {
    committer *c = arg;
    char text[96];
    for (long i = 0; bench_now_s() < c->until; i++) {
        snprintf(text, sizeof text, "(transact [[:g%d_%ld :v %ld]])", c->id, i, i);
        fixture_run(c->db, text);
        c->commits++;
    }
    return NULL;
}

typedef struct {
    long commits, syncs;
    double seconds, sync_seconds; /* wall; in fdatasync */
} group_tally;

/* `threads` threads committing single facts for GROUP_SECONDS, on an
 * open of `path`; ids from `first_id` keep every run's entities new. */
static void group_run(const char *path, int threads, int first_id, group_tally *t) {
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"synchronous\": \"full\"}", NULL);
    if (!db) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    committer c[GROUP_MAX_THREADS];
    pthread_t th[GROUP_MAX_THREADS];
    long syncs = sync_count();
    double sync_s = sync_seconds(), t0 = bench_now_s();
    for (int i = 0; i < threads; i++) {
        c[i] = (committer){.db = db, .id = first_id + i, .until = t0 + GROUP_SECONDS};
        pthread_create(&th[i], NULL, commit_loop, &c[i]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        t->commits += c[i].commits;
    }
    t->seconds += bench_now_s() - t0;
    t->syncs += sync_count() - syncs;
    t->sync_seconds += sync_seconds() - sync_s;
    minigraf_close(db);
}

static void group_commit(const char *dir) {
    char path[1024], wal[1100];
    snprintf(path, sizeof path, "%s/bench-group-%ld.graph", dir, (long)getpid());
    snprintf(wal, sizeof wal, "%s.wal", path);
    group_tally t[GROUP_COUNTS] = {{0}};
    int id = 0;
    for (int round = 0; round < GROUP_ROUNDS; round++)
        for (int k = 0; k < GROUP_COUNTS; k++, id += GROUP_MAX_THREADS)
            group_run(path, 1 << k, id, &t[k]);
    double one = (double)t[0].commits / t[0].seconds;
    for (int k = 0; k < GROUP_COUNTS; k++) {
        double rate = (double)t[k].commits / t[k].seconds;
        long syncs = t[k].syncs > 0 ? t[k].syncs : 1;
        printf("single transact, file, sync full, %d thread%s %9.0f commits/s  (%.2fx)  %5.2f "
               "commits per sync  %6.0f us a sync\n",
               1 << k, k == 0 ? " " : "s", rate, rate / one, (double)t[k].commits / (double)syncs,
               t[k].sync_seconds * 1e6 / (double)syncs);
    }
    unlink(path);
    unlink(wal);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    long count = argc > 2 ? atol(argv[2]) : 20000;
    if (count < 100)
        count = 100;
    memory_single(count);
    group_commit(dir);
    file_batch(dir, count * 10, "{\"synchronous\": \"normal\"}", "default ckpt");
    file_batch(dir, count * 10, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 1000}",
               "ckpt/1K");
    file_batch(dir, count * 10, "{\"synchronous\": \"normal\", \"wal_checkpoint_threshold\": 0}",
               "ckpt at close");
    return 0;
}
