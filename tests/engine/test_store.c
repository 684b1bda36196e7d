/* Unit tests for the fact store: commits and index scans, the file format,
 * WAL replay and torn tails, header and page errors, read-only opening,
 * size limits, failed writes, locks. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/crc32.h"
#include "base/error.h"
#include "check.h"
#include "model/timestamp.h"
#include "storage/format.h"
#include "storage/page_cache.h"
#include "storage/vfs.h"
#include "store/store.h"

static char dir_template[] = "/tmp/mg_store_test_XXXXXX";
static char *test_dir;
static char path_buf[512];

static const char *db_path(const char *name) {
    snprintf(path_buf, sizeof path_buf, "%s/%s", test_dir, name);
    return path_buf;
}

static fact make_fact(const char *entity_kw, const char *attr, value v, uint64_t tx) {
    fact f = {.entity = uuid_of_keyword(entity_kw, strlen(entity_kw)),
              .attribute = value_keyword(attr, strlen(attr)),
              .v = v,
              .tx_count = tx,
              .tx_id = 1000 + (int64_t)tx,
              .valid_from = 1000 + (int64_t)tx,
              .valid_to = VALID_TO_FOREVER,
              .asserted = true};
    return f;
}

static store_options opts(bool read_only) {
    store_options o;
    store_options_default(&o);
    o.read_only = read_only;
    return o;
}

static int open_file(const char *p, bool read_only, store **s, err *e) {
    store_options o = opts(read_only);
    *s = NULL;
    return store_open_file(p, &o, s, e);
}

/* Three transactions: a mixed one, an empty one, a retraction. */
static void commit_sample(store *s) {
    char name[] = "Alice";
    fact tx1[] = {make_fact(":alice", ":person/name", value_string(name, 5), 1),
                  make_fact(":alice", ":person/age", value_integer(-30), 1),
                  make_fact(":alice", ":friend", value_keyword(":bob", 4), 1),
                  make_fact(":bob", ":score", value_float(-0.0), 1),
                  make_fact(":bob", ":ok", value_boolean(true), 1),
                  make_fact(":bob", ":nothing", value_null(), 1),
                  make_fact(":bob", ":link", value_ref(uuid_of_keyword(":alice", 6)), 1)};
    err e = {0};
    CHECK(store_commit(s, tx1, 7, &e) == 0);
    memset(name, 'X', 5); /* the store must have copied the payload */
    CHECK(store_commit(s, NULL, 0, &e) == 0);
    fact tx3 = make_fact(":alice", ":person/age", value_integer(-30), 3);
    tx3.asserted = false;
    tx3.valid_from = 0;
    CHECK(store_commit(s, &tx3, 1, &e) == 0);
    err_clear(&e);
}

static bool same_fact(const fact *a, const fact *b) {
    return uuid_equal(&a->entity, &b->entity) && value_equal_strict(&a->attribute, &b->attribute) &&
           value_identical(&a->v, &b->v) && a->tx_count == b->tx_count && a->tx_id == b->tx_id &&
           a->valid_from == b->valid_from && a->valid_to == b->valid_to &&
           a->asserted == b->asserted;
}

/* Drains a scan into recs[] (up to cap); returns the count or -1 on error. */
static int drain(store_scan *sc, store_rec *recs, int cap) {
    err e = {0};
    int n = 0, rc;
    store_rec r;
    while ((rc = store_scan_next(sc, &r, &e)) == 1)
        if (n < cap)
            recs[n++] = r;
    store_scan_close(sc);
    err_clear(&e);
    return rc == 0 ? n : -1;
}

static int scan_bound(store_reader *r, const store_bound *b, store_rec *recs, int cap) {
    store_scan *sc;
    err e = {0};
    int rc = store_scan_open(r, b, &sc, &e);
    err_clear(&e);
    return rc == 0 ? drain(sc, recs, cap) : -1;
}

