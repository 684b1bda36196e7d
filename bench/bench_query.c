/* Query benchmarks: every non-recursive shape of spec/BENCHMARKS.md §2 on
 * the envelope fixture (§1), through minigraf.h only. The fixture is built
 * once per scale and cached in the directory given on the command line
 * (bench_storage builds the same files); it is opened read-only. Every run
 * drains the cursor in batches of 1,000 rows and checks the row count.
 *
 * Each (scale, shape) runs in its own process, so the peak RSS reported is
 * that shape's. Prints a table and writes <dir>/query-N.json.
 *
 *   bench_query DIR [N ...] [-s SHAPE]... [-c]   (default N: 100000 1000000)
 *
 * -c: a cold cache, every timed run on a database opened just before it
 * (the open not timed): each page is read from the file and checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "shapes.h"
#include "minigraf.h"

#define MAX_RUNS 5000
#define BUDGET_S 1.5 /* timed seconds per shape, at least MIN_RUNS runs */
#define MIN_RUNS 5
#define WARMUP_RUNS 3

/* What one (scale, shape) measured; sent from the child through a pipe. */
typedef struct figures {
    int ok;
    long runs, rows, expected_rows; /* expected -1: "about", only stable */
    double p50_us, p99_us, min_us, max_us;
    long peak_rss_kib, open_rss_kib;
    char note[160]; /* a row-count or content mismatch, else "" */
} figures;

/* ---- running one shape ----------------------------------------------------- */

/* Runs the query once, draining it; returns its row count, or -1 on error.
 * When `first` is not NULL, the first batch is copied there. */
static long run_once(MiniGrafDb *db, const char *text, char *first, size_t size) {
    MiniGrafCursor *cur = minigraf_query(db, text);
    if (!cur) {
        fprintf(stderr, "query failed: %s\n  %s\n", minigraf_last_error(db), text);
        return -1;
    }
    long rows = 0;
    char *b;
    while ((b = minigraf_cursor_next_batch(cur, 1000)) != NULL) {
        if (first && rows == 0)
            snprintf(first, size, "%s", b);
        rows += bench_batch_rows(b);
        minigraf_string_free(b);
    }
    if (minigraf_cursor_last_error(cur)) {
        fprintf(stderr, "cursor failed: %s\n  %s\n", minigraf_cursor_last_error(cur), text);
        rows = -1;
    }
    minigraf_cursor_free(cur);
    return rows;
}

/* Checks the warm-up answer against what the fixture must give. */
static void check_answer(const shape *sh, const params *p, long rows, const char *first,
                         figures *fg) {
    char want[96];
    long table = shape_table_rows(sh, p->n);
    fg->expected_rows = shape_expected_rows(sh, p);
    shape_expected_text(sh, p, want, sizeof want);
    if (table && table != fg->expected_rows)
        snprintf(fg->note, sizeof fg->note, "spec table says %ld rows, fixture gives %ld", table,
                 fg->expected_rows);
    else if (fg->expected_rows >= 0 && rows != fg->expected_rows)
        snprintf(fg->note, sizeof fg->note, "ROWS %ld, expected %ld", rows, fg->expected_rows);
    else if (want[0] && strcmp(first, want) != 0)
        snprintf(fg->note, sizeof fg->note, "ANSWER %.60s, expected %.40s", first, want);
}

static int COLD; /* -c */

/* With COLD, each run on `path` opened afresh: returns the db left open
 * (NULL when a reopen failed). */
static MiniGrafDb *time_runs(MiniGrafDb *db, const char *path, const char *text, figures *fg) {
    static double t[MAX_RUNS];
    double spent = 0;
    long runs = 0;
    while (runs < MAX_RUNS && (runs < MIN_RUNS || spent < BUDGET_S)) {
        if (COLD) {
            minigraf_close(db);
            db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
            if (!db) {
                snprintf(fg->note, sizeof fg->note, "cannot reopen %s", path);
                return NULL;
            }
        }
        double t0 = bench_now_s();
        long rows = run_once(db, text, NULL, 0);
        t[runs] = (bench_now_s() - t0) * 1e6;
        spent += t[runs] / 1e6;
        if (rows != fg->rows) {
            snprintf(fg->note, sizeof fg->note, "UNSTABLE: run %ld gave %ld rows, first %ld", runs,
                     rows, fg->rows);
            return db;
        }
        runs++;
    }
    bench_sort_doubles(t, (size_t)runs);
    fg->runs = runs;
    fg->min_us = t[0];
    fg->max_us = t[runs - 1];
    fg->p50_us = t[runs / 2];
    fg->p99_us = t[(long)((double)(runs - 1) * 0.99 + 0.5)];
    return db;
}

static void measure_shape(const char *path, const shape *sh, const params *p, figures *fg) {
    char text[512], first[256] = "";
    shape_expand(sh->query, p, 1, text, sizeof text);
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
    if (!db) {
        snprintf(fg->note, sizeof fg->note, "cannot open %s", path);
        return;
    }
    fg->open_rss_kib = bench_rss_kib();
    fg->rows = run_once(db, text, first, sizeof first);
    for (int i = 1; i < WARMUP_RUNS && fg->rows >= 0; i++)
        run_once(db, text, NULL, 0);
    if (fg->rows >= 0) {
        check_answer(sh, p, fg->rows, first, fg);
        db = time_runs(db, path, text, fg);
        fg->ok = fg->runs > 0;
    }
    minigraf_close(db);
    fg->peak_rss_kib = bench_peak_rss_kib();
}

/* Runs fn in a fresh child process and returns what it wrote to *out. */
typedef void (*child_fn)(const char *path, const shape *sh, const params *p, figures *fg);

