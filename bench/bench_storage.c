/* Storage benchmarks (spec/BENCHMARKS.md §1 fixture, §3 workloads), through
 * minigraf.h only: build the envelope fixture (cached under the directory
 * given on the command line), open it (time and RSS in a fresh process),
 * checkpoint after 1 and 10K new facts, single-fact and batch_100 inserts
 * in memory and file-backed. Prints a table and writes <dir>/storage-N.json.
 * Then (extra_scale): open replaying a WAL of 1K / 10K facts, checkpoint
 * medians (after 1 fact on fresh copies and in steady state, after 10K),
 * retract throughput; a second table and <dir>/storage-extra-N.json.
 * The fixture is made with the default options (no history index); the
 * same figures with the history_index option (file size of a copy whose
 * index a read-write open built, in-memory inserts) follow the table.
 *
 *   bench_storage DIR [N ...]      (default N: 100000 1000000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"

static long long file_bytes(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : 0;
}

typedef struct figures {
    long n;
    double build_s, open_ms, ckpt1_ms, ckpt10k_ms;
    long build_rss_kib, open_rss_kib, open_rss_delta_kib;
    long long file_bytes;
    double ins_mem, ins_file, batch_mem, batch_file; /* facts per second */
    long long hist_file_bytes;                       /* with the history index */
    double hist_ins_mem, hist_batch_mem;
} figures;

static void build_fixture(const char *path, long n, figures *fg) {
    double t0 = bench_now_s();
    fixture_build(path, n);
    fg->build_s = bench_now_s() - t0;
    fg->build_rss_kib = bench_peak_rss_kib();
}

/* Opens in a child so the RSS is that of a fresh process. */
static void measure_open(const char *path, figures *fg) {
    int fds[2];
    if (pipe(fds) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        long before = bench_rss_kib();
        double t0 = bench_now_s();
        MiniGrafDb *db = minigraf_open(path);
        double ms = (bench_now_s() - t0) * 1000;
        long after = bench_rss_kib();
        double out[3] = {ms, (double)after, (double)(after - before)};
        if (write(fds[1], out, sizeof out) != (ssize_t)sizeof out)
            _exit(1);
        minigraf_close(db);
        _exit(db ? 0 : 1);
    }
    double in[3] = {0};
    if (read(fds[0], in, sizeof in) != (ssize_t)sizeof in)
        fprintf(stderr, "open measurement failed\n");
    waitpid(pid, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    fg->open_ms = in[0];
    fg->open_rss_kib = (long)in[1];
    fg->open_rss_delta_kib = (long)in[2];
}

static void copy_file(const char *from, const char *to) {
    char cmd[1200];
    /* synced, so a checkpoint's fsync does not also pay for the copy */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && rm -f '%s.wal' && sync '%s'", from, to, to, to);
    if (system(cmd) != 0)
        exit(1);
}

static double checkpoint_after(const char *path, long facts) {
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"wal_checkpoint_threshold\": 0}", NULL);
    fixture_text t;
    fixture_text_init(&t);
    for (long i = 0; i < facts; i += 100) {
        t.len = 0;
        fixture_put(&t, "(transact [");
        for (long k = i; k < i + 100 && k < facts; k++)
            fixture_put(&t, "[:new%ld :x %ld]", k, k);
        fixture_put(&t, "])");
        fixture_run(db, t.p);
    }
    double t0 = bench_now_s();
    minigraf_checkpoint(db);
    double ms = (bench_now_s() - t0) * 1000;
    minigraf_close(db);
    fixture_text_free(&t);
    return ms;
}

#define HISTORY_INDEX "{\"history_index\": true}"

/* Facts per second for `count` facts, `per` facts per transact, the
 * database opened with `options` (NULL: the defaults). */
static double inserts(const char *path, const char *options, long count, long per) {
    MiniGrafDb *db = minigraf_open_with_options(path, options, NULL);
    fixture_text t;
    fixture_text_init(&t);
    double t0 = bench_now_s();
    for (long i = 0; i < count; i += per) {
        t.len = 0;
        fixture_put(&t, "(transact [");
        for (long k = i; k < i + per; k++)
            fixture_put(&t, "[:ins%ld :v %ld]", k, k);
        fixture_put(&t, "])");
        fixture_run(db, t.p);
    }
    double s = bench_now_s() - t0;
    minigraf_close(db);
    fixture_text_free(&t);
    return (double)count / s;
}

