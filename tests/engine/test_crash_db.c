/* Crash tests of the database's write paths through the fault-injecting
 * I/O layer (fault_vfs.h), in its four modes (a clean stop, a torn write,
 * a power loss, a power loss that keeps a random part of what was not
 * synced). Each workload runs once to count its write, sync and truncate
 * operations, then once per operation N on a fresh file with a crash at
 * N; the file is reopened with nothing planned and must hold exactly the
 * state after some number n of its transactions, with n at least the
 * number whose commit returned (0 acknowledged transactions lost, 0 opens
 * that fail), and must take a new commit and a checkpoint.
 *
 * The workloads, all with automatic checkpoints every 7 facts:
 *   plain:   transact (texts up to 3,000 bytes, so records span pages),
 *            retract, explicit write transactions committed (several
 *            statements, the last deciding, language.md §15) and rolled back,
 *            explicit checkpoints;
 *   rules:   the same kind of writes on a graph, with two recursive rules
 *            queried between the writes (and again after the reopen,
 *            against the closure computed here);
 *   readers: the plain workload while a second thread opens cursors and
 *            reads them in small batches, each answer checked to be the
 *            whole state after some transaction (a consistent snapshot),
 *            and while the writer itself keeps a streaming cursor open
 *            across commits and automatic checkpoints;
 *   log writer: records of 12 transactions (with counter gaps) appended,
 *            then finish; after a crash the file opens and holds whole
 *            transactions only, all of them once finish returned.
 *
 *   engine_test_crash_db [workload [mode [point]]]  replays one crash. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cursor_each.h"
#include "db/db.h"
#include "db/db_tx.h"
#include "db/log_writer.h"
#include "exec_text.h"
#include "exec/result.h"
#include "fault_vfs.h"
#include "model/timestamp.h"
#include "store/store.h"

/* ---- the model ----------------------------------------------------------
 * A fact is [:p{e} attr v]: attr 0 :w/n (the integer v), 1 :w/s (a text
 * made from v), 2 :w/edge (the keyword :p{v}). */
typedef struct mfact {
    int e, a;
    int64_t v;
} mfact;

static const char *const ATTRS[] = {":w/n", ":w/s", ":w/edge"};

#define MAX_FACTS 512

typedef struct model {
    mfact f[MAX_FACTS];
    int n;
} model;

static bool same_mfact(const mfact *x, const mfact *y) {
    return x->e == y->e && x->a == y->a && x->v == y->v;
}

static int model_find(const model *m, const mfact *f) {
    for (int i = 0; i < m->n; i++)
        if (same_mfact(&m->f[i], f))
            return i;
    return -1;
}

static void model_apply(model *m, const mfact *f, bool assert) {
    int at = model_find(m, f);
    if (assert &&at < 0 && m->n < MAX_FACTS)
        m->f[m->n++] = *f;
    else if (!assert &&at >= 0)
        m->f[at] = m->f[--m->n];
}

/* The text of :w/s value v: 1 to 3,000 bytes, unique per v. */
static size_t text_of(int64_t v, char *out, size_t cap) {
    size_t len = (size_t)((v * 613) % 3000) + 12;
    int head = snprintf(out, cap, "v%lld-", (long long)v);
    for (size_t i = (size_t)head; i < len && i + 1 < cap; i++)
        out[i] = (char)('a' + (v + (int64_t)i) % 26);
    out[len < cap ? len : cap - 1] = '\0';
    return len < cap ? len : cap - 1;
}

/* Appends [:p{e} attr v] to `out` as the language writes it. */
static void fact_text(const mfact *f, char *out, size_t cap) {
    size_t at = strlen(out);
    if (f->a == 0)
        snprintf(out + at, cap - at, "[:p%d :w/n %lld]", f->e, (long long)f->v);
    else if (f->a == 2)
        snprintf(out + at, cap - at, "[:p%d :w/edge :p%lld]", f->e, (long long)f->v);
    else {
        char text[3100];
        text_of(f->v, text, sizeof text);
        snprintf(out + at, cap - at, "[:p%d :w/s \"%s\"]", f->e, text);
    }
}

/* ---- the workloads' steps --------------------------------------------- */

