/* Query benchmarks: every non-recursive shape of spec/BENCHMARKS.md §2 on
 * the envelope fixture (§1), through minigraf.h only. The fixture is built
 * once per scale and cached in the directory given on the command line
 * (bench_storage builds the same files); it is opened read-only. Every run
 * drains the cursor in batches of 1,000 rows and checks the row count.
 *
 * Each (scale, shape) runs in its own process, so the peak RSS reported is
 * that shape's. Prints a table and writes <dir>/query-N.json.
 *
 *   bench_query DIR [N ...] [-s SHAPE]...   (default N: 100000 1000000) */
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
#include "minigraf.h"

#define MAX_RUNS 5000
#define BUDGET_S 1.5 /* timed seconds per shape, at least MIN_RUNS runs */
#define MIN_RUNS 5
#define WARMUP_RUNS 3

/* The values a shape's text is built from (BENCHMARKS.md §1). */
typedef struct params {
    long n, entities, m, leaf, tx_half, hot_half;
    char tx_half_iso[40]; /* the commit time of transaction tx_half */
} params;

/* A shape: its query (placeholders {m} {m4} {txh} {hoth} {ts}, see
 * expand()), the target p50 in µs at every scale (0: none; at 1M only
 * when target_1m_only), and the reference p50 in µs at 10M (§5; 0: none). */
typedef struct shape {
    const char *name;
    const char *query;
    double target_us;
    int target_1m_only;
    double reference_us;
} shape;

static const shape SHAPES[] = {
    {"point_entity", "[:find ?a :where [:p{m} :age ?a]]", 3, 0, 19},
    {"as_of", "[:find ?a :as-of {txh} :where [:p{m4} :age ?a]]", 3, 0, 19},
    {"valid_at", "[:find ?s :valid-at \"2021-06-01T00:00:00Z\" :where [:p{m} :status ?s]]", 3, 0,
     19},
    {"hot_current", "[:find ?v :where [:hot :counter ?v]]", 0, 0, 290},
    {"hot_as_of", "[:find ?v :as-of {hoth} :where [:hot :counter ?v]]", 0, 0, 0},
    {"as_of_ts", "[:find ?a :as-of \"{ts}\" :where [:p{m} :age ?a]]", 0, 0, 920},
    {"attribute_value", "[:find ?e :where [?e :name \"p{m}\"]]", 3, 0, 17},
    {"join_2", "[:find ?n :where [:p{m} :follows ?f] [?f :name ?n]]", 8, 0, 40},
    {"join_2_pseudo",
     "[:find ?n :valid-at :any-valid-time :where [:p{m} :follows ?f] [?f :name ?n] "
     "[?f :db/tx-count ?t]]",
     0, 0, 0},
    {"join_3_selective", "[:find ?s ?n :where [:p{m} :manager ?b] [?s :manager ?b] [?s :name ?n]]",
     40, 0, 195},
    {"limit", "[:find ?e ?a :where [?e :age ?a] :limit 10]", 30, 0, 320},
    {"top_k", "[:find ?e ?a :where [?e :age ?a] :order-by [?a :desc] :limit 10]", 0, 0, 2.54e6},
    {"not_probe", "[:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])]", 0, 0, 291e3},
    {"not_join", "[:find ?e :where [?e :group 7] (not-join [?e] [?e :age ?a] [(< ?a 50)])]", 0, 0,
     0},
    {"or_2", "[:find ?e :where [?e :group 7] (or [?e :age 7] [?e :age 17])]", 0, 0, 864e3},
    {"count_grouped", "[:find ?g (count ?e) :where [?e :group ?g]]", 20e3, 1, 610e3},
    {"count", "[:find (count ?v) :where [?e ?a ?v]]", 0, 0, 4.52e6},
    {"attribute_scan", "[:find ?e ?a :where [?e :age ?a]]", 50e3, 1, 2.55e6},
    {"as_of_ts_scan", "[:find ?e ?a :as-of \"{ts}\" :where [?e :age ?a]]", 0, 0, 1.40e6},
    {"window", "[:find ?e (rank :over (:order-by ?a)) :where [?e :age ?a]]", 0, 0, 5.95e6},
    {"join_3_scan", "[:find ?e ?n :where [?e :follows ?f] [?f :group 7] [?f :name ?n]]", 0, 0,
     13.2e6},
};
#define SHAPE_COUNT (sizeof SHAPES / sizeof SHAPES[0])

