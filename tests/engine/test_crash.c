/* Crash tests through a fault-injecting I/O layer (storage/vfs.h). A
 * workload of transactions and checkpoints runs once to count its write,
 * sync and truncate operations; then, for every operation N, it runs again
 * on a fresh file with a "crash" at N: operation N fails (a write may first
 * land half of its bytes: a torn write) and every later one fails too, as
 * if the process had died. The store is then dropped without closing, the
 * file reopened with plain I/O, and it must show every transaction whose
 * commit returned success, in order, and nothing torn: a prefix of the
 * workload. The reopened file must take new commits too.
 *
 * Twice-crashed files: after a first crash (losing unsynced writes) the
 * workload goes on from the reopened file, and crashes again (a torn write
 * landing while the other unsynced writes are lost). A checkpoint does not
 * sync the WAL reset (storage/wal.h), so a first crash at the reset or at
 * the first frame after it leaves stale frames behind the switched header:
 * for those the second crash is tried at every point. The same runs with
 * synchronous "normal", where only a checkpoint makes commits durable.
 *
 * Explicit write transactions (db/db_tx.h) get the same treatment at the
 * database level: each commits three staged statements as one store
 * transaction, and after a crash at any point each transaction is on the
 * reopened file whole or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "db/db.h"
#include "db/db_tx.h"
#include "model/timestamp.h"
#include "storage/format.h"
#include "storage/vfs.h"
#include "store/store.h"
#include "fault_vfs.h"

#define TXS 24

/* Counter jumps (WAL_FRAME_JUMP): where transaction i % 10 == 3 would
 * come, one store_advance skips to i + 2 (so 3, 4 and 5 hold nothing). */
static bool jumped(uint64_t i) {
    return i % 10 >= 3 && i % 10 <= 5;
}

/* The counter after `tries` steps of the workload from `from`. */
static uint64_t reach(uint64_t from, int tries) {
    for (int i = 0; i < tries; i++)
        from += (from + 1) % 10 == 3 ? 3 : 1;
    return from;
}

/* Transaction i (1-based) writes i % 3 + 1 facts [:e{i} :n{k} i*10+k],
 * with a retraction of the previous transaction's first fact every 5th;
 * a jumped one nothing. */
static size_t tx_facts(uint64_t i, fact *out, char names[][16]) {
    size_t n = 0;
    if (jumped(i))
        return 0;
    for (uint64_t k = 0; k <= i % 3; k++) {
        int len = snprintf(names[n], 16, ":e%llu", (unsigned long long)i);
        fact f = {.entity = uuid_of_keyword(names[n], (size_t)len),
                  .attribute = value_keyword(k == 0   ? ":n0"
                                             : k == 1 ? ":n1"
                                                      : ":n2",
                                             3),
                  .v = value_integer((int64_t)(i * 10 + k)),
                  .tx_count = i,
                  .tx_id = (int64_t)i,
                  .valid_from = (int64_t)i,
                  .valid_to = VALID_TO_FOREVER,
                  .asserted = true};
        out[n++] = f;
    }
    if (i % 5 == 0) {
        int len = snprintf(names[n], 16, ":e%llu", (unsigned long long)(i - 1));
        fact r = {.entity = uuid_of_keyword(names[n], (size_t)len),
                  .attribute = value_keyword(":n0", 3),
                  .v = value_integer((int64_t)((i - 1) * 10)),
                  .tx_count = i,
                  .tx_id = (int64_t)i,
                  .valid_to = VALID_TO_FOREVER};
        out[n++] = r;
    }
    return n;
}

static bool same_fact(const fact *a, const fact *b) {
    return uuid_equal(&a->entity, &b->entity) && value_equal_strict(&a->attribute, &b->attribute) &&
           value_identical(&a->v, &b->v) && a->tx_count == b->tx_count && a->tx_id == b->tx_id &&
           a->valid_from == b->valid_from && a->valid_to == b->valid_to &&
           a->asserted == b->asserted;
}

