/* Explicit write transactions (db_tx.h): staging, the view that reads
 * inside the transaction run on, commit and rollback. */
#include "db/db_tx.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"
#include "base/clock.h"
#include "base/htab.h"
#include "datalog/parse.h"
#include "db/db_internal.h"
#include "db/write.h"
#include "exec/query.h"
#include "rules/registry.h"
#include "storage/format.h"

/* One staged transact / retract: its text, parsed again at commit (the
 * records then take the commit's counter and tx time, also as the default
 * :valid-from), and its records as the view commits them. */
typedef struct staged {
    char *text;
    size_t len;
    fact *facts; /* in the transaction's arena, values included */
    size_t count;
} staged;

typedef enum tx_state { TX_OPEN, TX_COMMITTED, TX_ROLLED_BACK, TX_CLOSED } tx_state;

struct db_tx {
    db *d;
    tx_state state;
    uint64_t base;      /* the committed counter, fixed while the transaction holds the writer */
    int64_t last_tx_id; /* of the last staged statement */
    staged *st;
    size_t count, cap;
    arena mem;
    store *view;       /* committed + staged (NULL until a read needs it) */
    size_t view_count; /* staged statements committed to the view */
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

int db_tx_begin(db *d, db_tx **out, err *e) {
    if (d->opts.store.read_only)
        return err_set(e, ERR(API, 14),
                       "the database is opened read-only; write transactions are not allowed");
    db_tx *t = calloc(1, sizeof *t);
    if (!t)
        return oom(e);
    int rc = db_writer_take(d, true,
                            "a WriteTransaction is already in progress on this thread; commit "
                            "or roll it back before beginning another",
                            e);
    if (rc != 0) {
        free(t);
        return rc;
    }
    arena_init(&t->mem);
    t->d = d;
    t->state = TX_OPEN;
    t->base = store_tx_count(d->s);
    t->last_tx_id = INT64_MIN;
    d->tx = t;
    *out = t;
    return 0;
}

static int check_open(const db_tx *t, err *e) {
    switch (t->state) {
    case TX_OPEN: return 0;
    case TX_COMMITTED:
        return err_set(e, ERR(API, 18), "the write transaction was already committed");
    case TX_ROLLED_BACK:
        return err_set(e, ERR(API, 18), "the write transaction was already rolled back");
    case TX_CLOSED: break;
    }
    return err_set(e, ERR(API, 18),
                   "the write transaction was rolled back when its database was closed");
}

/* Frees what the transaction staged and gives the writer back. */
static void end(db_tx *t, tx_state state) {
    for (size_t i = 0; i < t->count; i++)
        free(t->st[i].text);
    free(t->st);
    t->st = NULL;
    t->count = t->cap = 0;
    arena_free(&t->mem);
    store_close(t->view);
    t->view = NULL;
    t->view_count = 0;
    t->state = state;
    t->d->tx = NULL;
    db_writer_release(&t->d->sh->writer);
}

/* ---- staging --------------------------------------------------------- */

static bool copy_text(arena *a, value *v) {
    if (v->type != VT_STRING && v->type != VT_KEYWORD)
        return true;
    char *p = arena_strndup(a, v->as.str.ptr, v->as.str.len);
    if (!p)
        return false;
    v->as.str.ptr = p;
    return true;
}

/* The records in the transaction's arena, their texts with them. */
static int keep_facts(db_tx *t, const fact *facts, size_t count, staged *s, err *e) {
    s->facts = arena_calloc(&t->mem, count ? count : 1, sizeof *s->facts);
    if (!s->facts)
        return oom(e);
    for (size_t i = 0; i < count; i++) {
        s->facts[i] = facts[i];
        if (!copy_text(&t->mem, &s->facts[i].attribute) || !copy_text(&t->mem, &s->facts[i].v))
            return oom(e);
    }
    s->count = count;
    return 0;
}

static int build(const command *c, uint64_t tx_count, int64_t tx_id, arena *a, fact **facts,
                 size_t *count, err *e) {
    return c->kind == CMD_TRANSACT
               ? write_transact(&c->as.write, tx_count, tx_id, a, facts, count, e)
               : write_retract(&c->as.write, tx_count, tx_id, a, facts, count, e);
}

static int stage(db_tx *t, const command *c, const char *text, size_t len, arena *a, err *e) {
    if (!array_reserve(&t->st, &t->cap, t->count + 1, sizeof *t->st, 8))
        return oom(e);
    int64_t tx_id = clock_now_ms();
    if (tx_id < t->last_tx_id)
        tx_id = t->last_tx_id;
    fact *facts = NULL;
    size_t count = 0;
    staged s = {0};
    int rc = build(c, t->base + t->count + 1, tx_id, a, &facts, &count, e);
    if (rc == 0)
        rc = keep_facts(t, facts, count, &s, e);
    if (rc == 0 && !(s.text = malloc(len ? len : 1)))
        rc = oom(e);
    if (rc != 0)
        return rc; /* the arena keeps what keep_facts copied until the end */
    memcpy(s.text, text, len);
    s.len = len;
    t->st[t->count++] = s;
    t->last_tx_id = tx_id;
    return 0;
}

/* ---- the view -------------------------------------------------------- */

typedef struct group {
    fact *facts;
    size_t count, cap;
} group;

static int group_add(group *g, const fact *f, err *e) {
    if (!array_reserve(&g->facts, &g->cap, g->count + 1, sizeof *g->facts, 64))
        return oom(e);
    g->facts[g->count++] = *f;
    return 0;
}

/* Commits the pending group as the view's next transaction (empty ones
 * too: every counter value up to `base` was a commit). */
static int group_commit(store *view, group *g, err *e) {
    int rc = store_commit(view, g->facts, g->count, e);
    g->count = 0;
    return rc;
}

/* Copies every committed record, in commit order, into `view`, one view
 * transaction per committed one, so that counters, tx times, windows and
 * statement order are those of the database. */
static int copy_committed(db_tx *t, store *view, err *e) {
    store_reader *r = NULL;
    store_scan *sc = NULL;
    group g = {0};
    int rc = store_reader_open(t->d->s, &r, e);
    if (rc == 0)
        rc = store_scan_order(r, TREE_TXLOG, &sc, e);
    store_rec rec;
    int got = 0;
    while (rc == 0 && (got = store_scan_next(sc, &rec, e)) == 1) {
        if (rec.f.tx_count <= store_tx_count(view) || rec.f.tx_count > t->base) {
            rc = err_set(e, ERR(INT, 0), "internal: commit log out of order");
            break;
        }
        while (rc == 0 && rec.f.tx_count > store_tx_count(view) + 1)
            rc = group_commit(view, &g, e);
        if (rc == 0)
            rc = group_add(&g, &rec.f, e);
    }
    if (rc == 0 && got != 0 && got != 1)
        rc = got; /* an error code */
    while (rc == 0 && store_tx_count(view) < t->base)
        rc = group_commit(view, &g, e);
    free(g.facts);
    store_scan_close(sc);
    store_reader_close(r);
    return rc;
}

/* Brings the view up to the last staged statement, building it first. */
static int view_update(db_tx *t, err *e) {
    int rc = 0;
    if (!t->view) {
        /* The committed database does not change while the transaction
         * holds the writer: the view forks it, rather than copy it. */
        rc = store_fork(t->d->s, &t->view, e);
        if (rc == 1 && (rc = store_open_memory(store_has_history(t->d->s), &t->view, e)) == 0)
            rc = copy_committed(t, t->view, e);
        t->view_count = 0;
    }
    for (; rc == 0 && t->view_count < t->count; t->view_count++)
        rc = store_commit(t->view, t->st[t->view_count].facts, t->st[t->view_count].count, e);
    if (rc != 0) { /* rebuilt by the next read */
        store_close(t->view);
        t->view = NULL;
    }
    return rc;
}

/* The store a read inside the transaction runs on, and its `now`: never
 * before the last staged tx time (language.md §7.5). */
static int reading_store(db_tx *t, store **s, int64_t *now, err *e) {
    *now = clock_now_ms();
    *s = t->d->s;
    if (t->count == 0)
        return 0;
    if (*now < t->last_tx_id)
        *now = t->last_tx_id;
    int rc = view_update(t, e);
    if (rc == 0)
        *s = t->view;
    return rc;
}

/* ---- commands -------------------------------------------------------- */

static int run_query(db_tx *t, const ast_query *q, result_set **out, err *e) {
    store *s;
    int64_t now;
    int rc = reading_store(t, &s, &now, e);
    if (rc != 0)
        return rc;
    cancel stop; /* minigraf_interrupt, the progress handler, query_timeout_ms */
    db_cancel_begin(t->d, &stop);
    query_rules rules = db_query_rules(t->d);
    rules.stop = &stop;
    return query_execute_rules(s, &rules, q, now, (size_t)t->d->opts.query_memory_limit, out, e);
}

/* As a plain rule registration: streaming cursors let go of the rules
 * first (db.h). */
static int run_rule(db_tx *t, const ast_rule *rule, err *e) {
    db_cursors_hold(t->d);
    int rc = rules_register(t->d->rules, rule, e);
    db_cursors_release(t->d);
    return rc;
}

int db_tx_execute(db_tx *t, const char *text, size_t len, db_result *out, err *e) {
    int rc = check_open(t, e);
    if (rc != 0)
        return rc;
    *out = (db_result){.kind = DB_RESULT_OK};
    arena a;
    arena_init(&a);
    command *c = NULL;
    rc = datalog_parse(text, len, &a, &c, e);
    if (rc == 0) {
        switch (c->kind) {
        case CMD_TRANSACT:
        case CMD_RETRACT: rc = stage(t, c, text, len, &a, e); break;
        case CMD_QUERY:
            out->kind = DB_RESULT_QUERY;
            rc = run_query(t, &c->as.query, &out->rows, e);
            break;
        case CMD_RULE: rc = run_rule(t, &c->as.rule, e); break;
        }
    }
    arena_free(&a);
    return rc;
}

int db_tx_cursor_open(db_tx *t, const char *text, size_t len, db_cursor **out, err *e) {
    int rc = check_open(t, e);
    store *s = NULL;
    int64_t now = 0;
    if (rc == 0)
        rc = reading_store(t, &s, &now, e);
    if (rc == 0)
        rc = db_cursor_open_read(t->d, s, now, text, len, out, e);
    return rc;
}

/* ---- commit ---------------------------------------------------------- */

/* The records of the commit, one per (entity, attribute, value identity):
 * a later statement's record replaces an earlier one's in place. */
typedef struct merged {
    fact *facts;
    size_t count, cap;
    htab index;
} merged;

typedef struct triple_key {
    const merged *m;
    const fact *f;
} triple_key;

static bool same_triple(const void *ctx, uint32_t id) {
    const triple_key *k = ctx;
    return write_same_triple(&k->m->facts[id], k->f);
}

static int merge_fact(merged *m, const fact *f, err *e) {
    triple_key k = {m, f};
    uint64_t hash = write_triple_hash(f);
    uint32_t id = htab_find(&m->index, hash, same_triple, &k);
    if (id != HTAB_NONE) {
        m->facts[id] = *f;
        return 0;
    }
    if (m->count >= UINT32_MAX - 1)
        return err_set(e, ERR(INT, 0), "too many facts in one transaction");
    if (!array_reserve(&m->facts, &m->cap, m->count + 1, sizeof *m->facts, 64))
        return oom(e);
    if (htab_insert(&m->index, hash, (uint32_t)m->count) != 0)
        return oom(e);
    m->facts[m->count++] = *f;
    return 0;
}

/* Every staged statement converted again with the commit's counter and
 * tx time, into `a` (the texts parse as they did at staging). */
static int merge_all(db_tx *t, int64_t tx_id, arena *a, merged *m, err *e) {
    int rc = 0;
    for (size_t i = 0; i < t->count && rc == 0; i++) {
        command *c = NULL;
        fact *facts = NULL;
        size_t count = 0;
        rc = datalog_parse(t->st[i].text, t->st[i].len, a, &c, e);
        if (rc == 0 && c->kind != CMD_TRANSACT && c->kind != CMD_RETRACT)
            rc = err_set(e, ERR(INT, 0), "internal: a staged statement is not a write");
        if (rc == 0)
            rc = build(c, t->base + 1, tx_id, a, &facts, &count, e);
        for (size_t k = 0; k < count && rc == 0; k++)
            rc = merge_fact(m, &facts[k], e);
    }
    return rc;
}

int db_tx_commit(db_tx *t, err *e) {
    int rc = check_open(t, e);
    if (rc != 0)
        return rc;
    db *d = t->d;
    int64_t tx_id = clock_now_ms();
    if (tx_id < t->last_tx_id)
        tx_id = t->last_tx_id;
    arena a;
    arena_init(&a);
    merged m = {0};
    htab_init(&m.index);
    rc = merge_all(t, tx_id, &a, &m, e);
    if (rc == 0 && m.count > 0) {
        db_cursors_hold(d);
        rc = store_commit(d->s, m.facts, m.count, e);
        db_cursors_release(d);
    }
    htab_free(&m.index);
    free(m.facts);
    arena_free(&a);
    end(t, rc == 0 ? TX_COMMITTED : TX_ROLLED_BACK);
    return rc;
}

int db_tx_rollback(db_tx *t, err *e) {
    int rc = check_open(t, e);
    if (rc == 0)
        end(t, TX_ROLLED_BACK);
    return rc;
}

void db_tx_close(db_tx *t) {
    end(t, TX_CLOSED);
}

void db_tx_free(db_tx *t) {
    if (!t)
        return;
    if (t->state == TX_OPEN)
        end(t, TX_ROLLED_BACK);
    free(t);
}
