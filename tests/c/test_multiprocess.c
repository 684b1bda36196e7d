/* Several processes on one file (each forked before it opens anything, so
 * every open is the process's own): one read-write process or any number
 * of read-only ones (minigraf.h, "read_only"); any other open fails at
 * once with STG-026, whatever busy_timeout_ms says (that option is about
 * threads of one process waiting for a write transaction). Readers in
 * other processes see committed data only, even when the writer died with
 * a write transaction staged and its commits still in the WAL, and a
 * read-only open replays that WAL without changing either file. Processes
 * racing to write take turns and lose nothing. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* Opens `path` read-write in this process, reporting a failure. */
static MiniGrafDb *open_here(const char *path) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
    if (!db)
        fprintf(stderr, "open: %s\n", error ? error : "?");
    minigraf_string_free(error);
    return db;
}

/* A child process running `fn(path, arg)`; its result is its exit status. */
static pid_t spawn(int (*fn)(const char *, int), const char *path, int arg) {
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn(path, arg));
    return pid;
}

static int status_of(pid_t pid) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status)
                             : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* 0 when opening `path` with `options` fails with `code`. */
static int open_fails_with(const char *path, const char *options, const char *code) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, options, &error);
    int rc = db ? 1 : (error && strncmp(error, code, strlen(code)) == 0) ? 0 : 2;
    if (rc == 2)
        fprintf(stderr, "open: %s\n", error ? error : "?");
    minigraf_close(db);
    minigraf_string_free(error);
    return rc;
}

static void commit(MiniGrafDb *db, const char *who, int i) {
    char text[128];
    snprintf(text, sizeof text, "(transact [[:%s-%d :mp/who \"%s\"] [:%s-%d :mp/i %d]])", who, i,
             who, who, i, i);
    EXPECT_TRANSACT(db, text);
}

/* How many facts [?e :mp/i _] `db` holds whose :mp/who is `who`. */
static long long count_of(MiniGrafDb *db, const char *who) {
    char q[160];
    snprintf(q, sizeof q, "(query [:find (count ?e) :where [?e :mp/who \"%s\"] [?e :mp/i _]])",
             who);
    MiniGrafCursor *c = minigraf_query(db, q);
    long long n = c && minigraf_cursor_step(c) == 1 ? minigraf_cursor_column_int64(c, 0) : 0;
    minigraf_cursor_free(c);
    return n;
}

/* ---- a second writer process ----------------------------------------------------- */

static int second_writer(const char *path, int unused) {
    (void)unused;
    if (open_fails_with(path, "{\"busy_timeout_ms\":2000}", "[STG-026]") != 0)
        return 1;
    if (open_fails_with(path, NULL, "[STG-026]") != 0)
        return 2;
    if (open_fails_with(path, "{\"read_only\":true}", "[STG-026]") != 0)
        return 3;
    return 0;
}

static int writer_after(const char *path, int unused) {
    (void)unused;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, NULL);
    if (!db)
        return 1;
    char *r = minigraf_execute(db, "(transact [[:child :mp/who \"child\"] [:child :mp/i 1]])");
    int rc = r ? 0 : 2;
    minigraf_string_free(r);
    minigraf_close(db);
    return rc;
}

TEST(a_second_process_opening_read_write_gets_stg_026_at_once) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = open_here(t.path);
    REQUIRE(db != NULL);
    commit(db, "parent", 1);
    CHECK_INT_EQ(status_of(spawn(second_writer, t.path, 0)), 0);
    commit(db, "parent", 2); /* the refused opens changed nothing here */
    minigraf_close(db);
    CHECK_INT_EQ(status_of(spawn(writer_after, t.path, 0)), 0); /* free now */
    db = open_here(t.path);
    REQUIRE(db != NULL);
    CHECK_INT_EQ(count_of(db, "parent"), 2);
    CHECK_INT_EQ(count_of(db, "child"), 1);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- readers together, writers kept out ----------------------------------------------- */

/* Opens read-only, says so on the low 16 bits of `fds` (a pipe's write
 * end), holds the file until a byte comes on the high 16 bits (a read end). */
