/* Group commit gathers (store_sync.c): the threads one sync acknowledged
 * come back with their next commits, and the leader of the next sync
 * waits for them rather than syncing only the frames already there. An
 * I/O layer counts the syncs and holds the first one until three
 * committers wait on it; one of them comes back a moment after the
 * release. Syncing at once would take a third sync for its commit;
 * gathering covers it with the second.
 *
 *   engine_test_group_gather */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "storage/vfs.h"
#include "store/store.h"
#include "store/store_internal.h"

/* The first sync is held this long: the leader's gathering bound is half
 * a sync's usual time, far more than the comeback below needs. */
#define HELD_MS 1000
#define COMEBACK_MS 50

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool holding, held; /* the next sync is to be held; one is */
static int syncs;

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int gate_sync(void *ctx, int fd) {
    (void)ctx;
    pthread_mutex_lock(&gate_mu);
    syncs++;
    held = holding;
    pthread_cond_broadcast(&gate_cv);
    while (holding)
        pthread_cond_wait(&gate_cv, &gate_mu);
    held = false;
    pthread_mutex_unlock(&gate_mu);
    return vfs_posix()->sync(vfs_posix()->ctx, fd);
}

static vfs gate;

static void wait_until_held(void) {
    pthread_mutex_lock(&gate_mu);
    while (!held)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
}

static void release_after(long ms) {
    sleep_ms(ms);
    pthread_mutex_lock(&gate_mu);
    holding = false;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

static uint64_t waiting(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    uint64_t n = s->waiting;
    pthread_mutex_unlock(&s->sync_mx);
    return n;
}

/* An empty transaction: one frame, synced before store_commit returns. */
static bool commit(store *s) {
    err e = {0};
    bool ok = store_commit(s, NULL, 0, &e) == 0;
    err_clear(&e);
    return ok;
}

typedef struct {
    store *s;
    int commits; /* the first, then a comeback after COMEBACK_MS */
    bool ok;
} committer;

static void *commit_main(void *arg) {
    committer *c = arg;
    c->ok = commit(c->s);
    if (c->commits == 2) {
        sleep_ms(COMEBACK_MS);
        c->ok = c->ok && commit(c->s);
    }
    return NULL;
}

static void start(pthread_t *th, committer *c) {
    pthread_create(th, NULL, commit_main, c);
}

/* Three threads wait on a held sync; the one that comes back shares the
 * second sync with the other two. */
static void acknowledged_commits_share_the_next_sync(store *s) {
    committer c[3] = {{s, 2, false}, {s, 1, false}, {s, 1, false}};
    pthread_t th[3];
    pthread_mutex_lock(&gate_mu);
    holding = true;
    syncs = 0;
    pthread_mutex_unlock(&gate_mu);
    start(&th[0], &c[0]);
    wait_until_held();
    start(&th[1], &c[1]);
    start(&th[2], &c[2]);
    while (waiting(s) < 3)
        sleep_ms(1);
    release_after(HELD_MS);
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK(c[i].ok);
    }
    CHECK(syncs == 2);
    if (syncs != 2)
        fprintf(stderr, "4 commits took %d syncs\n", syncs);
}

int main(void) {
    char dir[] = "/tmp/mg_gather_XXXXXX", path[64], log_path[80];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/g.graph", dir);
    snprintf(log_path, sizeof log_path, "%s.wal", path);
    gate = *vfs_posix();
    gate.sync = gate_sync;
    vfs_set_default(&gate);
    store_options o;
    store_options_default(&o); /* synchronous "full" */
    store *s = NULL;
    err e = {0};
    CHECK(store_open_file(path, &o, &s, &e) == 0);
    err_clear(&e);
    if (s)
        acknowledged_commits_share_the_next_sync(s);
    store_close(s);
    vfs_set_default(NULL);
    unlink(path);
    unlink(log_path);
    rmdir(dir);
    return CHECK_DONE();
}
