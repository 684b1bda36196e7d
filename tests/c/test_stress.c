/* Stress: 8 threads on one database file for a fixed time, each on its own
 * handle (one store, shared), mixing transacts, write transactions, one-shot
 * aggregate queries, streaming cursors read a few rows at a time,
 * checkpoints, counter reads and closing and reopening their handle; and a
 * second process reading the same file. Invariants checked as it runs:
 *   - every snapshot is internally consistent: thread t's commits
 *     [:s{t}-{i} :st/w t] [:s{t}-{i} :st/i i] are seen as a prefix
 *     1..m of i with no gap and no duplicate (a torn snapshot would show a
 *     later commit without an earlier one);
 *   - nothing acknowledged is lost: m is at least what thread t had
 *     acknowledged when the read began, and at most what it had begun;
 *   - the transaction counter never goes back, across threads and handles;
 *   - at the end the counter is the number of commits made and every
 *     thread's facts are exactly the ones it was told were committed.
 * The second process (forked while nothing is open) tries read-only
 * opens at random, which must fail with STG-026 while this process has the
 * file read-write (one writer process or many readers, minigraf.h), and
 * about every 0.7 s, while every thread has parked with its handle
 * closed, must open it and find a consistent snapshot with at least
 * every acknowledged commit (its counter never going back between opens).
 *
 *   MINIGRAF_STRESS_SECONDS=600 test_stress    a long run (default 6 s) */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

#define THREADS 8
#define MAX_SEQ 4000000

static const char OPTIONS[] = "{\"wal_checkpoint_threshold\":200,\"busy_timeout_ms\":60000}";

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ---- what the threads share -------------------------------------------------- */

static const char *db_path;
static atomic_ullong acked[THREADS];   /* highest i thread t was told committed */
static atomic_ullong started[THREADS]; /* highest i thread t has begun to commit */
static atomic_ullong commits;          /* successful commits (counter values) */
static atomic_ullong counter_seen;     /* highest transaction counter observed */
static atomic_int problems;
static atomic_bool stop, pause_all;
static atomic_int parked;

typedef struct ops {
    unsigned long transacts, tx_commits, queries, cursors, checkpoints, counters, reopens, locked;
} ops;

