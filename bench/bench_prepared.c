/* Prepared point query (language.md §13) beside the same query as repeated text,
 * in one process, on the envelope fixture (spec/BENCHMARKS.md §1) opened
 * read-only: point_entity's `[:p{m} :age ?a]` as text through
 * minigraf_query, and as `[$e :age ?a]` prepared once, then per run bound
 * (minigraf_stmt_bind_entity), run (minigraf_stmt_query) and drained in C
 * (minigraf_cursor_next_batch). Also the same bound once (what binding
 * costs), minigraf_stmt_execute (the whole answer as one JSON text), and
 * bind + stmt_query with ROTATE entities spread over the fixture bound in
 * turn (a run that cannot reuse the one before's seek).
 * A run takes about a microsecond, and reading the clock on a virtual
 * machine can cost a fifth of that, so each sample is the mean of
 * SAMPLE_RUNS consecutive runs; p50 / p99 are over the samples of a 1.5 s
 * budget per variant, variants interleaved in rounds so that a noisy
 * moment of the machine hits each of them alike.
 *
 *   bench_prepared DIR [N ...]      (default N: 100000 1000000)
 *
 * BENCH_PREPARED_COUNT (see count_only) runs one variant untimed, for
 * callgrind. The fixture is built into DIR when missing (bench_storage and
 * bench_query build the same files). Target (issue 13): prepared p50 <=
 * 0.6 us at 1M where the text query takes 0.9 us. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"
#include "shapes.h"

#define SAMPLE_RUNS 20    /* runs per timed sample */
#define ROUND_SAMPLES 100 /* samples of one variant before the next variant's */
#define MAX_RUNS 40000    /* samples per variant */
#define BUDGET_S 1.5      /* timed seconds per variant */
#define TARGET_US 0.6
#define ROTATE 64 /* entities the rotating variant binds in turn */

typedef enum variant {
    V_TEXT,
    V_PREPARED,
    V_PREPARED_BOUND,
    V_PREPARED_EXECUTE,
    V_PREPARED_ROTATING,
    V_COUNT
} variant;

static const char *const NAMES[V_COUNT] = {
    "text query (minigraf_query)", "prepared: bind + stmt_query",
    "prepared: stmt_query (bound once)", "prepared: bind + stmt_execute",
    "prepared: bind (64 in turn) + query"};

typedef struct bench {
    MiniGrafDb *db;
    MiniGrafStmt *stmt;
    char text[256];
    char uuid[40];
    char want[64]; /* the one batch the shape gives */
    char rotate[ROTATE][40];
    int next; /* of rotate[] */
    double *t[V_COUNT];
    long runs[V_COUNT];
    double spent[V_COUNT];
} bench;

static void die(const char *what, const char *why) {
    fprintf(stderr, "%s: %s\n", what, why ? why : "(no message)");
    exit(1);
}

/* One run of variant v; the answer's first batch into `first`. */
static long run_once(bench *b, variant v, char *first, size_t size) {
    if (v == V_TEXT) {
        MiniGrafCursor *c = minigraf_query(b->db, b->text);
        if (!c)
            die("query", minigraf_last_error(b->db));
        return fixture_drain(c, first, size);
    }
    const char *uuid = b->uuid;
    if (v == V_PREPARED_ROTATING) {
        uuid = b->rotate[b->next];
        b->next = (b->next + 1) % ROTATE;
    }
    if (v != V_PREPARED_BOUND && minigraf_stmt_bind_entity(b->stmt, "e", uuid) != 0)
        die("bind", minigraf_stmt_last_error(b->stmt));
    if (v == V_PREPARED || v == V_PREPARED_BOUND || v == V_PREPARED_ROTATING) {
        MiniGrafCursor *c = minigraf_stmt_query(b->stmt);
        if (!c)
            die("stmt_query", minigraf_stmt_last_error(b->stmt));
        return fixture_drain(c, first, size);
    }
    char *r = minigraf_stmt_execute(b->stmt);
    if (!r)
        die("stmt_execute", minigraf_stmt_last_error(b->stmt));
    if (first) { /* {"variables":["?a"],"results":[[N]]} → [[N]] */
        const char *res = strstr(r, "\"results\":");
        res = res ? res + strlen("\"results\":") : r;
        snprintf(first, size, "%.*s", (int)(strlen(res) ? strlen(res) - 1 : 0), res);
    }
    long rows = strstr(r, "[[") ? 1 : 0;
    minigraf_string_free(r);
    return rows;
}

