/* A child process transacting and checkpointing on a file is killed with
 * SIGKILL at a random moment, again and again (200 times by default); each
 * time the parent reopens the file, which must hold every transaction the
 * child was told had committed (it reports each through a pipe right after
 * the call returns), exactly as the child wrote them, and nothing torn.
 * The next child goes on from that file, so kills land during opens (WAL
 * replay), commits, write transactions, automatic and explicit
 * checkpoints and closes alike. Every other child runs with synchronous
 * "normal", whose commits must survive the death of the process too
 * (minigraf.h). A quarter of the kills come 0-3 ms after the fork (the
 * open, often its WAL replay), the rest 0-10 ms after the child's first
 * commit. Commit k writes [:k{k} :kill/seq k] (its tx counter is k),
 * and when k % 5 == 0 retracts k - 1's in the same write transaction.
 *
 *   test_sigkill [kills]      (MINIGRAF_KILL_SEED fixes the random delays) */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static void sleep_us(long us) {
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ---- the child ------------------------------------------------------------ */

static char *run(MiniGrafTx *tx, MiniGrafDb *db, const char *text) {
    return tx ? minigraf_tx_execute(tx, text) : minigraf_execute(db, text);
}

/* Commit k: a plain transact, or a write transaction (every third, and
 * every fifth with the retraction of k - 1). 0 when it committed. */
static int commit(MiniGrafDb *db, uint64_t k) {
    bool in_tx = k % 3 == 0 || k % 5 == 0;
    MiniGrafTx *tx = in_tx ? minigraf_begin_write(db) : NULL;
    if (in_tx && !tx)
        return -1;
    char text[160];
    snprintf(text, sizeof text, "(transact [[:k%llu :kill/seq %llu]])", (unsigned long long)k,
             (unsigned long long)k);
    char *r = run(tx, db, text);
    int rc = r ? 0 : -1;
    minigraf_string_free(r);
    if (rc == 0 && k % 5 == 0) {
        snprintf(text, sizeof text, "(retract [[:k%llu :kill/seq %llu]])",
                 (unsigned long long)(k - 1), (unsigned long long)(k - 1));
        r = run(tx, db, text);
        rc = r ? 0 : -1;
        minigraf_string_free(r);
    }
    if (tx) {
        rc = rc == 0 ? minigraf_tx_commit(tx) : -1;
        minigraf_tx_free(tx);
    }
    return rc;
}

/* Commits until killed (or 2,000 commits, then closes and exits), sending
 * each acknowledged counter through `out`. */
static void child(const char *path, int out, int round) {
    const char *options = round % 2 ? "{\"synchronous\":\"normal\",\"wal_checkpoint_threshold\":25}"
                                    : "{\"wal_checkpoint_threshold\":40}";
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    if (!db) {
        fprintf(stderr, "child: open failed: %s\n", error ? error : "?");
        _exit(2);
    }
    uint64_t k = 0;
    if (minigraf_current_tx_count(db, &k) != 0)
        _exit(3);
    for (int i = 0; i < 2000; i++) {
        k++;
        if (commit(db, k) != 0) {
            fprintf(stderr, "child: commit %llu failed: %s\n", (unsigned long long)k,
                    minigraf_last_error(db));
            _exit(4);
        }
        if (write(out, &k, sizeof k) != (ssize_t)sizeof k)
            _exit(5);
        if (k % 16 == 0 && minigraf_checkpoint(db) != 0)
            _exit(6);
    }
    minigraf_close(db);
    _exit(0);
}

/* ---- the parent ------------------------------------------------------------ */

/* Is commit k's fact live after n commits? (k % 5 == 4 was retracted by
 * k + 1.) */
static bool live_after(uint64_t k, uint64_t n) {
    return !(k % 5 == 4 && k + 1 <= n);
}

/* The file holds every commit up to its counter n >= acked, exactly. */
static bool verify(const char *path, uint64_t acked, uint64_t *n_out) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
    if (!db) {
        fprintf(stderr, "reopen failed: %s\n", error ? error : "?");
        minigraf_string_free(error);
        return false;
    }
    uint64_t n = 0;
    bool ok = minigraf_current_tx_count(db, &n) == 0 && n >= acked;
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?s :where [?e :kill/seq ?s]])");
    uint8_t *seen = calloc(n + 2, 1);
    uint64_t rows = 0, expected = 0;
    while (ok && c && minigraf_cursor_step(c) == 1) {
        int64_t s = minigraf_cursor_column_int64(c, 0);
        ok = s >= 1 && (uint64_t)s <= n && !seen[s] && live_after((uint64_t)s, n);
        if (ok)
            seen[s] = 1;
        rows++;
    }
    for (uint64_t k = 1; k <= n; k++)
        expected += live_after(k, n);
    ok = ok && c && rows == expected;
    if (!ok)
        fprintf(stderr, "after a kill: counter %llu, %llu acknowledged, %llu facts of %llu\n",
                (unsigned long long)n, (unsigned long long)acked, (unsigned long long)rows,
                (unsigned long long)expected);
    free(seen);
    minigraf_cursor_free(c);
    minigraf_close(db);
    *n_out = n;
    return ok;
}