typedef enum step_kind {
    STEP_TRANSACT,    /* one (transact ...) of every op */
    STEP_RETRACT,     /* one (retract ...) of every op */
    STEP_TX_COMMIT,   /* a write transaction: one statement per op, committed */
    STEP_TX_ROLLBACK, /* the same, rolled back */
    STEP_CHECKPOINT
} step_kind;

typedef struct op {
    mfact f;
    bool assert;
} op;

#define MAX_OPS 4
#define MAX_STEPS 48

typedef struct step {
    step_kind kind;
    op ops[MAX_OPS];
    int n;
} step;

typedef struct workload {
    const char *name;
    step steps[MAX_STEPS];
    int n;
    int commits; /* steps that take a counter value */
    bool rules;  /* register the reach rules and check them */
    bool readers;
} workload;

static bool takes_counter(step_kind k) {
    return k == STEP_TRANSACT || k == STEP_RETRACT || k == STEP_TX_COMMIT;
}

static void step_apply(model *m, const step *s) {
    if (!takes_counter(s->kind))
        return;
    for (int i = 0; i < s->n; i++)
        model_apply(m, &s->ops[i].f, s->ops[i].assert);
}

/* The state after the first `commits` counter-taking steps. */
static void model_after(const workload *w, int commits, model *m) {
    m->n = 0;
    for (int i = 0; i < w->n && commits > 0; i++) {
        step_apply(m, &w->steps[i]);
        commits -= takes_counter(w->steps[i].kind);
    }
}

static uint64_t rng;

static int pick(int n) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng >> 33) % (uint64_t)n);
}

static int64_t next_value;

/* A fact not yet written: on the rules workload always an edge between
 * the 10 nodes. */
static mfact new_fact(bool graph) {
    mfact f = {.e = pick(10), .a = graph ? 2 : pick(3), .v = 0};
    f.v = f.a == 2 ? pick(10) : ++next_value;
    return f;
}

static mfact live_fact(const model *m, bool graph) {
    return m->n ? m->f[pick(m->n)] : new_fact(graph);
}

static step make_step(const model *m, int i, bool graph) {
    step s = {.kind = STEP_TRANSACT};
    switch (i % 8) {
    case 3:
        s.kind = STEP_RETRACT;
        s.n = 1 + pick(2);
        for (int k = 0; k < s.n; k++)
            s.ops[k] = (op){live_fact(m, graph), false};
        break;
    case 4: /* the last statement about a fact decides */
        s.kind = STEP_TX_COMMIT;
        s.n = 4;
        s.ops[0] = (op){new_fact(graph), true};
        s.ops[1] = (op){live_fact(m, graph), false};
        s.ops[2] = (op){new_fact(graph), true};
        s.ops[3] = (op){s.ops[2].f, pick(2) == 0};
        break;
    case 5:
        s.kind = STEP_TX_ROLLBACK;
        s.n = 2;
        s.ops[0] = (op){new_fact(graph), true};
        s.ops[1] = (op){live_fact(m, graph), false};
        break;
    case 6: s.kind = STEP_CHECKPOINT; break;
    default:
        s.n = 1 + pick(3);
        for (int k = 0; k < s.n; k++)
            s.ops[k] = (op){new_fact(graph), true};
    }
    return s;
}

static void workload_make(workload *w, const char *name, int steps, bool graph, bool readers) {
    *w = (workload){.name = name, .n = steps, .rules = graph, .readers = readers};
    rng = (uint64_t)steps * 977 + graph;
    next_value = 0;
    model m = {.n = 0};
    for (int i = 0; i < steps; i++) {
        w->steps[i] = make_step(&m, i, graph);
        step_apply(&m, &w->steps[i]);
        w->commits += takes_counter(w->steps[i].kind);
    }
}

/* ---- running steps ------------------------------------------------------ */

#define TEXT_CAP 16384

static void command_text(const step *s, bool assert, char *out) {
    snprintf(out, TEXT_CAP, "(%s [", assert ? "transact" : "retract");
    for (int i = 0; i < s->n; i++)
        fact_text(&s->ops[i].f, out, TEXT_CAP);
    strcat(out, "])");
}

/* One statement per op inside a write transaction, then commit or
 * rollback. */