/* What one (scale, shape) measured; sent from the child through a pipe. */
typedef struct figures {
    int ok;
    long runs, rows, expected_rows; /* expected -1: "about", only stable */
    double p50_us, p99_us, min_us, max_us;
    long peak_rss_kib, open_rss_kib;
    char note[160]; /* a row-count or content mismatch, else "" */
} figures;

/* ---- expected answers, computed from the fixture's definition ---------- */

static long count_group7(long e, long age_lo, long age_hi, int or_ages) {
    long c = 0;
    for (long i = 7; i < e; i += 100) {
        long a = i % 90;
        if (or_ages ? (a == 7 || a == 17) : (a >= age_lo && a < age_hi))
            c++;
    }
    return c;
}

/* Entities whose :follows target is in group 7. */
static long count_follows_group7(long e) {
    long c = 0;
    for (long i = 0; i < e; i++)
        c += ((7919 * i + 1) % e) % 100 == 7;
    return c;
}

/* Entities sharing :p{m}'s manager (itself included). */
static long count_siblings(long e, long m) {
    long b = m / 10, c = 0;
    for (long s = 10 * b; s < 10 * b + 10 && s < e; s++)
        c += s >= 1;
    return c;
}

static long expected_rows(const char *name, const params *p) {
    long e = p->entities;
    if (!strcmp(name, "join_3_selective"))
        return count_siblings(e, p->m);
    if (!strcmp(name, "limit") || !strcmp(name, "top_k"))
        return 10;
    if (!strcmp(name, "not_probe"))
        return count_group7(e, 10, 90, 0);
    if (!strcmp(name, "not_join"))
        return count_group7(e, 50, 90, 0);
    if (!strcmp(name, "or_2"))
        return count_group7(e, 0, 0, 1);
    if (!strcmp(name, "count_grouped"))
        return e < 100 ? e : 100;
    if (!strcmp(name, "attribute_scan") || !strcmp(name, "window"))
        return e;
    if (!strcmp(name, "join_3_scan"))
        return count_follows_group7(e);
    if (!strcmp(name, "as_of_ts_scan"))
        return -1;
    return 1;
}

/* The row counts printed in BENCHMARKS.md §2 at 100K / 1M / 10M (0: the
 * table gives a formula or "about"); the computed expectation must agree. */
static long table_rows(const char *name, long n) {
    static const struct {
        const char *name;
        long rows[3];
    } t[] = {
        {"join_3_selective", {10, 10, 10}}, {"not_probe", {148, 1481, 14815}},
        {"not_join", {72, 740, 7407}},      {"or_2", {38, 372, 3704}},
        {"count_grouped", {100, 100, 100}}, {"join_3_scan", {167, 1667, 16667}},
    };
    int k = n == 100000 ? 0 : n == 1000000 ? 1 : n == 10000000 ? 2 : -1;
    for (size_t i = 0; k >= 0 && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, name))
            return t[i].rows[k];
    return 0;
}

/* The exact first batch of the one-row shapes whose answer is known from
 * the fixture's definition ("" when not checked). */