static void check_sample(store *s) {
    CHECK(store_tx_count(s) == 3);
    store_reader *r;
    err e = {0};
    CHECK(store_reader_open(s, &r, &e) == 0);
    CHECK(store_reader_fact_count(r) == 8);
    store_rec recs[16];
    store_scan *sc;
    CHECK(store_scan_order(r, TREE_TXLOG, &sc, &e) == 0);
    CHECK(drain(sc, recs, 16) == 8);
    for (int i = 0; i < 8; i++)
        CHECK(recs[i].ids.seq == (uint64_t)i);
    const fact *name = &recs[0].f;
    CHECK(name->v.type == VT_STRING && name->v.as.str.len == 5 &&
          memcmp(name->v.as.str.ptr, "Alice", 5) == 0);
    const fact *score = &recs[3].f;
    CHECK(score->v.type == VT_FLOAT && score->v.as.f == 0.0 && signbit(score->v.as.f));
    CHECK(!recs[7].f.asserted && recs[7].f.tx_count == 3);
    fact want = make_fact(":bob", ":link", value_ref(uuid_of_keyword(":alice", 6)), 1);
    CHECK(same_fact(&recs[6].f, &want));

    store_bound b = {.has_a = true};
    CHECK(store_reader_text_id(r, ":person/age", 11, &b.ids.a, &e) == 1);
    CHECK(scan_bound(r, &b, recs, 16) == 2 && recs[0].ids.seq == 1 && recs[1].ids.seq == 7);
    uuid128 bob = uuid_of_keyword(":bob", 4);
    b = (store_bound){.has_e = true};
    CHECK(store_reader_entity_id(r, &bob, &b.ids.e, &e) == 1);
    CHECK(scan_bound(r, &b, recs, 16) == 4);
    b = (store_bound){.has_v = true}; /* VAET: who refers to :alice */
    value alice = value_ref(uuid_of_keyword(":alice", 6));
    CHECK(store_reader_value_key(r, &alice, b.ids.v, &e) == 1);
    CHECK(scan_bound(r, &b, recs, 16) == 1 && recs[0].ids.seq == 6);
    uint64_t id;
    CHECK(store_reader_text_id(r, ":nope", 5, &id, &e) == 0);
    CHECK(store_reader_entity_count(r) == 2);
    store_reader_close(r);
    err_clear(&e);
}

static void test_memory_store_commits_and_indexes(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_sample(s);
    check_sample(s);
    fact wrong = make_fact(":x", ":y", value_integer(1), 9);
    CHECK(store_commit(s, &wrong, 1, &e) == ERR(INT, 0));
    CHECK(store_tx_count(s) == 3);
    CHECK(store_checkpoint(s, &e) == 0);
    store_close(s);
    err_clear(&e);
}

/* A reader hands out entities, refs and texts as stored values: they are
 * the record's values, and seeking by one uses its id. */
static void test_reader_values_keep_refs_stored(void) {
    store *s = NULL;
    store_reader *r;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    commit_sample(s);
    CHECK(store_reader_open(s, &r, &e) == 0);
    store_rec recs[16];
    store_scan *sc;
    CHECK(store_scan_order(r, TREE_TXLOG, &sc, &e) == 0);
    CHECK(drain(sc, recs, 16) == 8);
    value link[3], name[3];
    CHECK(store_reader_values(r, &recs[6].ids, link, &e) == 0); /* [:bob :link :alice-ref] */
    CHECK(store_reader_values(r, &recs[0].ids, name, &e) == 0);
    CHECK(link[0].stored && link[2].stored && name[2].stored && link[1].stored);
    CHECK(value_equal_strict(&link[1], &recs[6].f.attribute) &&
          value_identical(&name[2], &recs[0].f.v));
    value bob = link[0], alice = link[2];
    CHECK(value_resolve(&bob, &e) == 0 && uuid_equal(&bob.as.ref, &recs[6].f.entity));
    CHECK(value_resolve(&alice, &e) == 0 && value_identical(&alice, &recs[6].f.v));
    CHECK(value_equal_strict(&name[0], &link[2]) && !value_equal_strict(&name[0], &link[0]));
    store_bound b = {0};
    CHECK(store_bound_entity(r, &link[0], &b, &e) == 1 && b.has_e && b.ids.e == recs[6].ids.e);
    CHECK(scan_bound(r, &b, recs, 16) == 4);
    b = (store_bound){0};
    CHECK(store_reader_value_key(r, &link[2], b.ids.v, &e) == 1);
    b.has_v = true;
    CHECK(scan_bound(r, &b, recs, 16) == 1 && recs[0].ids.seq == 6);
    b = (store_bound){.has_a = true};
    CHECK(store_reader_text_id(r, ":person/name", 12, &b.ids.a, &e) == 1);
    CHECK(store_reader_value_key(r, &name[2], b.ids.v, &e) == 1);
    b.has_v = true;
    CHECK(scan_bound(r, &b, recs, 16) == 1 && recs[0].ids.seq == 0);
    CHECK(store_reader_check(r, &e) == 0);
    /* A text's id read as an entity fails: inside a comparison the reader
     * keeps the error for store_reader_check. */
    value wrong = value_stored(VT_REF, store_reader_source(r), name[1].as.stored.id);
    CHECK(!value_equal_strict(&wrong, &bob) && store_reader_source(r)->failed);
    CHECK(store_reader_check(r, &e) == ERR(STG, 9) && e.message != NULL);
    CHECK(!store_reader_source(r)->failed && store_reader_check(r, &e) == 0);
    store_reader_close(r);
    store_close(s);
    err_clear(&e);
}

static off_t file_size(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? st.st_size : -1;
}

static const char *wal_of(const char *p) {
    static char buf[600];
    snprintf(buf, sizeof buf, "%s.wal", p);
    return buf;
}

static void test_file_round_trip(void) {
    const char *p = db_path("round.graph");
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    commit_sample(s);
    CHECK(store_checkpoint(s, &e) == 0);
    CHECK(file_size(wal_of(p)) == 48); /* a checkpoint empties the log */
    store_close(s);
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        check_sample(s);
        fact next = make_fact(":carol", ":n", value_integer(4), 4);
        CHECK(store_commit(s, &next, 1, &e) == 0);
        store_close(s);
    }
    CHECK(open_file(p, true, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 4);
        store_close(s);
    }
    err_clear(&e);
}

