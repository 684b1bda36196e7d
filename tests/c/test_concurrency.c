/* Concurrency (minigraf.h; ARCHITECTURE.md §1 "concurrency model"):
 * reader threads query while a writer commits and checkpoints, and every
 * answer comes from one consistent snapshot; two processes contend for the
 * write lock of one file (STG-026). */
#include <pthread.h>
#include <sys/wait.h>

#include "support.h"

#define WRITES 150
#define READERS 4

typedef struct shared {
    MiniGrafDb *db;
    const char *query; /* k*k rows over a snapshot of k transactions */
    volatile int done; /* set by the writer; read racily only as a hint */
    pthread_mutex_t mu;
    int bad, queries;
} shared;

/* Each transaction adds one :n and one :m fact, so a snapshot holds k of
 * each and the cross product below has exactly k*k rows. A reader that saw
 * half a transaction would count k*(k+1). */
static void *reader(void *arg) {
    shared *sh = arg;
    int bad = 0, queries = 0, done = 0;
    while (!done) {
        pthread_mutex_lock(&sh->mu);
        done = sh->done;
        pthread_mutex_unlock(&sh->mu);
        char *out = minigraf_execute(sh->db, sh->query);
        if (out == NULL) {
            bad++;
            continue;
        }
        long rows = 0;
        for (const char *p = strstr(out, "\"results\":[") + 11; *p; p++)
            rows += *p == '[';
        long k = 0;
        while (k * k < rows)
            k++;
        bad += k * k != rows;
        queries++;
        minigraf_string_free(out);
    }
    pthread_mutex_lock(&sh->mu);
    sh->bad += bad;
    sh->queries += queries;
    pthread_mutex_unlock(&sh->mu);
    return NULL;
}

#define CROSS_QUERY "(query [:find ?v ?w :where [?e :n ?v] [?f :m ?w]])"

static void run_writer_and_readers(MiniGrafDb *db, const char *query, int checkpoint_every) {
    shared sh = {.db = db, .query = query};
    pthread_mutex_init(&sh.mu, NULL);
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++)
        pthread_create(&t[i], NULL, reader, &sh);
    for (int i = 0; i < WRITES; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "(transact [[:e%d :n %d] [:e%d :m %d]])", i, i, i, i);
        char *out = minigraf_execute(db, cmd);
        CHECK(out != NULL);
        minigraf_string_free(out);
        if (checkpoint_every && i % checkpoint_every == 0)
            CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    }
    pthread_mutex_lock(&sh.mu);
    sh.done = 1;
    pthread_mutex_unlock(&sh.mu);
    for (int i = 0; i < READERS; i++)
        pthread_join(t[i], NULL);
    CHECK_INT_EQ(sh.bad, 0);
    CHECK(sh.queries > 0);
    pthread_mutex_destroy(&sh.mu);
}

TEST(readers_see_whole_transactions_while_a_writer_commits_in_memory) {
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db != NULL);
    run_writer_and_readers(db, CROSS_QUERY, 0);
    minigraf_close(db);
}

TEST(readers_see_whole_transactions_while_a_writer_commits_and_checkpoints) {
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"wal_checkpoint_threshold\": 40, \"synchronous\": \"normal\"}", &error);
    REQUIRE(db != NULL);
    run_writer_and_readers(db, CROSS_QUERY, 25);
    minigraf_close(db);
    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    uint64_t n = 0;
    CHECK(minigraf_current_tx_count(db, &n) == 0 && n == WRITES);
    minigraf_close(db);
    temp_db_remove(&t);
}

TEST(rule_readers_see_whole_transactions_while_a_writer_commits_and_checkpoints) {
    /* Readers running the same rule query take and give back the state
     * its rules program keeps (exec/rule_cache.h) while commits and
     * checkpoints make it stale. */
    temp_db_path t;
    temp_db_make(&t);
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(
        t.path, "{\"wal_checkpoint_threshold\": 40, \"synchronous\": \"normal\"}", &error);
    REQUIRE(db != NULL);
    char *out = minigraf_execute(db, "(rule [(nm ?e ?w) [?e :n ?v] [?f :m ?w]])");
    CHECK(out != NULL);
    minigraf_string_free(out);
    run_writer_and_readers(db, "(query [:find ?e ?w :where (nm ?e ?w)])", 25);
    minigraf_close(db);
    temp_db_remove(&t);
}

typedef struct bound_call_job {
    MiniGrafDb *db;
    int bad;
} bound_call_job;

static void *run_bound_calls(void *arg) {
    bound_call_job *j = arg;
    for (int i = 0; i < 200; i++) {
        char *out = minigraf_execute(j->db, "(query [:find (count ?y) :where (reach :n0 ?y)])");
        j->bad += !out || strcmp(out, "{\"variables\":[\"(count ?y)\"],\"results\":[[12]]}") != 0;
        minigraf_string_free(out);
    }
    return NULL;
}