static void expected_text(const char *name, const params *p, char *out, size_t size) {
    long f = (7919 * p->m + 1) % p->entities;
    out[0] = '\0';
    if (!strcmp(name, "point_entity") || !strcmp(name, "as_of_ts"))
        snprintf(out, size, "[[%ld]]", p->m % 90);
    else if (!strcmp(name, "as_of"))
        snprintf(out, size, "[[%ld]]", (p->m / 4) % 90);
    else if (!strcmp(name, "valid_at"))
        snprintf(out, size, "[[\"a\"]]");
    else if (!strcmp(name, "hot_current"))
        snprintf(out, size, "[[1000]]");
    else if (!strcmp(name, "hot_as_of"))
        snprintf(out, size, "[[%ld]]", (p->hot_half - fixture_entity_txs(p->n)) / 2);
    else if (!strcmp(name, "join_2") || !strcmp(name, "join_2_pseudo"))
        snprintf(out, size, "[[\"p%ld\"]]", f);
}

/* ---- query texts --------------------------------------------------------- */

/* Copies `tmpl` into `out` (as "(query ...)"), replacing the placeholders
 * {m} (middle entity), {m4} (m/4), {txh} (tx_half), {hoth} (halfway
 * through the hot entity's history) and {ts} (ISO time of tx_half). */
static void expand(const char *tmpl, const params *p, char *out, size_t size) {
    size_t len = (size_t)snprintf(out, size, "(query ");
    for (const char *c = tmpl; *c && len + 64 < size; c++) {
        if (*c != '{') {
            out[len++] = *c;
            continue;
        }
        const char *end = strchr(c, '}');
        size_t k = (size_t)(end - c - 1);
        char val[48];
        if (!strncmp(c + 1, "m", k) && k == 1)
            snprintf(val, sizeof val, "%ld", p->m);
        else if (!strncmp(c + 1, "m4", k) && k == 2)
            snprintf(val, sizeof val, "%ld", p->m / 4);
        else if (!strncmp(c + 1, "txh", k) && k == 3)
            snprintf(val, sizeof val, "%ld", p->tx_half);
        else if (!strncmp(c + 1, "hoth", k) && k == 4)
            snprintf(val, sizeof val, "%ld", p->hot_half);
        else
            snprintf(val, sizeof val, "%s", p->tx_half_iso);
        len += (size_t)snprintf(out + len, size - len, "%s", val);
        c = end;
    }
    snprintf(out + len, size - len, ")");
}

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
    long table = table_rows(sh->name, p->n);
    fg->expected_rows = expected_rows(sh->name, p);
    expected_text(sh->name, p, want, sizeof want);
    if (table && table != fg->expected_rows)
        snprintf(fg->note, sizeof fg->note, "spec table says %ld rows, fixture gives %ld", table,
                 fg->expected_rows);
    else if (fg->expected_rows >= 0 && rows != fg->expected_rows)
        snprintf(fg->note, sizeof fg->note, "ROWS %ld, expected %ld", rows, fg->expected_rows);
    else if (want[0] && strcmp(first, want) != 0)
        snprintf(fg->note, sizeof fg->note, "ANSWER %.60s, expected %.40s", first, want);
}

static void time_runs(MiniGrafDb *db, const char *text, figures *fg) {
    static double t[MAX_RUNS];
    double spent = 0;
    long runs = 0;
    while (runs < MAX_RUNS && (runs < MIN_RUNS || spent < BUDGET_S)) {
        double t0 = bench_now_s();
        long rows = run_once(db, text, NULL, 0);
        t[runs] = (bench_now_s() - t0) * 1e6;
        spent += t[runs] / 1e6;
        if (rows != fg->rows) {
            snprintf(fg->note, sizeof fg->note, "UNSTABLE: run %ld gave %ld rows, first %ld",
                     runs, rows, fg->rows);
            return;
        }
        runs++;
    }
    bench_sort_doubles(t, (size_t)runs);
    fg->runs = runs;
    fg->min_us = t[0];
    fg->max_us = t[runs - 1];
    fg->p50_us = t[runs / 2];
    fg->p99_us = t[(long)((double)(runs - 1) * 0.99 + 0.5)];
}

