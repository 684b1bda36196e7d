/* History-independent reads (issue 18): the current and the :as-of value
 * of one entity-attribute with 1,000 and with 100,000 versions behind it.
 * The envelope fixture's :hot entity has 1,000; this program builds one
 * file per history length (cached in DIR, outside the standard fixture):
 * :hot :counter asserted as 0 (transaction 1), then for v = 1 … V a
 * retraction of v - 1 (transaction 2v) and an assertion of v (2v + 1):
 * it holds V now, and :as-of 2h + 1 (h = V/2, half way) sees h.
 *
 *   bench_history DIR [V ...]   (default V: 1000 100000)
 *
 * The files keep the history index (the history_index open option; a
 * cached file without it gets it at a read-write open first). Prints p50
 * / p99 per query and history length, and checks each answer. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "minigraf.h"

#define RUNS 3000
#define BATCH 1000 /* versions per transact call while building */

static int build(const char *path, long versions) {
    MiniGrafDb *db = minigraf_open_with_options(
        path, "{\"synchronous\": \"normal\", \"history_index\": true}", NULL);
    if (!db)
        return -1;
    char *r = minigraf_execute(db, "(transact [[:hot :counter 0]])");
    int ok = r != NULL;
    minigraf_string_free(r);
    char text[128];
    for (long v = 1; ok && v <= versions; v++) {
        snprintf(text, sizeof text, "(retract [[:hot :counter %ld]])", v - 1);
        r = minigraf_execute(db, text);
        ok = r != NULL;
        minigraf_string_free(r);
        snprintf(text, sizeof text, "(transact [[:hot :counter %ld]])", v);
        r = ok ? minigraf_execute(db, text) : NULL;
        ok = ok && r != NULL;
        minigraf_string_free(r);
    }
    if (!ok)
        fprintf(stderr, "build failed: %s\n", minigraf_last_error(db));
    minigraf_close(db);
    return ok ? 0 : -1;
}

/* p50 / p99 in microseconds of `text`, and its first batch in `first`. */
static int measure(MiniGrafDb *db, const char *text, double *p50, double *p99, char *first,
                   size_t size) {
    static double t[RUNS];
    first[0] = '\0';
    for (int i = 0; i < RUNS; i++) {
        double start = bench_now_s();
        MiniGrafCursor *c = minigraf_query(db, text);
        char *b = c ? minigraf_cursor_next_batch(c, 1000) : NULL;
        t[i] = (bench_now_s() - start) * 1e6;
        if (b && i == 0)
            snprintf(first, size, "%s", b);
        minigraf_string_free(b);
        minigraf_cursor_free(c);
        if (!c)
            return -1;
    }
    bench_sort_doubles(t, RUNS);
    *p50 = t[RUNS / 2];
    *p99 = t[RUNS * 99 / 100];
    return 0;
}

static int run(const char *dir, long versions) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/history-%ld.graph", dir, versions);
    if (stat(path, &st) != 0) {
        fprintf(stderr, "building %s ...\n", path);
        if (build(path, versions) != 0)
            return 1;
    } else {
        minigraf_close(minigraf_open_with_options(path, "{\"history_index\": true}", NULL));
    }
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
    if (!db)
        return 1;
    /* every version is two transactions: value v from transaction 2v + 1 */
    long half = versions / 2;
    char as_of[160], want_cur[48], want_half[48], first[256];
    snprintf(as_of, sizeof as_of, "(query [:find ?v :as-of %ld :where [:hot :counter ?v]])",
             2 * half + 1);
    snprintf(want_cur, sizeof want_cur, "[[%ld]]", versions);
    snprintf(want_half, sizeof want_half, "[[%ld]]", half);
    const struct {
        const char *name, *text, *want;
    } q[] = {{"hot_current", "(query [:find ?v :where [:hot :counter ?v]])", want_cur},
             {"hot_as_of", as_of, want_half}};
    int bad = 0;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        double p50 = 0, p99 = 0;
        int rc = measure(db, q[i].text, &p50, &p99, first, sizeof first);
        bool ok = rc == 0 && strcmp(first, q[i].want) == 0;
        bad |= !ok;
        printf("%-12s %9ld versions  p50 %9.1f us  p99 %9.1f us  %s\n", q[i].name, versions, p50,
               p99, ok ? "ok" : first);
    }
    minigraf_close(db);
    return bad;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [VERSIONS ...]\n", argv[0]);
        return 2;
    }
    long defaults[] = {1000, 100000};
    int bad = 0;
    if (argc == 2)
        for (size_t i = 0; i < 2; i++)
            bad |= run(argv[1], defaults[i]);
    for (int i = 2; i < argc; i++)
        bad |= run(argv[1], atol(argv[i]));
    return bad;
}