static int hold_read_only(const char *path, int fds) {
    int say = fds & 0xffff, hear = fds >> 16;
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\":true}", NULL);
    char ok = db && count_of(db, "parent") == 3 ? 'r' : 'x', go;
    if (write(say, &ok, 1) != 1 || read(hear, &go, 1) != 1)
        return 2;
    int rc = db && count_of(db, "parent") == 3 ? 0 : 1;
    minigraf_close(db);
    return rc;
}

TEST(read_only_processes_share_the_file_and_keep_a_writer_out) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = open_here(t.path);
    REQUIRE(db != NULL);
    for (int i = 1; i <= 3; i++)
        commit(db, "parent", i);
    minigraf_close(db);
    int up[2], down[2];
    REQUIRE(pipe(up) == 0 && pipe(down) == 0);
    int fds = up[1] | down[0] << 16;
    pid_t a = spawn(hold_read_only, t.path, fds), b = spawn(hold_read_only, t.path, fds);
    char got[2] = {0};
    CHECK(read(up[0], &got[0], 1) == 1 && read(up[0], &got[1], 1) == 1);
    CHECK(got[0] == 'r' && got[1] == 'r'); /* both open at once */
    CHECK_INT_EQ(open_fails_with(t.path, "{\"busy_timeout_ms\":1000}", "[STG-026]"), 0);
    CHECK(write(down[1], "gg", 2) == 2); /* now let go */
    CHECK_INT_EQ(status_of(a), 0);
    CHECK_INT_EQ(status_of(b), 0);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    close(down[1]);
    db = open_here(t.path); /* both gone: the writer gets in */
    CHECK(db != NULL);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- a writer dies: readers see what it committed, nothing staged ---------------------------- */

#define DIED_AFTER 40

/* Commits DIED_AFTER times (never checkpointing: they stay in the WAL),
 * stages a write transaction, reports, and waits to be killed. */
static int writer_then_killed(const char *path, int fd) {
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"wal_checkpoint_threshold\":0}", NULL);
    if (!db)
        return 1;
    for (int i = 1; i <= DIED_AFTER; i++) {
        char text[128];
        snprintf(text, sizeof text, "(transact [[:w-%d :mp/who \"dead\"] [:w-%d :mp/i %d]])", i, i,
                 i);
        char *r = minigraf_execute(db, text);
        if (!r)
            return 2;
        minigraf_string_free(r);
    }
    MiniGrafTx *tx = minigraf_begin_write(db);
    char *r = tx ? minigraf_tx_execute(tx,
                                       "(transact [[:staged :mp/who \"dead\"] [:staged :mp/i 0]])")
                 : NULL;
    char ok = r ? 's' : 'x';
    minigraf_string_free(r);
    if (write(fd, &ok, 1) != 1)
        return 3;
    for (;;)
        pause();
}

/* A reader's look at the dead writer's file: its commits, not the staged one. */
static int read_committed(const char *path, int unused) {
    (void)unused;
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\":true}", NULL);
    if (!db)
        return 1;
    uint64_t n = 0;
    int rc = minigraf_current_tx_count(db, &n) == 0 && n == DIED_AFTER ? 0 : 2;
    if (rc == 0 && count_of(db, "dead") != DIED_AFTER)
        rc = 3;
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e :where [?e :mp/i 0]])");
    if (rc == 0 && (!c || minigraf_cursor_step(c) != 0))
        rc = 4; /* the staged fact must not be there */
    minigraf_cursor_free(c);
    minigraf_close(db);
    return rc;
}

