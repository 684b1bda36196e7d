/* The fact store: the append-only record vector, its indexes (store_index.c),
 * the string pool and, for file-backed stores, the durable log
 * (store_file.c). A commit is staged (all allocation), then written to the
 * file, then applied (no allocation), so the in-memory state changes only
 * after the write succeeded and a failure leaves nothing behind. */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "store/store_codec.h"
#include "store/store_file.h"
#include "store/store_index.h"

/* Per-value size limits of file-backed stores (spec 4.2 item 9, v3). */
#define STORE_MAX_STRING 4068
#define STORE_MAX_NAME 1024

struct store {
    fact *facts;
    uint32_t *group_of; /* per record: its store_group */
    size_t count, cap;
    uint64_t tx_count;
    arena pool; /* attribute and value strings */
    store_index idx;
    store_file *file; /* NULL: in memory */
    bool read_only;
};

/* What staging resolved for one incoming fact. */
typedef struct staged {
    uint32_t attr, ent, group;
} staged;

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

static store *store_new(void) {
    store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    arena_init(&s->pool);
    store_index_init(&s->idx);
    return s;
}

int store_open_memory(store **out, err *e) {
    store *s = store_new();
    if (!s)
        return oom(e);
    *out = s;
    return 0;
}

void store_close(store *s) {
    if (!s)
        return;
    store_file_close(s->file);
    store_index_free(&s->idx);
    arena_free(&s->pool);
    free(s->facts);
    free(s->group_of);
    free(s);
}

uint64_t store_tx_count(const store *s) {
    return s->tx_count;
}

size_t store_fact_count(const store *s) {
    return s->count;
}

const fact *store_fact(const store *s, size_t i) {
    return &s->facts[i];
}

static int reserve_records(store *s, size_t extra) {
    if (extra >= UINT32_MAX - 1 - s->count)
        return -1;
    size_t need = s->count + extra;
    if (need <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < need)
        cap *= 2;
    fact *facts = realloc(s->facts, cap * sizeof *facts);
    if (!facts)
        return -1;
    s->facts = facts;
    uint32_t *groups = realloc(s->group_of, cap * sizeof *groups);
    if (!groups)
        return -1;
    s->group_of = groups;
    s->cap = cap;
    return 0;
}

static idx_list *list_of(store *s, const staged *st, int which) {
    if (which == 0)
        return &s->idx.attrs[st->attr].recs;
    if (which == 1)
        return &s->idx.ents[st->ent].recs;
    return &s->idx.groups[st->group].recs;
}

static void unstage(store *s, const staged *st, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < 3; w++)
            idx_list_unstage(list_of(s, &st[i], w));
}

static int stage_one(store *s, const fact *f, staged *st) {
    if (store_index_attr(&s->idx, &s->pool, f->attribute.as.str.ptr, f->attribute.as.str.len,
                         &st->attr) != 0 ||
        store_index_entity(&s->idx, &f->entity, &st->ent) != 0 ||
        store_index_group(&s->idx, &s->pool, st->ent, st->attr, &f->v, &st->group) != 0)
        return -1;
    for (int w = 0; w < 3; w++) {
        if (idx_list_stage(list_of(s, st, w)) != 0) {
            while (w-- > 0)
                idx_list_unstage(list_of(s, st, w));
            return -1;
        }
    }
    return 0;
}

static int stage_all(store *s, const fact *facts, size_t count, staged *st, err *e) {
    if (reserve_records(s, count) != 0)
        return oom(e);
    for (size_t i = 0; i < count; i++) {
        if (stage_one(s, &facts[i], &st[i]) != 0) {
            unstage(s, st, i);
            return oom(e);
        }
    }
    return 0;
}

/* Cannot fail: stage_all reserved everything. Strings come from the pool
 * copies made while staging. */
static void apply_all(store *s, const fact *facts, size_t count, const staged *st) {
    for (size_t i = 0; i < count; i++) {
        uint32_t rec = (uint32_t)s->count;
        const store_attr *a = &s->idx.attrs[st[i].attr];
        fact f = facts[i];
        f.attribute = value_keyword(a->text, a->len);
        f.v = s->idx.groups[st[i].group].v;
        s->facts[rec] = f;
        s->group_of[rec] = st[i].group;
        for (int w = 0; w < 3; w++)
            idx_list_push(list_of(s, &st[i], w), rec);
        s->count++;
    }
    s->tx_count++;
}