static void bench_scale(const char *dir, long n, figures *fg) {
    char path[1024], work[1100];
    fixture_path(path, sizeof path, dir, n);
    snprintf(work, sizeof work, "%s/work-%ld.graph", dir, n);
    fg->n = n;
    if (file_bytes(path) == 0)
        build_fixture(path, n, fg);
    else
        fg->build_s = -1; /* cached */
    fg->file_bytes = file_bytes(path);
    measure_open(path, fg);
    copy_file(path, work);
    fg->ckpt1_ms = checkpoint_after(work, 1);
    copy_file(path, work);
    fg->ckpt10k_ms = checkpoint_after(work, 10000);
    copy_file(path, work);
    fg->ins_file = inserts(work, NULL, 2000, 1);
    fg->batch_file = inserts(work, NULL, 20000, 100);
    copy_file(path, work);
    minigraf_close(minigraf_open_with_options(work, HISTORY_INDEX, NULL)); /* builds it */
    fg->hist_file_bytes = file_bytes(work);
    unlink(work);
    snprintf(work, sizeof work, "%s/work-%ld.graph.wal", dir, n);
    unlink(work);
    fg->ins_mem = inserts(NULL, NULL, 20000, 1);
    fg->batch_mem = inserts(NULL, NULL, 100000, 100);
    fg->hist_ins_mem = inserts(NULL, HISTORY_INDEX, 20000, 1);
    fg->hist_batch_mem = inserts(NULL, HISTORY_INDEX, 100000, 100);
}

static void report(const char *dir, const figures *f, int count) {
    printf("%-9s %9s %10s %11s %9s %9s %9s %9s %11s %11s %11s %11s\n", "facts", "build s",
           "build MiB", "file MiB", "B/fact", "open ms", "open KiB", "ckpt1 ms", "ckpt10k ms",
           "ins/s mem", "ins/s file", "b100/s file");
    char jpath[1100];
    snprintf(jpath, sizeof jpath, "%s/storage-%ld.json", dir, f[0].n);
    FILE *j = fopen(jpath, "w");
    if (j)
        fprintf(j, "[");
    for (int i = 0; i < count; i++) {
        printf("%-9ld %9.2f %10.1f %11.1f %9.1f %9.3f %9ld %9.3f %11.2f %11.0f %11.0f %11.0f\n",
               f[i].n, f[i].build_s, f[i].build_rss_kib / 1024.0, f[i].file_bytes / 1048576.0,
               (double)f[i].file_bytes / (double)f[i].n, f[i].open_ms, f[i].open_rss_kib,
               f[i].ckpt1_ms, f[i].ckpt10k_ms, f[i].ins_mem, f[i].ins_file, f[i].batch_file);
        if (j)
            fprintf(j,
                    "%s{\"facts\":%ld,\"build_s\":%.3f,\"build_peak_rss_kib\":%ld,"
                    "\"file_bytes\":%lld,\"open_ms\":%.4f,\"open_rss_kib\":%ld,"
                    "\"open_rss_delta_kib\":%ld,\"checkpoint_1_ms\":%.4f,"
                    "\"checkpoint_10k_ms\":%.3f,\"insert_memory_fps\":%.0f,"
                    "\"insert_file_fps\":%.0f,\"batch100_memory_fps\":%.0f,"
                    "\"batch100_file_fps\":%.0f,\"history_file_bytes\":%lld,"
                    "\"history_insert_memory_fps\":%.0f,\"history_batch100_memory_fps\":%.0f}",
                    i ? "," : "", f[i].n, f[i].build_s, f[i].build_rss_kib, f[i].file_bytes,
                    f[i].open_ms, f[i].open_rss_kib, f[i].open_rss_delta_kib, f[i].ckpt1_ms,
                    f[i].ckpt10k_ms, f[i].ins_mem, f[i].ins_file, f[i].batch_mem, f[i].batch_file,
                    f[i].hist_file_bytes, f[i].hist_ins_mem, f[i].hist_batch_mem);
    }
    if (j) {
        fprintf(j, "]\n");
        fclose(j);
    }
    for (int i = 0; i < count; i++) {
        printf("%ld facts: batch_100 in memory %.0f facts/s; open RSS delta %ld KiB\n", f[i].n,
               f[i].batch_mem, f[i].open_rss_delta_kib);
        printf("%ld facts with history_index: file %.1f MiB (%.1f B/fact), ins/s mem %.0f, "
               "b100/s mem %.0f\n",
               f[i].n, f[i].hist_file_bytes / 1048576.0,
               (double)f[i].hist_file_bytes / (double)f[i].n, f[i].hist_ins_mem,
               f[i].hist_batch_mem);
    }
}