static int run_tx(db *d, const step *s, err *e) {
    db_tx *t = NULL;
    int rc = db_tx_begin(d, &t, e);
    char *text = malloc(TEXT_CAP);
    for (int i = 0; rc == 0 && i < s->n; i++) {
        step one = {.n = 1, .ops = {s->ops[i]}};
        command_text(&one, s->ops[i].assert, text);
        db_result r = {0};
        rc = db_tx_execute(t, text, strlen(text), &r, e);
    }
    if (rc == 0)
        rc = s->kind == STEP_TX_COMMIT ? db_tx_commit(t, e) : db_tx_rollback(t, e);
    db_tx_free(t);
    free(text);
    return rc;
}

static int run_step(db *d, const step *s, err *e) {
    char *text = malloc(TEXT_CAP);
    int rc;
    switch (s->kind) {
    case STEP_TRANSACT:
    case STEP_RETRACT:
        command_text(s, s->kind == STEP_TRANSACT, text);
        rc = exec_text(d, text, e);
        break;
    case STEP_CHECKPOINT: rc = db_checkpoint(d, e); break;
    default: rc = run_tx(d, s, e);
    }
    free(text);
    return rc;
}

/* ---- checking a state ---------------------------------------------------- */

static value expected_value(const mfact *f, char *buf, size_t cap) {
    if (f->a == 0)
        return value_integer(f->v);
    if (f->a == 1)
        return value_string(buf, text_of(f->v, buf, cap));
    int len = snprintf(buf, cap, ":p%lld", (long long)f->v);
    return value_keyword(buf, (size_t)len);
}

static bool row_is(const value *row, const mfact *f) {
    char name[32], buf[3100];
    int len = snprintf(name, sizeof name, ":p%d", f->e);
    value ent = value_ref(uuid_of_keyword(name, (size_t)len));
    value attr = value_keyword(ATTRS[f->a], strlen(ATTRS[f->a]));
    value v = expected_value(f, buf, sizeof buf);
    return value_equal_strict(&row[0], &ent) && value_equal_strict(&row[1], &attr) &&
           value_equal_strict(&row[2], &v);
}

static bool row_in_model(const value *row, const model *m, bool *used) {
    for (int i = 0; i < m->n; i++)
        if (!used[i] && row_is(row, &m->f[i]))
            return used[i] = true;
    return false;
}

/* Every row a fact of `m`, each once, all of them. */
static bool rows_are(const value *const *rows, size_t count, const model *m) {
    if ((int)count != m->n)
        return false;
    bool used[MAX_FACTS] = {false};
    for (size_t i = 0; i < count; i++)
        if (!row_in_model(rows[i], m, used))
            return false;
    return true;
}

static const char ALL_FACTS[] = "(query [:find ?e ?a ?v :where [?e ?a ?v]])";

static bool state_is(db *d, const model *m, err *e) {
    result_set *rs = NULL;
    if (db_query(d, ALL_FACTS, strlen(ALL_FACTS), &rs, e) != 0)
        return false;
    size_t count = result_row_count(rs);
    const value **rows = malloc((count ? count : 1) * sizeof *rows);
    for (size_t i = 0; i < count; i++)
        rows[i] = result_row(rs, i);
    bool ok = rows_are(rows, count, m);
    free(rows);
    result_free(rs);
    return ok;
}

/* ---- rules -------------------------------------------------------------- */

static const char *const RULES[] = {
    "(rule [(reach ?x ?y) [?x :w/edge ?y]])",
    "(rule [(reach ?x ?y) [?x :w/edge ?z] (reach ?z ?y)])",
};

static int register_rules(db *d, err *e) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof RULES / sizeof *RULES; i++)
        rc = exec_text(d, RULES[i], e);
    return rc;
}

/* How many nodes :p{from} reaches over the model's edges. */
static int64_t reach_count(const model *m, int from) {
    bool seen[10] = {false}, grew = true;
    while (grew) {
        grew = false;
        for (int i = 0; i < m->n; i++) {
            const mfact *f = &m->f[i];
            if (f->a == 2 && (f->e == from || seen[f->e]) && !seen[f->v])
                grew = seen[f->v] = true;
        }
    }
    int64_t n = 0;
    for (int k = 0; k < 10; k++)
        n += seen[k];
    return n;
}