/* The workload's synchronous mode: with "normal" a commit is durable only
 * once a checkpoint after it has returned. */
static store_sync sync_mode = STORE_SYNC_FULL;

/* One more transaction (or counter jump) of the workload; *done counts
 * the ones committed. */
static void step(store *s, uint64_t *done, err *e) {
    fact facts[5];
    char names[5][16];
    size_t n = tx_facts(*done + 1, facts, names);
    if (jumped(*done + 1)) {
        if (store_advance(s, *done + 3, e) == 0)
            *done += 3;
    } else if (store_commit(s, facts, n, e) == 0) {
        ++*done;
    }
}

/* The step a checkpoint's settling runs in the middle of its new log's
 * copy (store_checkpoint.c, take_over_tail: the first sync of
 * `<log>.next`, with the writer let go), so that its frame comes after
 * the copy's end and the switch copies it under the writer. */
static struct {
    store *s;
    uint64_t *done;
    const char *next_log;
} mid_copy;

static void step_mid_copy(int fd) {
    struct stat a, b;
    if (!mid_copy.s || fstat(fd, &a) != 0 || stat(mid_copy.next_log, &b) != 0 ||
        a.st_ino != b.st_ino || a.st_dev != b.st_dev)
        return;
    store *s = mid_copy.s;
    mid_copy.s = NULL;
    err e = {0};
    step(s, mid_copy.done, &e);
    err_clear(&e);
}

/* Settles the checkpoint in flight with step `i` of the workload taken
 * while its new log is copied (or after, when it took no new log);
 * whether it settled. */
static bool finish_with_step(store *s, const char *path, uint64_t *done, err *e) {
    char next_log[600];
    snprintf(next_log, sizeof next_log, "%s.wal.next", path);
    mid_copy.s = s;
    mid_copy.done = done;
    mid_copy.next_log = next_log;
    fault_before_sync(step_mid_copy);
    bool ok = store_checkpoint_finish(s, e) == 0;
    fault_before_sync(NULL);
    if (mid_copy.s)
        step(s, done, e);
    mid_copy.s = NULL;
    return ok;
}

/* Opens the file and tries `tries` more transactions, checkpointing after
 * every 8th (and automatically past 7 facts), and with a checkpoint in
 * flight from the 4th to the 6th of every 8: its pages written after the
 * 4th, its syncs, header and WAL settling at the 6th (as the store's
 * syncer runs them beside commits: store_checkpoint.c), so that the 5th
 * is appended while it copies and the 6th while the new log that takes
 * the WAL's tail over is copied. Returns the number of the last
 * transaction acknowledged as durable: one whose commit (or, with
 * "normal", checkpoint after it) returned success, or the last one the
 * file held at open (already durable); `floor` when the open fails. */
static uint64_t workload(const char *path, int tries, uint64_t floor) {
    store_options o;
    store_options_default(&o);
    o.wal_checkpoint_threshold = 7; /* automatic checkpoints mid-way */
    o.sync = sync_mode;
    store *s = NULL;
    err e = {0};
    uint64_t done = floor, durable = floor, marked = 0; /* what a header in flight holds */
    if (store_open_file(path, &o, &s, &e) == 0) {
        done = durable = store_tx_count(s);
        for (int i = 1; i <= tries; i++) {
            bool settled = false;
            if (i % 8 == 6 && marked)
                settled = finish_with_step(s, path, &done, &e);
            else
                step(s, &done, &e);
            if (sync_mode == STORE_SYNC_FULL)
                durable = done;
            if (settled && marked > durable)
                durable = marked;
            if (i % 8 == 0 && store_checkpoint(s, &e) == 0)
                durable = done;
            if (i % 8 == 4 && store_checkpoint_begin(s, &e) == 1)
                marked = done;
            if (i % 8 == 6)
                marked = 0;
        }
        store_abandon(s);
    }
    err_clear(&e);
    return durable;
}