/* The UUID of keyword entity `kw` (":p123"): what the database calls it,
 * read back from a scratch in-memory database. */
static void keyword_uuid(const char *kw, char out[40]) {
    MiniGrafDb *m = minigraf_open_in_memory();
    char tx[96];
    snprintf(tx, sizeof tx, "(transact [[%s :x 1]])", kw);
    char *r = minigraf_execute(m, tx);
    minigraf_string_free(r);
    r = minigraf_execute(m, "(query [:find ?e :where [?e :x 1]])");
    const char *p = r ? strstr(r, "[[\"") : NULL;
    if (!p)
        die("uuid of the point entity", minigraf_last_error(m));
    snprintf(out, 37, "%s", p + 3);
    minigraf_string_free(r);
    minigraf_close(m);
}

static void check_answers(bench *b) {
    for (int v = 0; v < V_COUNT; v++) {
        char first[256] = "";
        long rows = run_once(b, (variant)v, first, sizeof first);
        if (v == V_PREPARED_ROTATING) {
            for (int i = 1; i < ROTATE && rows == 1; i++)
                rows = run_once(b, (variant)v, NULL, 0);
            if (rows == 1)
                continue;
        }
        if (rows != 1 || strcmp(first, b->want) != 0) {
            fprintf(stderr, "%s: answer %s (%ld rows), expected %s\n", NAMES[v], first, rows,
                    b->want);
            exit(1);
        }
    }
}

static int done(const bench *b, int v) {
    return b->runs[v] >= MAX_RUNS || b->spent[v] >= BUDGET_S;
}

static void time_rounds(bench *b) {
    for (int round = 0;; round++) {
        int busy = 0;
        for (int v = 0; v < V_COUNT; v++) {
            if (done(b, v))
                continue;
            busy = 1;
            for (int i = 0; i < ROUND_SAMPLES && b->runs[v] < MAX_RUNS; i++) {
                double t0 = bench_now_s();
                for (int k = 0; k < SAMPLE_RUNS; k++)
                    run_once(b, (variant)v, NULL, 0);
                double us = (bench_now_s() - t0) * 1e6;
                b->t[v][b->runs[v]++] = us / SAMPLE_RUNS;
                b->spent[v] += us / 1e6;
            }
        }
        if (!busy)
            return;
    }
}

/* The cost of reading the clock, to subtract from nothing but to print. */
static double clock_cost_us(void) {
    double t0 = bench_now_s();
    for (int i = 0; i < 100000; i++)
        bench_now_s();
    return (bench_now_s() - t0) * 1e6 / 100000;
}

/* BENCH_PREPARED_COUNT="V RUNS": RUNS untimed runs of variant V (0-4)
 * after the check, nothing else; for instruction counts under callgrind,
 * whose difference between two RUNS is the cost per run. */
static int count_only(bench *b) {
    const char *env = getenv("BENCH_PREPARED_COUNT");
    int v = 0;
    long runs = 0;
    if (!env || sscanf(env, "%d %ld", &v, &runs) != 2 || v < 0 || v >= V_COUNT)
        return 0;
    for (long i = 0; i < runs; i++)
        run_once(b, (variant)v, NULL, 0);
    for (int i = 0; i < V_COUNT; i++)
        free(b->t[i]);
    minigraf_stmt_free(b->stmt);
    minigraf_close(b->db);
    return 1;
}