/* ---- Checkpoint, WAL replay and retract measurements (issue 4) ---- */

#define CKPT_RUNS 5    /* fresh copies per checkpoint-after-1 figure */
#define CKPT10K_RUNS 3 /* fresh copies per checkpoint-after-10K figure */
#define STEADY_ROUNDS 50
#define OPEN_RUNS 5
#define RETRACTS 20000

typedef struct extra_figures {
    double wal_open_ms[2]; /* open replaying 1,000 / 10,000 WAL facts (median) */
    double ckpt1_ms, ckpt1_steady_ms, ckpt10k_ms; /* medians */
    double retract_mem, retract_file;             /* facts per second */
} extra_figures;

static double median(double *v, size_t n) {
    bench_sort_doubles(v, n);
    return v[n / 2];
}

/* `facts` new facts, 100 per transact, keyed from `from`. */
static void add_facts(MiniGrafDb *db, const char *prefix, long from, long facts) {
    fixture_text t;
    fixture_text_init(&t);
    for (long i = from; i < from + facts; i += 100) {
        t.len = 0;
        fixture_put(&t, "(transact [");
        for (long k = i; k < i + 100 && k < from + facts; k++)
            fixture_put(&t, "[:%s%ld :x %ld]", prefix, k, k);
        fixture_put(&t, "])");
        fixture_run(db, t.p);
    }
    fixture_text_free(&t);
}

/* Median checkpoint time after `facts` new facts, each run on a fresh
 * synced copy (the first checkpoint after open, as checkpoint_after). */
static double checkpoint_median(const char *fixture, const char *work, long facts, int runs) {
    double ms[CKPT_RUNS];
    for (int r = 0; r < runs; r++) {
        copy_file(fixture, work);
        ms[r] = checkpoint_after(work, facts);
    }
    return median(ms, (size_t)runs);
}

/* Median of STEADY_ROUNDS one-fact commit + checkpoint rounds on one file:
 * what an application checkpointing after every write sees. */
static double checkpoint_steady(const char *fixture, const char *work) {
    copy_file(fixture, work);
    MiniGrafDb *db = minigraf_open_with_options(work, "{\"wal_checkpoint_threshold\": 0}", NULL);
    double ms[STEADY_ROUNDS];
    for (int r = 0; r < STEADY_ROUNDS; r++) {
        add_facts(db, "steady", r, 1);
        double t0 = bench_now_s();
        minigraf_checkpoint(db);
        ms[r] = (bench_now_s() - t0) * 1000;
    }
    minigraf_close(db);
    return median(ms, STEADY_ROUNDS);
}

/* Open time (fresh process, median of OPEN_RUNS) of a copy whose WAL holds
 * `facts` committed, never checkpointed facts: the writer process ends
 * without closing, as after a crash. No run closes, so each replays. */