/* The reopened file holds exactly transactions 1..tx_count, acknowledged
 * <= tx_count <= most, and still takes a commit. (Through the fault layer
 * with no crash planned: the same I/O without real syncs, which only
 * slow the test down.) */
static bool verify_file(const char *path, uint64_t acknowledged, uint64_t most) {
    store *s = NULL;
    err e = {0};
    store_options o;
    store_options_default(&o);
    if (store_open_file(path, &o, &s, &e) != 0) {
        fprintf(stderr, "reopen failed: %s\n", e.message);
        err_clear(&e);
        return false;
    }
    uint64_t txc = store_tx_count(s);
    bool ok = txc >= acknowledged && txc <= most;
    store_reader *r = NULL;
    store_scan *sc = NULL;
    ok = ok && store_reader_open(s, &r, &e) == 0 && store_scan_order(r, TREE_TXLOG, &sc, &e) == 0;
    for (uint64_t i = 1; ok && i <= txc; i++) {
        fact want[5];
        char names[5][16];
        size_t n = tx_facts(i, want, names);
        store_rec rec;
        for (size_t k = 0; ok && k < n; k++)
            ok = store_scan_next(sc, &rec, &e) == 1 && same_fact(&rec.f, &want[k]);
    }
    store_rec extra;
    ok = ok && store_scan_next(sc, &extra, &e) == 0;
    store_scan_close(sc);
    store_reader_close(r);
    fact next[5];
    char names[5][16];
    size_t n = tx_facts(txc + 1, next, names);
    ok = ok &&
         (jumped(txc + 1) ? store_advance(s, txc + 3, &e) : store_commit(s, next, n, &e)) == 0;
    store_close(s);
    err_clear(&e);
    return ok;
}

static bool verify(const char *path, uint64_t acknowledged, uint64_t most) {
    fault_begin((fault){0});
    bool ok = verify_file(path, acknowledged, most);
    fault_end();
    return ok;
}

/* Runs the workload on `path` under the fault layer; returns what it
 * acknowledged. */
static uint64_t crash_run(const char *path, fault f, int tries, uint64_t floor) {
    fault_begin(f);
    uint64_t acknowledged = workload(path, tries, floor);
    fault_end();
    return acknowledged;
}

static int failures;
static long points, second_points; /* crash points tried: first and second crashes */

static void check_recovery(const char *path, uint64_t acknowledged, uint64_t most, long n, long m,
                           int mode) {
    if (verify(path, acknowledged, most))
        return;
    if (failures++ < 5)
        fprintf(stderr, "crash at point %ld then %ld (mode %d): %llu acknowledged\n", n, m, mode,
                (unsigned long long)acknowledged);
    CHECK(!"recovered state is wrong");
}

#define MORE 12 /* transactions tried after the first crash */

/* First crash at `n` (unsynced writes lost), then the workload again from
 * the reopened file with a second crash at every `stride`-th point of it,
 * or at every point when the first crash hit a WAL reset (returns true). */
static bool crash_twice(const char *path, const char *saved, long n, long stride) {
    fault_remove_db(path);
    uint64_t first = crash_run(path, (fault){.crash_at = n, .lose = true}, TXS, 0);
    bool at_reset = fault_now.at_reset;
    CHECK(fault_copy_db(path, saved));
    for (long m = 1 + n % stride;; m += at_reset ? 1 : stride) {
        CHECK(fault_copy_db(saved, path));
        uint64_t acknowledged = crash_run(path, (fault){.crash_at = m, .torn = true, .lose = true},
                                          MORE, first);
        if (!fault_now.crashed)
            break; /* past the last point of the second run */
        second_points++;
        check_recovery(path, acknowledged > first ? acknowledged : first, reach(0, TXS + MORE), n,
                       m, 3);
    }
    return at_reset;
}

/* ---- explicit write transactions ------------------------------------- */

#define TX_WORKLOAD 10

/* Transaction i stages three statements about :t{i}: after "last
 * statement decides" it commits [:t{i} :a 1] retracted, :b 2 and :c 3. */