static void in_child(child_fn fn, const char *path, const shape *sh, const params *p,
                     figures *out) {
    int fds[2];
    memset(out, 0, sizeof *out);
    if (pipe(fds) != 0)
        exit(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        fn(path, sh, p, out);
        ssize_t w = write(fds[1], out, sizeof *out);
        _exit(w == (ssize_t)sizeof *out ? 0 : 1);
    }
    close(fds[1]);
    if (read(fds[0], out, sizeof *out) != (ssize_t)sizeof *out)
        snprintf(out->note, sizeof out->note, "child failed");
    close(fds[0]);
    waitpid(pid, NULL, 0);
}

/* ---- fixture parameters ---------------------------------------------------- */

/* The commit time of transaction tx_half, read in a child so that the
 * parent's RSS stays that of an unopened database. */
static void find_tx_half_time(const char *path, const shape *sh, const params *p, figures *fg) {
    (void)sh;
    fg->rows = (long)shape_read_tx_half_ms(path, p); /* carried in rows: ms since the epoch */
}

static void init_params(const char *path, long n, params *p) {
    shape_params(n, p);
    figures fg;
    in_child(find_tx_half_time, path, NULL, p, &fg);
    if (fg.rows <= 0) {
        fprintf(stderr, "cannot read the time of transaction %ld\n", p->tx_half);
        exit(1);
    }
    shape_set_tx_half_ms(p, fg.rows);
}

/* ---- output ---------------------------------------------------------------- */

static void print_header(const params *p) {
    printf("\n%ld facts (E = %ld, m = %ld, tx_half = %ld at %s, hot half = %ld)\n", p->n,
           p->entities, p->m, p->tx_half, p->tx_half_iso, p->hot_half);
    printf("%-17s %6s %10s %10s %10s %10s %9s %9s %10s %9s  %s\n", "shape", "runs", "p50 us",
           "p99 us", "min us", "max us", "rows", "RSS KiB", "target us", "ref/p50", "check");
}

static void print_row(const shape *sh, const figures *f, long n) {
    double target = sh->target_1m_only && n != 1000000 ? 0 : sh->target_us;
    char tgt[24] = "-", ratio[24] = "-";
    if (target > 0)
        snprintf(tgt, sizeof tgt, "%s%.0f", f->p50_us <= target ? "" : "!", target);
    if (sh->reference_us > 0 && f->p50_us > 0)
        snprintf(ratio, sizeof ratio, "%.1fx", sh->reference_us / f->p50_us);
    printf("%-17s %6ld %10.1f %10.1f %10.1f %10.1f %9ld %9ld %10s %9s  %s\n", sh->name, f->runs,
           f->p50_us, f->p99_us, f->min_us, f->max_us, f->rows, f->peak_rss_kib, tgt, ratio,
           f->note[0] ? f->note : "ok");
    fflush(stdout);
}

static void json_row(FILE *j, int first, const shape *sh, const figures *f) {
    fprintf(j,
            "%s\n {\"shape\":\"%s\",\"runs\":%ld,\"p50_us\":%.2f,\"p99_us\":%.2f,"
            "\"min_us\":%.2f,\"max_us\":%.2f,\"rows\":%ld,\"expected_rows\":%ld,"
            "\"peak_rss_kib\":%ld,\"open_rss_kib\":%ld,\"target_us\":%.0f,"
            "\"reference_10m_us\":%.0f,\"note\":\"%s\"}",
            first ? "" : ",", sh->name, f->runs, f->p50_us, f->p99_us, f->min_us, f->max_us,
            f->rows, f->expected_rows, f->peak_rss_kib, f->open_rss_kib, sh->target_us,
            sh->reference_us, f->note);
}

/* The recursive shapes are bench_rules's (they need the rules). */
static int selected(const shape *sh, const shape_args *a) {
    return !sh->rules && shape_selected(sh, a);
}

static int bench_scale(long n, const shape_args *args) {
    const char *dir = args->dir;
    char path[1024], jpath[1200];
    struct stat st;
    fixture_path(path, sizeof path, dir, n);
    if (stat(path, &st) != 0) {
        printf("building the %ld-fact fixture into %s ...\n", n, path);
        double t0 = bench_now_s();
        fixture_build(path, n);
        printf("built in %.1f s\n", bench_now_s() - t0);
    }
    params p;
    init_params(path, n, &p);
    print_header(&p);
    snprintf(jpath, sizeof jpath, "%s/query-%ld.json", dir, n);
    FILE *j = fopen(jpath, "w");
    if (j)
        fprintf(j, "{\"facts\":%ld,\"entities\":%ld,\"shapes\":[", n, p.entities);
    int written = 0, bad = 0;
    for (size_t i = 0; i < SHAPE_COUNT; i++) {
        if (!selected(&SHAPES[i], args))
            continue;
        figures f;
        in_child(measure_shape, path, &SHAPES[i], &p, &f);
        print_row(&SHAPES[i], &f, n);
        bad += !f.ok || f.note[0];
        if (j)
            json_row(j, !written++, &SHAPES[i], &f);
    }
    if (j) {
        fprintf(j, "\n]}\n");
        fclose(j);
    }
    return bad;
}

int main(int argc, char **argv) {
    shape_args args;
    if (shape_parse_args(argc, argv, &args) != 0)
        return 2;
    COLD = args.cold;
    int bad = 0;
    for (int i = 0; i < args.scale_count; i++)
        bad += bench_scale(args.scales[i], &args);
    printf("\n%s\n",
           bad ? "SOME SHAPES FAILED OR MISMATCHED (see the check column)" : "all checks passed");
    return bad ? 1 : 0;
}
