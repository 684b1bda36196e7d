/* One store for every open of one file in this process (store.h,
 * store_open_file). POSIX record locks belong to the process, so a second
 * descriptor on the file would be no protection and closing it would drop
 * the first one's lock (store_lock.h): the second open takes the first's
 * store instead, counted, and the last close checkpoints and frees it.
 *
 * Which options must agree: `synchronous` and `wal_checkpoint_threshold`
 * decide when commits reach the disk, so two opens asking for different
 * ones get STG-025 naming the conflict. `read_only` opens may join a
 * read-write store (the database handle refuses their writes); a
 * read-write open cannot join a read-only store (it holds the file
 * read-only). `page_cache_size` and `allow_unlocked` are the first
 * open's: the cache is one for the store. */
#include "store/store_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;
static store *open_stores;

/* Files whose last close is checkpointing and releasing its lock: off the
 * list already, still locked. An open of one waits on `closed`. */
typedef struct closing_file {
    dev_t dev;
    ino_t ino;
    struct closing_file *next;
} closing_file;

static closing_file *closing;
static pthread_cond_t closed = PTHREAD_COND_INITIALIZER;

/* A forked child holds none of its parent's file locks (store_lock.c):
 * it shares none of the parent's stores either. */
static void forget_in_child(void) {
    open_stores = NULL;
    closing = NULL;                     /* the parent's closes finish there */
    pthread_mutex_init(&open_mu, NULL); /* another thread may have held it at the fork */
    pthread_cond_init(&closed, NULL);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void install_atfork(void) {
    pthread_atfork(NULL, NULL, forget_in_child);
}

void store_share_lock(void) {
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&open_mu);
}

void store_share_unlock(void) {
    pthread_mutex_unlock(&open_mu);
}

static const char *sync_name(store_sync s) {
    return s == STORE_SYNC_FULL ? "full" : "normal";
}

static int conflict(const store *s, const store_options *o, const char *path, err *e) {
    if (s->opts.read_only && !o->read_only)
        return err_set(e, ERR(STG, 25),
                       "database file is already open read-only in this process, "
                       "so it cannot be opened read-write: %s",
                       path);
    if (s->opts.sync != o->sync)
        return err_set(e, ERR(STG, 25),
                       "database file is already open in this process with "
                       "synchronous \"%s\"; this open asks for \"%s\": %s",
                       sync_name(s->opts.sync), sync_name(o->sync), path);
    if (s->opts.wal_checkpoint_threshold != o->wal_checkpoint_threshold)
        return err_set(e, ERR(STG, 25),
                       "database file is already open in this process with "
                       "wal_checkpoint_threshold %llu; this open asks for %llu: %s",
                       (unsigned long long)s->opts.wal_checkpoint_threshold,
                       (unsigned long long)o->wal_checkpoint_threshold, path);
    if (o->history_index && !o->read_only && !store_has_history(s))
        return err_set(e, ERR(STG, 25),
                       "database file is already open in this process without "
                       "the history index; this open asks for it: %s",
                       path);
    return 0;
}

static bool is_closing(dev_t dev, ino_t ino) {
    for (const closing_file *c = closing; c; c = c->next)
        if (c->dev == dev && c->ino == ino)
            return true;
    return false;
}

int store_share_find(const char *path, const store_options *o, store **out, err *e) {
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* not there yet: nobody has it open */
    while (is_closing(st.st_dev, st.st_ino))
        pthread_cond_wait(&closed, &open_mu);
    for (store *s = open_stores; s; s = s->next_open) {
        if (s->dev != st.st_dev || s->ino != st.st_ino)
            continue;
        int rc = conflict(s, o, path, e);
        if (rc != 0)
            return rc;
        if (s->broken)
            return err_set(e, ERR(STG, 18), "the database must be reopened after a failed commit");
        s->refs++;
        *out = s;
        return 1;
    }
    return 0;
}

void store_share_add(store *s, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0)
        return; /* not shareable; still closes normally (refs 0) */
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->refs = 1;
    s->next_open = open_stores;
    open_stores = s;
}

/* Marks the file closing. Without memory for the mark an open may meet
 * the lock still held (STG-025), as before the mark existed. */
static void mark_closing(const store *s) {
    closing_file *c = malloc(sizeof *c);
    if (!c)
        return;
    *c = (closing_file){.dev = s->dev, .ino = s->ino, .next = closing};
    closing = c;
}

bool store_share_release(store *s) {
    pthread_mutex_lock(&open_mu);
    bool last = s->refs <= 1;
    if (s->refs > 1)
        s->refs--;
    else
        for (store **p = &open_stores; *p; p = &(*p)->next_open)
            if (*p == s) {
                *p = s->next_open;
                mark_closing(s);
                break;
            }
    pthread_mutex_unlock(&open_mu);
    return last;
}

void store_share_closed(dev_t dev, ino_t ino) {
    pthread_mutex_lock(&open_mu);
    for (closing_file **p = &closing; *p; p = &(*p)->next)
        if ((*p)->dev == dev && (*p)->ino == ino) {
            closing_file *done = *p;
            *p = done->next;
            free(done);
            pthread_cond_broadcast(&closed);
            break;
        }
    pthread_mutex_unlock(&open_mu);
}
