/* minigraf beside SQLite (issue 18): every shape of spec/BENCHMARKS.md §2
 * on the envelope fixture (§1), run in one process, one shape after the
 * other on both engines, and reported as a ratio, since absolute times
 * drift by 2x on shared machines while ratios measured side by side hold.
 *
 * SQLite holds the same facts as an EAV table, the way an application
 * would model them: eav(e, a, v, tx, tx_end, vf, vt) with indexes (e, a, v)
 * and (a, v, e), in WAL mode, keyword entities as integers, tx / tx_end the transaction
 * counters that asserted and retracted a fact, [vf, vt) its valid window
 * (shapes.c has the SQL of every shape). Every SQL statement is prepared
 * once and reset between runs; minigraf runs its query text (which it
 * caches parsed). Both step through every row and read every column
 * (sqlite3_column_* / minigraf_cursor_column_*); the row
 * counts are checked against the fixture's definition.
 *
 *   bench_compare DIR [N ...] [-s SHAPE]...   (default N: 100000 1000000)
 *
 * The minigraf fixture is bench_query's (built if missing); the SQLite file
 * is DIR/eav-N.sqlite, built once. Prints a table, writes DIR/compare-N.json. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"
#include "shapes.h"

#define MAX_RUNS 5000
#define BUDGET_S 1.0 /* timed seconds per shape and engine, at least MIN_RUNS runs */
#define MIN_RUNS 5
#define WARMUP_RUNS 2
#define MAXTX INT64_MAX

typedef struct timing {
    long runs, rows; /* rows: of the first run; -1 on error */
    double p50_us, p99_us;
    char note[120];
} timing;

/* ---- the SQLite fixture ---------------------------------------------------- */

static void sql_exec(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s\n  %s\n", msg, sql);
        exit(1);
    }
}

typedef struct eav_writer {
    sqlite3_stmt *ins;
} eav_writer;

static void put(eav_writer *w, long e, const char *a, const char *text, long long num, long long tx,
                long long tx_end, long long vf, long long vt) {
    sqlite3_stmt *s = w->ins;
    sqlite3_bind_int64(s, 1, e);
    sqlite3_bind_text(s, 2, a, -1, SQLITE_STATIC);
    if (text)
        sqlite3_bind_text(s, 3, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(s, 3, num);
    sqlite3_bind_int64(s, 4, tx);
    sqlite3_bind_int64(s, 5, tx_end);
    sqlite3_bind_int64(s, 6, vf);
    sqlite3_bind_int64(s, 7, vt);
    if (sqlite3_step(s) != SQLITE_DONE) {
        fprintf(stderr, "sqlite insert failed\n");
        exit(1);
    }
    sqlite3_reset(s);
}

/* The facts of fixture.c with its transaction counters: per batch b of 200
 * entities, tx 3b+1 the plain facts, 3b+2 status "a", 3b+3 status "b";
 * then the hot entity's 2,001 transactions. */
static void write_eav(eav_writer *w, long n) {
    const long long y2020 = 1577836800000LL, y2023 = 1672531200000LL;
    long e = fixture_entities(n);
    char name[32];
    for (long i = 0; i < e; i++) {
        long long tx = 3 * (i / 200) + 1;
        snprintf(name, sizeof name, "p%ld", i);
        put(w, i, "name", name, 0, tx, MAXTX, 0, MAXTX);
        put(w, i, "age", NULL, i % 90, tx, MAXTX, 0, MAXTX);
        put(w, i, "group", NULL, i % 100, tx, MAXTX, 0, MAXTX);
        put(w, i, "follows", NULL, (7919 * i + 1) % e, tx, MAXTX, 0, MAXTX);
        if (i >= 1)
            put(w, i, "manager", NULL, i / 10, tx, MAXTX, 0, MAXTX);
        put(w, i, "status", "a", 0, tx + 1, MAXTX, y2020, y2023);
        put(w, i, "status", "b", 0, tx + 2, MAXTX, y2023, MAXTX);
    }
    long long base = fixture_entity_txs(n);
    for (long v = 0; v <= 1000; v++) {
        long long tx = v == 0 ? base + 1 : base + 2 * v + 1;
        put(w, -1, "counter", NULL, v, tx, v < 1000 ? base + 2 * v + 2 : MAXTX, 0, MAXTX);
    }
}

static void build_sqlite(const char *path, long n) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.building", path);
    remove(tmp);
    sqlite3 *db;
    if (sqlite3_open(tmp, &db) != SQLITE_OK)
        exit(1);
    sql_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                 "CREATE TABLE eav (e INTEGER NOT NULL, a TEXT NOT NULL, v, tx INTEGER NOT NULL,"
                 " tx_end INTEGER NOT NULL, vf INTEGER NOT NULL, vt INTEGER NOT NULL); BEGIN");
    eav_writer w;
    sqlite3_prepare_v2(db, "INSERT INTO eav VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &w.ins, NULL);
    write_eav(&w, n);
    sqlite3_finalize(w.ins);
    /* No ANALYZE, as most applications: with its statistics SQLite 3.40
     * puts a Bloom filter over the whole table into each step of the
     * recursive CTEs (17 ms instead of 47 us for recursive_ancestors). */
    sql_exec(db,
             "COMMIT; CREATE INDEX eav_eav ON eav (e, a, v); CREATE INDEX eav_ave ON eav (a, v, e);"
             "PRAGMA journal_mode = WAL");
    sqlite3_close(db);
    if (rename(tmp, path) != 0)
        exit(1);
}

