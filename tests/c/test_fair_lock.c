/* Fair locking (issue 20, finding 5): a writer waiting for the database
 * is not overtaken indefinitely by readers. Two reader threads hand the
 * read lock to each other: a host predicate inside each query waits until
 * the other reader's query has started (or HANDOFF_MS passed). With a
 * lock that lets readers in while a writer waits, the readers' queries
 * always overlap and the writer never commits; with a fair one, the next
 * query waits for the writer, the predicate's wait runs out, and the
 * writer commits. The bound is on progress (COMMITS commits before the
 * readers give up after GIVE_UP_S), never on a time measured. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "support.h"

#define COMMITS 5
#define HANDOFF_MS 200
#define GIVE_UP_S 60

typedef struct relay {
    MiniGrafDb *db;
    bool cursors; /* the readers query through minigraf_query, else minigraf_execute */
    pthread_mutex_t mu;
    pthread_cond_t entered;
    long entries; /* predicate calls begun */
    atomic_int commits;
    atomic_bool stop;
    atomic_long queries;
} relay;

static struct timespec after_ms(long ms) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Holds the query (and so its read lock) until another query has entered. */
static int hand_off(void *user_data, const minigraf_value *value, int *result, char *error,
                    size_t error_size) {
    (void)value, (void)error, (void)error_size;
    relay *r = user_data;
    struct timespec deadline = after_ms(HANDOFF_MS);
    pthread_mutex_lock(&r->mu);
    long mine = ++r->entries;
    pthread_cond_broadcast(&r->entered);
    while (r->entries == mine && !atomic_load(&r->stop))
        if (pthread_cond_timedwait(&r->entered, &r->mu, &deadline) != 0)
            break;
    pthread_mutex_unlock(&r->mu);
    *result = 1;
    return 0;
}

static void *reader_main(void *arg) {
    relay *r = arg;
    static const char *q = "(query [:find ?v :where [_ :seed ?v] [(hand-off? ?v)]])";
    time_t give_up = time(NULL) + GIVE_UP_S;
    while (!atomic_load(&r->stop) && time(NULL) < give_up) {
        if (r->cursors) {
            MiniGrafCursor *c = minigraf_query(r->db, q);
            char *rows = c ? minigraf_cursor_next_batch(c, 10) : NULL;
            CHECK(rows != NULL);
            minigraf_string_free(rows);
            minigraf_cursor_free(c);
        } else {
            char *out = minigraf_execute(r->db, q);
            CHECK(out != NULL);
            minigraf_string_free(out);
        }
        atomic_fetch_add(&r->queries, 1);
    }
    atomic_store(&r->stop, true); /* also when it gave up: the writer stops waiting */
    return NULL;
}

static void *writer_main(void *arg) {
    relay *r = arg;
    for (int i = 0; i < COMMITS && !atomic_load(&r->stop); i++) {
        char text[64];
        snprintf(text, sizeof text, "(transact [[:w :n %d]])", i);
        char *out = minigraf_execute(r->db, text);
        CHECK(out != NULL);
        minigraf_string_free(out);
        if (out)
            atomic_fetch_add(&r->commits, 1);
    }
    atomic_store(&r->stop, true);
    return NULL;
}

static void run_relay(bool cursors) {
    relay r = {.cursors = cursors, .entries = 0};
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.entered, NULL);
    r.db = minigraf_open_in_memory();
    CHECK(r.db != NULL);
    EXPECT_TRANSACT(r.db, "(transact [[:s :seed 1]])");
    CHECK_INT_EQ(minigraf_register_predicate(r.db, "hand-off?", hand_off, &r, NULL), 0);
    pthread_t readers[2], writer;
    for (int i = 0; i < 2; i++)
        pthread_create(&readers[i], NULL, reader_main, &r);
    /* the writer starts once the readers are relaying */
    while (atomic_load(&r.queries) < 4 && !atomic_load(&r.stop))
        sched_yield();
    pthread_create(&writer, NULL, writer_main, &r);
    pthread_join(writer, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(readers[i], NULL);
    CHECK_INT_EQ(atomic_load(&r.commits), COMMITS);
    EXPECT_EXEC(r.db, "(query [:find (count ?n) :where [:w :n ?n]])",
                "{\"variables\":[\"(count ?n)\"],\"results\":[[5]]}");
    minigraf_close(r.db);
    pthread_cond_destroy(&r.entered);
    pthread_mutex_destroy(&r.mu);
}

static void a_writer_commits_while_readers_relay_one_shot_queries(void) {
    run_relay(false);
}

static void a_writer_commits_while_readers_relay_cursor_queries(void) {
    run_relay(true);
}

CHECK_MAIN(TEST_ENTRY(a_writer_commits_while_readers_relay_one_shot_queries),
           TEST_ENTRY(a_writer_commits_while_readers_relay_cursor_queries))
