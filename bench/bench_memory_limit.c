/* The query memory limit at scale (issue 5): a query whose answer needs
 * more memory than `query_memory_limit` must fail with QRY-012 instead of
 * growing the process. Opens the cached envelope fixture of N facts
 * (default 10,000,000; built once into DIR like bench_query's) read-only
 * with the given limit and runs queries that hold rows in proportion to N:
 * a sort of every :name, a window over every :age, a grouped count with one
 * group per entity. Each runs in its own process; for each it prints the
 * outcome (answered, or QRY-012 once the rows held pass the limit), the time
 * to it and the peak RSS, and exits non-zero if a query fails otherwise or
 * a process grows past the limit plus HEADROOM_MIB.
 *
 *   bench_memory_limit DIR [N] [LIMIT_MIB]     (defaults 10000000, 64) */
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

/* What the meter does not count and does not grow with N: the page cache
 * at its default 1,024 pages (4 MiB), the process before the query (about
 * 2 MiB: program, libraries, the open database) and allocator slack (free
 * chunks not returned, the unused end of each arena's last block). Peaks
 * measured at limits of 16 to 512 MiB stay within limit + 6 MiB. */
#define HEADROOM_MIB 8
#define QRY_012 2012

static const char *const QUERIES[] = {
    "(query [:find ?e ?n :where [?e :name ?n] :order-by [?n]])",
    "(query [:find ?e (rank :over (:order-by ?a)) :where [?e :age ?a]])",
    "(query [:find ?e (count ?a) :where [?e :age ?a]])",
};

/* Child: runs one query to its end; exit status 0 when it answered or
 * failed with QRY-012 within the memory bound, 1 otherwise. Prints one line. */
static int run_child(const char *path, const char *query, long limit_mib) {
    char options[128];
    snprintf(options, sizeof options, "{\"read_only\": true, \"query_memory_limit\": %ld}",
             limit_mib * 1024 * 1024);
    MiniGrafDb *db = minigraf_open_with_options(path, options, NULL);
    if (!db) {
        fprintf(stderr, "open %s failed\n", path);
        return 1;
    }
    double t0 = bench_now_s();
    int code;
    char message[512] = "";
    MiniGrafCursor *c = minigraf_query(db, query);
    if (!c) {
        code = minigraf_last_error_code(db);
        snprintf(message, sizeof message, "%s", minigraf_last_error(db));
    } else {
        char *batch;
        while ((batch = minigraf_cursor_next_batch(c, 1000)) != NULL)
            minigraf_string_free(batch);
        code = minigraf_cursor_last_error_code(c);
        if (code)
            snprintf(message, sizeof message, "%s", minigraf_cursor_last_error(c));
        minigraf_cursor_free(c);
    }
    double ms = (bench_now_s() - t0) * 1000.0;
    long peak_mib = bench_peak_rss_kib() / 1024;
    int ok = (code == 0 || code == QRY_012) && peak_mib <= limit_mib + HEADROOM_MIB;
    printf("%-72s %-9s %9.1f ms  peak RSS %5ld MiB  %s\n", query,
           code == QRY_012 ? "QRY-012"
           : code          ? "error"
                           : "answered",
           ms, peak_mib, ok ? "ok" : "FAIL");
    if (code && code != QRY_012)
        printf("  %s\n", message);
    minigraf_close(db);
    fflush(stdout);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N] [LIMIT_MIB]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 10000000L;
    long limit_mib = argc > 3 ? atol(argv[3]) : 64;
    char path[4096];
    fixture_path(path, sizeof path, argv[1], n);
    struct stat st;
    if (stat(path, &st) != 0) {
        mkdir(argv[1], 0755);
        printf("building %s ...\n", path);
        fflush(stdout);
        fixture_build(path, n);
    }
    printf("N = %ld facts, query_memory_limit = %ld MiB\n", n, limit_mib);
    fflush(stdout);
    int failures = 0;
    for (size_t i = 0; i < sizeof QUERIES / sizeof *QUERIES; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(run_child(path, QUERIES[i], limit_mib));
        int status = 0;
        waitpid(pid, &status, 0);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    return failures ? 1 : 0;
}
