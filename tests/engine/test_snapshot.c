/* Snapshots beside commits (issue 20), at the store: a reader holding a
 * snapshot while many commits and a checkpoint happen reads exactly its
 * snapshot; the checkpoint waits for it; the page versions kept for open
 * readers are freed once no reader sees them, or reused by the next
 * commits when no reader sees them though older ones are still seen; and
 * a database with streaming cursors held open keeps at most
 * STORE_MAX_KEPT_VERSIONS of them (plus one commit's) whatever the number
 * of commits. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cursor_each.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "model/timestamp.h"
#include "store/store.h"
#include "store/store_internal.h"

static char dir_template[] = "/tmp/mg_snapshot_test_XXXXXX";
static char path_buf[600];

static fact number(int i, uint64_t tx) {
    char name[32];
    snprintf(name, sizeof name, ":n%d", i);
    fact f = {.entity = uuid_of_keyword(name, strlen(name)),
              .attribute = value_keyword(":n", 2),
              .v = value_integer(i),
              .tx_count = tx,
              .tx_id = 1000 + (int64_t)tx,
              .valid_from = 1000 + (int64_t)tx,
              .valid_to = VALID_TO_FOREVER,
              .asserted = true};
    return f;
}

/* Commits `n` numbers from `from` in one transaction. */
static void commit_numbers(store *s, int from, int n) {
    fact *facts = malloc((size_t)n * sizeof *facts);
    uint64_t tx = store_tx_count(s) + 1;
    for (int i = 0; i < n; i++)
        facts[i] = number(from + i, tx);
    err e = {0};
    CHECK(store_commit(s, facts, (size_t)n, &e) == 0);
    err_clear(&e);
    free(facts);
}

/* The records `r` sees in EAVT order: how many, and whether each is a
 * number below `below` committed no later than `tx`. */
static int records_seen(store_reader *r, int below, uint64_t tx, bool *exact) {
    store_scan *sc = NULL;
    err e = {0};
    int n = 0;
    *exact = store_scan_order(r, TREE_EAVT, &sc, &e) == 0;
    store_rec rec;
    int rc;
    while (*exact && (rc = store_scan_next(sc, &rec, &e)) == 1) {
        n++;
        const fact *f = &rec.f;
        if (f->tx_count > tx || f->v.type != VT_INTEGER || f->v.as.i < 0 || f->v.as.i >= below)
            *exact = false;
    }
    if (*exact && rc != 0)
        *exact = false;
    store_scan_close(sc);
    err_clear(&e);
    return n;
}

typedef struct checkpointer {
    store *s;
    atomic_bool done;
    int rc;
} checkpointer;

static void *run_checkpoint(void *arg) {
    checkpointer *c = arg;
    err e = {0};
    c->rc = store_checkpoint(c->s, &e);
    err_clear(&e);
    atomic_store(&c->done, true);
    return NULL;
}

static void test_reader_keeps_its_snapshot_through_commits_and_a_checkpoint(const char *dir) {
    snprintf(path_buf, sizeof path_buf, "%s/held.graph", dir);
    store_options o;
    store_options_default(&o);
    o.wal_checkpoint_threshold = 0;
    o.sync = STORE_SYNC_NORMAL;
    store *s = NULL;
    err e = {0};
    CHECK(store_open_file(path_buf, &o, &s, &e) == 0);
    commit_numbers(s, 0, 500);
    CHECK(store_checkpoint(s, &e) == 0); /* committed pages: commits copy them */
    store_reader *r = NULL;
    CHECK(store_reader_open(s, &r, &e) == 0);
    for (int i = 0; i < 300; i++)
        commit_numbers(s, 500 + i, 1);     /* each changes the trees' pages again */
    CHECK(pager_versions_kept(s->pg) > 0); /* kept for r */
    bool exact;
    CHECK(records_seen(r, 500, 1, &exact) == 500 && exact);
    checkpointer c = {.s = s};
    atomic_init(&c.done, false);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, run_checkpoint, &c) == 0);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    CHECK(!atomic_load(&c.done)); /* it waits for r */
    CHECK(records_seen(r, 500, 1, &exact) == 500 && exact);
    store_reader_close(r);
    pthread_join(th, NULL);
    CHECK(c.rc == 0);
    CHECK(pager_versions_kept(s->pg) == 0);
    CHECK(store_reader_open(s, &r, &e) == 0);
    CHECK(records_seen(r, 800, 301, &exact) == 800 && exact);
    store_reader_close(r);
    store_close(s);
    CHECK(store_open_file(path_buf, &o, &s, &e) == 0); /* and the file holds it all */
    CHECK(store_reader_open(s, &r, &e) == 0);
    CHECK(records_seen(r, 800, 301, &exact) == 800 && exact);
    store_reader_close(r);
    store_close(s);
    err_clear(&e);
}