static void problem(const char *fmt, ...) {
    if (atomic_fetch_add(&problems, 1) >= 10)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- a snapshot's check ------------------------------------------------------- */

/* The i's seen per thread in one answer. */
typedef struct seen {
    uint8_t *bits[THREADS];
    uint64_t count[THREADS], max[THREADS];
} seen;

static void seen_init(seen *s) {
    memset(s, 0, sizeof *s);
}

static void seen_free(seen *s) {
    for (int t = 0; t < THREADS; t++)
        free(s->bits[t]);
}

/* false on a duplicate or an impossible row. */
static bool seen_add(seen *s, int64_t w, int64_t i) {
    if (w < 0 || w >= THREADS || i < 1 || i > MAX_SEQ)
        return false;
    if (!s->bits[w])
        s->bits[w] = calloc(MAX_SEQ / 8 + 1, 1);
    uint8_t *b = &s->bits[w][i / 8], bit = (uint8_t)(1u << (i % 8));
    if (*b & bit)
        return false;
    *b |= bit;
    s->count[w]++;
    if ((uint64_t)i > s->max[w])
        s->max[w] = (uint64_t)i;
    return true;
}

/* Per thread: a prefix (count == max), at least `floor`, at most `ceiling`. */
static bool seen_consistent(const char *who, const uint64_t *count, const uint64_t *max,
                            const uint64_t *floor, const uint64_t *ceiling) {
    bool ok = true;
    for (int t = 0; t < THREADS; t++) {
        if (count[t] != max[t]) {
            problem("%s: a torn snapshot: %llu facts of thread %d up to %llu", who,
                    (unsigned long long)count[t], t, (unsigned long long)max[t]);
            ok = false;
        }
        if (max[t] < floor[t] || (ceiling && max[t] > ceiling[t])) {
            problem("%s: %llu commits of thread %d seen, %llu acknowledged before, %llu begun", who,
                    (unsigned long long)max[t], t, (unsigned long long)floor[t],
                    (unsigned long long)(ceiling ? ceiling[t] : 0));
            ok = false;
        }
    }
    return ok;
}

static void load_acked(uint64_t *out) {
    for (int t = 0; t < THREADS; t++)
        out[t] = atomic_load(&acked[t]);
}

static void load_started(uint64_t *out) {
    for (int t = 0; t < THREADS; t++)
        out[t] = atomic_load(&started[t]);
}

static void counter_never_back(const char *who, MiniGrafDb *db) {
    unsigned long long before = atomic_load(&counter_seen);
    uint64_t n = 0;
    if (minigraf_current_tx_count(db, &n) != 0) {
        problem("%s: tx count failed: %s", who, minigraf_last_error(db));
        return;
    }
    if (n < before)
        problem("%s: the counter went back from %llu to %llu", who, before, (unsigned long long)n);
    unsigned long long cur = before;
    while (n > cur && !atomic_compare_exchange_weak(&counter_seen, &cur, n)) {
    }
}

/* ---- reads ------------------------------------------------------------------- */

static const char AGGREGATE[] =
    "(query [:find ?w (count ?i) (max ?i) :where [?e :st/w ?w] [?e :st/i ?i]])";
static const char ROWS[] = "(query [:find ?w ?i :where [?e :st/w ?w] [?e :st/i ?i]])";

/* One-shot aggregate: per thread, count == max (a prefix). */
static void check_aggregate(MiniGrafDb *db) {
    uint64_t floor[THREADS], ceiling[THREADS], count[THREADS] = {0}, max[THREADS] = {0};
    load_acked(floor);
    MiniGrafCursor *c = minigraf_query(db, AGGREGATE);
    int rc;
    while (c && (rc = minigraf_cursor_step(c)) == 1) {
        int64_t w = minigraf_cursor_column_int64(c, 0);
        if (w >= 0 && w < THREADS) {
            count[w] = (uint64_t)minigraf_cursor_column_int64(c, 1);
            max[w] = (uint64_t)minigraf_cursor_column_int64(c, 2);
        }
    }
    if (!c || rc != 0)
        problem("aggregate query failed: %s",
                c ? minigraf_cursor_last_error(c) : minigraf_last_error(db));
    minigraf_cursor_free(c);
    load_started(ceiling);
    seen_consistent("aggregate", count, max, floor, ceiling);
}

/* Reads every row of `c`, a few at a time with yields between, so
 * commits and checkpoints run while it is open. */
static bool read_rows(MiniGrafCursor *c, seen *s, bool slowly) {
    int rc, n = 0;
    bool ok = true;
    while ((rc = minigraf_cursor_step(c)) == 1) {
        ok = seen_add(s, minigraf_cursor_column_int64(c, 0), minigraf_cursor_column_int64(c, 1)) &&
             ok;
        if (slowly && ++n % 64 == 0)
            sched_yield();
    }
    if (rc != 0)
        problem("cursor failed: %s", minigraf_cursor_last_error(c));
    return ok && rc == 0;
}

static void check_cursor(MiniGrafDb *db) {
    uint64_t floor[THREADS], ceiling[THREADS];
    load_acked(floor);
    MiniGrafCursor *c = minigraf_query(db, ROWS);
    seen s;
    seen_init(&s);
    if (!c)
        problem("cursor open failed: %s", minigraf_last_error(db));
    else if (!read_rows(c, &s, true))
        problem("cursor: a duplicate or impossible row");
    minigraf_cursor_free(c);
    load_started(ceiling);
    seen_consistent("cursor", s.count, s.max, floor, ceiling);
    seen_free(&s);
}

/* ---- writes ------------------------------------------------------------------ */

static int commit_text(char *text, size_t cap, int t, uint64_t i) {
    return snprintf(text, cap, "(transact [[:s%d-%llu :st/w %d] [:s%d-%llu :st/i %llu]])", t,
                    (unsigned long long)i, t, t, (unsigned long long)i, (unsigned long long)i);
}

static void do_transact(MiniGrafDb *db, int t, ops *o) {
    uint64_t i = atomic_load(&acked[t]) + 1;
    atomic_store(&started[t], i);
    char text[160];
    commit_text(text, sizeof text, t, i);
    char *r = minigraf_execute(db, text);
    if (!r) {
        problem("transact failed: %s", minigraf_last_error(db));
        return;
    }
    minigraf_string_free(r);
    atomic_store(&acked[t], i);
    atomic_fetch_add(&commits, 1);
    o->transacts++;
}

/* A write transaction of two commits' facts: one counter value. */
static void do_write_tx(MiniGrafDb *db, int t, ops *o) {
    uint64_t i = atomic_load(&acked[t]) + 1;
    atomic_store(&started[t], i + 1);
    MiniGrafTx *tx = minigraf_begin_write(db);
    bool ok = tx != NULL;
    for (uint64_t k = i; ok && k <= i + 1; k++) {
        char text[160];
        commit_text(text, sizeof text, t, k);
        char *r = minigraf_tx_execute(tx, text);
        ok = r != NULL;
        minigraf_string_free(r);
    }
    ok = ok && minigraf_tx_commit(tx) == 0;
    if (!ok)
        problem("write transaction failed: %s",
                tx ? minigraf_tx_last_error(tx) : minigraf_last_error(db));
    minigraf_tx_free(tx);
    if (!ok)
        return;
    atomic_store(&acked[t], i + 1);
    atomic_fetch_add(&commits, 1);
    o->tx_commits++;
}

/* ---- the threads ---------------------------------------------------------------- */

/* Opens the file; while the reader process holds it (it got in between
 * two of our handles), STG-026: wait and retry. */
static MiniGrafDb *open_db(ops *o) {
    for (int tries = 0; tries < 20000; tries++) {
        char *error = NULL;
        MiniGrafDb *db = minigraf_open_with_options(db_path, OPTIONS, &error);
        if (db)
            return db;
        bool locked = error && strncmp(error, "[STG-026]", 9) == 0;
        if (!locked)
            problem("open failed: %s", error);
        minigraf_string_free(error);
        if (!locked)
            return NULL;
        o->locked++;
        sleep_ms(1);
    }
    problem("open: locked for 20000 tries");
    return NULL;
}

/* Parks with the handle closed while the reader process reads. */
static MiniGrafDb *park(MiniGrafDb *db, ops *o) {
    minigraf_close(db);
    atomic_fetch_add(&parked, 1);
    while (atomic_load(&pause_all))
        sleep_ms(1);
    atomic_fetch_sub(&parked, 1);
    return open_db(o);
}

typedef struct worker {
    int t;
    ops o;
} worker;

static void *worker_main(void *arg) {
    worker *w = arg;
    unsigned rnd = (unsigned)w->t * 7919u + 1;
    MiniGrafDb *db = open_db(&w->o);
    while (db && !atomic_load(&stop)) {
        if (atomic_load(&pause_all)) {
            db = park(db, &w->o);
            continue;
        }
        int r = rand_r(&rnd) % 100;
        if (r < 40) {
            do_transact(db, w->t, &w->o);
        } else if (r < 48) {
            do_write_tx(db, w->t, &w->o);
        } else if (r < 66) {
            check_aggregate(db);
            w->o.queries++;
        } else if (r < 78) {
            check_cursor(db);
            w->o.cursors++;
        } else if (r < 84) {
            if (minigraf_checkpoint(db) != 0)
                problem("checkpoint failed: %s", minigraf_last_error(db));
            w->o.checkpoints++;
        } else if (r < 96) {
            counter_never_back("counter", db);
            w->o.counters++;
        } else {
            minigraf_close(db);
            db = open_db(&w->o);
            w->o.reopens++;
        }
    }
    minigraf_close(db);
    return NULL;
}

/* ---- the second process ------------------------------------------------------------ */

typedef struct reader_report {
    int reads, refused, lucky, bad;
} reader_report;

/* One read-only look: a consistent snapshot holding at least `floor`. */
static bool reader_look(MiniGrafDb *db, const uint64_t *floor, uint64_t *last_counter) {
    uint64_t n = 0;
    bool ok = minigraf_current_tx_count(db, &n) == 0 && n >= *last_counter;
    if (!ok)
        problem("second process: the counter went from %llu to %llu (%s)",
                (unsigned long long)*last_counter, (unsigned long long)n, minigraf_last_error(db));
    *last_counter = n;
    MiniGrafCursor *c = minigraf_query(db, ROWS);
    if (!c)
        problem("second process: query failed: %s", minigraf_last_error(db));
    seen s;
    seen_init(&s);
    ok = ok && c && read_rows(c, &s, false);
    ok = ok && seen_consistent("second process", s.count, s.max, floor, NULL);
    seen_free(&s);
    minigraf_cursor_free(c);
    return ok;
}

/* Commands on `in`: 'g' + the acknowledged counts (open now: it must
 * work), EOF to end; between them, random read-only opens. */
static void reader_process(int in, int out) {
    reader_report rep = {0};
    uint64_t last_counter = 0, none[THREADS] = {0};
    unsigned rnd = 12345;
    for (;;) {
        struct pollfd p = {.fd = in, .events = POLLIN};
        int ready = poll(&p, 1, 5 + (int)(rand_r(&rnd) % 20));
        if (ready == 0) { /* a try while the writer process holds the file */
            char *error = NULL;
            MiniGrafDb *db = minigraf_open_with_options(db_path, "{\"read_only\":true}", &error);
            if (db) {
                rep.lucky++; /* every handle there was closed at that moment */
                rep.bad += !reader_look(db, none, &last_counter);
                minigraf_close(db);
            } else {
                bool locked = error && strncmp(error, "[STG-026]", 9) == 0;
                rep.refused += locked;
                rep.bad += !locked;
                if (!locked)
                    problem("second process: read-only open failed: %s", error);
            }
            minigraf_string_free(error);
            continue;
        }
        char cmd;
        uint64_t floor[THREADS];
        if (read(in, &cmd, 1) != 1 || read(in, floor, sizeof floor) != (ssize_t)sizeof floor)
            break;
        char *error = NULL;
        MiniGrafDb *db = minigraf_open_with_options(db_path, "{\"read_only\":true}", &error);
        rep.bad += !db || !reader_look(db, floor, &last_counter);
        if (!db)
            fprintf(stderr, "second process: open in a window failed: %s\n", error);
        minigraf_string_free(error);
        minigraf_close(db);
        rep.reads++;
        if (write(out, &cmd, 1) != 1)
            break;
    }
    if (write(out, &rep, sizeof rep) != (ssize_t)sizeof rep)
        _exit(3);
    _exit(0);
}

/* A window for the second process: every thread parked, handles closed. */
static bool reader_window(int to, int from) {
    atomic_store(&pause_all, true);
    double until = now_s() + 30;
    while (atomic_load(&parked) < THREADS && now_s() < until)
        sleep_ms(1);
    bool ok = atomic_load(&parked) == THREADS;
    uint64_t floor[THREADS];
    load_acked(floor);
    char cmd = 'g', reply = 0;
    ok = ok && write(to, &cmd, 1) == 1 && write(to, floor, sizeof floor) == (ssize_t)sizeof floor &&
         read(from, &reply, 1) == 1 && reply == 'g';
    atomic_store(&pause_all, false);
    return ok;
}

/* ---- the final count ----------------------------------------------------------------- */

static void check_final(void) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(db_path, OPTIONS, &error);
    CHECK(db != NULL);
    uint64_t n = 0, want[THREADS];
    CHECK(db && minigraf_current_tx_count(db, &n) == 0);
    CHECK_INT_EQ((long long)n, (long long)atomic_load(&commits));
    load_acked(want);
    MiniGrafCursor *c = db ? minigraf_query(db, ROWS) : NULL;
    seen s;
    seen_init(&s);
    CHECK(c && read_rows(c, &s, false));
    for (int t = 0; t < THREADS; t++) {
        CHECK_INT_EQ((long long)s.count[t], (long long)want[t]);
        CHECK_INT_EQ((long long)s.max[t], (long long)want[t]);
    }
    seen_free(&s);
    minigraf_cursor_free(c);
    minigraf_close(db);
    minigraf_string_free(error);
}