static int write_record(store *s, const fact *facts, size_t count, err *e) {
    buf b;
    buf_init(&b);
    static const char reserved[STORE_FILE_FRAME_HEADER] = {0};
    buf_append(&b, reserved, sizeof reserved);
    store_codec_encode(s->tx_count + 1, facts, count, &b);
    if (b.oom) {
        buf_free(&b);
        return oom(e);
    }
    int rc = store_file_append(s->file, (uint8_t *)b.data, b.len, e);
    buf_free(&b);
    return rc;
}

/* Stages, optionally writes, applies. */
static int commit_staged(store *s, const fact *facts, size_t count, bool write, err *e) {
    staged *st = calloc(count ? count : 1, sizeof *st);
    if (!st)
        return oom(e);
    int rc = stage_all(s, facts, count, st, e);
    if (rc == 0 && write) {
        rc = write_record(s, facts, count, e);
        if (rc != 0)
            unstage(s, st, count);
    }
    if (rc == 0)
        apply_all(s, facts, count, st);
    free(st);
    return rc;
}

static int check_sizes(const fact *f, err *e) {
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

static int check_commit(const store *s, const fact *facts, size_t count, err *e) {
    if (s->read_only)
        return err_set(e, ERR(API, 14), "the database is opened read-only; writes are not allowed");
    for (size_t i = 0; i < count; i++) {
        const fact *f = &facts[i];
        if (f->tx_count != s->tx_count + 1 || f->attribute.type != VT_KEYWORD)
            return err_set(e, ERR(INT, 0), "internal: malformed fact record in commit");
        int rc = s->file ? check_sizes(f, e) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

int store_commit(store *s, const fact *facts, size_t count, err *e) {
    int rc = check_commit(s, facts, count, e);
    if (rc != 0)
        return rc;
    return commit_staged(s, facts, count, s->file != NULL, e);
}

static int replay_record(void *ctx, const uint8_t *payload, size_t len, err *e) {
    store *s = ctx;
    uint64_t tx;
    fact *facts;
    size_t count;
    int rc = store_codec_decode(payload, len, &tx, &facts, &count, e);
    if (rc != 0)
        return rc;
    if (tx != s->tx_count + 1)
        rc = err_set(e, ERR(STG, 5), "transaction record out of sequence: tx_count %llu after %llu",
                     (unsigned long long)tx, (unsigned long long)s->tx_count);
    else
        rc = commit_staged(s, facts, count, false, e);
    free(facts);
    return rc;
}

int store_open_file(const char *path, bool read_only, store **out, err *e) {
    store *s = store_new();
    if (!s)
        return oom(e);
    int rc = store_file_open(path, read_only, &s->file, e);
    if (rc == 0)
        rc = store_file_replay(s->file, replay_record, s, e);
    if (rc != 0) {
        store_close(s);
        return rc;
    }
    s->read_only = read_only;
    *out = s;
    return 0;
}

/* Every commit is already durable and the file is self-contained (no
 * separate log to fold in), so a checkpoint only has to flush metadata. */
int store_checkpoint(store *s, err *e) {
    return s->file ? store_file_sync(s->file, e) : 0;
}

static const uint32_t *list_items(const idx_list *l, size_t *count) {
    *count = l->count;
    return l->count ? l->items : NULL;
}

const uint32_t *store_records_by_attribute(const store *s, const char *attr, size_t len,
                                           size_t *count) {
    uint32_t id = store_index_find_attr(&s->idx, attr, len);
    *count = 0;
    return id == HTAB_NONE ? NULL : list_items(&s->idx.attrs[id].recs, count);
}

const uint32_t *store_records_by_entity(const store *s, const uuid128 *entity, size_t *count) {
    uint32_t id = store_index_find_entity(&s->idx, entity);
    *count = 0;
    return id == HTAB_NONE ? NULL : list_items(&s->idx.ents[id].recs, count);
}

const uint32_t *store_same_triple(const store *s, size_t record, size_t *count) {
    return list_items(&s->idx.groups[s->group_of[record]].recs, count);
}

size_t store_entity_count(const store *s) {
    return s->idx.ent_count;
}
