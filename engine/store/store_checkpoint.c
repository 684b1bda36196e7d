/* Checkpoints: the WAL's commits folded into the main file. A checkpoint
 * writes the pages the commits changed since the last one, syncs them,
 * writes the next header over the older slot, syncs again, and resets the
 * WAL. Making the pages committed needs every reader out (the store's
 * `rw`: the pager forgets their older versions) and the writer
 * (`writing`); writing them, the syncs and the header need neither, and
 * took 3-45 ms inside the writer slot, where every commit waited for them
 * (issue 20). So with the store option background_checkpoint, the
 * automatic checkpoints hand them to the store's syncer thread once the
 * pages are committed in memory (the checkpoint is "in flight"; the pager
 * keeps the pages to write, pager.h), and commits go on meanwhile,
 * appending frames after the checkpoint's mark (the WAL's end then).
 *
 * Once the header is durable the syncer, under `writing` again, resets the
 * WAL when no commit came after the mark. Otherwise a new log takes the
 * frames after the mark over (take_over_tail; wal.h), which restarts the
 * log without stopping the writers. When that fails the log keeps its
 * frames: those up to the mark replay as skipped (the main file holds
 * them: tx_count), the later ones as commits (wal.h: every generation
 * since the log's base replays), and frames carry the new generation from
 * then on, until a later checkpoint ends with no commit after its mark or
 * takes the tail over, or one runs whole under `writing` (an explicit
 * checkpoint, a close, or an automatic one once the log holds
 * STORE_WAL_RESTART_BYTES), whose tail is empty by construction.
 *
 * Crash safety, checkpoint G -> G+1 in flight: until header G+1 is
 * durable, header G and the WAL hold every commit (the pages written, by
 * the syncer before its first sync, are free in header G, and no other
 * page is written until G+1 is durable: the next checkpoint waits for the
 * one in flight); from then on header G+1 holds
 * the commits up to the mark and the WAL (frames of generation G, which
 * replay beside header G+1) the later ones. A failed sync or header write
 * breaks the store (STG-018): memory is ahead of the file, and the next
 * open replays the WAL over header G. */
#include "store/fact_codec.h"
#include "store/store_internal.h"

/* The log restarts (by a checkpoint under the writer) once it holds this
 * much: replay after a crash reads it all, decoding the frames the main
 * file already holds to skip them. */
#define STORE_WAL_RESTART_BYTES (8 * (uint64_t)STORE_CHECKPOINT_WAL_BYTES)

static int broken_error(err *e) {
    return err_set(e, ERR(STG, 18), "the database must be reopened after a failed commit");
}

/* Under `writing`: facts or bytes enough since the last checkpoint's mark. */
bool store_checkpoint_due(const store *s) {
    return s->log && !s->ckpt_flight && s->opts.wal_checkpoint_threshold &&
           (s->pending_facts >= s->opts.wal_checkpoint_threshold ||
            wal_size(s->log) - s->ckpt_mark >= STORE_CHECKPOINT_WAL_BYTES);
}

/* The dictionary's recent entries moved into its tree (a file's tree
 * holds every entry of its heap) and the child summaries commits left
 * unknown (btree.c) rebuilt, as a commit of their own: a file never holds
 * one over a leaf that keeps a summary, which releases of format 6 before
 * would take as damage. */
static int settle_sums(store *s, err *e) {
    int rc = dict_flush(&s->dic, s->pg, &s->h.roots[TREE_DICT], e);
    for (int order = TREE_EAVT; order <= TREE_TXLOG && rc == 0; order++)
        rc = btree_settle_sums(s->pg, s->h.roots[order], fact_codec(order), e);
    store_publish(s);
    return rc;
}

/* Step one, under `writing`: with no reader in (`wait` for them, or give
 * up when one is), the pager makes every page's newest version committed
 * and forgets the older ones, writing them into the file unless `defer`
 * (then step two does, pager.h). Waits first for a checkpoint in flight
 * (its header must be durable before any page is written). 1 when this
 * one is now in flight, 0 when there was nothing to do (or a reader was
 * in), or an error. */
static int checkpoint_write(store *s, bool wait, bool defer, err *e) {
    if (!s->log || s->opts.read_only)
        return 0;
    while (s->ckpt_flight)
        pthread_cond_wait(&s->ckpt_done, &s->writing);
    if (wait)
        shared_lock_write(&s->rw);
    else if (!shared_lock_try_write(&s->rw))
        return 0;
    int rc = 0;
    bool written = false;
    if (s->broken)
        rc = broken_error(e);
    else if (pager_has_dirty(s->pg) || wal_size(s->log) > 0) {
        s->h.wal_salt = wal_salt(s->log); /* the log that holds what comes after */
        rc = settle_sums(s, e);
        written = rc == 0 && (rc = pager_checkpoint_write(s->pg, &s->h, defer, e)) == 0;
    }
    store_reset_hints(s); /* freed pages may now be reused */
    if (written) {
        s->ckpt_flight = true;
        s->ckpt_mark = wal_size(s->log);
        s->ckpt_appended = store_sync_count(s);
        s->pending_facts = 0;
    }
    if (!s->broken)
        store_publish(s); /* the new generation */
    shared_lock_write_done(&s->rw);
    return written ? 1 : rc;
}