/* More readers at distinct views than a publish lists (pager_views):
 * every version from the first one's view on may be seen, so every one
 * is kept. */
enum { UNLISTED_VIEWS = PAGER_VIEWS_KNOWN + 1 };

static void test_versions_go_when_no_reader_sees_them(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_numbers(s, 0, 1000);
    commit_numbers(s, 1000, 1);
    CHECK(pager_versions_kept(s->pg) == 0); /* no reader: freed at publish */
    store_reader *r = NULL;
    CHECK(store_reader_open(s, &r, &e) == 0);
    store_reader *unlisted[UNLISTED_VIEWS];
    for (int i = 0; i < UNLISTED_VIEWS; i++) {
        commit_numbers(s, 1001 + i, 1);
        CHECK(store_reader_open(s, &unlisted[i], &e) == 0);
    }
    int commits = UNLISTED_VIEWS;
    while (!store_wants_quiet(s) && commits < 100000)
        commit_numbers(s, 1001 + commits++, 1);
    CHECK(pager_versions_kept(s->pg) > STORE_MAX_KEPT_VERSIONS);
    CHECK(commits > 100 && commits < 100000);
    bool exact;
    CHECK(records_seen(r, 1001, 2, &exact) == 1001 && exact);
    store_reader *later = NULL;
    CHECK(store_reader_open(s, &later, &e) == 0);
    store_reader_close(r);
    for (int i = 0; i < UNLISTED_VIEWS; i++)
        store_reader_close(unlisted[i]);
    CHECK(store_checkpoint(s, &e) == 0); /* in memory: frees what `later` does not see */
    CHECK(pager_versions_kept(s->pg) == 0);
    CHECK(records_seen(later, 1001 + commits, 2 + (uint64_t)commits, &exact) == 1001 + commits &&
          exact);
    store_reader_close(later);
    store_close(s);
    err_clear(&e);
}

/* Readers held at four views across 2,000 single-fact commits each read
 * exactly their snapshot, and the versions kept stay a few a page: a
 * commit gives a version no reader sees to the page's next version
 * instead of keeping every version since the oldest reader. */
static void test_held_readers_keep_only_the_versions_they_see(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_numbers(s, 0, 1000);
    enum { HELD = 4, EACH = 500 };
    store_reader *r[HELD];
    uint64_t tx[HELD];
    for (int k = 0; k < HELD; k++) {
        CHECK(store_reader_open(s, &r[k], &e) == 0);
        tx[k] = store_tx_count(s);
        for (int i = 0; i < EACH; i++)
            commit_numbers(s, 1000 + k * EACH + i, 1);
    }
    /* Without the reuse, one version a commit at least (2,000). */
    CHECK(pager_versions_kept(s->pg) < HELD * EACH / 4);
    for (int k = 0; k < HELD; k++) {
        bool exact;
        CHECK(records_seen(r[k], 1000 + k * EACH, tx[k], &exact) == 1000 + k * EACH && exact);
        store_reader_close(r[k]);
    }
    commit_numbers(s, 1000 + HELD * EACH, 1);
    CHECK(pager_versions_kept(s->pg) == 0);
    store_close(s);
    err_clear(&e);
}

typedef struct snapshot_reader {
    store *s;
    atomic_int committed; /* numbers below it are committed */
    atomic_bool stop;
    atomic_bool pacing; /* the writer waits for passes: hold no more */
    atomic_int passes;
    atomic_int wrong;
} snapshot_reader;

/* Snapshot after snapshot, every other one held across a few of the
 * writer's commits (unless it waits for the readers), reads exactly the
 * numbers committed when it opened. */
static void *read_snapshots(void *arg) {
    snapshot_reader *sr = arg;
    for (int pass = 0; !atomic_load(&sr->stop); pass++) {
        int below = atomic_load(&sr->committed);
        store_reader *r = NULL;
        err e = {0};
        if (store_reader_open(sr->s, &r, &e) != 0) {
            atomic_fetch_add(&sr->wrong, 1);
            err_clear(&e);
            atomic_store(&sr->passes, INT_MAX / 2);
            return NULL;
        }
        int above = atomic_load(&sr->committed);
        if (pass % 2)
            while (atomic_load(&sr->committed) < above + 3 && !atomic_load(&sr->pacing))
                sched_yield();
        bool exact;
        int n = records_seen(r, INT_MAX, UINT64_MAX, &exact);
        if (!exact || n < below || n > above + 1) /* `committed` follows the commit */
            atomic_fetch_add(&sr->wrong, 1);
        store_reader_close(r);
        atomic_fetch_add(&sr->passes, 1);
    }
    return NULL;
}

