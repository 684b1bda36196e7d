/* The database object: one store, one writer lock, parse → execute.
 * Parsing needs no shared state and runs unlocked; writes hold the writer
 * lock throughout, so the counter a write reads is the one it commits;
 * queries take a store snapshot instead, so they see one consistent state
 * without waiting for other queries. */
#include "db/db_internal.h"

#include <stdlib.h>

#include "base/arena.h"
#include "base/clock.h"
#include "datalog/parse.h"
#include "db/write.h"
#include "exec/query.h"
#include "host/host_fns.h"
#include "rules/registry.h"
#include "store/store.h"

void db_options_default(db_options *o) {
    store_options_default(&o->store);
    o->store.background_checkpoint = true;
    o->max_derived_facts = 1000000;
    o->max_results = 1000000;
    o->query_memory_limit = DB_DEFAULT_QUERY_MEMORY_LIMIT;
    o->busy_timeout_ms = 5000;
    o->query_timeout_ms = 0;
    o->no_magic_sets = false;
}

int db_open(const char *path, const db_options *o, db **out, err *e) {
    db *d = calloc(1, sizeof *d);
    if (!d)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (o)
        d->opts = *o;
    else
        db_options_default(&d->opts);
    int rc = path ? store_open_file(path, &d->opts.store, &d->s, e)
                  : store_open_memory(d->opts.store.history_index, &d->s, e);
    if (rc == 0)
        rc = db_shared_attach(d->s, &d->sh, e);
    if (rc == 0)
        rc = rules_registry_new(&d->rules, e);
    if (rc == 0)
        rc = host_registry_new(&d->host_fns, e);
    if (rc == 0 && !(d->queries = query_cache_new()))
        rc = err_set(e, ERR(INT, 0), "out of memory");
    if (rc == 0 && pthread_mutex_init(&d->progress_mu, NULL) != 0)
        rc = err_set(e, ERR(INT, 0), "cannot create the database lock");
    if (rc != 0) {
        query_cache_free(d->queries);
        host_registry_free(d->host_fns);
        rules_registry_free(d->rules);
        db_shared_detach(d->sh);
        if (d->s)
            store_close(d->s);
        free(d);
        return rc;
    }
    cancel_source_init(&d->interrupts);
    atomic_init(&d->has_progress, false);
    *out = d;
    return 0;
}

void db_close(db *d) {
    if (!d)
        return;
    if (d->tx)
        db_tx_close(d->tx);
    db_interrupt(d); /* a cursor fetch running now stops (API-013) rather than hold the close */
    db_cursors_hold(d);
    rules_registry_free(d->rules);
    query_cache_free(d->queries);
    db_cursors_release(d);
    /* Last: the host's destroy callbacks may call back into the library. */
    host_registry_free(d->host_fns);
    db_shared_detach(d->sh);
    store_close(d->s); /* the last handle on the store checkpoints and frees it */
    pthread_mutex_destroy(&d->progress_mu);
    free(d);
}

void db_interrupt(db *d) {
    cancel_interrupt(&d->interrupts);
}

void db_set_progress(db *d, int64_t every, cancel_progress_fn fn, void *ctx) {
    pthread_mutex_lock(&d->progress_mu);
    d->progress = fn;
    d->progress_ctx = fn ? ctx : NULL;
    d->progress_every = every < 1 ? 1 : every;
    atomic_store(&d->has_progress, fn != NULL);
    pthread_mutex_unlock(&d->progress_mu);
}

void db_cancel_begin(db *d, cancel *c) {
    cancel_progress_fn fn = NULL;
    void *ctx = NULL;
    int64_t every = 0;
    if (atomic_load_explicit(&d->has_progress, memory_order_acquire)) {
        pthread_mutex_lock(&d->progress_mu);
        fn = d->progress;
        ctx = d->progress_ctx;
        every = d->progress_every;
        pthread_mutex_unlock(&d->progress_mu);
    }
    cancel_begin(c, &d->interrupts, d->opts.query_timeout_ms, fn, ctx, every);
}