/* ---- one run on each engine -------------------------------------------------- */

static long run_sqlite(sqlite3_stmt *s) {
    long rows = 0;
    int rc, cols = sqlite3_column_count(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < cols; c++)
            if (sqlite3_column_type(s, c) == SQLITE_TEXT)
                (void)sqlite3_column_text(s, c);
            else
                (void)sqlite3_column_int64(s, c);
        rows++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? rows : -1;
}

/* Steps through the rows reading every column, as run_sqlite does. */
static void read_columns(MiniGrafCursor *cur, int cols) {
    size_t len;
    for (int c = 0; c < cols; c++)
        switch (minigraf_cursor_column_type(cur, c)) {
        case MINIGRAF_TYPE_INTEGER: (void)minigraf_cursor_column_int64(cur, c); break;
        case MINIGRAF_TYPE_FLOAT: (void)minigraf_cursor_column_double(cur, c); break;
        case MINIGRAF_TYPE_REF: (void)minigraf_cursor_column_uuid(cur, c); break;
        default: (void)minigraf_cursor_column_text(cur, c, &len); break;
        }
}

static long run_minigraf(MiniGrafDb *db, const char *text) {
    MiniGrafCursor *cur = minigraf_query(db, text);
    if (!cur)
        return -1;
    long rows = 0;
    int rc, cols = minigraf_cursor_column_count(cur);
    while ((rc = minigraf_cursor_step(cur)) == 1) {
        read_columns(cur, cols);
        rows++;
    }
    minigraf_cursor_free(cur);
    return rc == 0 ? rows : -1;
}

/* Runs `one` repeatedly: warm-up, then timed runs until the budget is
 * spent; every run must give the first run's row count. */
typedef long (*run_fn)(void *ctx);

static void time_engine(run_fn one, void *ctx, timing *t) {
    static double us[MAX_RUNS];
    memset(t, 0, sizeof *t);
    t->rows = one(ctx);
    for (int i = 1; i < WARMUP_RUNS && t->rows >= 0; i++)
        one(ctx);
    double spent = 0;
    while (t->rows >= 0 && t->runs < MAX_RUNS && (t->runs < MIN_RUNS || spent < BUDGET_S)) {
        double t0 = bench_now_s();
        long rows = one(ctx);
        us[t->runs] = (bench_now_s() - t0) * 1e6;
        spent += us[t->runs] / 1e6;
        if (rows != t->rows) {
            snprintf(t->note, sizeof t->note, "UNSTABLE: %ld rows, first %ld", rows, t->rows);
            return;
        }
        t->runs++;
    }
    if (t->runs == 0)
        return;
    bench_sort_doubles(us, (size_t)t->runs);
    t->p50_us = us[t->runs / 2];
    t->p99_us = us[(long)((double)(t->runs - 1) * 0.99 + 0.5)];
}

typedef struct minigraf_run {
    MiniGrafDb *db;
    const char *text;
} minigraf_run;

static long minigraf_one(void *ctx) {
    minigraf_run *r = ctx;
    return run_minigraf(r->db, r->text);
}

static long sqlite_one(void *ctx) {
    return run_sqlite(ctx);
}

static void check_rows(const shape *sh, const params *p, timing *t) {
    long want = shape_expected_rows(sh, p);
    if (t->rows < 0 && !t->note[0])
        snprintf(t->note, sizeof t->note, "ERROR");
    else if (want >= 0 && t->rows != want && !t->note[0])
        snprintf(t->note, sizeof t->note, "ROWS %ld, expected %ld", t->rows, want);
}

/* ---- a scale ------------------------------------------------------------------ */

/* Read-write, since registering the rules is a write (API-014 on a
 * read-only handle); nothing else is written. The rule limits are raised
 * as SQLite has none: at 10M facts `recursive` derives more than the
 * default 1,000,000 facts in one round (INT-020). */
static MiniGrafDb *open_minigraf(const char *path) {
    MiniGrafDb *db = minigraf_open_with_options(
        path, "{\"max_derived_facts\": 1000000000000, \"max_results\": 1000000000000}", NULL);
    if (!db) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    for (size_t i = 0; i < sizeof BOSS_RULES / sizeof BOSS_RULES[0]; i++)
        fixture_run(db, BOSS_RULES[i]);
    return db;
}

/* Read-write in WAL mode, as an application would run it: a read-only
 * rollback-journal open takes the file lock around every statement (about
 * 10 us of a point query here). */
static sqlite3 *open_sqlite(const char *path) {
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    sql_exec(db, "PRAGMA cache_size = -4096"); /* 4 MiB, minigraf's default page cache */
    return db;
}