/* Two reader threads beside a writer committing one number at a time: the
 * versions the writer reuses are walked past by the readers' lookups. */
static void test_snapshots_read_beside_reused_versions(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_numbers(s, 0, 500);
    snapshot_reader sr = {.s = s};
    atomic_init(&sr.committed, 500);
    atomic_init(&sr.stop, false);
    atomic_init(&sr.pacing, false);
    atomic_init(&sr.passes, 0);
    atomic_init(&sr.wrong, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, read_snapshots, &sr) == 0);
    for (int i = 500; i < 3000; i++) {
        commit_numbers(s, i, 1);
        atomic_store(&sr.committed, i + 1);
        if (i % 64 != 0)
            continue;
        atomic_store(&sr.pacing, true);
        for (int seen = atomic_load(&sr.passes); atomic_load(&sr.passes) < seen + 2;)
            sched_yield();
        atomic_store(&sr.pacing, false);
    }
    atomic_store(&sr.pacing, true);
    atomic_store(&sr.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(atomic_load(&sr.wrong) == 0);
    CHECK(atomic_load(&sr.passes) > 2 * 2500 / 64);
    store_close(s);
    err_clear(&e);
}

/* Whether `r` knows the entity :nI (1), or not (0). */
static int knows(store_reader *r, int i) {
    char name[32];
    snprintf(name, sizeof name, ":n%d", i);
    uuid128 u = uuid_of_keyword(name, strlen(name));
    uint64_t id = 0;
    err e = {0};
    int rc = store_reader_entity_id(r, &u, &id, &e);
    err_clear(&e);
    return rc;
}

/* New names wait in the dictionary's table of recent entries until a
 * full table is flushed into its tree (dict_recent.h): a reader finds
 * exactly the names of its snapshot, through the table it saw, while
 * commits fill and flush tables; a flushed table goes once no reader can
 * see it. */
static void test_readers_find_the_names_of_their_snapshot(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_numbers(s, 0, 100);
    store_reader *old = NULL, *mid = NULL, *now = NULL;
    CHECK(store_reader_open(s, &old, &e) == 0);
    CHECK(knows(old, 99) == 1 && knows(old, 100) == 0);
    commit_numbers(s, 100, 1);
    CHECK(knows(old, 100) == 0); /* in the table `old` reads, from a later view */
    CHECK(store_reader_open(s, &mid, &e) == 0);
    CHECK(knows(mid, 100) == 1);
    enum { MORE = 3 * DICT_RECENT_MAX };
    for (int i = 0; i < MORE; i += 256)
        commit_numbers(s, 101 + i, 256); /* flushes inside commits */
    CHECK(s->dic.flushed != NULL);       /* kept for old and mid */
    CHECK(store_reader_open(s, &now, &e) == 0);
    for (int i = 0; i < 101 + MORE; i += 37) {
        CHECK(knows(old, i) == (i < 100));
        CHECK(knows(mid, i) == (i <= 100));
        CHECK(knows(now, i) == 1);
    }
    CHECK(knows(now, 100 + MORE) == 1 && knows(now, 101 + MORE) == 0);
    store_reader_close(old);
    store_reader_close(mid);
    commit_numbers(s, 101 + MORE, 1);
    CHECK(s->dic.flushed == NULL); /* `now` saw the last flush */
    CHECK(knows(now, 100 + MORE) == 1 && knows(now, 101 + MORE) == 0);
    store_reader_close(now);
    commit_numbers(s, 0, 101 + MORE); /* every name again: no entity added */
    CHECK(s->h.entity_count == 102 + MORE);
    store_close(s);
    err_clear(&e);
}

typedef struct name_reader {
    store *s;
    atomic_int committed; /* names :n0 .. below it are committed */
    atomic_bool stop;
    atomic_int passes; /* snapshots read */
    int wrong;
} name_reader;

/* Snapshot after snapshot, the newest committed name and a few older
 * ones are known and the next is not, while the writer adds names. */