int db_writer_take(db *d, bool for_tx, const char *same_thread, err *e) {
    int64_t patience = reader_room_occupied(&d->sh->room) ? DB_WRITER_STARVE_BESIDE_READERS_NS
                                                          : DB_WRITER_STARVE_NS;
    return db_writer_acquire(&d->sh->writer, for_tx, patience, d->opts.busy_timeout_ms, same_thread,
                             e);
}

static int refuse_read_only(err *e) {
    return err_set(e, ERR(API, 14), "the database is opened read-only; writes are not allowed");
}

static int run_write(db *d, const command *c, db_result *out, arena *a, cancel *stop, err *e) {
    if (d->opts.store.read_only)
        return refuse_read_only(e);
    uint64_t tx_count = store_tx_count(d->s) + 1;
    int64_t tx_id = clock_now_ms();
    fact *facts = NULL;
    size_t count = 0;
    int rc = c->kind == CMD_TRANSACT
                 ? write_transact(&c->as.write, tx_count, tx_id, a, &facts, &count, e)
                 : write_retract(&c->as.write, tx_count, tx_id, a, &facts, &count, e);
    if (rc == 0) /* the last moment an interrupt can stop it: nothing is written yet */
        rc = cancel_poll(stop, 0, e);
    if (rc == 0) /* durable once the writer lock is let go: db_execute */
        rc = store_commit_nowait(d->s, facts, count, e);
    if (rc != 0)
        return rc;
    out->kind = c->kind == CMD_TRANSACT ? DB_RESULT_TRANSACTED : DB_RESULT_RETRACTED;
    out->tx_id = tx_id;
    out->rows = NULL;
    return 0;
}

/* Registering a rule is a write (API-014 lists `rule`), though nothing
 * reaches the file. */
static int run_rule(db *d, const ast_rule *rule, db_result *out, err *e) {
    if (d->opts.store.read_only)
        return refuse_read_only(e);
    int rc = rules_register(d->rules, rule, e);
    if (rc != 0)
        return rc;
    out->kind = DB_RESULT_OK;
    out->tx_id = 0;
    out->rows = NULL;
    return 0;
}

query_rules db_query_rules(db *d) {
    return (query_rules){.registry = d->rules,
                         .max_derived_facts = d->opts.max_derived_facts,
                         .max_results = d->opts.max_results,
                         .magic = !d->opts.no_magic_sets,
                         .host_fns = d->host_fns};
}

/* `keep` (or NULL): what runs of `q` keep from one to the next. */
static int run_query(db *d, const ast_query *q, query_keep *keep, cancel *stop, result_set **out,
                     err *e) {
    query_rules rules = db_query_rules(d);
    rules.stop = stop;
    bool counted = reader_room_enter(&d->sh->room, &d->sh->writer);
    size_t limit = (size_t)d->opts.query_memory_limit;
    int rc = keep ? query_execute_kept(d->s, &rules, q, clock_now_ms(), limit, keep, out, e)
                  : query_execute_rules(d->s, &rules, q, clock_now_ms(), limit, out, e);
    reader_room_leave(&d->sh->room, counted);
    return rc;
}

static int run_command(db *d, const command *c, query_keep *keep, db_result *out, arena *a,
                       cancel *stop, err *e) {
    switch (c->kind) {
    case CMD_TRANSACT:
    case CMD_RETRACT: return run_write(d, c, out, a, stop, e);
    case CMD_QUERY:
        out->kind = DB_RESULT_QUERY;
        out->tx_id = 0;
        return run_query(d, &c->as.query, keep, stop, &out->rows, e);
    case CMD_RULE: return run_rule(d, &c->as.rule, out, e);
    }
    return err_set(e, ERR(INT, 0), "unknown command kind");
}

/* The command of `text`: through the parsed-query cache when the text
 * could be kept there (held in *pq), else parsed into `a`. A write is
 * never kept: it skips the cache's lock, copy and seen table. */
static int parse_command(db *d, const char *text, size_t len, arena *a, parsed_query **pq,
                         const command **c, err *e) {
    *pq = NULL;
    if (!query_cache_may_keep(len) || datalog_looks_like_write(text, len)) {
        command *parsed = NULL;
        int rc = datalog_parse(text, len, a, &parsed, e);
        *c = parsed;
        return rc;
    }
    int rc = query_cache_parse(d->queries, text, len, pq, e);
    *c = rc == 0 ? parsed_query_command(*pq) : NULL;
    return rc;
}