static size_t count_records(store *s) {
    store_reader *r = NULL;
    store_scan *sc = NULL;
    err e = {0};
    size_t n = 0;
    store_rec rec;
    if (store_reader_open(s, &r, &e) == 0 && store_scan_order(r, TREE_EAVT, &sc, &e) == 0)
        while (store_scan_next(sc, &rec, &e) == 1)
            n++;
    store_scan_close(sc);
    store_reader_close(r);
    err_clear(&e);
    return n;
}

/* Pages that copy-on-write replaces are reused (the free list, also across
 * reopens): one-fact commits, each checkpointed, stop growing the file
 * beyond what the new records need. Without reuse every checkpoint leaves
 * a whole root-to-leaf path per tree behind (~10 pages). */
static void test_file_stops_growing(void) {
    const char *p = db_path("reuse.graph");
    store *s = NULL;
    err e = {0};
    off_t warm = 0;
    CHECK(open_file(p, false, &s, &e) == 0);
    for (uint64_t tx = 1; s && tx <= 400; tx++) {
        fact f = make_fact(":counter", ":n", value_integer((int64_t)(tx % 3)), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
        CHECK(store_checkpoint(s, &e) == 0);
        if (tx % 50 == 0) {
            store_close(s);
            CHECK(open_file(p, false, &s, &e) == 0);
        }
        if (tx == 100)
            warm = file_size(p);
    }
    off_t grown = file_size(p) - warm;
    CHECK(grown >= 0 && grown <= 48 * 4096);
    if (s) {
        CHECK(store_tx_count(s) == 400);
        CHECK(count_records(s) == 400);
        store_close(s);
    }
    err_clear(&e);
}

/* Background checkpoints every 20 facts. */
static store_options behind_opts(store_sync mode) {
    store_options o = opts(false);
    o.wal_checkpoint_threshold = 20;
    o.background_checkpoint = true;
    o.sync = mode;
    return o;
}

/* Background checkpoints (store_checkpoint.c): every 20 facts one starts
 * after a commit and the syncer thread syncs it and switches the header
 * while later commits append. Left without a close (a process that dies:
 * the OS keeps what was written), the file reopens with every commit, in
 * order: those the last durable header holds and the WAL's later frames,
 * of several generations when commits came while a header was synced.
 * Closing then checkpoints under the writer and restarts the log. */
static void test_background_checkpoints_keep_every_commit(void) {
    const char *p = db_path("behind.graph");
    store_options o = behind_opts(STORE_SYNC_NORMAL);
    store *s = NULL;
    err e = {0};
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    char name[32];
    for (uint64_t tx = 1; s && tx <= 600; tx++) {
        snprintf(name, sizeof name, ":e%llu", (unsigned long long)tx);
        fact f = make_fact(name, ":n", value_integer((int64_t)tx), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
    }
    store_abandon(s); /* joins the syncer once the checkpoint in flight ends */
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 600);
        CHECK(count_records(s) == 600);
        fact one = make_fact(":last", ":n", value_integer(601), 601);
        CHECK(store_commit(s, &one, 1, &e) == 0);
        store_close(s);
    }
    CHECK(file_size(wal_of(p)) == 48);
    CHECK(open_file(p, true, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 601 && count_records(s) == 601);
        store_close(s);
    }
    err_clear(&e);
}

/* Writer threads committing while background checkpoints settle: each
 * checkpoint whose header became durable with commits after its mark has
 * a new log take them over (renamed over the log: the old file loses its
 * name), so the
 * log restarts without a checkpoint run whole under the writer. Left
 * without a close, the file reopens with every commit. */
typedef struct tail_writer {
    store *s;
    int id;
} tail_writer;

#define TAIL_THREADS 3
#define TAIL_COMMITS 1500

/* Numbers the next transaction and commits it (the store checks the
 * number under its own lock); the wait for durability is shared. */
static pthread_mutex_t tail_mx = PTHREAD_MUTEX_INITIALIZER;
static atomic_int tail_failures;

static void *commit_tail(void *arg) {
    tail_writer *w = arg;
    char name[32];
    err e = {0};
    for (int i = 0; i < TAIL_COMMITS; i++) {
        snprintf(name, sizeof name, ":t%d_%d", w->id, i);
        pthread_mutex_lock(&tail_mx);
        fact f = make_fact(name, ":n", value_integer(i), store_tx_count(w->s) + 1);
        int rc = store_commit_nowait(w->s, &f, 1, &e);
        pthread_mutex_unlock(&tail_mx);
        if (rc != 0 || store_await_durable(w->s, &e) != 0)
            atomic_fetch_add(&tail_failures, 1); /* CHECK counts without a lock */
    }
    err_clear(&e);
    return NULL;
}