/* Under `writing`, the checkpoint in flight: the new log takes the rest
 * over (wal.h); waits for a group-commit sync running, and makes the
 * frames copied durable in the new log before it is the log when commits
 * are synced (they may be acknowledged). 1 when taken, 0 when not (the
 * new log dropped: the old one is whole), or an error after the switch
 * (the store is broken). */
static int switch_logs(store *s, wal_next *n, err *e) {
    bool full = s->opts.sync == STORE_SYNC_FULL;
    store_sync_pause(s);
    uint64_t appended = store_sync_count(s);
    int rc = wal_next_copy(s->log, n, wal_size(s->log), full, e);
    if (rc != 0)
        wal_next_drop(s->log, n);
    bool taken = rc == 0 && wal_next_take(s->log, n, e) == 0;
    rc = taken && full ? wal_sync_dir(s->log, e) : 0;
    store_sync_resume(s, taken && full ? appended : 0);
    if (rc != 0)
        s->broken = true;
    return rc != 0 ? rc : taken;
}

/* Under `writing`, let go while copying and syncing; the checkpoint stays
 * in flight meanwhile, so no other starts. Its header is durable, and
 * commits came after its mark: a new log takes them over, so that the log
 * restarts without a checkpoint run whole under the writer (the blocking
 * one once it held STORE_WAL_RESTART_BYTES: 38-55 ms for every writer,
 * issue 20). The copy is made and synced with the writer let go, then the
 * frames appended meanwhile are copied under it (synced too when commits
 * are), and the rename switches the logs. Normal mode syncs the
 * directory afterwards: until then a power loss may keep the old log,
 * which still replays beside the header (its salt), and lose only the
 * commits not synced. True when the new log is the log. */
static bool take_over_tail(store *s) {
    uint64_t mark = s->ckpt_mark, generation = s->h.generation, to = wal_size(s->log);
    err e = {0};
    wal_next *n = NULL;
    pthread_mutex_unlock(&s->writing);
    int rc = wal_next_open(s->log, mark, generation, &n, &e);
    if (rc == 0 && (rc = wal_next_copy(s->log, n, to, true, &e)) != 0)
        wal_next_drop(s->log, n);
    pthread_mutex_lock(&s->writing);
    if (rc == 0 && s->broken) {
        wal_next_drop(s->log, n);
        rc = -1;
    }
    rc = rc == 0 ? switch_logs(s, n, &e) : 0;
    if (rc == 1 && s->opts.sync != STORE_SYNC_FULL) {
        pthread_mutex_unlock(&s->writing);
        int synced = wal_sync_dir(s->log, &e);
        pthread_mutex_lock(&s->writing);
        if (synced != 0)
            s->broken = true;
    }
    err_clear(&e);
    return rc == 1;
}

/* Step three, under `writing`, once pager_checkpoint_sync returned `rc`. */
static int checkpoint_settle(store *s, int rc, err *e) {
    if (rc == 0 && s->opts.sync == STORE_SYNC_FULL)
        store_sync_folded(s, s->ckpt_appended); /* in the synced main file now */
    bool taken = rc == 0 && wal_size(s->log) != s->ckpt_mark && take_over_tail(s);
    s->ckpt_flight = false;
    pthread_cond_broadcast(&s->ckpt_done);
    if (rc != 0) {
        s->broken = true;
        return rc;
    }
    if (taken) {
        s->ckpt_mark = 0;
        return 0;
    }
    wal_continue(s->log, s->h.generation);
    if (wal_size(s->log) == 0 || wal_size(s->log) != s->ckpt_mark)
        return 0; /* the frames after the mark hold commits the header does not */
    /* Synced: commits share syncs (store_sync.c), so two frames may be
     * written before one is synced, which an unsynced reset cannot take. */
    rc = wal_reset(s->log, s->h.generation, s->h.db_id, true, e);
    if (rc == 0)
        s->ckpt_mark = 0;
    return rc;
}

/* A whole checkpoint under `writing`. */
static int checkpoint_now(store *s, bool wait, err *e) {
    int rc = checkpoint_write(s, wait, false, e);
    return rc == 1 ? checkpoint_settle(s, pager_checkpoint_sync(s->pg, e), e) : rc;
}