static void ensure_fixtures(const char *dir, long n, char *mg, char *lite, size_t size) {
    struct stat st;
    fixture_path(mg, size, dir, n);
    snprintf(lite, size, "%s/eav-%ld.sqlite", dir, n);
    if (stat(mg, &st) != 0) {
        printf("building the %ld-fact minigraf fixture into %s ...\n", n, mg);
        fixture_build(mg, n);
    }
    if (stat(lite, &st) != 0) {
        printf("building the %ld-fact SQLite fixture into %s ...\n", n, lite);
        build_sqlite(lite, n);
    }
}

static void print_row(FILE *j, int first, const shape *sh, const timing *m, const timing *q) {
    double ratio = m->p50_us > 0 ? q->p50_us / m->p50_us : 0;
    const char *note = m->note[0] ? m->note : q->note[0] ? q->note : "ok";
    printf("%-20s %12.1f %12.1f %8.2fx %9ld %9ld  %s\n", sh->name, m->p50_us, q->p50_us, ratio,
           m->rows, q->rows, note);
    fflush(stdout);
    if (j)
        fprintf(j,
                "%s\n {\"shape\":\"%s\",\"minigraf_p50_us\":%.2f,\"minigraf_p99_us\":%.2f,"
                "\"sqlite_p50_us\":%.2f,\"sqlite_p99_us\":%.2f,\"sqlite_over_minigraf\":%.3f,"
                "\"minigraf_rows\":%ld,\"sqlite_rows\":%ld,\"note\":\"%s\"}",
                first ? "" : ",", sh->name, m->p50_us, m->p99_us, q->p50_us, q->p99_us, ratio,
                m->rows, q->rows, m->note[0] || q->note[0] ? note : "");
}

static int compare_shape(MiniGrafDb *mg, sqlite3 *lite, const shape *sh, const params *p, FILE *j,
                         int first) {
    char text[1024], sql[2048];
    shape_expand(sh->query, p, 1, text, sizeof text);
    shape_expand(sh->sql, p, 0, sql, sizeof sql);
    timing m, q;
    minigraf_run r = {mg, text};
    time_engine(minigraf_one, &r, &m);
    if (m.rows < 0)
        fprintf(stderr, "%s: %s\n", sh->name, minigraf_last_error(mg));
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(lite, sql, -1, &s, NULL) != SQLITE_OK) {
        memset(&q, 0, sizeof q);
        q.rows = -1;
        snprintf(q.note, sizeof q.note, "SQL: %.100s", sqlite3_errmsg(lite));
    } else {
        time_engine(sqlite_one, s, &q);
    }
    sqlite3_finalize(s);
    check_rows(sh, p, &m);
    check_rows(sh, p, &q);
    print_row(j, first, sh, &m, &q);
    return m.note[0] || q.note[0];
}

static int compare_scale(long n, const shape_args *args) {
    const char *dir = args->dir;
    char mg_path[1024], lite_path[1024], jpath[1200];
    ensure_fixtures(dir, n, mg_path, lite_path, sizeof mg_path);
    params p;
    shape_params(n, &p);
    long long ms = shape_read_tx_half_ms(mg_path, &p);
    if (ms <= 0) {
        fprintf(stderr, "cannot read the time of transaction %ld\n", p.tx_half);
        exit(1);
    }
    shape_set_tx_half_ms(&p, ms);
    MiniGrafDb *mg = open_minigraf(mg_path);
    sqlite3 *lite = open_sqlite(lite_path);
    printf(
        "\n%ld facts: minigraf %s beside SQLite %s (EAV table); ratio = SQLite p50 / minigraf p50,"
        " above 1 means minigraf is faster\n",
        n, minigraf_version(), sqlite3_libversion());
    printf("%-20s %12s %12s %9s %9s %9s  %s\n", "shape", "minigraf us", "SQLite us", "ratio",
           "rows", "SQL rows", "check");
    snprintf(jpath, sizeof jpath, "%s/compare-%ld.json", dir, n);
    FILE *j = fopen(jpath, "w");
    if (j)
        fprintf(j, "{\"facts\":%ld,\"minigraf\":\"%s\",\"sqlite\":\"%s\",\"shapes\":[", n,
                minigraf_version(), sqlite3_libversion());
    int bad = 0, written = 0;
    for (size_t i = 0; i < SHAPE_COUNT; i++)
        if (shape_selected(&SHAPES[i], args))
            bad += compare_shape(mg, lite, &SHAPES[i], &p, j, !written++);
    if (j) {
        fprintf(j, "\n]}\n");
        fclose(j);
    }
    sqlite3_close(lite);
    minigraf_close(mg);
    return bad;
}

int main(int argc, char **argv) {
    shape_args args;
    if (shape_parse_args(argc, argv, &args) != 0)
        return 2;
    int bad = 0;
    for (int i = 0; i < args.scale_count; i++)
        bad += compare_scale(args.scales[i], &args);
    printf("\n%s\n",
           bad ? "SOME SHAPES FAILED OR MISMATCHED (see the check column)" : "all checks passed");
    return bad ? 1 : 0;
}