static bool run_tx(db *d, uint64_t i, err *e) {
    char s1[96], s2[96], s3[96];
    snprintf(s1, sizeof s1, "(transact [[:t%llu :a 1] [:t%llu :b 2]])", (unsigned long long)i,
             (unsigned long long)i);
    snprintf(s2, sizeof s2, "(retract [[:t%llu :a 1]])", (unsigned long long)i);
    snprintf(s3, sizeof s3, "(transact [[:t%llu :c 3]])", (unsigned long long)i);
    const char *texts[] = {s1, s2, s3};
    db_tx *t = NULL;
    if (db_tx_begin(d, &t, e) != 0)
        return false;
    bool ok = true;
    for (int k = 0; k < 3 && ok; k++) {
        db_result r;
        ok = db_tx_execute(t, texts[k], strlen(texts[k]), &r, e) == 0;
    }
    ok = ok && db_tx_commit(t, e) == 0;
    db_tx_free(t);
    return ok;
}

static db *open_tx_db(const char *path, err *e) {
    db_options o;
    db_options_default(&o);
    o.store.wal_checkpoint_threshold = 7;
    o.store.background_checkpoint = false; /* crash points in one order */
    o.store.sync = sync_mode;
    db *d = NULL;
    return db_open(path, &o, &d, e) == 0 ? d : NULL;
}

/* Runs the transactions, then closes the database: its checkpoint is part
 * of the workload (and after a crash every write fails, as if the process
 * had died). Returns how many commits returned success. */
static uint64_t tx_workload(const char *path) {
    err e = {0};
    uint64_t done = 0;
    db *d = open_tx_db(path, &e);
    for (uint64_t i = 1; d && i <= TX_WORKLOAD; i++)
        if (run_tx(d, done + 1, &e))
            done++;
    db_close(d);
    err_clear(&e);
    return done;
}

static bool same_tx_record(const store_rec *rec, uint64_t i, int k) {
    char name[32];
    int len = snprintf(name, sizeof name, ":t%llu", (unsigned long long)i);
    static const char *const attrs[] = {":a", ":b", ":c"};
    uuid128 ent = uuid_of_keyword(name, (size_t)len);
    value attr = value_keyword(attrs[k], 2), v = value_integer(k + 1);
    return uuid_equal(&rec->f.entity, &ent) && value_equal_strict(&rec->f.attribute, &attr) &&
           value_identical(&rec->f.v, &v) && rec->f.tx_count == i && rec->f.asserted == (k != 0);
}

/* The reopened file holds transactions 1..n whole (acknowledged <= n <=
 * TX_WORKLOAD), nothing else, and takes one more. */
static bool verify_tx_file(const char *path, uint64_t acknowledged) {
    fault_begin((fault){0});
    err e = {0};
    db *d = open_tx_db(path, &e);
    bool ok = d != NULL;
    uint64_t n = ok ? db_tx_count(d) : 0;
    ok = ok && n >= acknowledged && n <= TX_WORKLOAD;
    store_reader *r = NULL;
    store_scan *sc = NULL;
    ok = ok && store_reader_open(db_store(d), &r, &e) == 0 &&
         store_scan_order(r, TREE_TXLOG, &sc, &e) == 0;
    store_rec rec;
    for (uint64_t i = 1; ok && i <= n; i++)
        for (int k = 0; ok && k < 3; k++)
            ok = store_scan_next(sc, &rec, &e) == 1 && same_tx_record(&rec, i, k);
    ok = ok && store_scan_next(sc, &rec, &e) == 0;
    store_scan_close(sc);
    store_reader_close(r);
    ok = ok && run_tx(d, n + 1, &e) && db_tx_count(d) == n + 1;
    if (!ok && e.message)
        fprintf(stderr, "tx verify: %s\n", e.message);
    db_close(d);
    err_clear(&e);
    fault_end();
    return ok;
}