/* The syncer: the second and third steps of each checkpoint in flight,
 * until the store is freed. */
static void *syncer_main(void *arg) {
    store *s = arg;
    pthread_mutex_lock(&s->writing);
    for (;;) {
        while (!s->ckpt_flight && !s->syncer_stop)
            pthread_cond_wait(&s->syncer_cv, &s->writing);
        if (!s->ckpt_flight)
            break;
        pthread_mutex_unlock(&s->writing);
        err e = {0};
        int rc = pager_checkpoint_sync(s->pg, &e);
        pthread_mutex_lock(&s->writing);
        checkpoint_settle(s, rc, &e); /* a failure breaks the store: commits report it */
        err_clear(&e);
    }
    pthread_mutex_unlock(&s->writing);
    return NULL;
}

/* Under `writing`: the checkpoint in flight goes to the syncer, started
 * at the first; false when no thread can be started. */
static bool hand_to_syncer(store *s) {
    if (!s->syncer_started && pthread_create(&s->syncer, NULL, syncer_main, s) != 0)
        return false;
    s->syncer_started = true;
    pthread_cond_signal(&s->syncer_cv);
    return true;
}

/* Under `writing`: whether this checkpoint's syncs may run behind. Not
 * with a log of an earlier release, kept as it was found (no salt: its
 * frames after the mark would not replay beside the new header); the
 * checkpoint run whole resets it. */
static bool may_defer(const store *s) {
    return s->opts.background_checkpoint && s->log && wal_salt(s->log) != 0 &&
           wal_size(s->log) < STORE_WAL_RESTART_BYTES;
}

/* Under `writing`: a checkpoint whose syncs the syncer runs, when it may. */
static int checkpoint_behind(store *s, bool wait, err *e) {
    if (!may_defer(s))
        return checkpoint_now(s, wait, e);
    int rc = checkpoint_write(s, wait, true, e);
    if (rc != 1)
        return rc;
    return hand_to_syncer(s) ? 0 : checkpoint_settle(s, pager_checkpoint_sync(s->pg, e), e);
}

void store_checkpoint_auto(store *s) {
    if (!store_checkpoint_due(s))
        return;
    err ignored = {0}; /* the commit is durable; a later checkpoint retries */
    checkpoint_behind(s, false, &ignored);
    err_clear(&ignored);
}

/* A memory store has nothing to write: it frees the versions kept for
 * readers gone since the last commit. */
static void collect_memory(store *s) {
    store_publish_lock(s);
    uint64_t oldest = store_readers_oldest(s);
    store_publish_unlock(s);
    pager_collect(s->pg, oldest);
}

static int checkpoint_with(store *s, int (*run)(store *, bool, err *), err *e) {
    pthread_mutex_lock(&s->writing);
    if (!s->log)
        collect_memory(s);
    int rc = run(s, true, e);
    pthread_mutex_unlock(&s->writing);
    return rc;
}

int store_checkpoint(store *s, err *e) {
    return checkpoint_with(s, checkpoint_now, e);
}

int store_checkpoint_background(store *s, err *e) {
    return checkpoint_with(s, checkpoint_behind, e);
}

int store_checkpoint_begin(store *s, err *e) {
    pthread_mutex_lock(&s->writing);
    int rc = checkpoint_write(s, true, true, e);
    pthread_mutex_unlock(&s->writing);
    return rc;
}

int store_checkpoint_finish(store *s, err *e) {
    pthread_mutex_lock(&s->writing);
    bool flight = s->ckpt_flight;
    pthread_mutex_unlock(&s->writing);
    if (!flight)
        return 0;
    int rc = pager_checkpoint_sync(s->pg, e);
    pthread_mutex_lock(&s->writing);
    rc = checkpoint_settle(s, rc, e);
    pthread_mutex_unlock(&s->writing);
    return rc;
}

int store_syncer_init(store *s) {
    if (pthread_cond_init(&s->ckpt_done, NULL) != 0)
        return -1;
    if (pthread_cond_init(&s->syncer_cv, NULL) != 0) {
        pthread_cond_destroy(&s->ckpt_done);
        return -1;
    }
    return 0;
}

/* The syncer ends the checkpoint in flight (if any) before it stops. */
void store_syncer_stop(store *s) {
    pthread_mutex_lock(&s->writing);
    s->syncer_stop = true;
    pthread_cond_signal(&s->syncer_cv);
    pthread_mutex_unlock(&s->writing);
    if (s->syncer_started)
        pthread_join(s->syncer, NULL);
    s->syncer_started = false;
}

void store_syncer_destroy(store *s) {
    pthread_cond_destroy(&s->syncer_cv);
    pthread_cond_destroy(&s->ckpt_done);
}
