/* Opening, committing and closing the fact store (checkpoints:
 * store_checkpoint.c). A commit is logged first (file-backed), then
 * applied to the trees; a failure to log changes nothing, a failure to
 * apply (out of memory) marks the store broken because memory no longer
 * matches the log. Applying changes only page versions no reader sees;
 * publishing shows them (store_internal.h). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "storage/btree.h"
#include "store/fact_codec.h"
#include "store/history.h"
#include "store/store_codec.h"

/* Per-value size limits of file-backed stores (language.md §4.2 item 9). */
#define STORE_MAX_STRING 4068
#define STORE_MAX_NAME 1024

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

void store_options_default(store_options *o) {
    o->read_only = false;
    o->allow_unlocked = false;
    o->page_cache_size = STORE_DEFAULT_CACHE_PAGES;
    o->wal_checkpoint_threshold = STORE_DEFAULT_CHECKPOINT_THRESHOLD;
    o->sync = STORE_SYNC_FULL;
    o->recover_truncate_wal = false;
    o->history_index = false;
    o->background_checkpoint = false;
}

/* The store's locks; 0, or -1 with none left made. */
static int init_locks(store *s) {
    if (shared_lock_init(&s->rw) != 0)
        return -1;
    if (pthread_mutex_init(&s->writing, NULL) != 0) {
        shared_lock_destroy(&s->rw);
        return -1;
    }
    if (store_sync_init(s) != 0) {
        pthread_mutex_destroy(&s->writing);
        shared_lock_destroy(&s->rw);
        return -1;
    }
    if (store_syncer_init(s) != 0) {
        store_sync_destroy(s);
        pthread_mutex_destroy(&s->writing);
        shared_lock_destroy(&s->rw);
        return -1;
    }
    return 0;
}

static void destroy_locks(store *s) {
    store_syncer_destroy(s);
    store_sync_destroy(s);
    pthread_mutex_destroy(&s->writing);
    shared_lock_destroy(&s->rw);
}

static store *store_new(const store_options *o) {
    store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (init_locks(s) != 0) {
        free(s);
        return NULL;
    }
    if (lookup_cache_init(&s->lookups) != 0) {
        destroy_locks(s);
        free(s);
        return NULL;
    }
    if (estimate_cache_init(&s->estimates) != 0) {
        lookup_cache_free(&s->lookups);
        destroy_locks(s);
        free(s);
        return NULL;
    }
    if (store_readers_init(s) != 0) {
        estimate_cache_free(&s->estimates);
        lookup_cache_free(&s->lookups);
        destroy_locks(s);
        free(s);
        return NULL;
    }
    s->newest_tx_id = s->pub_newest_tx_id = INT64_MIN;
    dict_init(&s->dic);
    if (o)
        s->opts = *o;
    else
        store_options_default(&s->opts);
    return s;
}

static void store_free(store *s) {
    store_syncer_stop(s); /* before the pager and the log it syncs go */
    wal_close(s->log);
    store_readers_free(s); /* idle readers give their cursors' scratch back to the pager */
    pager_close(s->pg);
    dict_free(&s->dic);
    estimate_cache_free(&s->estimates);
    lookup_cache_free(&s->lookups);
    destroy_locks(s);
    free(s);
}

/* Readers opening from now on see the writer's header and pages; the
 * versions that no open reader sees any more are freed. */
void store_publish(store *s) {
    store_publish_lock(s);
    s->view++;
    pager_publish(s->pg, s->view);
    s->pub = s->h;
    s->pub_newest_tx_id = s->newest_tx_id;
    s->pub_recent = s->dic.recent;
    uint64_t oldest = store_readers_oldest(s);
    pager_views open;
    store_readers_views(s, &open);
    store_publish_unlock(s);
    pager_views_open(s->pg, &open);
    pager_collect(s->pg, oldest); /* a reader opening now sees s->view: kept */
    dict_published(&s->dic, s->view, oldest);
}

int store_open_memory(bool history, store **out, err *e) {
    store *s = store_new(NULL);
    if (!s)
        return oom(e);
    int rc = pager_open_memory(&s->pg, &s->h, e);
    if (rc != 0) {
        store_free(s);
        return rc;
    }
    s->h.history = history;
    store_publish(s);
    *out = s;
    return 0;
}

bool store_has_history(const store *s) {
    return s->h.history;
}