/* Syncs of a disk, not of a file system in memory: commits come while
 * a checkpoint's header is synced, which the take-over needs. */
static int slow_sync(void *ctx, int fd) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    return vfs_posix()->sync(ctx, fd);
}

static void test_new_log_takes_tail_over(store_sync mode, const char *name) {
    const char *p = db_path(name);
    store_options o = behind_opts(mode);
    store *s = NULL;
    err e = {0};
    vfs slow = *vfs_posix();
    slow.sync = slow_sync;
    vfs_set_default(&slow);
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    vfs_set_default(NULL);
    if (!s)
        return;
    int first = open(wal_of(p), O_RDONLY); /* kept open: its inode is not reused */
    CHECK(first >= 0);
    pthread_t t[TAIL_THREADS];
    tail_writer w[TAIL_THREADS];
    for (int i = 0; i < TAIL_THREADS; i++) {
        w[i] = (tail_writer){.s = s, .id = i};
        CHECK(pthread_create(&t[i], NULL, commit_tail, &w[i]) == 0);
    }
    for (int i = 0; i < TAIL_THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&tail_failures) == 0);
    store_abandon(s);
    struct stat st; /* a new log took over at least once: the first one has no name */
    CHECK(fstat(first, &st) == 0 && st.st_nlink == 0);
    close(first);
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == TAIL_THREADS * TAIL_COMMITS);
        CHECK(count_records(s) == TAIL_THREADS * TAIL_COMMITS);
        store_close(s);
    }
    err_clear(&e);
}

/* Rewrites a log's header as release 0.2.0 wrote it: version 2, no salt. */
static void make_log_version_2(const char *p) {
    uint8_t h[48];
    int fd = open(wal_of(p), O_RDWR);
    CHECK(fd >= 0 && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h);
    CHECK(format_get_le(h + 8, 4) == 3);
    format_put_le(h + 8, 2, 4);
    memset(h + 12, 0, 4);
    format_put_le(h + 40, crc32_update(0, h, 40), 4);
    CHECK(pwrite(fd, h, sizeof h, 0) == (ssize_t)sizeof h);
    close(fd);
}

/* The commits in a log of release 0.2.0 (version 2) left by a crash are
 * replayed by this one. */
static void test_version_2_log_replays(void) {
    const char *p = db_path("v2log.graph");
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    for (uint64_t tx = 1; s && tx <= 5; tx++) {
        fact f = make_fact(":v2", ":n", value_integer((int64_t)tx), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
    }
    store_abandon(s);
    make_log_version_2(p);
    CHECK(open_file(p, true, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 5 && count_records(s) == 5);
        store_close(s);
    }
    err_clear(&e);
}

/* A log an earlier release left (version 2, no salt: zero at offset 12) is not one
 * a header can name, so the first checkpoint runs whole and resets it;
 * the background ones after it keep every commit. */
static void test_saltless_log_checkpoints_whole_first(void) {
    const char *p = db_path("saltless.graph");
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    store_close(s);
    make_log_version_2(p);
    store_options o = behind_opts(STORE_SYNC_NORMAL);
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    char name[32];
    for (uint64_t tx = 1; s && tx <= 100; tx++) {
        snprintf(name, sizeof name, ":s%llu", (unsigned long long)tx);
        fact f = make_fact(name, ":n", value_integer((int64_t)tx), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
    }
    store_abandon(s);
    CHECK(open_file(p, true, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 100 && count_records(s) == 100);
        store_close(s);
    }
    err_clear(&e);
}

/* One file under two hard links has two logs (file-format.md §6). The
 * log left under one name by a crash must not be replayed once the file
 * was checkpointed through the other, even where its frames continue the
 * counter: they are another history. */
static void test_other_links_log_stays_out(void) {
    const char *p = db_path("first.graph");
    char first[512], second[512];
    snprintf(first, sizeof first, "%s", p);
    snprintf(second, sizeof second, "%s", db_path("second.graph"));
    store *s = NULL;
    err e = {0};
    CHECK(open_file(first, false, &s, &e) == 0 && store_checkpoint(s, &e) == 0);
    for (uint64_t tx = 1; s && tx <= 3; tx++) {
        fact f = make_fact(":first", ":n", value_integer((int64_t)tx), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
    }
    store_abandon(s); /* 1-3 only in first.graph.wal */
    CHECK(link(first, second) == 0);
    CHECK(open_file(second, false, &s, &e) == 0);
    if (s) {
        fact f = make_fact(":second", ":n", value_integer(1), 1);
        CHECK(store_tx_count(s) == 0 && store_commit(s, &f, 1, &e) == 0);
        store_close(s); /* checkpointed: the file holds :second's 1 */
    }
    CHECK(open_file(first, false, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 1 && count_records(s) == 1);
        store_close(s);
    }
    err_clear(&e);
}

/* Commits the sample and leaves it in the WAL only, as a crash would. */
static void make_wal_only_file(const char *p) {
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        commit_sample(s);
        store_abandon(s);
    }
    err_clear(&e);
}

static void append_bytes(const char *p, const void *bytes, size_t n) {
    FILE *f = fopen(p, "ab");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, n, f) == n);
        fclose(f);
    }
}

