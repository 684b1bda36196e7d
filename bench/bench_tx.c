/* A query inside a write transaction over a large committed database
 * (language.md §15, §7.5): the transaction stages one small transact, then reads.
 * Its first read builds the view the reads run on (committed + staged),
 * the next ones only bring it up to date. Figures per scale: the first
 * read after staging, a second read, and the same point query outside
 * any transaction, p50 / max over ROUNDS transactions (each rolled back).
 *
 *   bench_tx [N ...]      (default N: 100000 1000000)
 *
 * The database is the envelope fixture's facts (spec/BENCHMARKS.md §1,
 * fixture_write_envelope with checkpoints) in a new file under /tmp,
 * removed at the end. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "fixture.h"
#include "minigraf.h"

#define ROUNDS 15
#define QUERY "(query [:find ?a :where [:p1 :age ?a]])"

static void die(const char *what, const char *why) {
    fprintf(stderr, "%s: %s\n", what, why ? why : "(no message)");
    exit(1);
}

static double tx_read_ms(MiniGrafTx *tx) {
    double t0 = bench_now_s();
    char *r = minigraf_tx_execute(tx, QUERY);
    double ms = (bench_now_s() - t0) * 1e3;
    if (!r || !strstr(r, "[[1]]"))
        die("query in the transaction", r ? r : minigraf_tx_last_error(tx));
    minigraf_string_free(r);
    return ms;
}

static double plain_read_ms(MiniGrafDb *db) {
    double t0 = bench_now_s();
    char *r = minigraf_execute(db, QUERY);
    double ms = (bench_now_s() - t0) * 1e3;
    if (!r)
        die("query", minigraf_last_error(db));
    minigraf_string_free(r);
    return ms;
}

static void report(const char *what, double *v) {
    bench_sort_doubles(v, ROUNDS);
    printf("  %-38s p50 %10.3f ms   max %10.3f ms\n", what, v[ROUNDS / 2], v[ROUNDS - 1]);
}

static void bench_scale(long n) {
    char dir[] = "/tmp/minigraf-bench-tx-XXXXXX", path[64];
    if (!mkdtemp(dir))
        die("mkdtemp", dir);
    snprintf(path, sizeof path, "%s/tx.graph", dir);
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"synchronous\": \"normal\"}", NULL);
    if (!db)
        die("open", path);
    double t0 = bench_now_s();
    fixture_write_envelope(db, n, 1);
    printf("%ld facts (built in %.1f s):\n", n, bench_now_s() - t0);
    double first[ROUNDS], next[ROUNDS], plain[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        MiniGrafTx *tx = minigraf_begin_write(db);
        if (!tx)
            die("begin", minigraf_last_error(db));
        char *r = minigraf_tx_execute(tx, "(transact [[:bench-new :age 1]])");
        if (!r)
            die("stage", minigraf_tx_last_error(tx));
        minigraf_string_free(r);
        first[i] = tx_read_ms(tx);
        next[i] = tx_read_ms(tx);
        if (minigraf_tx_rollback(tx) != 0)
            die("rollback", minigraf_tx_last_error(tx));
        minigraf_tx_free(tx);
        plain[i] = plain_read_ms(db);
    }
    report("first read in the transaction", first);
    report("second read in the transaction", next);
    report("the same query outside", plain);
    minigraf_close(db);
    char file[96];
    const char *suffix[] = {"", ".wal", ".lock"};
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s%s", path, suffix[i]);
        unlink(file);
    }
    rmdir(dir);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        bench_scale(100000);
        bench_scale(1000000);
        return 0;
    }
    for (int i = 1; i < argc; i++)
        bench_scale(atol(argv[i]));
    return 0;
}
