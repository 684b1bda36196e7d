/* Group commit (synchronous "full"): a commit appends its frame under
 * `writing` without syncing it and, once the lock is let go, waits until
 * a sync covers it. The first waiter to find no sync running leads: it
 * syncs every frame appended so far, outside every lock, while the
 * others (and the commits appending meanwhile) wait on `synced_cv`; one
 * fsync then acknowledges every commit whose frame it covered. A commit
 * is acknowledged only once durable, as before; what changes is that
 * commits appended while a sync runs share the next one. */
#include "store/store_internal.h"

/* A log commit (under `writing`): whether every frame before the next
 * one is durable (the frame is then ORDERED, wal.h). */
bool store_sync_ordered(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    bool all = s->synced == s->appended && !s->sync_failed;
    pthread_mutex_unlock(&s->sync_mx);
    return all;
}

/* A frame is in the log (under `writing`). */
void store_sync_appended(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    s->appended++;
    pthread_mutex_unlock(&s->sync_mx);
}

/* A checkpoint folded every frame into the synced main file. */
void store_sync_folded(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    s->synced = s->appended;
    pthread_cond_broadcast(&s->synced_cv);
    pthread_mutex_unlock(&s->sync_mx);
}

bool store_sync_failed(store *s) {
    pthread_mutex_lock(&s->sync_mx);
    bool failed = s->sync_failed;
    pthread_mutex_unlock(&s->sync_mx);
    return failed;
}

/* Leads one sync (sync_mx held, released while syncing). */
static void lead_sync(store *s, err *e) {
    s->syncing = true;
    uint64_t target = s->appended; /* each counted frame is written */
    pthread_mutex_unlock(&s->sync_mx);
    int rc = wal_sync(s->log, e);
    pthread_mutex_lock(&s->sync_mx);
    s->syncing = false;
    if (rc != 0)
        s->sync_failed = true; /* a failed fsync cannot be retried (the pages may be gone) */
    else if (target > s->synced)
        s->synced = target;
    pthread_cond_broadcast(&s->synced_cv);
}

int store_await_durable(store *s, err *e) {
    if (!s->log || s->opts.sync != STORE_SYNC_FULL)
        return 0;
    err lead = {0};
    pthread_mutex_lock(&s->sync_mx);
    uint64_t want = s->appended;
    while (s->synced < want && !s->sync_failed) {
        if (s->syncing)
            pthread_cond_wait(&s->synced_cv, &s->sync_mx);
        else
            lead_sync(s, &lead);
    }
    bool durable = s->synced >= want;
    pthread_mutex_unlock(&s->sync_mx);
    if (durable)
        return 0;
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