static void test_wal_replay_and_torn_tail(void) {
    const char *p = db_path("torn.graph");
    make_wal_only_file(p);
    char wal[600];
    snprintf(wal, sizeof wal, "%s", wal_of(p));
    off_t good = file_size(wal);
    CHECK(good > 32);
    const uint8_t partial[] = {200, 0, 0, 0, 1, 2, 3, 4, 5, 6}; /* frame claims 200 bytes */
    append_bytes(wal, partial, sizeof partial);
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, true, &s, &e) == 0); /* read-only: replayed, tail not cut */
    if (s) {
        check_sample(s);
        store_close(s);
    }
    CHECK(file_size(wal) == good + (off_t)sizeof partial);
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        check_sample(s);
        CHECK(file_size(wal) == good);
        fact next = make_fact(":d", ":n", value_integer(4), 4);
        CHECK(store_commit(s, &next, 1, &e) == 0);
        store_abandon(s);
    }
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 4);
        store_close(s);
    }
    err_clear(&e);
}

static void flip_byte(const char *p, off_t at) {
    int fd = open(p, O_RDWR);
    uint8_t b = 0;
    CHECK(fd >= 0 && pread(fd, &b, 1, at) == 1);
    b ^= 0x55;
    CHECK(pwrite(fd, &b, 1, at) == 1);
    close(fd);
}

static void test_bad_checksum_in_last_frame_drops_only_it(void) {
    const char *p = db_path("crc.graph");
    make_wal_only_file(p);
    off_t size = file_size(wal_of(p));
    flip_byte(wal_of(p), size - 2);
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 2);
        CHECK(file_size(wal_of(p)) < size);
        store_close(s);
    }
    err_clear(&e);
}

static void write_file(const char *p, const void *bytes, size_t n) {
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, n, f) == n);
        fclose(f);
    }
}

static int open_error(const char *p, bool read_only, char *msg, size_t cap) {
    store *s = NULL;
    err e = {0};
    int rc = open_file(p, read_only, &s, &e);
    snprintf(msg, cap, "%s", e.message ? e.message : "");
    CHECK(rc == 0 || s == NULL);
    store_close(s);
    err_clear(&e);
    return rc;
}

static void test_header_errors(void) {
    char msg[700], want[700];
    const char *p = db_path("foreign.graph");
    write_file(p, "SQLite format 3\0 and more bytes here", 37);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 2));
    snprintf(want, sizeof want, "[STG-002] not a minigraf database file: %s", p);
    CHECK(strcmp(msg, want) == 0);
    CHECK(file_size(p) == 37); /* untouched */

    static uint8_t pages[2 * FORMAT_PAGE_SIZE];
    format_header h = {.generation = 1, .page_count = 2};
    format_encode_header(&h, 0, pages);
    pages[8] = 9; /* a future version, correctly sealed */
    format_seal_page(pages, 0);
    p = db_path("future.graph");
    write_file(p, pages, sizeof pages);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 3));
    CHECK(strncmp(msg, "[STG-003] unsupported database format version 9 ", 48) == 0);

    p = db_path("badcrc.graph");
    format_encode_header(&h, 0, pages);
    pages[100] ^= 1;
    write_file(p, pages, sizeof pages);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 4));

    /* format 2 (uncompressed leaves): both slots sealed as version 2 */
    format_encode_header(&h, 0, pages);
    format_encode_header(&h, 1, pages + FORMAT_PAGE_SIZE);
    pages[8] = pages[FORMAT_PAGE_SIZE + 8] = 2;
    format_seal_page(pages, 0);
    format_seal_page(pages + FORMAT_PAGE_SIZE, 1);
    p = db_path("v2.graph");
    write_file(p, pages, sizeof pages);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 28));
    snprintf(want, sizeof want,
             "[STG-028] database format version 2 is no longer readable (this release reads "
             "version 6): %s",
             p);
    CHECK(strcmp(msg, want) == 0);
    CHECK(open_error(p, true, msg, sizeof msg) == ERR(STG, 28));

    uint8_t v1[40] = {'M', 'I', 'N', 'I', 'G', 'R', 'A', 'F', 1, 0, 0, 0};
    p = db_path("v1.graph");
    write_file(p, v1, sizeof v1);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 28));

    /* two pages of zeros: a creation cut short by a power loss (the size
     * landed, the data did not) holds no data and starts over; beside a
     * WAL holding frames it is a damaged file */
    p = db_path("zero.graph");
    memset(pages, 0, sizeof pages);
    write_file(p, pages, sizeof pages);
    CHECK(open_error(p, false, msg, sizeof msg) == 0);
    CHECK(file_size(p) == 2 * FORMAT_PAGE_SIZE);
    memset(pages, 0, sizeof pages);
    write_file(p, pages, sizeof pages);
    char wal_file[600];
    snprintf(wal_file, sizeof wal_file, "%s.wal", p);
    write_file(wal_file, "frames", 6);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 2));
    unlink(wal_file);

    /* a creation torn sector by sector: page 0's header sector lost, its
     * checksum word and page 1's header landed */
    p = db_path("scrambled.graph");
    format_header fresh = {.generation = 1, .page_count = 2};
    memset(pages, 0, sizeof pages);
    format_encode_header(&fresh, 1, pages + FORMAT_PAGE_SIZE);
    format_seal_page(pages + FORMAT_PAGE_SIZE, 1);
    pages[FORMAT_PAGE_SIZE - 1] = 0x5a;
    write_file(p, pages, FORMAT_PAGE_SIZE + 512);
    CHECK(open_error(p, false, msg, sizeof msg) == 0);
    CHECK(file_size(p) == 2 * FORMAT_PAGE_SIZE);

    p = db_path("short.graph");
    write_file(p, "MINI", 4); /* torn while being created: started afresh */
    CHECK(open_error(p, false, msg, sizeof msg) == 0);
    CHECK(file_size(p) == 2 * FORMAT_PAGE_SIZE);

    p = db_path("shortforeign.graph");
    write_file(p, "hello", 5);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 2));

    p = db_path("missing.graph");
    CHECK(open_error(p, true, msg, sizeof msg) == ERR(STG, 10));
    CHECK(strstr(msg, "No such file or directory") != NULL);

    CHECK(open_error(test_dir, false, msg, sizeof msg) == ERR(STG, 10)); /* a directory */
}