/* The rules answer what the model's closure holds, from every node. */
static bool rules_agree(db *d, const model *m, err *e) {
    for (int from = 0; from < 10; from++) {
        char q[128];
        snprintf(q, sizeof q, "(query [:find (count ?y) :where (reach :p%d ?y)])", from);
        result_set *rs = NULL;
        if (db_query(d, q, strlen(q), &rs, e) != 0)
            return false;
        int64_t got = result_row_count(rs) ? result_row(rs, 0)[0].as.i : 0;
        result_free(rs);
        if (got != reach_count(m, from))
            return false;
    }
    return true;
}

/* ---- readers ---------------------------------------------------------------
 * A reader thread's cursors: every answer must be the whole state after
 * some number of the workload's transactions. */
typedef struct reader_ctx {
    db *d;
    const workload *w;
    atomic_bool stop;
    atomic_int bad, answers;
} reader_ctx;

typedef struct collected {
    value *rows; /* 3 per row, texts copied into `texts` (2 per row) */
    char **texts;
    size_t count, cap;
} collected;

static void copy_text(value *v, char **slot) {
    *slot = NULL;
    value_resolve(v, NULL);
    if (v->type != VT_STRING && v->type != VT_KEYWORD)
        return;
    *slot = malloc(v->as.str.len + 1);
    memcpy(*slot, v->as.str.ptr, v->as.str.len);
    v->as.str.ptr = *slot;
}

static void collect_row(void *ctx, const value *row) {
    collected *c = ctx;
    if (c->count == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->rows = realloc(c->rows, c->cap * 3 * sizeof *c->rows);
        c->texts = realloc(c->texts, c->cap * 2 * sizeof *c->texts);
    }
    value *out = &c->rows[c->count * 3];
    memcpy(out, row, 3 * sizeof *out);
    value_resolve(&out[0], NULL);
    copy_text(&out[1], &c->texts[c->count * 2]);
    copy_text(&out[2], &c->texts[c->count * 2 + 1]);
    c->count++;
}

static void collected_free(collected *c) {
    for (size_t i = 0; i < c->count * 2; i++)
        free(c->texts[i]);
    free(c->texts);
    free(c->rows);
}

/* The rows are the state after some transaction of the workload. */
static bool some_state(const workload *w, const collected *c) {
    const value **rows = malloc((c->count ? c->count : 1) * sizeof *rows);
    for (size_t i = 0; i < c->count; i++)
        rows[i] = &c->rows[i * 3];
    bool found = false;
    model m;
    for (int n = 0; n <= w->commits && !found; n++) {
        model_after(w, n, &m);
        found = rows_are(rows, c->count, &m);
    }
    free(rows);
    return found;
}

static bool read_once(reader_ctx *r) {
    err e = {0};
    db_cursor *c = NULL;
    if (db_cursor_open(r->d, ALL_FACTS, strlen(ALL_FACTS), &c, &e) != 0) {
        err_clear(&e);
        return true; /* a crashed store may refuse: what it answers is checked */
    }
    collected got = {0};
    int rc = 0;
    while (cursor_read_each(c, 3, collect_row, &got, &rc, &e) > 0 && rc == 0)
        sched_yield();
    /* A simulated power loss puts the files back to their synced bytes
     * while this process runs on (a real one would end it): a read that
     * met the reverted file may mix pages no process could have seen. */
    bool lost_power = fault_lost_power();
    bool ok = rc != 0 || lost_power || some_state(r->w, &got);
    db_cursor_free(c);
    collected_free(&got);
    err_clear(&e);
    return ok;
}

static void *reader_main(void *arg) {
    reader_ctx *r = arg;
    while (!atomic_load(&r->stop)) {
        if (!read_once(r))
            atomic_fetch_add(&r->bad, 1);
        atomic_fetch_add(&r->answers, 1);
    }
    return NULL;
}

/* ---- one run of a workload ------------------------------------------------ */

static db *open_db(const char *path, err *e) {
    db_options o;
    db_options_default(&o);
    o.store.wal_checkpoint_threshold = 7;  /* automatic checkpoints mid-way */
    o.store.background_checkpoint = false; /* crash points in one order */
    db *d = NULL;
    return db_open(path, &o, &d, e) == 0 ? d : NULL;
}

static int problems;
static long reader_answers; /* snapshots the reader threads checked */

static void problem(const char *what, const workload *w, int mode, long point, int acknowledged) {
    if (problems++ < 8)
        fprintf(stderr, "%s: %s, crash at point %ld (%s), %d acknowledged\n", w->name, what, point,
                fault_mode_name(mode), acknowledged);
    CHECK(!what);
}