TEST(eight_threads_and_a_second_process_keep_every_invariant) {
    const char *env = getenv("MINIGRAF_STRESS_SECONDS");
    double seconds = env ? atof(env) : 6;
    temp_db_path tmp;
    temp_db_make_in_memory_fs(&tmp);
    db_path = tmp.path;
    int to_reader[2], from_reader[2];
    REQUIRE(pipe(to_reader) == 0 && pipe(from_reader) == 0);
    MiniGrafDb *created = minigraf_open_with_options(db_path, OPTIONS, NULL);
    REQUIRE(created != NULL); /* the second process opens it from the start */
    minigraf_close(created);
    pid_t pid = fork(); /* with nothing open and no thread started */
    if (pid == 0) {
        close(to_reader[1]);
        close(from_reader[0]);
        reader_process(to_reader[0], from_reader[1]);
    }
    REQUIRE(pid > 0);
    close(to_reader[0]);
    close(from_reader[1]);
    worker workers[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){.t = t};
        REQUIRE(pthread_create(&threads[t], NULL, worker_main, &workers[t]) == 0);
    }
    double end = now_s() + seconds, next_window = now_s() + 0.7;
    int windows = 0;
    while (now_s() < end) {
        sleep_ms(20);
        if (now_s() >= next_window) {
            CHECK(reader_window(to_reader[1], from_reader[0]));
            windows++;
            next_window = now_s() + 0.7;
        }
    }
    atomic_store(&stop, true);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    close(to_reader[1]);
    reader_report rep = {0};
    CHECK(read(from_reader[0], &rep, sizeof rep) == (ssize_t)sizeof rep);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(from_reader[0]);
    check_final();
    ops sum = {0};
    for (int t = 0; t < THREADS; t++) {
        sum.transacts += workers[t].o.transacts;
        sum.tx_commits += workers[t].o.tx_commits;
        sum.queries += workers[t].o.queries;
        sum.cursors += workers[t].o.cursors;
        sum.checkpoints += workers[t].o.checkpoints;
        sum.counters += workers[t].o.counters;
        sum.reopens += workers[t].o.reopens;
        sum.locked += workers[t].o.locked;
    }
    printf("%.0f s, 8 threads: %lu transacts, %lu write transactions, %lu aggregate queries, "
           "%lu cursors, %lu checkpoints, %lu counter reads, %lu reopens (%lu refused while the "
           "other process read); second process: %d reads in %d windows, %d opens refused with "
           "STG-026, %d got in between handles; %d problems\n",
           seconds, sum.transacts, sum.tx_commits, sum.queries, sum.cursors, sum.checkpoints,
           sum.counters, sum.reopens, sum.locked, rep.reads, windows, rep.refused, rep.lucky,
           atomic_load(&problems));
    CHECK_INT_EQ(atomic_load(&problems), 0);
    CHECK_INT_EQ(rep.bad, 0);
    CHECK_INT_EQ(rep.reads, windows);
    CHECK(windows >= 1 && sum.transacts > 0 && sum.cursors > 0 && sum.checkpoints > 0 &&
          sum.reopens > 0);
    temp_db_remove(&tmp);
}

CHECK_MAIN(TEST_ENTRY(eight_threads_and_a_second_process_keep_every_invariant))