/* A commit leaves the cursors streaming on their snapshots (store.h);
 * when the store asks for it, the writer stops them and checkpoints, as
 * a checkpoint statement does. Its outcome is not the commit's. */
static void quiet_store(db *d) {
    if (!store_wants_quiet(d->s))
        return;
    err ignored = {0};
    db_cursors_hold(d);
    store_checkpoint_background(d->s, &ignored);
    db_cursors_release(d);
    err_clear(&ignored);
}

int db_execute(db *d, const char *text, size_t len, db_result *out, err *e) {
    arena a;
    arena_init(&a);
    parsed_query *pq;
    const command *c;
    int rc = parse_command(d, text, len, &a, &pq, &c, e);
    bool writes = rc == 0 && c->kind != CMD_QUERY;
    if (writes && (rc = db_writer_take(d, false, DB_WRITER_IN_TX, e)) != 0)
        writes = false;
    /* A rule changes what cursors read; a commit, only later snapshots. */
    bool changes = writes && !d->opts.store.read_only, commits = changes && c->kind != CMD_RULE;
    cancel stop;
    db_cancel_begin(d, &stop);
    if (changes && !commits)
        db_cursors_hold(d);
    if (rc == 0)
        rc = run_command(d, c, pq ? parsed_query_keep(pq) : NULL, out, &a, &stop, e);
    if (changes && !commits)
        db_cursors_release(d);
    if (commits)
        quiet_store(d);
    if (writes)
        db_writer_release(&d->sh->writer);
    if (commits && rc == 0) /* waiting outside the lock lets commits share a sync */
        rc = store_await_durable(d->s, e);
    parsed_query_release(pq);
    arena_free(&a);
    return rc;
}

const char *db_command_name(command_kind k) {
    switch (k) {
    case CMD_TRANSACT: return "transact";
    case CMD_RETRACT: return "retract";
    case CMD_QUERY: return "query";
    case CMD_RULE: return "rule";
    }
    return "unknown";
}

int db_parse_query(db *d, const char *text, size_t len, parsed_query **out, err *e) {
    int rc = query_cache_parse(d->queries, text, len, out, e);
    if (rc != 0)
        return rc;
    command_kind kind = parsed_query_command(*out)->kind;
    if (kind == CMD_QUERY)
        return 0;
    parsed_query_release(*out);
    *out = NULL;
    return err_set(e, ERR(API, 12), "query() accepts only (query ...) commands; got %s",
                   db_command_name(kind));
}

int db_query(db *d, const char *text, size_t len, result_set **out, err *e) {
    parsed_query *pq;
    int rc = db_parse_query(d, text, len, &pq, e);
    if (rc != 0)
        return rc;
    cancel stop;
    db_cancel_begin(d, &stop);
    rc = run_query(d, &parsed_query_command(pq)->as.query, parsed_query_keep(pq), &stop, out, e);
    parsed_query_release(pq);
    return rc;
}

int db_checkpoint(db *d, err *e) {
    if (d->opts.store.read_only)
        return 0;
    int rc = db_writer_take(d, false,
                            "a WriteTransaction is in progress on this thread; commit or roll "
                            "it back before a checkpoint",
                            e);
    if (rc != 0)
        return rc;
    db_cursors_hold(d);
    rc = store_checkpoint(d->s, e);
    db_cursors_release(d);
    db_writer_release(&d->sh->writer);
    return rc;
}

uint64_t db_tx_count(db *d) {
    return store_tx_count(d->s);
}

store *db_store(db *d) {
    return d->s;
}

rules_registry *db_rules(db *d) {
    return d->rules;
}

int db_run_query(db *d, const ast_query *q, query_keep *keep, result_set **out, err *e) {
    cancel stop;
    db_cancel_begin(d, &stop);
    return run_query(d, q, keep, &stop, out, e);
}

query_cache_stats db_query_cache_stats(db *d) {
    return query_cache_get_stats(d->queries);
}