/* A checkpointed sample: its pages are on disk, the WAL is empty. */
static void make_checkpointed_file(const char *p) {
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        commit_sample(s);
        store_close(s);
    }
    err_clear(&e);
}

static int query_all(store *s, err *e) {
    store_reader *r;
    int rc = store_reader_open(s, &r, e);
    if (rc != 0)
        return rc;
    store_scan *sc;
    rc = store_scan_order(r, TREE_EAVT, &sc, e);
    store_rec rec;
    while (rc == 0 && (rc = store_scan_next(sc, &rec, e)) == 1)
        rc = 0;
    if (sc && rc != 0 && rc != 1)
        store_scan_close(sc);
    else if (sc)
        store_scan_close(sc);
    store_reader_close(r);
    return rc;
}

/* The cache remembers which pages it was given (checked images), also
 * after evicting them, until page_cache_drop_from. */
static void test_page_cache_remembers_good_pages(void) {
    page_cache *c = page_cache_new(2);
    uint8_t page[FORMAT_PAGE_SIZE], out[FORMAT_PAGE_SIZE];
    memset(page, 7, sizeof page);
    CHECK(!page_cache_known_good(c, 5));
    CHECK(!page_cache_known_good(NULL, 5));
    page_cache_put(c, 5, page);
    page_cache_put(c, 9000, page);
    page_cache_put(c, 6, page); /* evicts 5 */
    CHECK(!page_cache_get(c, 5, out));
    CHECK(page_cache_known_good(c, 5) && page_cache_known_good(c, 9000));
    CHECK(!page_cache_known_good(c, 4) && !page_cache_known_good(c, 9001));
    CHECK(page_cache_get(c, 6, out) && out[100] == 7);
    page_cache_drop_from(c, 6);
    CHECK(page_cache_known_good(c, 5));
    CHECK(!page_cache_known_good(c, 6) && !page_cache_known_good(c, 9000));
    CHECK(!page_cache_get(c, 6, out));
    page_cache_free(c);
}

/* A loop over four times the pages the cache holds, repeated (a scan or
 * the probes of a query run again), still hits: evicting the oldest page
 * would evict each before its next use (issue 18: 10M facts). */
/* A background checkpoint's pages are written by its second step
 * (store_checkpoint_finish, the syncer's); between the two they are
 * committed in memory only, the file has not grown, and reads that miss
 * the page cache (4 pages here) find them in memory, not in the file. */
static void test_deferred_checkpoint_pages_read_from_memory(void) {
    const char *p = db_path("deferred.graph");
    store_options o = opts(false);
    o.page_cache_size = 4;
    o.wal_checkpoint_threshold = 0; /* no automatic checkpoint */
    store *s = NULL;
    err e = {0};
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    if (!s)
        return;
    char name[32];
    for (uint64_t tx = 1; tx <= 2000; tx++) {
        snprintf(name, sizeof name, ":e%llu", (unsigned long long)tx);
        fact f = make_fact(name, ":n", value_integer((int64_t)tx), tx);
        CHECK(store_commit(s, &f, 1, &e) == 0);
    }
    off_t before = file_size(p);
    CHECK(store_checkpoint_begin(s, &e) == 1);
    CHECK(file_size(p) == before);
    store_stats st0, st1;
    store_get_stats(s, &st0);
    CHECK(count_records(s) == 2000);
    store_get_stats(s, &st1);
    CHECK(st1.cache_misses > st0.cache_misses + 4); /* more than the cache holds */
    fact one = make_fact(":during", ":n", value_integer(2001), 2001);
    CHECK(store_commit(s, &one, 1, &e) == 0);
    CHECK(store_checkpoint_finish(s, &e) == 0);
    CHECK(file_size(p) > before);
    CHECK(count_records(s) == 2001);
    store_abandon(s);
    CHECK(store_open_file(p, &o, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 2001 && count_records(s) == 2001);
        store_close(s);
    }
    err_clear(&e);
}

