/* Group commit under power loss: several threads commit single facts to
 * one database with synchronous "full" (their syncs shared, store_sync.c)
 * through the fault-injecting I/O layer; at every write, sync and
 * truncate point a power loss (plain, then scrambling) stops them. The
 * reopened file must hold every fact whose commit returned, and only
 * facts that were committed.
 *
 *   engine_test_group_commit */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "db/db.h"
#include "exec/result.h"
#include "exec_text.h"
#include "fault_vfs.h"

#define THREADS 4
#define COMMITS 6 /* per thread */

typedef struct committer {
    db *d;
    int id;
    bool acked[COMMITS];
} committer;

static void *commit_main(void *arg) {
    committer *c = arg;
    for (int i = 0; i < COMMITS; i++) {
        char text[96];
        err e = {0};
        snprintf(text, sizeof text, "(transact [[:t%d_%d :g/v %d]])", c->id, i, c->id * 100 + i);
        c->acked[i] = exec_text(c->d, text, &e) == 0;
        err_clear(&e);
    }
    return NULL;
}

static db *open_db(const char *path, err *e) {
    db_options o;
    db_options_default(&o);
    o.store.wal_checkpoint_threshold = 5; /* checkpoints among the commits */
    db *d = NULL;
    return db_open(path, &o, &d, e) == 0 ? d : NULL;
}

/* The run: false when the file could not be opened (a crash at its creation). */
static bool run(const char *path, committer *c) {
    err e = {0};
    db *d = open_db(path, &e);
    err_clear(&e);
    if (!d)
        return false;
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        c[t] = (committer){.d = d, .id = t};
        pthread_create(&th[t], NULL, commit_main, &c[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    db_close(d);
    return true;
}

/* Which values the reopened file holds; false when it does not open. */
static bool reopened(const char *path, bool present[THREADS][COMMITS], err *e) {
    static const char q[] = "(query [:find ?v :where [?x :g/v ?v]])";
    db *d = open_db(path, e);
    result_set *rs = NULL;
    if (!d || db_query(d, q, strlen(q), &rs, e) != 0) {
        db_close(d);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < result_row_count(rs); i++) {
        int64_t v = result_row(rs, i)[0].as.i;
        ok = ok && v >= 0 && v / 100 < THREADS && v % 100 < COMMITS;
        if (ok)
            present[v / 100][v % 100] = true;
    }
    result_free(rs);
    ok = ok && exec_text(d, "(transact [[:after :g/v 999]])", e) == 0;
    db_close(d);
    return ok;
}

static int lost; /* acknowledged commits missing after a reopen */

static void crash_at(const char *path, int mode, long point) {
    committer c[THREADS];
    fault_remove_db(path);
    fault_begin(fault_mode(mode, point));
    bool opened = run(path, c);
    fault_end();
    bool present[THREADS][COMMITS] = {{false}};
    err e = {0};
    fault_begin((fault){0});
    bool ok = reopened(path, present, &e);
    fault_end();
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s at %ld: %s\n", fault_mode_name(mode), point,
                e.message ? e.message : "a value never committed");
    err_clear(&e);
    for (int t = 0; opened && t < THREADS; t++)
        for (int i = 0; i < COMMITS; i++)
            if (c[t].acked[i] && !present[t][i]) {
                lost++;
                fprintf(stderr, "%s at %ld: thread %d's commit %d acknowledged, then lost\n",
                        fault_mode_name(mode), point, t, i);
            }
}

int main(void) {
    char dir[256], path[320];
    if (fault_tmpdir("mg_group", dir, sizeof dir) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/g.graph", dir);
    committer c[THREADS];
    fault_remove_db(path);
    fault_begin((fault){0});
    CHECK(run(path, c));
    long ops = fault_now.ops; /* interleavings vary: later runs may count a few more */
    fault_end();
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < COMMITS; i++)
            CHECK(c[t].acked[i]);
    long points = 0;
    for (int mode = 2; mode < FAULT_MODES; mode++)
        for (long p = 1; p <= ops + 4; p++, points++)
            crash_at(path, mode, p);
    CHECK(lost == 0);
    printf("%d threads x %d commits, %ld crash points, %d acknowledged commits lost\n", THREADS,
           COMMITS, points, lost);
    fault_remove_db(path);
    rmdir(dir);
    return CHECK_DONE();
}