/* A cursor the writer's own thread keeps open across commits and
 * checkpoints; read to its end, it must be the state it opened on. */
typedef struct held_cursor {
    db_cursor *c;
    collected got;
    int state; /* transactions committed when it opened */
    /* Opened after the crash: a commit whose sync failed (group commit
     * applies it before syncing) may be in the snapshot though it
     * returned an error; the reopen decides whether it survived. */
    bool one_more;
} held_cursor;

static void hold_cursor(db *d, held_cursor *h, int state) {
    err e = {0};
    *h = (held_cursor){.state = state, .one_more = fault_now.crashed};
    int rc = 0;
    if (db_cursor_open(d, ALL_FACTS, strlen(ALL_FACTS), &h->c, &e) == 0)
        cursor_read_each(h->c, 2, collect_row, &h->got, &rc, &e);
    err_clear(&e);
}

static bool release_cursor(const workload *w, held_cursor *h) {
    err e = {0};
    int rc = 0;
    while (h->c && cursor_read_each(h->c, 5, collect_row, &h->got, &rc, &e) > 0 && rc == 0) {
    }
    bool ok = !h->c || rc != 0;
    if (h->c && rc == 0) {
        const value **rows = malloc((h->got.count ? h->got.count : 1) * sizeof *rows);
        for (size_t i = 0; i < h->got.count; i++)
            rows[i] = &h->got.rows[i * 3];
        model m;
        model_after(w, h->state, &m);
        ok = rows_are(rows, h->got.count, &m);
        if (!ok && h->one_more) {
            model_after(w, h->state + 1, &m);
            ok = rows_are(rows, h->got.count, &m);
        }
        free(rows);
    }
    db_cursor_free(h->c);
    collected_free(&h->got);
    err_clear(&e);
    return ok;
}

/* Before the crash the database answers from the state it has. */
static void check_live(db *d, const workload *w, int done, int i) {
    if (fault_now.crashed || i % 3 != 0)
        return;
    err e = {0};
    model m;
    model_after(w, done, &m);
    CHECK(state_is(d, &m, &e));
    if (w->rules)
        CHECK(rules_agree(d, &m, &e));
    err_clear(&e);
}

/* Runs the steps; returns how many commits returned success. */
static int run_workload(const char *path, const workload *w) {
    err e = {0};
    db *d = open_db(path, &e);
    err_clear(&e);
    if (!d)
        return 0;
    if (w->rules)
        CHECK(register_rules(d, &e) == 0);
    reader_ctx rd = {.d = d, .w = w};
    pthread_t thread;
    bool reading = w->readers && pthread_create(&thread, NULL, reader_main, &rd) == 0;
    held_cursor held = {0};
    int done = 0;
    for (int i = 0; i < w->n; i++) {
        if (w->readers && i == 2)
            hold_cursor(d, &held, done);
        if (run_step(d, &w->steps[i], &e) == 0 && takes_counter(w->steps[i].kind))
            done++;
        err_clear(&e);
        check_live(d, w, done, i);
    }
    if (reading) {
        atomic_store(&rd.stop, true);
        pthread_join(thread, NULL);
        CHECK(atomic_load(&rd.bad) == 0);
        reader_answers += atomic_load(&rd.answers);
    }
    if (w->readers)
        CHECK(release_cursor(w, &held));
    db_close(d);
    return done;
}

/* The reopened file is the state after n transactions, acknowledged <= n
 * <= all, and takes a commit and a checkpoint. */
static bool verify_db(const char *path, const workload *w, int acknowledged) {
    fault_begin((fault){0});
    err e = {0};
    db *d = open_db(path, &e);
    bool ok = d != NULL;
    int n = ok ? (int)db_tx_count(d) : -1;
    ok = ok && n >= acknowledged && n <= w->commits;
    model m;
    model_after(w, n, &m);
    ok = ok && state_is(d, &m, &e);
    if (w->rules)
        ok = ok && register_rules(d, &e) == 0 && rules_agree(d, &m, &e);
    ok = ok && exec_text(d, "(transact [[:after :w/n 1]])", &e) == 0 && db_checkpoint(d, &e) == 0;
    if (!ok)
        fprintf(stderr, "%s: reopened with %d of %d transactions, %d acknowledged: %s\n", w->name,
                n, w->commits, acknowledged, e.message ? e.message : "wrong state");
    db_close(d);
    err_clear(&e);
    fault_end();
    return ok;
}