static double wal_open(const char *fixture, const char *work, long facts) {
    copy_file(fixture, work);
    pid_t pid = fork();
    if (pid == 0) {
        MiniGrafDb *db = minigraf_open_with_options(work, "{\"wal_checkpoint_threshold\": 0}",
                                                    NULL);
        add_facts(db, "pending", 0, facts);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    double ms[OPEN_RUNS];
    for (int r = 0; r < OPEN_RUNS; r++) {
        int fds[2];
        if (pipe(fds) != 0)
            exit(1);
        pid = fork();
        if (pid == 0) {
            double t0 = bench_now_s();
            MiniGrafDb *db = minigraf_open(work);
            double v = db ? (bench_now_s() - t0) * 1000 : -1;
            _exit(write(fds[1], &v, sizeof v) == (ssize_t)sizeof v && db ? 0 : 1);
        }
        if (read(fds[0], &ms[r], sizeof ms[r]) != (ssize_t)sizeof ms[r])
            ms[r] = -1;
        waitpid(pid, NULL, 0);
        close(fds[0]);
        close(fds[1]);
    }
    return median(ms, OPEN_RUNS);
}

/* Facts per second retracting RETRACTS facts, 100 per retract, after
 * asserting them (default options: synced commits, checkpoint every
 * 1,000 facts when file-backed). */
static double retracts(const char *path) {
    MiniGrafDb *db = path ? minigraf_open(path) : minigraf_open_in_memory();
    add_facts(db, "ret", 0, RETRACTS);
    fixture_text t;
    fixture_text_init(&t);
    double t0 = bench_now_s();
    for (long i = 0; i < RETRACTS; i += 100) {
        t.len = 0;
        fixture_put(&t, "(retract [");
        for (long k = i; k < i + 100; k++)
            fixture_put(&t, "[:ret%ld :x %ld]", k, k);
        fixture_put(&t, "])");
        fixture_run(db, t.p);
    }
    double s = bench_now_s() - t0;
    minigraf_close(db);
    fixture_text_free(&t);
    return RETRACTS / s;
}

static void extra_scale(const char *dir, long n) {
    char path[1024], work[1100];
    fixture_path(path, sizeof path, dir, n);
    snprintf(work, sizeof work, "%s/work-%ld.graph", dir, n);
    extra_figures x;
    x.wal_open_ms[0] = wal_open(path, work, 1000);
    x.wal_open_ms[1] = wal_open(path, work, 10000);
    x.ckpt1_ms = checkpoint_median(path, work, 1, CKPT_RUNS);
    x.ckpt1_steady_ms = checkpoint_steady(path, work);
    x.ckpt10k_ms = checkpoint_median(path, work, 10000, CKPT10K_RUNS);
    copy_file(path, work);
    x.retract_file = retracts(work);
    x.retract_mem = retracts(NULL);
    unlink(work);
    snprintf(work, sizeof work, "%s/work-%ld.graph.wal", dir, n);
    unlink(work);
    printf("%-9s %12s %12s %10s %12s %11s %12s %12s\n", "facts", "open+1K ms", "open+10K ms",
           "ckpt1 ms", "ckpt1 steady", "ckpt10k ms", "retr/s mem", "retr/s file");
    printf("%-9ld %12.3f %12.3f %10.3f %12.3f %11.2f %12.0f %12.0f\n", n, x.wal_open_ms[0],
           x.wal_open_ms[1], x.ckpt1_ms, x.ckpt1_steady_ms, x.ckpt10k_ms, x.retract_mem,
           x.retract_file);
    char jpath[1100];
    snprintf(jpath, sizeof jpath, "%s/storage-extra-%ld.json", dir, n);
    FILE *j = fopen(jpath, "w");
    if (j) {
        fprintf(j,
                "{\"facts\":%ld,\"open_wal_1k_ms\":%.4f,\"open_wal_10k_ms\":%.4f,"
                "\"checkpoint_1_median_ms\":%.4f,\"checkpoint_1_steady_median_ms\":%.4f,"
                "\"checkpoint_10k_median_ms\":%.3f,\"retract_memory_fps\":%.0f,"
                "\"retract_file_fps\":%.0f}\n",
                n, x.wal_open_ms[0], x.wal_open_ms[1], x.ckpt1_ms, x.ckpt1_steady_ms, x.ckpt10k_ms,
                x.retract_mem, x.retract_file);
        fclose(j);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CACHE_DIR [N ...]\n", argv[0]);
        return 2;
    }
    long scales[8] = {100000, 1000000};
    int count = 2;
    if (argc > 2) {
        count = 0;
        for (int i = 2; i < argc && count < 8; i++)
            scales[count++] = atol(argv[i]);
    }
    figures f[8];
    memset(f, 0, sizeof f);
    for (int i = 0; i < count; i++) {
        pid_t pid = fork(); /* one process per scale: honest peak RSS */
        if (pid == 0) {
            bench_scale(argv[1], scales[i], &f[i]);
            report(argv[1], &f[i], 1);
            extra_scale(argv[1], scales[i]);
            fflush(stdout);
            _exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    return 0;
}
