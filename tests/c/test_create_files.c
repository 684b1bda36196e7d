/* Creating database files from many threads at once (minigraf.h): each
 * thread opens a new file of its own, writes to it and reads it back, and
 * ThreadSanitizer (scripts/test.sh) watches the whole open path. The pager
 * once built a new file's header pages in a buffer shared by all threads;
 * the store's share mutex happened to serialise those opens, so the pager
 * alone is tested in tests/engine/test_pager_threads.c, and this test
 * keeps the public path race-free whatever locking the store does. */
#include <pthread.h>

#include "support.h"

#define THREADS 6
#define ROUNDS 4

typedef struct creator {
    pthread_barrier_t *start;
    temp_db_path where;
    int index;
    int ok; /* rounds whose file opened, took a write and read it back */
} creator;

/* The file at `path` answers thread `index`'s fact (one row, its number). */
static int reads_back(MiniGrafDb *db, int index) {
    char want[96];
    snprintf(want, sizeof want, "{\"variables\":[\"?n\"],\"results\":[[%d]]}", index);
    char *out = minigraf_execute(db, "(query [:find ?n :where [:t :thread/n ?n]])");
    int ok = out != NULL && strcmp(out, want) == 0;
    minigraf_string_free(out);
    return ok;
}

static int create_write_read(const char *path, int index) {
    MiniGrafDb *db = minigraf_open(path);
    if (db == NULL)
        return 0;
    char text[64];
    snprintf(text, sizeof text, "(transact [[:t :thread/n %d]])", index);
    char *out = minigraf_execute(db, text);
    int ok = out != NULL && reads_back(db, index);
    minigraf_string_free(out);
    minigraf_close(db);
    return ok;
}

static int reopen_and_read(const char *path, int index) {
    MiniGrafDb *db = minigraf_open(path);
    int ok = db != NULL && reads_back(db, index);
    minigraf_close(db);
    return ok;
}

static void *create_files(void *arg) {
    creator *c = arg;
    char path[160];
    for (int round = 0; round < ROUNDS; round++) {
        snprintf(path, sizeof path, "%s/round%d.graph", c->where.dir, round);
        pthread_barrier_wait(c->start); /* every thread creates its file at once */
        c->ok += create_write_read(path, c->index);
    }
    return NULL;
}

/* Also reopens each file, so the header the thread wrote is checked. */
TEST(threads_create_new_database_files_at_the_same_time) {
    pthread_barrier_t start;
    REQUIRE(pthread_barrier_init(&start, NULL, THREADS) == 0);
    creator c[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        c[i] = (creator){.start = &start, .index = i};
        temp_db_make(&c[i].where);
    }
    for (int i = 0; i < THREADS; i++)
        REQUIRE(pthread_create(&t[i], NULL, create_files, &c[i]) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK_INT_EQ(c[i].ok, ROUNDS);
        char path[160];
        snprintf(path, sizeof path, "%s/round0.graph", c[i].where.dir);
        CHECK(reopen_and_read(path, i));
        temp_db_remove(&c[i].where);
    }
    pthread_barrier_destroy(&start);
}

CHECK_MAIN(TEST_ENTRY(threads_create_new_database_files_at_the_same_time))