static void measure_shape(const char *path, const shape *sh, const params *p, figures *fg) {
    char text[512], first[256] = "";
    expand(sh->query, p, text, sizeof text);
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
        time_runs(db, text, fg);
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

/* The commit time (tx_id, ms) of transaction tx_half, from the fact log. */
static void find_tx_half_time(const char *path, const shape *sh, const params *p,
                              figures *fg) {
    (void)sh;
    char filter[96];
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
    snprintf(filter, sizeof filter, "{\"tx_from\": %ld, \"tx_to\": %ld}", p->tx_half, p->tx_half);
    MiniGrafFactLog *log = db ? minigraf_fact_log(db, filter) : NULL;
    char *b = log ? minigraf_fact_log_next_batch(log, 1) : NULL;
    const char *at = b ? strstr(b, "\"tx_id\":") : NULL;
    fg->rows = at ? atol(at + 8) : -1; /* carried in rows: ms since the epoch */
    minigraf_string_free(b);
    minigraf_fact_log_free(log);
    minigraf_close(db);
}

static void ms_to_iso(long long ms, char *out, size_t size) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t len = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + len, size - len, ".%03dZ", (int)(ms % 1000));
}

static void init_params(const char *path, long n, params *p) {
    memset(p, 0, sizeof *p);
    p->n = n;
    p->entities = fixture_entities(n);
    p->m = p->entities / 2;
    p->leaf = p->entities - 1;
    p->tx_half = fixture_tx_half(n);
    /* the hot entity: assert (1 tx), then 1,000 retract + assert pairs;
     * after 1,001 of its 2,001 transactions it holds the value 500 */
    p->hot_half = fixture_entity_txs(n) + 1001;
    figures fg;
    in_child(find_tx_half_time, path, NULL, p, &fg);
    if (fg.rows <= 0) {
        fprintf(stderr, "cannot read the time of transaction %ld\n", p->tx_half);
        exit(1);
    }
    ms_to_iso(fg.rows, p->tx_half_iso, sizeof p->tx_half_iso);
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
    fprintf(j, "%s\n {\"shape\":\"%s\",\"runs\":%ld,\"p50_us\":%.2f,\"p99_us\":%.2f,"
               "\"min_us\":%.2f,\"max_us\":%.2f,\"rows\":%ld,\"expected_rows\":%ld,"
               "\"peak_rss_kib\":%ld,\"open_rss_kib\":%ld,\"target_us\":%.0f,"
               "\"reference_10m_us\":%.0f,\"note\":\"%s\"}",
            first ? "" : ",", sh->name, f->runs, f->p50_us, f->p99_us, f->min_us, f->max_us,
            f->rows, f->expected_rows, f->peak_rss_kib, f->open_rss_kib, sh->target_us,
            sh->reference_us, f->note);
}

static int selected(const shape *sh, char **only, int only_count) {
    for (int i = 0; i < only_count; i++)
        if (!strcmp(only[i], sh->name))
            return 1;
    return only_count == 0;
}

static int bench_scale(const char *dir, long n, char **only, int only_count) {
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
        if (!selected(&SHAPES[i], only, only_count))
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
    if (argc < 2) {
        fprintf(stderr, "usage: %s CACHE_DIR [N ...] [-s SHAPE]...\n", argv[0]);
        return 2;
    }
    long scales[8];
    char *only[SHAPE_COUNT];
    int count = 0, only_count = 0, bad = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc && only_count < (int)SHAPE_COUNT)
            only[only_count++] = argv[++i];
        else if (count < 8)
            scales[count++] = atol(argv[i]);
    }
    if (count == 0) {
        scales[0] = 100000;
        scales[1] = 1000000;
        count = 2;
    }
    for (int i = 0; i < count; i++)
        bad += bench_scale(argv[1], scales[i], only, only_count);
    printf("\n%s\n", bad ? "SOME SHAPES FAILED OR MISMATCHED (see the check column)" : "all checks passed");
    return bad ? 1 : 0;
}
