/* The log writer (log_writer.h). Invariant: the store has committed every
 * transaction below `counter`; transaction `counter` is open (its records
 * wait in `pending`) whenever counter > store_tx_count. */
#include "db/log_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/array.h"
#include "db/write.h"
#include "edn/lexer.h"
#include "storage/wal.h"

struct log_writer {
    store *s; /* NULL once finished */
    char *path, *wal_path;
    uint64_t counter; /* the highest tx_count appended or advanced to */
    fact *pending;    /* the open transaction's records */
    size_t pending_count, pending_cap;
    arena texts; /* the pending records' strings */
    bool finished;
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

static char *concat(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

static int target_exists(const char *path, err *e) {
    return err_set(e, ERR(STG, 43), "log writer target already exists: %s", path);
}

/* Creates the empty target file, refusing to reuse anything: O_EXCL makes
 * the check and the creation one step. */
static int create_target(const log_writer *w, err *e) {
    struct stat st;
    if (stat(w->wal_path, &st) == 0)
        return target_exists(w->path, e);
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST)
        return target_exists(w->path, e);
    if (fd < 0)
        return err_set(e, ERR(STG, 10), "cannot create %s: %s", w->path, strerror(errno));
    close(fd);
    return 0;
}

static void writer_release(log_writer *w) {
    free(w->pending);
    arena_free(&w->texts);
    free(w->path);
    free(w->wal_path);
    free(w);
}

int log_writer_create(const char *path, const store_options *o, log_writer **out, err *e) {
    log_writer *w = calloc(1, sizeof *w);
    if (!w)
        return oom(e);
    arena_init(&w->texts);
    w->path = concat(path, "");
    w->wal_path = wal_path_for(path);
    int rc = w->path && w->wal_path ? create_target(w, e) : oom(e);
    if (rc == 0) {
        rc = store_open_file(path, o, &w->s, e);
        if (rc != 0) {
            unlink(w->path);
            unlink(w->wal_path);
        }
    }
    if (rc != 0) {
        writer_release(w);
        return rc;
    }
    *out = w;
    return 0;
}

static int finished_error(err *e) {
    return err_set(e, ERR(API, 18), "the log writer is already finished");
}

/* As transact would have written them (language.md §2.2, §4.2 item 8): keywords
 * the language can express (no spaces, dots, NUL...; the bare ':' is one),
 * no pseudo-attribute. */
static int check_names(const fact *f, err *e) {
    const value *a = &f->attribute;
    if (a->type == VT_KEYWORD && a->as.str.len > LEX_MAX_NAME)
        return 0; /* too long to store: WAL-003 (store_check_sizes) */
    if (a->type != VT_KEYWORD || !lex_is_keyword(a->as.str.ptr, a->as.str.len))
        return err_set(e, ERR(API, 17),
                       "record attribute must be a keyword the language can "
                       "write, such as \":a/b\" (a ':' then letters, digits, '/', '-', '_', '?')");
    if (write_is_pseudo_attribute(a->as.str.ptr, a->as.str.len))
        return err_set(e, ERR(API, 4), "cannot transact a pseudo-attribute: %.*s",
                       (int)a->as.str.len, a->as.str.ptr);
    if (f->v.type == VT_KEYWORD && f->v.as.str.len <= LEX_MAX_NAME &&
        !lex_is_keyword(f->v.as.str.ptr, f->v.as.str.len))
        return err_set(e, ERR(API, 17),
                       "record keyword value must be a keyword the language "
                       "can write (a ':' then letters, digits, '/', '-', '_', '?')");
    return 0;
}

static int check_record(const fact *f, uint64_t *last, err *e) {
    if (f->tx_count == 0)
        return err_set(e, ERR(API, 17), "record tx_count must be at least 1");
    if (f->tx_count > STORE_MAX_TX_COUNT)
        return store_tx_count_error(f->tx_count, e);
    if (f->tx_count < *last)
        return err_set(e, ERR(API, 17),
                       "record tx_count %llu is below the previous %llu: "
                       "records must come in non-decreasing tx_count order",
                       (unsigned long long)f->tx_count, (unsigned long long)*last);
    int rc = check_names(f, e);
    if (rc != 0)
        return rc;
    if (f->asserted && f->valid_to <= f->valid_from)
        return err_set(e, ERR(API, 17),
                       "record has an empty valid window: valid_to %lld is not "
                       "after valid_from %lld",
                       (long long)f->valid_to, (long long)f->valid_from);
    *last = f->tx_count;
    return store_check_sizes(f, e);
}

int log_writer_check(const log_writer *w, const fact *facts, size_t count, err *e) {
    if (w->finished)
        return finished_error(e);
    uint64_t last = w->counter;
    for (size_t i = 0; i < count; i++) {
        int rc = check_record(&facts[i], &last, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Commits the open transaction, if any. */
static int commit_open(log_writer *w, err *e) {
    if (w->counter == store_tx_count(w->s))
        return 0;
    int rc = store_commit(w->s, w->pending, w->pending_count, e);
    if (rc == 0) {
        w->pending_count = 0;
        arena_free(&w->texts);
    }
    return rc;
}

/* Makes `tx` (> counter) the open transaction: commits the open one, and
 * one counter jump for the numbers in between (empty transactions, one
 * record whatever the gap). */
static int open_transaction(log_writer *w, uint64_t tx, err *e) {
    if (tx > STORE_MAX_TX_COUNT)
        return store_tx_count_error(tx, e);
    int rc = commit_open(w, e);
    if (rc == 0 && tx - 1 > store_tx_count(w->s))
        rc = store_advance(w->s, tx - 1, e);
    if (rc == 0)
        w->counter = tx;
    return rc;
}

static int copy_text(log_writer *w, value *v, err *e) {
    if (v->type != VT_STRING && v->type != VT_KEYWORD)
        return 0;
    char *copy = arena_strndup(&w->texts, v->as.str.ptr, v->as.str.len);
    if (!copy)
        return oom(e);
    v->as.str.ptr = copy;
    return 0;
}

static int push_pending(log_writer *w, const fact *f, err *e) {
    if (!array_reserve(&w->pending, &w->pending_cap, w->pending_count + 1, sizeof *w->pending, 64))
        return oom(e);
    fact copy = *f;
    int rc = copy_text(w, &copy.attribute, e);
    if (rc == 0)
        rc = copy_text(w, &copy.v, e);
    if (rc == 0)
        w->pending[w->pending_count++] = copy;
    return rc;
}

int log_writer_append(log_writer *w, const fact *facts, size_t count, err *e) {
    int rc = log_writer_check(w, facts, count, e);
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (facts[i].tx_count > w->counter)
            rc = open_transaction(w, facts[i].tx_count, e);
        if (rc == 0)
            rc = push_pending(w, &facts[i], e);
    }
    return rc;
}

int log_writer_advance(log_writer *w, uint64_t tx_count, err *e) {
    if (w->finished)
        return finished_error(e);
    if (tx_count > STORE_MAX_TX_COUNT)
        return store_tx_count_error(tx_count, e);
    if (tx_count < w->counter)
        return err_set(e, ERR(API, 17), "cannot lower the transaction counter from %llu to %llu",
                       (unsigned long long)w->counter, (unsigned long long)tx_count);
    return tx_count > w->counter ? open_transaction(w, tx_count, e) : 0;
}

uint64_t log_writer_tx_count(const log_writer *w) {
    return w->counter;
}

int log_writer_finish(log_writer *w, err *e) {
    if (w->finished)
        return finished_error(e);
    int rc = commit_open(w, e);
    if (rc == 0)
        rc = store_checkpoint(w->s, e);
    if (rc != 0)
        return rc;
    store_close(w->s);
    w->s = NULL;
    w->finished = true;
    return 0;
}

bool log_writer_finished(const log_writer *w) {
    return w->finished;
}

void log_writer_free(log_writer *w) {
    if (!w)
        return;
    if (!w->finished) {
        store_abandon(w->s);
        unlink(w->path);
        unlink(w->wal_path);
    }
    writer_release(w);
}