static int crash_db_run(const char *path, const workload *w, fault f) {
    fault_remove_db(path);
    fault_begin(f);
    int acknowledged = run_workload(path, w);
    fault_end();
    return acknowledged;
}

/* ---- the log writer -------------------------------------------------------- */

#define LW_TXS 12
/* The counters of the log's transactions (gaps are empty transactions). */
static const uint64_t LW_TX[LW_TXS] = {1, 2, 3, 5, 6, 9, 10, 11, 12, 15, 16, 20};

/* Transaction i's records: 1 + i % 3 facts [:l{i} :w/n i*10+k], and on
 * every 4th the retraction of the previous one's first. */
static size_t lw_records(int i, fact *out, char names[][16]) {
    size_t n = 0;
    uint64_t t = LW_TX[i];
    for (int k = 0; k <= i % 3; k++, n++) {
        int len = snprintf(names[n], 16, ":l%d", i);
        out[n] = (fact){.entity = uuid_of_keyword(names[n], (size_t)len),
                        .attribute = value_keyword(":w/n", 4),
                        .v = value_integer(i * 10 + k),
                        .tx_count = t,
                        .tx_id = (int64_t)t * 1000,
                        .valid_from = (int64_t)t * 1000,
                        .valid_to = VALID_TO_FOREVER,
                        .asserted = true};
    }
    if (i > 0 && i % 4 == 0) {
        int len = snprintf(names[n], 16, ":l%d", i - 1);
        out[n] = (fact){.entity = uuid_of_keyword(names[n], (size_t)len),
                        .attribute = value_keyword(":w/n", 4),
                        .v = value_integer((i - 1) * 10),
                        .tx_count = t,
                        .tx_id = (int64_t)t * 1000,
                        .valid_from = (int64_t)t * 1000,
                        .valid_to = VALID_TO_FOREVER,
                        .asserted = false};
        n++;
    }
    return n;
}

/* What the dead process leaves: the files as they are (log_writer_free
 * of an unfinished writer deletes them, which a crash would not do). */
static void free_as_crashed(log_writer *w, const char *path, const char *saved) {
    CHECK(fault_copy_db(path, saved));
    log_writer_free(w);
    CHECK(fault_copy_db(saved, path));
}

/* 1: finish returned success; 0: it did not; -1: create failed (and
 * removed what it made). */
static int lw_run(const char *path, const char *saved) {
    store_options o;
    store_options_default(&o);
    o.wal_checkpoint_threshold = 7;
    log_writer *w = NULL;
    err e = {0};
    if (log_writer_create(path, &o, &w, &e) != 0) {
        err_clear(&e);
        return -1;
    }
    for (int i = 0; i < LW_TXS; i++) {
        fact recs[5];
        char names[5][16];
        size_t n = lw_records(i, recs, names);
        log_writer_append(w, recs, n, &e);
        err_clear(&e);
    }
    int finished = log_writer_finish(w, &e) == 0;
    err_clear(&e);
    if (finished)
        log_writer_free(w);
    else
        free_as_crashed(w, path, saved);
    return finished;
}

static bool same_record(const fact *a, const fact *b) {
    return uuid_equal(&a->entity, &b->entity) && value_equal_strict(&a->attribute, &b->attribute) &&
           value_identical(&a->v, &b->v) && a->tx_count == b->tx_count && a->tx_id == b->tx_id &&
           a->valid_from == b->valid_from && a->valid_to == b->valid_to &&
           a->asserted == b->asserted;
}

/* The file's commit log is every record of the transactions up to its
 * counter, in order, and nothing more. */
static bool lw_log_is_prefix(store *s, uint64_t txc, err *e) {
    store_reader *r = NULL;
    store_scan *sc = NULL;
    bool ok = store_reader_open(s, &r, e) == 0 && store_scan_order(r, TREE_TXLOG, &sc, e) == 0;
    for (int i = 0; ok && i < LW_TXS && LW_TX[i] <= txc; i++) {
        fact want[5];
        char names[5][16];
        size_t n = lw_records(i, want, names);
        store_rec rec;
        for (size_t k = 0; ok && k < n; k++)
            ok = store_scan_next(sc, &rec, e) == 1 && same_record(&rec.f, &want[k]);
    }
    store_rec extra;
    ok = ok && store_scan_next(sc, &extra, e) == 0;
    store_scan_close(sc);
    store_reader_close(r);
    return ok;
}