static int bench_scale(const char *dir, long n, FILE *j, int first_scale) {
    char path[1024];
    struct stat st;
    fixture_path(path, sizeof path, dir, n);
    if (stat(path, &st) != 0) {
        printf("building the %ld-fact fixture into %s ...\n", n, path);
        fixture_build(path, n);
    }
    params p;
    shape_params(n, &p);
    const shape *sh = shape_named("point_entity");
    bench b = {0};
    shape_expand(sh->query, &p, 1, b.text, sizeof b.text);
    shape_expected_text(sh, &p, b.want, sizeof b.want);
    char kw[32];
    snprintf(kw, sizeof kw, ":p%ld", p.m);
    keyword_uuid(kw, b.uuid);
    for (int i = 0; i < ROTATE; i++) { /* :p<k>, spread over the entities */
        char rk[32];
        snprintf(rk, sizeof rk, ":p%ld", (long)i * (p.entities / ROTATE) + 7);
        keyword_uuid(rk, b.rotate[i]);
    }
    b.db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
    if (!b.db)
        die("open", path);
    b.stmt = minigraf_prepare(b.db, "(query [:find ?a :where [$e :age ?a]])");
    if (!b.stmt)
        die("prepare", minigraf_last_error(b.db));
    for (int v = 0; v < V_COUNT; v++)
        if (!(b.t[v] = malloc(MAX_RUNS * sizeof *b.t[v])))
            die("malloc", "out of memory");
    check_answers(&b);
    if (count_only(&b))
        return 0;
    for (int i = 0; i < 1000; i++) /* warm-up */
        for (int v = 0; v < V_COUNT; v++)
            run_once(&b, (variant)v, NULL, 0);
    time_rounds(&b);

    printf("\n%ld facts: point_entity (%s / $e = %s), clock read %.3f us\n", n, kw, b.uuid,
           clock_cost_us());
    printf("%-34s %8s %9s %9s %9s %9s\n", "variant", "runs", "p50 us", "p99 us", "min us",
           "vs text");
    double p50[V_COUNT];
    for (int v = 0; v < V_COUNT; v++) {
        bench_sort_doubles(b.t[v], (size_t)b.runs[v]);
        p50[v] = b.t[v][b.runs[v] / 2];
        double p99 = b.t[v][(long)((double)(b.runs[v] - 1) * 0.99 + 0.5)];
        printf("%-34s %8ld %9.3f %9.3f %9.3f %8.2fx\n", NAMES[v], b.runs[v] * SAMPLE_RUNS, p50[v],
               p99, b.t[v][0], p50[V_TEXT] / p50[v]);
        if (j)
            fprintf(j,
                    "%s\n {\"facts\":%ld,\"variant\":\"%s\",\"runs\":%ld,\"p50_us\":%.3f,"
                    "\"p99_us\":%.3f,\"min_us\":%.3f}",
                    first_scale && v == 0 ? "" : ",", n, NAMES[v], b.runs[v] * SAMPLE_RUNS, p50[v],
                    p99, b.t[v][0]);
    }
    int ok = n != 1000000 || p50[V_PREPARED] <= TARGET_US;
    if (n == 1000000)
        printf("target: prepared p50 <= %.1f us: %s\n", TARGET_US, ok ? "met" : "NOT MET");
    for (int v = 0; v < V_COUNT; v++)
        free(b.t[v]);
    minigraf_stmt_free(b.stmt);
    minigraf_close(b.db);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_prepared DIR [N ...]\n");
        return 2;
    }
    long scales[8] = {100000, 1000000};
    int count = 2;
    if (argc > 2) {
        count = 0;
        for (int i = 2; i < argc && count < 8; i++)
            scales[count++] = atol(argv[i]);
    }
    char jpath[1200];
    snprintf(jpath, sizeof jpath, "%s/prepared.json", argv[1]);
    FILE *j = fopen(jpath, "w");
    if (j)
        fprintf(j, "{\"shape\":\"point_entity\",\"results\":[");
    int bad = 0;
    for (int i = 0; i < count; i++)
        bad += bench_scale(argv[1], scales[i], j, i == 0);
    if (j) {
        fprintf(j, "\n]}\n");
        fclose(j);
    }
    return bad ? 1 : 0;
}