/* Reads every counter the child sent; the last is the highest. */
static uint64_t drain(int in, uint64_t acked) {
    uint64_t k;
    while (read(in, &k, sizeof k) == (ssize_t)sizeof k)
        acked = k > acked ? k : acked;
    return acked;
}

typedef struct tally {
    int kills, mid_run, exits;
    uint64_t acked;
} tally;

/* Waits (up to 10 s) for the child's first report, kept in *acked. */
static void first_report(int in, uint64_t *acked) {
    struct pollfd p = {.fd = in, .events = POLLIN};
    uint64_t k;
    if (poll(&p, 1, 10000) == 1 && read(in, &k, sizeof k) == (ssize_t)sizeof k && k > *acked)
        *acked = k;
}

/* One child, killed `delay_us` after it started or, with `after_commit`,
 * after its first acknowledged commit (or let finish). false: the file
 * lost an acknowledged commit, or the child failed. */
static bool one_round(const char *path, int round, bool after_commit, long delay_us, tally *t) {
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(path, fds[1], round);
    }
    close(fds[1]);
    if (pid < 0)
        return false;
    uint64_t before = t->acked;
    if (after_commit)
        first_report(fds[0], &t->acked);
    sleep_us(delay_us);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    t->acked = drain(fds[0], t->acked);
    close(fds[0]);
    bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    t->kills += killed;
    t->mid_run += killed && t->acked > before;
    t->exits += !killed;
    if (!killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        fprintf(stderr, "round %d: the child failed (status %d)\n", round, status);
        return false;
    }
    uint64_t n = 0;
    bool ok = verify(path, t->acked, &n);
    t->acked = n; /* commits past the last report survived: the next child goes on from n */
    return ok;
}

int main(int argc, char **argv) {
    int kills = argc > 1 ? atoi(argv[1]) : 200;
    const char *seed_env = getenv("MINIGRAF_KILL_SEED");
    unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)time(NULL);
    srand(seed);
    temp_db_path tmp;
    temp_db_make_in_memory_fs(&tmp);
    const char *path = tmp.path;
    tally t = {0};
    int failures = 0;
    for (int round = 0; t.kills < kills && round < kills * 2 && failures < 3; round++) {
        bool during_open = rand() % 4 == 0; /* then often in the WAL replay */
        long delay = during_open ? rand() % 3000 : rand() % 10000;
        failures += !one_round(path, round, !during_open, delay, &t);
    }
    printf("seed %u: %d kills (%d after acknowledged commits), %d children finished, "
           "%llu acknowledged transactions, 0 lost: %s\n",
           seed, t.kills, t.mid_run, t.exits, (unsigned long long)t.acked, failures ? "NO" : "yes");
    temp_db_remove(&tmp);
    bool enough = t.kills >= kills && t.mid_run >= kills / 2;
    if (!enough)
        fprintf(stderr, "too few kills landed mid-run\n");
    return failures || !enough;
}