static void *read_names(void *arg) {
    name_reader *nr = arg;
    while (!atomic_load(&nr->stop)) {
        int below = atomic_load(&nr->committed);
        store_reader *r = NULL;
        err e = {0};
        if (store_reader_open(nr->s, &r, &e) != 0) {
            nr->wrong++;
            err_clear(&e);
            atomic_store(&nr->passes, INT_MAX / 2); /* the writer waits no more */
            return NULL;
        }
        int above = atomic_load(&nr->committed); /* what r may see beyond `below` */
        for (int i = below - 1; i >= 0 && i >= below - 40; i -= 3)
            nr->wrong += knows(r, i) != 1;
        nr->wrong += knows(r, above + 1) != 0;
        store_reader_close(r);
        atomic_fetch_add(&nr->passes, 1);
    }
    return NULL;
}

/* A reader thread beside a writer adding one name a commit, through
 * several flushes: the table is read while it is added to, and flushed
 * tables are freed while snapshots come and go. */
static void test_names_read_beside_the_writer(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    name_reader nr = {.s = s};
    atomic_init(&nr.committed, 0);
    atomic_init(&nr.stop, false);
    atomic_init(&nr.passes, 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, read_names, &nr) == 0);
    for (int i = 0; i < 2 * (int)DICT_RECENT_MAX + 500; i++) {
        commit_numbers(s, i, 1);
        atomic_store(&nr.committed, i + 1);
        for (int seen = atomic_load(&nr.passes);
             i % 128 == 0 && atomic_load(&nr.passes) < seen + 2;)
            sched_yield(); /* the reader reads all along, across every flush */
    }
    atomic_store(&nr.stop, true);
    pthread_join(th, NULL);
    CHECK(nr.wrong == 0);
    CHECK(atomic_load(&nr.passes) > 2 * (int)DICT_RECENT_MAX / 128);
    store_close(s);
    err_clear(&e);
}

static void ignore_row(void *ctx, const value *row) {
    (void)ctx;
    (void)row;
}

/* The database keeps the bound: streaming cursors held open across many
 * commits (more views than a publish lists) are read into memory once the
 * versions they keep pass it. */
static void test_database_bounds_what_a_held_cursor_keeps(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    db_result out;
    char seed[600 * 24] = "(transact [";
    for (int i = 0; i < 500; i++)
        snprintf(seed + strlen(seed), sizeof seed - strlen(seed), "[:s%d :n %d] ", i, i);
    strcat(seed, "])");
    CHECK(db_execute(d, seed, strlen(seed), &out, &e) == 0);
    db_cursor *c = NULL;
    const char *q = "(query [:find ?e ?v :where [?e :n ?v]])";
    CHECK(db_cursor_open(d, q, strlen(q), &c, &e) == 0);
    db_cursor *unlisted[UNLISTED_VIEWS];
    for (int i = 0; i < UNLISTED_VIEWS; i++) {
        char tx[64];
        snprintf(tx, sizeof tx, "(transact [[:y%d :n %d]])", i, i);
        CHECK(db_execute(d, tx, strlen(tx), &out, &e) == 0);
        CHECK(db_cursor_open(d, q, strlen(q), &unlisted[i], &e) == 0);
    }
    size_t most = 0;
    for (int i = 0; i < 3000; i++) {
        char tx[64];
        snprintf(tx, sizeof tx, "(transact [[:x%d :n %d]])", i, 1000 + i);
        CHECK(db_execute(d, tx, strlen(tx), &out, &e) == 0);
        size_t kept = pager_versions_kept(d->s->pg);
        most = kept > most ? kept : most;
    }
    CHECK(most > 1000);                          /* the cursor held its snapshot's versions ... */
    CHECK(most <= STORE_MAX_KEPT_VERSIONS + 64); /* ... up to the bound */
    int rc = 0;
    size_t rows = 0, got;
    while ((got = cursor_read_each(c, 100, ignore_row, NULL, &rc, &e)) > 0)
        rows += got;
    CHECK(rc == 0 && rows == 500); /* still the snapshot of its opening */
    db_cursor_free(c);
    for (int i = 0; i < UNLISTED_VIEWS; i++)
        db_cursor_free(unlisted[i]);
    db_close(d);
    err_clear(&e);
}

int main(void) {
    char *dir = mkdtemp(dir_template);
    if (!dir) {
        perror("mkdtemp");
        return 1;
    }
    test_reader_keeps_its_snapshot_through_commits_and_a_checkpoint(dir);
    test_versions_go_when_no_reader_sees_them();
    test_held_readers_keep_only_the_versions_they_see();
    test_snapshots_read_beside_reused_versions();
    test_readers_find_the_names_of_their_snapshot();
    test_names_read_beside_the_writer();
    test_database_bounds_what_a_held_cursor_keeps();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE();
}