static bool lw_verify(const char *path, int finished) {
    if (finished < 0 && access(path, F_OK) != 0)
        return true; /* nothing was made, nothing acknowledged */
    fault_begin((fault){0});
    store_options o;
    store_options_default(&o);
    store *s = NULL;
    err e = {0};
    bool ok = store_open_file(path, &o, &s, &e) == 0;
    uint64_t txc = ok ? store_tx_count(s) : 0;
    ok = ok && txc <= LW_TX[LW_TXS - 1] && (finished <= 0 || txc == LW_TX[LW_TXS - 1]);
    ok = ok && lw_log_is_prefix(s, txc, &e);
    ok = ok && store_commit(s, NULL, 0, &e) == 0 && store_checkpoint(s, &e) == 0;
    if (!ok)
        fprintf(stderr, "log writer: reopened at %llu (finish %d): %s\n", (unsigned long long)txc,
                finished, e.message ? e.message : "wrong records");
    store_close(s);
    err_clear(&e);
    fault_end();
    return ok;
}

static int lw_crash_run(const char *path, const char *saved, fault f) {
    fault_remove_db(path);
    fault_begin(f);
    int finished = lw_run(path, saved);
    fault_end();
    return finished;
}

/* ---- the sweeps ------------------------------------------------------------- */

static long points;

static void sweep_db(const char *path, const workload *w) {
    CHECK(crash_db_run(path, w, (fault){0}) == w->commits);
    long total = fault_now.ops;
    CHECK(verify_db(path, w, w->commits));
    for (int mode = 0; mode < FAULT_MODES; mode++)
        for (long n = 1; n <= total; n++, points++) {
            int acknowledged = crash_db_run(path, w, fault_mode(mode, n));
            if (!verify_db(path, w, acknowledged))
                problem("recovered state is wrong", w, mode, n, acknowledged);
        }
    printf("%s: %d transactions, %ld write/sync/truncate points x %d modes\n", w->name, w->commits,
           total, FAULT_MODES);
}

static void sweep_log_writer(const char *path, const char *saved) {
    CHECK(lw_crash_run(path, saved, (fault){0}) == 1);
    long total = fault_now.ops;
    CHECK(lw_verify(path, 1));
    workload named = {.name = "log writer"};
    for (int mode = 0; mode < FAULT_MODES; mode++)
        for (long n = 1; n <= total; n++, points++) {
            int finished = lw_crash_run(path, saved, fault_mode(mode, n));
            if (!lw_verify(path, finished))
                problem("recovered file is wrong", &named, mode, n, finished);
        }
    printf("log writer: %d transactions, %ld write/sync/truncate points x %d modes\n", LW_TXS,
           total, FAULT_MODES);
}

static workload plain, rules, readers;

int main(int argc, char **argv) {
    char dir[200], path[300], saved[300];
    if (fault_tmpdir("mg_crash_db", dir, sizeof dir) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/d.graph", dir);
    snprintf(saved, sizeof saved, "%s/saved.graph", dir);
    workload_make(&plain, "plain", 40, false, false);
    workload_make(&rules, "rules", 40, true, false);
    workload_make(&readers, "readers", 32, false, true);
    const workload *all[] = {&plain, &rules, &readers};
    if (argc > 3 && atoi(argv[1]) >= 0 && atoi(argv[1]) < 3) { /* replay one crash */
        const workload *w = all[atoi(argv[1])];
        int acknowledged = crash_db_run(path, w, fault_mode(atoi(argv[2]), atol(argv[3])));
        printf("%s: %d acknowledged, verify %d, file %s\n", w->name, acknowledged,
               verify_db(path, w, acknowledged), path);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        sweep_db(path, all[i]);
    sweep_log_writer(path, saved);
    printf("%ld crash points, %d problems; %ld reader snapshots checked\n", points, problems,
           reader_answers);
    CHECK(reader_answers > 0);
    CHECK(points >= 1000);
    fault_remove_db(path);
    fault_remove_db(saved);
    rmdir(dir);
    return CHECK_DONE();
}
