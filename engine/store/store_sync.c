/* Group commit (synchronous "full"): a commit appends its frame under
 * `writing` without syncing it and, once the lock is let go, waits until
 * a sync covers it. The first waiter to find no sync running leads: it
 * syncs every frame appended so far, outside every lock, while the
 * others (and the commits appending meanwhile) wait on `synced_cv`; one
 * fsync then acknowledges every commit whose frame it covered. A commit
 * is acknowledged only once durable, as before; what changes is that
 * commits appended while a sync runs share the next one.
 *
 * Gathering. Threads committing in a loop split into two halves that
 * take turns: the commits acknowledged by one sync append theirs while
 * the next one runs, which started at once with only the frames that
 * came meanwhile. So a leader that saw others committing beside it (the
 * threads waiting when the last sync ended) first waits until as many
 * frames are pending as there were such threads, for at most half a
 * sync's usual time: those just acknowledged come back with their next
 * commit and every thread shares one sync. A thread committing alone
 * never waits, nor does any when syncs are quick (PostgreSQL's
 * commit_delay and commit_siblings, with the delay and the siblings
 * measured instead of configured). */
#include "store/store_internal.h"

#include <time.h>

int store_sync_init(store *s) {
    pthread_condattr_t monotonic;
    if (pthread_condattr_init(&monotonic) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    if (rc == 0 && (rc = pthread_mutex_init(&s->sync_mx, NULL)) == 0) {
        if ((rc = pthread_cond_init(&s->synced_cv, NULL)) != 0)
            pthread_mutex_destroy(&s->sync_mx);
        else if ((rc = pthread_cond_init(&s->gathered_cv, &monotonic)) != 0) {
            pthread_cond_destroy(&s->synced_cv);
            pthread_mutex_destroy(&s->sync_mx);
        }
    }
    pthread_condattr_destroy(&monotonic);
    return rc == 0 ? 0 : -1;
}

void store_sync_destroy(store *s) {
    pthread_cond_destroy(&s->gathered_cv);
    pthread_cond_destroy(&s->synced_cv);
    pthread_mutex_destroy(&s->sync_mx);
}

/* A log commit (under `writing`): whether every frame before the next
 * one is durable (the frame is then ORDERED, wal.h). */
bool store_sync_ordered(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    bool all = s->synced == s->appended && !s->sync_failed;
    pthread_mutex_unlock(&s->sync_mx);
    return all;
}

/* Under sync_mx: a frame for each thread seen committing is pending, or
 * none is (a checkpoint folded them). */
static bool gathered(const store *s) {
    uint64_t pending = s->appended - s->synced;
    return pending == 0 || pending >= s->committers;
}

/* A frame is in the log (under `writing`). */
void store_sync_appended(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    s->appended++;
    if (s->gathering && gathered(s))
        pthread_cond_signal(&s->gathered_cv);
    pthread_mutex_unlock(&s->sync_mx);
}

/* Frames appended so far (a checkpoint's mark). */
uint64_t store_sync_count(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    uint64_t n = s->appended;
    pthread_mutex_unlock(&s->sync_mx);
    return n;
}

/* A checkpoint folded the first `appended` frames into the synced main
 * file. */
void store_sync_folded(store *s, uint64_t appended) {
    pthread_mutex_lock(&s->sync_mx);
    if (appended > s->synced)
        s->synced = appended;
    pthread_cond_broadcast(&s->synced_cv);
    if (s->gathering)
        pthread_cond_signal(&s->gathered_cv);
    pthread_mutex_unlock(&s->sync_mx);
}

/* Under `writing`: no sync runs until store_sync_resume (the log is
 * being switched: wal_sync reads its descriptor). Waits for one running. */
void store_sync_pause(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    while (s->syncing)
        pthread_cond_wait(&s->synced_cv, &s->sync_mx);
    s->syncing = true;
    pthread_mutex_unlock(&s->sync_mx);
}

/* Syncs may run again; the first `durable` frames are (0: no news). */
void store_sync_resume(store *s, uint64_t durable) {
    pthread_mutex_lock(&s->sync_mx);
    s->syncing = false;
    if (durable > s->synced)
        s->synced = durable;
    pthread_cond_broadcast(&s->synced_cv);
    pthread_mutex_unlock(&s->sync_mx);
}

bool store_sync_failed(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    bool failed = s->sync_failed;
    pthread_mutex_unlock(&s->sync_mx);
    return failed;
}

static int64_t monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Syncs quicker than this (a file system in memory, a disk cache that
 * survives power loss) are not worth waiting for others: the wait would
 * cost about what the sync does. */
#define GATHER_MIN_SYNC_NS 40000

/* The leader (sync_mx held, released while waiting) waits for the frames
 * of the threads that committed beside the last sync; see the top. */
static void gather(store *s) {
    if (s->committers <= 1 || s->sync_ns < GATHER_MIN_SYNC_NS || gathered(s))
        return;
    int64_t until = monotonic_ns() + s->sync_ns / 2;
    struct timespec deadline = {.tv_sec = (time_t)(until / 1000000000),
                                .tv_nsec = (long)(until % 1000000000)};
    s->gathering = true;
    while (!gathered(s) && !s->sync_failed)
        if (pthread_cond_timedwait(&s->gathered_cv, &s->sync_mx, &deadline) != 0)
            break; /* the time is up (ETIMEDOUT); 0 is a wake-up */
    s->gathering = false;
}

/* Syncs every frame appended so far (sync_mx held, released meanwhile)
 * and times it. */
static void sync_appended(store *s, err *e) {
    uint64_t target = s->appended; /* each counted frame is written */
    pthread_mutex_unlock(&s->sync_mx);
    int64_t start = monotonic_ns();
    int rc = wal_sync(s->log, e);
    int64_t took = monotonic_ns() - start;
    pthread_mutex_lock(&s->sync_mx);
    /* Smoothed as TCP smooths round trips (RFC 6298): one slow sync
     * moves the gathering bound by an eighth. */
    s->sync_ns = s->sync_ns == 0 ? took : s->sync_ns + (took - s->sync_ns) / 8;
    if (rc != 0)
        s->sync_failed = true; /* a failed fsync cannot be retried (the pages may be gone) */
    else if (target > s->synced)
        s->synced = target;
}

/* Leads one sync (sync_mx held, released while gathering and syncing). */
static void lead_sync(store *s, err *e) {
    s->syncing = true;
    gather(s);
    if (s->synced < s->appended && !s->sync_failed)
        sync_appended(s, e);
    s->syncing = false;
    s->committers = s->waiting;
    pthread_cond_broadcast(&s->synced_cv);
}

int store_await_durable(store *s, err *e) {
    if (!s->log || s->opts.sync != STORE_SYNC_FULL)
        return 0;
    err lead = {0};
    pthread_mutex_lock(&s->sync_mx);
    uint64_t want = s->appended;
    s->waiting++;
    while (s->synced < want && !s->sync_failed) {
        if (s->syncing)
            pthread_cond_wait(&s->synced_cv, &s->sync_mx);
        else
            lead_sync(s, &lead);
    }
    s->waiting--;
    bool durable = s->synced >= want;
    pthread_mutex_unlock(&s->sync_mx);
    if (durable) {
        /* a checkpoint folded our frame into the synced main file while
         * the sync we led failed: the commit is durable all the same */
        err_clear(&lead);
        return 0;
    }
    pthread_mutex_lock(&s->writing); /* memory holds commits the log may have lost */
    s->broken = true;
    pthread_mutex_unlock(&s->writing);
    if (lead.code != 0) {
        int code = lead.code;
        if (e)
            err_move(e, &lead);
        err_clear(&lead);
        return code;
    }
    return err_set(e, ERR(STG, 13),
                   "the WAL sync of this commit failed; the database must be "
                   "reopened");
}