static void test_page_cache_keeps_part_of_a_loop(void) {
    page_cache *c = page_cache_new(64);
    uint8_t page[FORMAT_PAGE_SIZE], out[FORMAT_PAGE_SIZE];
    memset(page, 3, sizeof page);
    for (int pass = 0; pass < 4; pass++) {
        int hits = 0;
        for (uint32_t pgno = 10; pgno < 10 + 4 * 64; pgno++) {
            if (page_cache_get(c, pgno, out))
                hits += out[0] == 3;
            else
                page_cache_put(c, pgno, page);
        }
        CHECK(pass == 0 ? hits == 0 : hits >= 32);
    }
    page_cache_free(c);
}

/* What a page was structurally checked as outlives its eviction; a new
 * image (a checkpoint's put) or page_cache_drop_from forgets it, and a
 * mark for an image the cache no longer holds is not taken. */
static void test_page_cache_remembers_checked_pages(void) {
    static const int codec_a = 1, codec_b = 2;
    page_cache *c = page_cache_new(1);
    uint8_t page[FORMAT_PAGE_SIZE], other[FORMAT_PAGE_SIZE], out[FORMAT_PAGE_SIZE];
    const void *as = &codec_b;
    memset(page, 7, sizeof page);
    memset(other, 8, sizeof other);
    CHECK(page_cache_checked_as(c, 5) == NULL && page_cache_checked_as(NULL, 5) == NULL);
    page_cache_put_checked(c, 5, page, &codec_a);
    page_cache_put(c, 6, page); /* evicts 5 */
    CHECK(page_cache_checked_as(c, 5) == &codec_a && page_cache_checked_as(c, 6) == NULL);
    CHECK(page_cache_get_checked(c, 6, out, &as) && as == NULL);
    page_cache_set_checked(c, 6, other, &codec_b); /* not the image it holds */
    CHECK(page_cache_checked_as(c, 6) == NULL);
    page_cache_set_checked(c, 6, page, &codec_b);
    CHECK(page_cache_get_checked(c, 6, out, &as) && as == &codec_b);
    page_cache_put(c, 6, other); /* a new image of page 6 */
    CHECK(page_cache_checked_as(c, 6) == NULL);
    page_cache_drop_from(c, 5);
    CHECK(page_cache_checked_as(c, 5) == NULL);
    page_cache_free(c);
}

static void test_damaged_files(void) {
    char msg[600];
    const char *p = db_path("truncated.graph");
    make_checkpointed_file(p);
    CHECK(truncate(p, file_size(p) - FORMAT_PAGE_SIZE) == 0);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 7));

    p = db_path("pagecrc.graph");
    make_checkpointed_file(p);
    flip_byte(p, 2 * FORMAT_PAGE_SIZE + 10); /* the first data page */
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0); /* pages are read on demand */
    if (s) {
        CHECK(query_all(s, &e) == ERR(STG, 29));
        CHECK(e.message && strstr(e.message, "checksum mismatch") != NULL);
        store_close(s);
    }

    p = db_path("newestheader.graph");
    make_checkpointed_file(p); /* generation 2, in slot 0 */
    flip_byte(p, 100);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(STG, 4));

    p = db_path("walmagic.graph");
    make_checkpointed_file(p);
    flip_byte(wal_of(p), 0);
    CHECK(open_error(p, false, msg, sizeof msg) == ERR(WAL, 1));
    err_clear(&e);
}

static void test_read_only_rejects_commits(void) {
    const char *p = db_path("ro.graph");
    make_checkpointed_file(p);
    off_t size = file_size(p);
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, true, &s, &e) == 0);
    if (s) {
        fact f = make_fact(":x", ":y", value_integer(1), 4);
        CHECK(store_commit(s, &f, 1, &e) == ERR(API, 14));
        CHECK(store_commit(s, NULL, 0, &e) == ERR(API, 14));
        CHECK(store_tx_count(s) == 3);
        CHECK(store_checkpoint(s, &e) == 0);
        store_close(s);
    }
    CHECK(file_size(p) == size);
    err_clear(&e);
}