static uint64_t tx_crash_run(const char *path, fault f) {
    fault_begin(f);
    uint64_t acknowledged = tx_workload(path);
    fault_end();
    return acknowledged;
}

/* Every crash point of the transaction workload, in every mode. */
static void crash_transactions(const char *path) {
    fault_remove_db(path);
    CHECK(tx_crash_run(path, (fault){0}) == TX_WORKLOAD);
    long total = fault_now.ops;
    CHECK(verify_tx_file(path, TX_WORKLOAD));
    printf("%ld write/sync/truncate points in the transaction workload\n", total);
    CHECK(total > 20);
    for (int mode = 0; mode < FAULT_MODES; mode++) {
        for (long n = 1; n <= total; n++) {
            fault_remove_db(path);
            uint64_t acknowledged = tx_crash_run(path, fault_mode(mode, n));
            points++;
            if (sync_mode != STORE_SYNC_FULL)
                acknowledged = 0; /* durable only up to a checkpoint */
            if (verify_tx_file(path, acknowledged))
                continue;
            if (failures++ < 5)
                fprintf(stderr, "transactions: crash at point %ld (mode %d): %llu acknowledged\n",
                        n, mode, (unsigned long long)acknowledged);
            CHECK(!"recovered transactions are wrong");
        }
    }
}

int main(int argc, char **argv) {
    char dir[200];
    if (fault_tmpdir("mg_crash", dir, sizeof dir) != 0)
        return 1;
    char path[300], saved[300];
    snprintf(path, sizeof path, "%s/c.graph", dir);
    snprintf(saved, sizeof saved, "%s/saved.graph", dir);
    uint64_t all = crash_run(path, (fault){0}, TXS, 0);
    long total = fault_now.ops;
    CHECK(all == reach(0, TXS) && verify(path, all, all));
    printf("%ld write/sync/truncate points\n", total);
    CHECK(total > 100);
    char *end = NULL;
    long point = argc > 1 ? strtol(argv[1], &end, 10) : 0;
    if (point > 0 && *end == '\0') { /* debugging one point: test_crash N (ctest passes a path) */
        fault_remove_db(path);
        uint64_t acknowledged = crash_run(path, (fault){.crash_at = point, .torn = true}, TXS, 0);
        printf("acknowledged %llu, kept in %s\n", (unsigned long long)acknowledged, path);
        printf("verify: %d\n", verify(path, acknowledged, reach(0, TXS)));
        return 0;
    }
    for (int mode = 0; mode < FAULT_MODES; mode++) {
        for (long n = 1; n <= total; n++) {
            fault_remove_db(path);
            uint64_t acknowledged = crash_run(path, fault_mode(mode, n), TXS, 0);
            points++;
            check_recovery(path, acknowledged, reach(0, TXS), n, 0, mode);
        }
    }
    long resets = 0;
    for (long n = 1; n <= total; n++, points++)
        resets += crash_twice(path, saved, n, 11);
    CHECK(resets >= 5); /* the points that matter were met */
    crash_transactions(path);
    sync_mode = STORE_SYNC_NORMAL; /* the WAL reset is synced; commits are not */
    crash_run(path, (fault){0}, TXS, 0);
    total = fault_now.ops;
    for (long n = 1; n <= total; n++) {
        fault_remove_db(path);
        for (int mode = 2; mode < FAULT_MODES; mode++, points++) {
            fault_remove_db(path);
            uint64_t acknowledged = crash_run(path, fault_mode(mode, n), TXS, 0);
            check_recovery(path, acknowledged, reach(0, TXS), n, 0, 4 + mode);
        }
        crash_twice(path, saved, n, 11);
        points++;
    }
    printf("%ld crash points (each a fresh file crashed once; the twice-crashed files counted "
           "once), then %ld second crashes of twice-crashed files\n",
           points, second_points);
    CHECK(points >= 900);
    fault_remove_db(path);
    fault_remove_db(saved);
    rmdir(dir);
    return CHECK_DONE();
}