static bool same_bytes(const char *a_path, const char *b_path) {
    FILE *a = fopen(a_path, "rb"), *b = fopen(b_path, "rb");
    bool same = a && b;
    while (same) {
        int ca = fgetc(a), cb = fgetc(b);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    return same;
}

static void copy_to(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int c;
    while (in && out && (c = fgetc(in)) != EOF)
        fputc(c, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

TEST(readers_in_other_processes_see_only_what_a_dead_writer_committed) {
    temp_db_path t;
    temp_db_make(&t);
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t w = spawn(writer_then_killed, t.path, fds[1]);
    char got = 0;
    CHECK(read(fds[0], &got, 1) == 1 && got == 's');
    kill(w, SIGKILL);
    CHECK_INT_EQ(status_of(w), 100 + SIGKILL);
    close(fds[0]);
    close(fds[1]);
    char wal[128], file_copy[128], wal_copy[128];
    snprintf(wal, sizeof wal, "%s.wal", t.path);
    snprintf(file_copy, sizeof file_copy, "%s/before.graph", t.dir);
    snprintf(wal_copy, sizeof wal_copy, "%s/before.wal", t.dir);
    copy_to(t.path, file_copy);
    copy_to(wal, wal_copy);
    pid_t a = spawn(read_committed, t.path, 0), b = spawn(read_committed, t.path, 0);
    CHECK_INT_EQ(status_of(a), 0);
    CHECK_INT_EQ(status_of(b), 0);
    CHECK(same_bytes(t.path, file_copy)); /* read-only replay wrote nothing */
    CHECK(same_bytes(wal, wal_copy));
    MiniGrafDb *db = open_here(t.path); /* a writer recovers the same */
    REQUIRE(db != NULL);
    CHECK_INT_EQ(count_of(db, "dead"), DIED_AFTER);
    commit(db, "parent", 1);
    minigraf_close(db);
    CHECK_INT_EQ(status_of(spawn(read_committed, t.path, 0)), 2); /* one more commit now */
    temp_db_remove(&t);
}

/* ---- writers racing ------------------------------------------------------------------------- */

#define RACE_COMMITS 40

/* Commits RACE_COMMITS times, each in its own open: an open refused with
 * STG-026 (the other process has the file) waits and tries again; any
 * other failure ends the process with an error status. */
static int racing_writer(const char *path, int who) {
    char name[16];
    snprintf(name, sizeof name, "racer%d", who);
    int refused = 0;
    for (int i = 1; i <= RACE_COMMITS;) {
        char *error = NULL;
        MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
        if (!db) {
            bool locked = error && strncmp(error, "[STG-026]", 9) == 0;
            if (!locked)
                fprintf(stderr, "racer: %s\n", error ? error : "?");
            minigraf_string_free(error);
            if (!locked)
                return 1;
            refused++;
            sleep_ms(1);
            continue;
        }
        for (int k = 0; k < 3 && i <= RACE_COMMITS; k++, i++) {
            char text[128];
            snprintf(text, sizeof text, "(transact [[:%s-%d :mp/who \"%s\"] [:%s-%d :mp/i %d]])",
                     name, i, name, name, i, i);
            char *r = minigraf_execute(db, text);
            if (!r)
                return 2;
            minigraf_string_free(r);
        }
        if (i % 9 == 0 && minigraf_checkpoint(db) != 0)
            return 3;
        minigraf_close(db);
    }
    printf("%s: %d opens refused with STG-026\n", name, refused);
    fflush(stdout); /* the child ends with _exit */
    return 0;
}

TEST(processes_racing_to_write_take_turns_and_lose_nothing) {
    temp_db_path t;
    temp_db_make(&t);
    fflush(stdout);
    pid_t a = spawn(racing_writer, t.path, 1), b = spawn(racing_writer, t.path, 2),
          c = spawn(racing_writer, t.path, 3);
    CHECK_INT_EQ(status_of(a), 0);
    CHECK_INT_EQ(status_of(b), 0);
    CHECK_INT_EQ(status_of(c), 0);
    MiniGrafDb *db = open_here(t.path);
    REQUIRE(db != NULL);
    uint64_t n = 0;
    CHECK(minigraf_current_tx_count(db, &n) == 0);
    CHECK_INT_EQ((long long)n, 3 * RACE_COMMITS);
    CHECK_INT_EQ(count_of(db, "racer1"), RACE_COMMITS);
    CHECK_INT_EQ(count_of(db, "racer2"), RACE_COMMITS);
    CHECK_INT_EQ(count_of(db, "racer3"), RACE_COMMITS);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(a_second_process_opening_read_write_gets_stg_026_at_once),
           TEST_ENTRY(read_only_processes_share_the_file_and_keep_a_writer_out),
           TEST_ENTRY(readers_in_other_processes_see_only_what_a_dead_writer_committed),
           TEST_ENTRY(processes_racing_to_write_take_turns_and_lose_nothing))