int store_fork(store *base, store **out, err *e) {
    pthread_mutex_lock(&base->writing); /* the fork reads base's newest pages */
    /* A memory store's texts too long for a page live in its dictionary's
     * side table, which the fork's dictionary does not see. */
    bool side_texts = base->dic.big_count > 0;
    store *s = side_texts ? NULL : store_new(NULL);
    int rc = side_texts ? 1 : s ? pager_fork(base->pg, &s->pg, e) : oom(e);
    if (rc == 0)
        rc = dict_adopt_recent(&s->dic, &base->dic, e);
    if (rc == 0) {
        s->h = base->h;
        store_publish(s);
    }
    pthread_mutex_unlock(&base->writing);
    if (rc != 0) {
        if (s)
            store_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* `pub` changes under every reader list's mutex: one of them is enough
 * to read it (a commit calls this too). */
uint64_t store_tx_count(store *s) {
    pthread_mutex_lock(&s->open[0].mu);
    uint64_t n = s->pub.tx_count;
    pthread_mutex_unlock(&s->open[0].mu);
    return n;
}

int store_value_field(store *s, const value *v, bool intern, uint8_t out[FACT_V_SIZE], err *e) {
    memset(out, 0, FACT_V_SIZE);
    out[0] = (uint8_t)v->type;
    uint64_t payload = 0, bits;
    int kind = DICT_TEXT, rc = 1;
    const void *bytes = NULL;
    size_t len = 0;
    switch (v->type) {
    case VT_INTEGER: payload = format_sortable_i64(v->as.i); break;
    case VT_FLOAT:
        memcpy(&bits, &v->as.f, sizeof bits);
        payload = v->as.f != v->as.f ? UINT64_C(0x7ff8000000000000) : bits;
        break;
    case VT_BOOLEAN: payload = v->as.b ? 1 : 0; break;
    case VT_NULL:
    case VT_LIST: break; /* never stored: a query result only */
    case VT_REF:
        kind = DICT_UUID;
        bytes = v->as.ref.bytes;
        len = 16;
        break;
    case VT_STRING:
    case VT_KEYWORD:
        bytes = v->as.str.ptr;
        len = v->as.str.len;
        break;
    }
    if (bytes) {
        bool added;
        rc = intern ? dict_intern(&s->dic, s->pg, &s->h.roots[TREE_DICT], kind, bytes, len,
                                  &payload, &added, e)
                    : dict_find(&s->dic, s->pg, PAGER_LATEST, s->h.roots[TREE_DICT], s->dic.recent,
                                kind, bytes, len, &payload, e);
        if (intern && rc != 0)
            return rc;
        if (intern)
            rc = 1;
        else if (rc != 1)
            return rc;
    }
    format_put_be(out + 1, payload, 8);
    return rc;
}

static int intern_ids(store *s, const fact *f, fact_ids *ids, err *e) {
    bool added;
    dict_expect(&s->dic, (size_t)s->h.entity_count);
    int rc = dict_intern(&s->dic, s->pg, &s->h.roots[TREE_DICT], DICT_UUID, f->entity.bytes, 16,
                         &ids->e, &added, e);
    if (rc == 0 && added)
        s->h.entity_count++;
    if (rc == 0)
        rc = dict_intern(&s->dic, s->pg, &s->h.roots[TREE_DICT], DICT_TEXT, f->attribute.as.str.ptr,
                         f->attribute.as.str.len, &ids->a, &added, e);
    if (rc == 0) {
        int got = store_value_field(s, &f->v, true, ids->v, e);
        rc = got == 1 ? 0 : got;
    }
    return rc;
}

static int apply_fact(store *s, const fact *f, err *e) {
    fact_ids ids = {0};
    int rc = intern_ids(s, f, &ids, e);
    if (rc != 0)
        return rc;
    ids.tx_count = f->tx_count;
    ids.seq = s->h.fact_count;
    if (f->tx_id > s->newest_tx_id)
        s->newest_tx_id = f->tx_id;
    ids.tx_id = f->tx_id;
    ids.valid_from = f->valid_from;
    ids.valid_to = f->valid_to;
    ids.asserted = f->asserted;
    if (s->h.history)
        rc = history_add(s->pg, &s->h.roots[TREE_HIST], s->h.roots[TREE_EAVT], &ids, &s->hist, e);
    for (int order = TREE_EAVT; order <= TREE_TXLOG && rc == 0; order++) {
        if (order == TREE_VAET && f->v.type != VT_REF)
            continue;
        uint8_t key[FACT_KEY_SIZE];
        fact_key_encode(order, &ids, key);
        rc = btree_insert(s->pg, &s->h.roots[order], fact_codec(order), key, &s->hints[order], e);
    }
    if (rc == 0)
        s->h.fact_count++;
    return rc;
}

/* A failure leaves unpublished versions behind: no reader ever sees
 * them, and the broken store takes no further commit. */
static int apply_all(store *s, const fact *facts, size_t count, err *e) {
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++)
        rc = apply_fact(s, &facts[i], e);
    if (rc == 0) {
        s->h.tx_count++;
        store_publish(s);
    } else {
        s->broken = true;
    }
    return rc;
}

/* One frame: a commit of `facts` as transaction `tx`, or (jump) the
 * counter's jump to `tx`. Not synced here: with synchronous "full" the
 * caller waits for it (store_await_durable) once `writing` is let go. */
static int write_log(store *s, uint64_t tx, const fact *facts, size_t count, bool jump, err *e) {
    buf b;
    buf_init(&b);
    static const char reserved[WAL_FRAME_HEADER] = {0};
    buf_append(&b, reserved, sizeof reserved);
    store_codec_encode(tx, facts, count, &b);
    if (b.oom) {
        buf_free(&b);
        return oom(e);
    }
    bool full = s->opts.sync == STORE_SYNC_FULL;
    int rc = wal_append(s->log, (uint8_t *)b.data, b.len, jump, full && store_sync_ordered(s), e);
    buf_free(&b);
    if (rc == 0 && full)
        store_sync_appended(s);
    return rc;
}

int store_check_sizes(const fact *f, err *e) {
    if (f->attribute.as.str.len > STORE_MAX_NAME)
        return err_set(e, ERR(WAL, 3), "attribute of %zu bytes exceeds the maximum of %d bytes",
                       f->attribute.as.str.len, STORE_MAX_NAME);
    if (f->v.type == VT_KEYWORD && f->v.as.str.len > STORE_MAX_NAME)
        return err_set(e, ERR(WAL, 3), "keyword value of %zu bytes exceeds the maximum of %d bytes",
                       f->v.as.str.len, STORE_MAX_NAME);
    if (f->v.type == VT_STRING && f->v.as.str.len > STORE_MAX_STRING)
        return err_set(e, ERR(WAL, 3), "string value of %zu bytes exceeds the maximum of %d bytes",
                       f->v.as.str.len, STORE_MAX_STRING);
    return 0;
}

static int check_writable(const store *s, err *e) {
    if (s->opts.read_only)
        return err_set(e, ERR(API, 14), "the database is opened read-only; writes are not allowed");
    if (s->broken || store_sync_failed((store *)s))
        return err_set(e, ERR(STG, 18), "the database must be reopened after a failed commit");
    return 0;
}

int store_tx_count_error(uint64_t tx_count, err *e) {
    return err_set(e, ERR(STG, 46),
                   "transaction counter %llu is beyond the largest the format "
                   "holds (%llu)",
                   (unsigned long long)tx_count, (unsigned long long)STORE_MAX_TX_COUNT);
}

static int check_commit(const store *s, const fact *facts, size_t count, err *e) {
    int rc = check_writable(s, e);
    if (rc != 0)
        return rc;
    if (s->h.tx_count >= STORE_MAX_TX_COUNT)
        return store_tx_count_error(s->h.tx_count + 1, e);
    for (size_t i = 0; i < count; i++) {
        const fact *f = &facts[i];
        if (f->tx_count != s->h.tx_count + 1 || f->attribute.type != VT_KEYWORD)
            return err_set(e, ERR(INT, 0), "internal: malformed fact record in commit");
        rc = s->log ? store_check_sizes(f, e) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int commit_locked(store *s, const fact *facts, size_t count, err *e) {
    int rc = check_commit(s, facts, count, e);
    if (rc == 0 && s->log)
        rc = write_log(s, s->h.tx_count + 1, facts, count, false, e);
    if (rc == 0)
        rc = apply_all(s, facts, count, e);
    if (rc != 0 || !s->log)
        return rc;
    s->pending_facts += count;
    store_checkpoint_auto(s);
    return 0;
}

int store_commit_nowait(store *s, const fact *facts, size_t count, err *e) {
    pthread_mutex_lock(&s->writing);
    int rc = commit_locked(s, facts, count, e);
    pthread_mutex_unlock(&s->writing);
    return rc;
}

int store_commit(store *s, const fact *facts, size_t count, err *e) {
    int rc = store_commit_nowait(s, facts, count, e);
    return rc != 0 ? rc : store_await_durable(s, e);
}

/* Not while a checkpoint is in flight: the next one would wait in the
 * writer slot for its syncs (10-39 ms, every commit behind it too); the
 * first commit after it settles asks again. */
bool store_wants_quiet(store *s) {
    pthread_mutex_lock(&s->writing);
    bool want = !s->broken && !s->opts.read_only && !s->ckpt_flight &&
                (store_checkpoint_due(s) || pager_versions_kept(s->pg) > STORE_MAX_KEPT_VERSIONS);
    pthread_mutex_unlock(&s->writing);
    return want;
}

static void apply_jump(store *s, uint64_t tx_count) {
    s->h.tx_count = tx_count;
    store_publish(s);
}

static int advance_locked(store *s, uint64_t tx_count, err *e) {
    int rc = check_writable(s, e);
    if (rc != 0)
        return rc;
    if (tx_count > STORE_MAX_TX_COUNT)
        return store_tx_count_error(tx_count, e);
    if (tx_count <= s->h.tx_count)
        return err_set(e, ERR(INT, 0), "internal: the counter can only move forward");
    if (s->log)
        rc = write_log(s, tx_count, NULL, 0, true, e);
    if (rc == 0)
        apply_jump(s, tx_count);
    return rc;
}

int store_advance(store *s, uint64_t tx_count, err *e) {
    pthread_mutex_lock(&s->writing);
    int rc = advance_locked(s, tx_count, e);
    pthread_mutex_unlock(&s->writing);
    return rc != 0 ? rc : store_await_durable(s, e);
}

void store_reset_hints(store *s) {
    for (int order = TREE_EAVT; order <= TREE_TXLOG; order++)
        btree_hint_reset(&s->hints[order]);
    history_writer_reset(&s->hist);
}

/* A counter jump (no facts) moves the counter forward; a jump the main
 * file already holds is skipped like a commit. */
static int replay_jump(store *s, uint64_t tx, size_t count, err *e) {
    if (count != 0 || tx > STORE_MAX_TX_COUNT)
        return err_set(e, ERR(STG, 5), "WAL counter jump to %llu carries %zu facts",
                       (unsigned long long)tx, count);
    if (tx > s->h.tx_count)
        apply_jump(s, tx);
    return 0;
}

/* Replays one WAL frame: frames the main file already holds are skipped. */
static int replay_frame(void *ctx, const uint8_t *payload, size_t len, bool jump, err *e) {
    store *s = ctx;
    uint64_t tx;
    fact *facts;
    size_t count;
    int rc = store_codec_decode(payload, len, &tx, &facts, &count, e);
    if (rc != 0)
        return rc;
    if (jump)
        rc = replay_jump(s, tx, count, e);
    else if (tx > s->h.tx_count && tx != s->h.tx_count + 1)
        rc = err_set(e, ERR(STG, 5), "WAL transaction out of sequence: tx_count %llu after %llu",
                     (unsigned long long)tx, (unsigned long long)s->h.tx_count);
    else if (tx > s->h.tx_count) {
        rc = apply_all(s, facts, count, e);
        s->pending_facts += count;
    }
    free(facts);
    return rc;
}

/* A checkpoint that writes the header `next` (the pager sets its
 * generation) and starts an empty log under it: how an open rewrites the
 * header. */
static int checkpoint_with_header(store *s, format_header *next, err *e) {
    int rc = pager_checkpoint(s->pg, next, e);
    if (rc != 0)
        return rc;
    s->h = *next;
    store_publish(s);
    store_reset_hints(s);
    s->pending_facts = 0;
    return wal_reset(s->log, s->h.generation, s->h.db_id, true, e);
}

/* A file written before identities existed gets one at its first
 * read-write open: a checkpoint writes it into the header (folding in the
 * earlier release's log, replayed by then), and the log is reset to the
 * current layout. A crash before the header is durable leaves the file as
 * it was; after it, the old log beside a file with an identity is ignored
 * (wal.h): everything it held is in the file. */
static int adopt_identity(store *s, err *e) {
    if (s->opts.read_only || format_has_db_id(s->h.db_id))
        return 0;
    format_header next = s->h;
    format_new_db_id(next.db_id);
    return checkpoint_with_header(s, &next, e);
}

/* At a read-write open, a version 3, 4 or 5 header is rewritten as version 6 and
 * the history index is built when asked for and missing, after the log
 * is replayed, with a checkpoint (the same crash reasoning as
 * adopt_identity's). A read-only open reads the file as it is: without
 * the index its queries read the EAVT order (store_scan_latest). */
static int settle_format(store *s, err *e) {
    bool build = s->opts.history_index && !s->h.history;
    if (s->opts.read_only || (!build && !s->h.old_version))
        return 0;
    format_header next = s->h;
    int rc = build ? history_build(s->pg, &next.roots[TREE_HIST], next.roots[TREE_TXLOG],
                                   next.roots[TREE_EAVT], e)
                   : 0;
    next.history = next.history || build;
    next.old_version = false;
    return rc != 0 ? rc : checkpoint_with_header(s, &next, e);
}

static int open_log(store *s, const char *path, err *e) {
    uint64_t base;
    wal_ident id = {s->h.db_id, s->h.generation, s->h.wal_salt, s->opts.recover_truncate_wal};
    int rc = wal_open(path, s->opts.read_only, &id, &s->log, &base, e);
    if (rc != 0)
        return rc;
    if (base > s->h.generation)
        return err_set(e, ERR(STG, 4),
                       "the newest database header of %s is damaged (the WAL "
                       "continues checkpoint %llu, the file shows %llu)",
                       path, (unsigned long long)base, (unsigned long long)s->h.generation);
    rc = wal_replay(s->log, replay_frame, s, e);
    if (rc == 0)
        rc = settle_format(s, e);
    return rc != 0 ? rc : adopt_identity(s, e);
}

static int open_new(const char *path, const store_options *o, store **out, err *e) {
    store *s = store_new(o);
    if (!s)
        return oom(e);
    int rc = pager_open_file(path, s->opts.read_only, s->opts.allow_unlocked,
                             s->opts.page_cache_size, &s->pg, &s->h, e);
    if (rc == 0) {
        store_publish(s);
        rc = open_log(s, path, e);
    }
    if (rc != 0) {
        store_free(s);
        return rc;
    }
    store_share_add(s, path);
    *out = s;
    return 0;
}

/* Under the share mutex, so two threads opening one file agree on one
 * store (store_share.c). */
int store_open_file(const char *path, const store_options *o, store **out, err *e) {
    store_options defaults;
    if (!o) {
        store_options_default(&defaults);
        o = &defaults;
    }
    store_share_lock();
    int rc = store_share_find(path, o, out, e);
    if (rc == 0)
        rc = open_new(path, o, out, e);
    store_share_unlock();
    return rc == 1 ? 0 : rc;
}

/* Frees a store whose last open let go, then lets opens of its file,
 * which waited for the lock, go on. */
static void free_closed(store *s) {
    dev_t dev = s->dev;
    ino_t ino = s->ino;
    store_free(s);
    store_share_closed(dev, ino);
}

void store_abandon(store *s) {
    if (s && store_share_release(s))
        free_closed(s);
}

void store_close(store *s) {
    if (!s || !store_share_release(s))
        return;
    err ignored = {0};
    if (s->log && !s->opts.read_only && !s->broken)
        store_checkpoint(s, &ignored);
    err_clear(&ignored);
    free_closed(s);
}

void store_get_stats(store *s, store_stats *out) {
    pthread_mutex_lock(&s->writing);
    page_cache_stats c = pager_cache_stats(s->pg);
    *out = (store_stats){
        .in_memory = pager_is_memory(s->pg),
        .history_index = s->h.history,
        .pages = pager_page_count(s->pg),
        .page_size = FORMAT_PAGE_SIZE,
        .wal_bytes = s->log ? wal_size(s->log) - s->ckpt_mark : 0,
        .wal_facts = s->pending_facts,
        .facts = s->h.fact_count,
        .entities = s->h.entity_count,
        .tx_count = s->h.tx_count,
        .cache_hits = c.hits,
        .cache_misses = c.misses,
        .cache_pages = c.pages,
        .cache_capacity = c.capacity,
    };
    pthread_mutex_unlock(&s->writing);
}