TEST(threads_share_the_operators_a_rule_query_keeps) {
    /* A bound call's bodies keep their operators with the rules program
     * (exec/rule_cache.h); threads running the query take them in turn,
     * or run without them while another holds them. */
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db != NULL);
    char tx[512];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < 12; i++)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:n%d :edge :n%d]", i, i + 1);
    snprintf(tx + len, sizeof tx - len, "])");
    char *out = minigraf_execute(db, tx);
    CHECK(out != NULL);
    minigraf_string_free(out);
    const char *rules[] = {"(rule [(reach ?x ?y) [?x :edge ?y]])",
                           "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])"};
    for (int i = 0; i < 2; i++) {
        out = minigraf_execute(db, rules[i]);
        CHECK(out != NULL);
        minigraf_string_free(out);
    }
    bound_call_job jobs[READERS];
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++) {
        jobs[i] = (bound_call_job){db, 0};
        pthread_create(&t[i], NULL, run_bound_calls, &jobs[i]);
    }
    for (int i = 0; i < READERS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT_EQ(jobs[i].bad, 0);
    }
    minigraf_close(db);
}

/* The child holds the file open for writing until told to exit. */
TEST(two_processes_contend_for_the_write_lock) {
    temp_db_path t;
    temp_db_make(&t);
    int go[2], ready[2];
    REQUIRE(pipe(go) == 0 && pipe(ready) == 0);
    pid_t child = fork();
    if (child == 0) {
        MiniGrafDb *db = minigraf_open(t.path);
        char *out = db ? minigraf_execute(db, "(transact [[:a :n 1]])") : NULL;
        char c = out ? 'y' : 'n';
        minigraf_string_free(out);
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(2);
        minigraf_close(db);
        _exit(0);
    }
    char c = 0;
    CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(t.path, NULL, &error);
    CHECK(db == NULL);
    CHECK(error != NULL && strncmp(error, "[STG-026] ", 10) == 0);
    minigraf_string_free(error);
    error = NULL;
    db = minigraf_open_with_options(t.path, "{\"read_only\": true}", &error);
    CHECK(db == NULL && error != NULL && strncmp(error, "[STG-026] ", 10) == 0);
    minigraf_string_free(error);
    CHECK(write(go[1], "x", 1) == 1);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    db = minigraf_open(t.path); /* free once the writer is gone */
    REQUIRE(db != NULL);
    EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])",
                "{\"variables\":[\"?v\"],\"results\":[[1]]}");
    minigraf_close(db);
    temp_db_remove(&t);
}

typedef struct error_job {
    MiniGrafDb *db;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stage; /* 1: the thread failed a call; 2: main checked; 3: thread done */
    int ok;
} error_job;

static void error_job_step(error_job *j, int from, int to) {
    pthread_mutex_lock(&j->mu);
    while (j->stage != from)
        pthread_cond_wait(&j->cv, &j->mu);
    j->stage = to;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

static void *fail_then_succeed(void *arg) {
    error_job *j = arg;
    MiniGrafCursor *c = minigraf_query(j->db, "(transact [[:a :n 3]])"); /* API-012 */
    j->ok = c == NULL && minigraf_last_error_code(j->db) != 0;
    error_job_step(j, 0, 1);
    error_job_step(j, 2, 2);                       /* main has succeeded calls meanwhile */
    j->ok &= minigraf_last_error_code(j->db) != 0; /* still this thread's */
    c = minigraf_query(j->db, "(query [:find ?v :where [:a :n ?v]])");
    j->ok &= c != NULL && minigraf_last_error(j->db) == NULL;
    minigraf_cursor_free(c);
    error_job_step(j, 2, 3);
    return NULL;
}

/* Each thread reads the error of its own last call: another thread's
 * success does not clear it, its own does. */
TEST(each_thread_reads_its_own_last_error) {
    MiniGrafDb *db = minigraf_open_in_memory();
    REQUIRE(db != NULL);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    error_job j = {.db = db, .stage = 0};
    pthread_mutex_init(&j.mu, NULL);
    pthread_cond_init(&j.cv, NULL);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, fail_then_succeed, &j) == 0);
    error_job_step(&j, 1, 1);
    CHECK(minigraf_last_error(db) == NULL);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?v :where [:a :n ?v]])");
    CHECK(c != NULL && minigraf_last_error(db) == NULL);
    minigraf_cursor_free(c);
    CHECK(minigraf_query(db, "(transact [[:a :n 2]])") == NULL);
    CHECK(minigraf_last_error_code(db) != 0);
    error_job_step(&j, 1, 2);
    error_job_step(&j, 3, 3);
    pthread_join(t, NULL);
    CHECK(j.ok);
    CHECK(minigraf_last_error_code(db) != 0); /* main's own failure, untouched */
    c = minigraf_query(db, "(query [:find ?v :where [:a :n ?v]])");
    CHECK(c != NULL && minigraf_last_error(db) == NULL);
    minigraf_cursor_free(c);
    pthread_cond_destroy(&j.cv);
    pthread_mutex_destroy(&j.mu);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(each_thread_reads_its_own_last_error),
           TEST_ENTRY(readers_see_whole_transactions_while_a_writer_commits_in_memory),
           TEST_ENTRY(readers_see_whole_transactions_while_a_writer_commits_and_checkpoints),
           TEST_ENTRY(rule_readers_see_whole_transactions_while_a_writer_commits_and_checkpoints),
           TEST_ENTRY(threads_share_the_operators_a_rule_query_keeps),
           TEST_ENTRY(two_processes_contend_for_the_write_lock))