static void test_file_size_limits(void) {
    store *s = NULL;
    err e = {0};
    CHECK(open_file(db_path("limits.graph"), false, &s, &e) == 0);
    if (!s)
        return;
    static char big[5000];
    memset(big, 'x', sizeof big);
    fact f = make_fact(":x", ":y", value_string(big, 4069), 1);
    CHECK(store_commit(s, &f, 1, &e) == ERR(WAL, 3));
    f.v = value_string(big, 4068);
    CHECK(store_commit(s, &f, 1, &e) == 0);
    store_close(s);
    CHECK(store_open_memory(false, &s, &e) == 0);
    f.v = value_string(big, sizeof big); /* no limit in memory */
    CHECK(store_commit(s, &f, 1, &e) == 0);
    store_reader *r;
    CHECK(store_reader_open(s, &r, &e) == 0);
    store_scan *sc;
    store_rec rec;
    CHECK(store_scan_order(r, TREE_TXLOG, &sc, &e) == 0);
    CHECK(drain(sc, &rec, 1) == 1 && rec.f.v.as.str.len == sizeof big);
    store_reader_close(r);
    store_close(s);
    err_clear(&e);
}

/* RLIMIT_FSIZE makes the log append fail with EFBIG: the commit must fail
 * with a storage error and leave both the memory state and the log as they
 * were. */
static void test_failed_write_leaves_no_trace(void) {
    const char *p = db_path("efbig.graph");
    make_wal_only_file(p);
    store *s = NULL;
    err e = {0};
    CHECK(open_file(p, false, &s, &e) == 0);
    if (!s)
        return;
    off_t size = file_size(wal_of(p));
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)size + 20;
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    fact f = make_fact(":new", ":attr", value_string("a long enough value", 19), 4);
    CHECK(store_commit(s, &f, 1, &e) == ERR(STG, 12));
    CHECK(e.message && strncmp(e.message, "[STG-012] write failed for ", 27) == 0);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(store_tx_count(s) == 3);
    store_reader *r;
    uint64_t id;
    CHECK(store_reader_open(s, &r, &e) == 0);
    CHECK(store_reader_fact_count(r) == 8 && store_reader_text_id(r, ":attr", 5, &id, &e) == 0);
    store_reader_close(r);
    CHECK(store_commit(s, &f, 1, &e) == 0);
    store_abandon(s);
    CHECK(open_file(p, false, &s, &e) == 0);
    if (s) {
        CHECK(store_tx_count(s) == 4);
        store_close(s);
    }
    err_clear(&e);
}

/* The child process tries to open the file and exits with the code's
 * number (25, 26, ...) or 0 when the open succeeded. */
static int child_open_code(const char *p, bool read_only) {
    pid_t pid = fork();
    if (pid == 0) {
        store *s = NULL;
        err e = {0};
        int rc = open_file(p, read_only, &s, &e);
        store_close(s);
        err_clear(&e);
        _exit(rc % 1000);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_one_open_per_process_and_cross_process_locks(void) {
    const char *p = db_path("locked.graph");
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    store *s = NULL, *again = NULL;
    err e = {0};
    CHECK(open_file(path, false, &s, &e) == 0);
    /* a second open in the process shares the store (store_share.c) */
    CHECK(open_file(path, false, &again, &e) == 0 && again == s);
    store_close(again);
    CHECK(open_file(path, true, &again, &e) == 0 && again == s);
    store_close(again);
    CHECK(child_open_code(path, false) == 26);
    CHECK(child_open_code(path, true) == 26);
    store_close(s);
    CHECK(open_file(path, true, &s, &e) == 0);
    /* read-write cannot join a read-only store */
    CHECK(open_file(path, false, &again, &e) == ERR(STG, 25) && again == NULL);
    CHECK(child_open_code(path, true) == 0);   /* readers share */
    CHECK(child_open_code(path, false) == 26); /* a writer waits for none */
    store_close(s);
    CHECK(child_open_code(path, false) == 0);
    CHECK(open_file(path, false, &s, &e) == 0);
    store_close(s);
    err_clear(&e);
}

static void remove_dir(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", test_dir);
}

int main(void) {
    test_dir = mkdtemp(dir_template);
    if (!test_dir) {
        perror("mkdtemp");
        return 1;
    }
    test_memory_store_commits_and_indexes();
    test_reader_values_keep_refs_stored();
    test_file_round_trip();
    test_file_stops_growing();
    test_background_checkpoints_keep_every_commit();
    test_deferred_checkpoint_pages_read_from_memory();
    test_new_log_takes_tail_over(STORE_SYNC_NORMAL, "tail_normal.graph");
    test_new_log_takes_tail_over(STORE_SYNC_FULL, "tail_full.graph");
    test_other_links_log_stays_out();
    test_version_2_log_replays();
    test_saltless_log_checkpoints_whole_first();
    test_wal_replay_and_torn_tail();
    test_bad_checksum_in_last_frame_drops_only_it();
    test_header_errors();
    test_page_cache_remembers_good_pages();
    test_page_cache_keeps_part_of_a_loop();
    test_page_cache_remembers_checked_pages();
    test_damaged_files();
    test_read_only_rejects_commits();
    test_file_size_limits();
    test_failed_write_leaves_no_trace();
    test_one_open_per_process_and_cross_process_locks();
    remove_dir();
    return CHECK_DONE();
}
