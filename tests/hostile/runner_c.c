/* runner_c.c — runs the hostile-input catalogue (one JSON file per case in tests/hostile/cases,
 * format in tests/hostile/README.md) against the C library.
 *
 *   runner_c <case.json | directory>...
 *
 * Prints one line per case and a closing "N passed, N failed, N
 * skipped" (a case whose "runners" leaves C out is skipped); exits
 * non-zero on any failure. Each case gets a scratch directory under /tmp;
 * after its steps, a database still open must answer a query and (unless
 * read-only) take a transaction: it stayed usable. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

#define PAGE 4096

static int run_steps(hostile *h, const jv *steps);

void hostile_fail(hostile *h, const char *step, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "  %s: step %s: ", h->name, step);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    h->failures++;
}

/* ---- texts ------------------------------------------------------------------ */

static void add_piece(sbuf *b, const jv *p, int *ok) {
    const jv *rep = jv_get(p, "repeat"), *times = jv_get(p, "times"), *hex = jv_get(p, "hex");
    if (p->kind == JV_STRING) {
        sb_add(b, p->text, p->len);
    } else if (rep && rep->kind == JV_STRING && times && times->kind == JV_NUMBER) {
        long long n = strtoll(times->text, NULL, 10);
        for (long long i = 0; i < n; i++)
            sb_add(b, rep->text, rep->len);
    } else if (hex && hex->kind == JV_STRING && hex->len % 2 == 0) {
        for (size_t i = 0; i < hex->len; i += 2) {
            char two[3] = {hex->text[i], hex->text[i + 1], 0};
            sb_putc(b, (char)strtol(two, NULL, 16));
        }
    } else {
        *ok = 0;
    }
}

char *hostile_text(const jv *v, size_t *len) {
    sbuf b = {0};
    int ok = 1;
    const jv *parts = v ? jv_get(v, "concat") : NULL;
    if (v == NULL)
        ok = 0;
    else if (parts && parts->kind == JV_ARRAY)
        for (size_t i = 0; i < parts->count; i++)
            add_piece(&b, &parts->items[i], &ok);
    else
        add_piece(&b, v, &ok);
    sb_putc(&b, '\0');
    if (!ok) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len - 1;
    return b.data;
}

/* ---- expectations ----------------------------------------------------------- */

/* "ok", a code ("PRS-004"), a family ("STG-*"), or a list of these; an
 * object picks by runner ("c", else "default"). */
static int matches_one(const jv *e, int code) {
    if (e->kind != JV_STRING)
        return 0;
    if (strcmp(e->text, "ok") == 0)
        return code == 0;
    const char *name = minigraf_error_code_name(code);
    if (name == NULL)
        return 0;
    if (e->len == 5 && e->text[4] == '*')
        return strncmp(name, e->text, 4) == 0;
    return strcmp(name, e->text) == 0;
}

static int expected(const jv *step, int code) {
    const jv *e = jv_get(step, "expect");
    if (e && e->kind == JV_OBJECT)
        e = jv_get(e, "c") ? jv_get(e, "c") : jv_get(e, "default");
    if (e == NULL)
        return code == 0;
    if (e->kind != JV_ARRAY)
        return matches_one(e, code);
    for (size_t i = 0; i < e->count; i++)
        if (matches_one(&e->items[i], code))
            return 1;
    return 0;
}

static int step_null_handle(const jv *step) {
    const jv *which = jv_get(step, "handle");
    return which && which->kind == JV_STRING && strcmp(which->text, "null") == 0;
}

/* The outcome of a call: its code must be expected and a failure must carry
 * "[NAME] " at the start of its message (a NULL handle has no message, by
 * the ABI's rule: *_last_error(NULL) is NULL). */
void hostile_outcome(hostile *h, const char *what, const jv *step, int code, const char *message) {
    const char *name = minigraf_error_code_name(code);
    if (getenv("HOSTILE_VERBOSE"))
        fprintf(stderr, "  %s: %s: %s %.160s\n", h->name, what, code ? (name ? name : "?") : "ok",
                message ? message : "");
    if (!expected(step, code))
        hostile_fail(h, what, "got %s (%s)", code ? (name ? name : "?") : "ok",
                     message ? message : "");
    if (code != 0 && !(message == NULL && code == MINIGRAF_E_API_017 && step_null_handle(step))) {
        char prefix[24];
        snprintf(prefix, sizeof prefix, "[%s] ", name ? name : "?");
        if (message == NULL || strncmp(message, prefix, strlen(prefix)) != 0)
            hostile_fail(h, what, "message without its code: %s", message ? message : "(null)");
    }
}

static const char *text_of(const jv *step, const char *key) {
    const jv *v = jv_get(step, key);
    return v && v->kind == JV_STRING ? v->text : NULL;
}

/* ---- opening ------------------------------------------------------------------ */

static const char *target_path(hostile *h, const char *target) {
    static char p[300];
    if (strcmp(target, "memory") == 0)
        return NULL;
    if (strcmp(target, "file") == 0)
        return h->path;
    if (strcmp(target, "directory") == 0)
        return h->dir;
    if (strcmp(target, "dev_null") == 0)
        return "/dev/null";
    if (strcmp(target, "missing_dir") == 0)
        snprintf(p, sizeof p, "%s/missing/db.graph", h->dir);
    else if (strcmp(target, "readonly_dir") == 0) {
        snprintf(p, sizeof p, "%s/ro", h->dir);
        mkdir(p, 0555);
        chmod(p, 0555);
        snprintf(p, sizeof p, "%s/ro/db.graph", h->dir);
    } else if (strcmp(target, "other") == 0)
        snprintf(p, sizeof p, "%s/other.graph", h->dir);
    else
        return "";
    return p;
}

static void close_db(hostile *h) {
    if (h->open)
        minigraf_close(h->db);
    h->open = 0;
}

static void open_db(hostile *h, const jv *step, const char *target) {
    close_db(h);
    sbuf options = {0};
    const jv *o = jv_get(step, "options");
    if (o)
        canon_value(&options, o);
    const char *path = target_path(h, target);
    snprintf(h->target, sizeof h->target, "%s", path ? path : "");
    MiniGrafDb *db = NULL;
    char *msg = NULL;
    int rc = minigraf_open_v2(path, options.data, &db, &msg);
    hostile_outcome(h, "open", step, rc, msg);
    minigraf_string_free(msg);
    if (rc == 0) {
        h->db = db;
        h->open = 1;
        h->read_only = options.data && strstr(options.data, "\"read_only\":true") != NULL;
    }
    sb_free(&options);
}

/* ---- running commands ----------------------------------------------------------- */

static MiniGrafDb *handle(hostile *h, const jv *step) {
    return step_null_handle(step) ? NULL : h->db;
}

static void execute(hostile *h, const jv *step) {
    size_t len;
    char *text = hostile_text(jv_get(step, "execute"), &len);
    if (text == NULL) {
        hostile_fail(h, "execute", "no text");
        return;
    }
    MiniGrafDb *db = handle(h, step);
    char *out = minigraf_execute(db, text);
    hostile_outcome(h, "execute", step, out ? 0 : minigraf_last_error_code(db),
                    out ? NULL : minigraf_last_error(db));
    minigraf_string_free(out);
    free(text);
}

/* The number of rows a query answers (-1 on error). */
static long long count_rows(MiniGrafDb *db, const char *query) {
    MiniGrafCursor *c = minigraf_query(db, query);
    if (c == NULL)
        return -1;
    long long n = 0;
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1)
        n++;
    minigraf_cursor_free(c);
    return rc == 0 ? n : -1;
}

/* {"count": query, "rows": n}: acknowledged data is all there. */
static void count(hostile *h, const jv *step) {
    const jv *rows = jv_get(step, "rows");
    long long want = rows && rows->kind == JV_NUMBER ? strtoll(rows->text, NULL, 10) : -2;
    long long got = count_rows(h->db, text_of(step, "count"));
    if (got != want)
        hostile_fail(h, "count", "%s: %lld rows, want %lld (%s)", text_of(step, "count"), got, want,
                     got < 0 ? minigraf_last_error(h->db) : "");
}

void hostile_fill(sbuf *b, const char *template, uint64_t n) {
    char digits[24];
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    b->len = 0;
    for (const char *p = template; *p;) {
        const char *next = strstr(p, "{n}");
        if (next == NULL) {
            sb_puts(b, p);
            break;
        }
        sb_add(b, p, (size_t)(next - p));
        sb_puts(b, digits);
        p = next + 3;
    }
}

/* {"transact_until_error": template with {n}, "max": n}: commits until one
 * fails, counting the acknowledged ones; the failure must be expected. */
static void transact_until_error(hostile *h, const jv *step) {
    const char *tpl = text_of(step, "transact_until_error");
    const jv *max = jv_get(step, "max");
    long long limit = max ? strtoll(max->text, NULL, 10) : 1000;
    const char *at = tpl ? strstr(tpl, "{n}") : NULL;
    if (at == NULL) {
        hostile_fail(h, "transact_until_error", "template without {n}");
        return;
    }
    sbuf b = {0};
    for (long long i = 0; i < limit; i++) {
        hostile_fill(&b, tpl, h->acked);
        char *out = minigraf_execute(h->db, b.data);
        if (out == NULL) {
            hostile_outcome(h, "transact_until_error", step, minigraf_last_error_code(h->db),
                            minigraf_last_error(h->db));
            sb_free(&b);
            return;
        }
        minigraf_string_free(out);
        h->acked++;
    }
    sb_free(&b);
    hostile_outcome(h, "transact_until_error", step, 0, NULL); /* never failed */
}

/* {"acked": query}: the query's one count equals the acknowledged total. */
static void acked(hostile *h, const jv *step) {
    char *out = minigraf_execute(h->db, text_of(step, "acked"));
    char want[64];
    snprintf(want, sizeof want, "\"results\":[[%llu]]", (unsigned long long)h->acked);
    if (h->acked == 0)
        snprintf(want, sizeof want, "\"results\":[");
    if (out == NULL || strstr(out, want) == NULL)
        hostile_fail(h, "acked", "%s, want %llu acknowledged",
                     out ? out : minigraf_last_error(h->db), (unsigned long long)h->acked);
    minigraf_string_free(out);
}

static int bind_kind(MiniGrafStmt *s, const char *slot, const char *kind, const jv *value) {
    size_t len = 0;
    char *text = value ? hostile_text(value, &len) : NULL;
    const char *v = text ? text : (value ? value->text : "");
    int rc;
    if (strcmp(kind, "string") == 0)
        rc = minigraf_stmt_bind_string(s, slot, text, len);
    else if (strcmp(kind, "keyword") == 0)
        rc = minigraf_stmt_bind_keyword(s, slot, v);
    else if (strcmp(kind, "entity") == 0)
        rc = minigraf_stmt_bind_entity(s, slot, v);
    else if (strcmp(kind, "int64") == 0)
        rc = minigraf_stmt_bind_int64(s, slot, strtoll(v, NULL, 10));
    else if (strcmp(kind, "double") == 0)
        rc = minigraf_stmt_bind_double(s, slot, strtod(v, NULL));
    else if (strcmp(kind, "bool") == 0)
        rc = minigraf_stmt_bind_bool(s, slot, value && value->kind == JV_TRUE);
    else if (strcmp(kind, "null") == 0)
        rc = minigraf_stmt_bind_null(s, slot);
    else if (strcmp(kind, "tx_count") == 0)
        rc = minigraf_stmt_bind_tx_count(s, slot, strtoull(v, NULL, 10));
    else if (strcmp(kind, "timestamp") == 0)
        rc = minigraf_stmt_bind_timestamp_ms(s, slot, strtoll(v, NULL, 10));
    else if (strcmp(kind, "any_valid_time") == 0)
        rc = minigraf_stmt_bind_any_valid_time(s, slot);
    else if (strcmp(kind, "json") == 0)
        rc = minigraf_stmt_bind_json(s, v);
    else
        rc = -1;
    free(text);
    return rc;
}

/* {"prepare": query, "bind": slot, "kind": k, "value": v, "expect": ...,
 *  "then": expectation of running it}. */
static void bind(hostile *h, const jv *step) {
    MiniGrafStmt *s = minigraf_prepare(h->db, text_of(step, "prepare"));
    if (s == NULL) {
        hostile_fail(h, "prepare", "%s", minigraf_last_error(h->db));
        return;
    }
    const char *kind = text_of(step, "kind");
    int rc = bind_kind(s, text_of(step, "bind"), kind ? kind : "", jv_get(step, "value"));
    if (rc < 0)
        hostile_fail(h, "bind", "unknown kind");
    else
        hostile_outcome(h, "bind", step, rc, minigraf_stmt_last_error(s));
    const jv *then = jv_get(step, "then");
    if (then != NULL) {
        char *out = minigraf_stmt_execute(s);
        jv wrap = {.kind = JV_OBJECT,
                   .count = 1,
                   .items = (jv *)then,
                   .keys = (char *[]){"expect"}};
        hostile_outcome(h, "bind then execute", &wrap, out ? 0 : minigraf_stmt_last_error_code(s),
                        out ? NULL : minigraf_stmt_last_error(s));
        minigraf_string_free(out);
    }
    minigraf_stmt_free(s);
}

/* ---- files and processes -------------------------------------------------------- */

static void wal_of(const char *path, char *out, size_t cap) {
    snprintf(out, cap, "%s.wal", path);
}

static void damage(hostile *h, const jv *step) {
    char wal[220];
    wal_of(h->path, wal, sizeof wal);
    const char *file = text_of(step, "file");
    if (hostile_damage(file && strcmp(file, "wal") == 0 ? wal : h->path, step) != 0)
        hostile_fail(h, "damage", "could not damage the file");
}

/* Runs `steps` in a forked child: "crash" ends it without closing (as a
 * killed process leaves its files), "file_size_limit" sets RLIMIT_FSIZE
 * (SIGXFSZ ignored: writes past it fail with EFBIG). The transactions the
 * child acknowledged are added to this case's count. */
static void child(hostile *h, const jv *step, int crash) {
    const jv *steps = jv_get(step, crash ? "crash" : "child");
    const jv *limit = jv_get(step, "file_size_limit");
    int fds[2];
    if (pipe(fds) != 0) {
        hostile_fail(h, "child", "pipe");
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (limit) {
            signal(SIGXFSZ, SIG_IGN);
            rlim_t n = (rlim_t)strtoull(limit->text, NULL, 10);
            struct rlimit r = {n, n};
            setrlimit(RLIMIT_FSIZE, &r);
        }
        hostile c = *h;
        c.open = 0;
        c.failures = 0;
        c.acked = 0;
        run_steps(&c, steps);
        if (!crash)
            close_db(&c);
        ssize_t w = write(fds[1], &c.acked, sizeof c.acked);
        (void)w;
        _exit(c.failures ? 1 : 0);
    }
    close(fds[1]);
    uint64_t n = 0;
    if (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
        h->acked += n;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        hostile_fail(h, "child", "the child process failed (status %d)", status);
}

/* A WAL of another database beside ours: written by a crashed child. */
static void foreign_wal(hostile *h) {
    char other[300], wal[320], ours[220];
    snprintf(other, sizeof other, "%s/foreign.graph", h->dir);
    pid_t pid = fork();
    if (pid == 0) {
        MiniGrafDb *db = minigraf_open(other);
        char *out = db ? minigraf_execute(db, "(transact [[:foreign :x/y 1]])") : NULL;
        _exit(out ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    wal_of(other, wal, sizeof wal);
    wal_of(h->path, ours, sizeof ours);
    if (status != 0 || hostile_copy(wal, ours) != 0)
        hostile_fail(h, "foreign_wal", "could not make another database's WAL");
}

/* {"each_page": {damage}, "steps": [...]}: for every page of the closed
 * database file, the steps run on a copy damaged there. */
static void each_page(hostile *h, const jv *step) {
    char keep[200], wal[220], keep_wal[220];
    close_db(h);
    snprintf(keep, sizeof keep, "%s/pristine", h->dir);
    wal_of(h->path, wal, sizeof wal);
    snprintf(keep_wal, sizeof keep_wal, "%s/pristine.wal", h->dir);
    hostile_copy(h->path, keep);
    hostile_copy(wal, keep_wal);
    long long pages = hostile_file_size(keep) / PAGE;
    const jv *how = jv_get(step, "each_page");
    const jv *offset = how ? jv_get(how, "offset") : NULL;
    long long within = offset ? strtoll(offset->text, NULL, 10) : 0;
    for (long long p = 0; p < pages && h->failures == 0; p++) {
        hostile_copy(keep, h->path);
        hostile_copy(keep_wal, wal);
        char at[32];
        snprintf(at, sizeof at, "%lld", p * PAGE + within);
        jv off = {.kind = JV_NUMBER, .text = at, .len = strlen(at)};
        jv none = {.kind = JV_NULL};
        jv items[3] = {*jv_get(how, "damage"), off,
                       jv_get(how, "bit") ? *jv_get(how, "bit") : none};
        jv spec = {.kind = JV_OBJECT,
                   .count = 3,
                   .items = items,
                   .keys = (char *[]){"damage", "offset", "bit"}};
        if (hostile_damage(h->path, &spec) != 0)
            hostile_fail(h, "each_page", "could not damage page %lld", p);
        run_steps(h, jv_get(step, "steps"));
        close_db(h);
    }
    hostile_copy(keep, h->path);
    hostile_copy(keep_wal, wal);
}

/* ---- the driver --------------------------------------------------------------------- */

static void run_step(hostile *h, const jv *step) {
    const char *open = text_of(step, "open");
    if (open)
        open_db(h, step, open);
    else if (jv_get(step, "reopen"))
        open_db(h, step, h->target[0] ? "file" : "memory");
    else if (jv_get(step, "close"))
        close_db(h);
    else if (jv_get(step, "execute"))
        execute(h, step);
    else if (jv_get(step, "count"))
        count(h, step);
    else if (jv_get(step, "prepare"))
        bind(h, step);
    else if (jv_get(step, "checkpoint")) {
        int rc = minigraf_checkpoint(h->db);
        hostile_outcome(h, "checkpoint", step, rc ? minigraf_last_error_code(h->db) : 0,
                        rc ? minigraf_last_error(h->db) : NULL);
    } else if (jv_get(step, "transact_until_error"))
        transact_until_error(h, step);
    else if (jv_get(step, "acked"))
        acked(h, step);
    else if (jv_get(step, "damage"))
        damage(h, step);
    else if (jv_get(step, "delete_wal")) {
        char wal[220];
        wal_of(h->path, wal, sizeof wal);
        unlink(wal);
    } else if (jv_get(step, "foreign_wal"))
        foreign_wal(h);
    else if (jv_get(step, "crash"))
        child(h, step, 1);
    else if (jv_get(step, "child"))
        child(h, step, 0);
    else if (jv_get(step, "each_page"))
        each_page(h, step);
    else if (jv_get(step, "close_during"))
        hostile_close_during(h, step);
    else
        hostile_fail(h, "?", "unknown step");
}

static int run_steps(hostile *h, const jv *steps) {
    if (steps == NULL || steps->kind != JV_ARRAY)
        return -1;
    for (size_t i = 0; i < steps->count; i++)
        run_step(h, &steps->items[i]);
    return 0;
}

/* Still usable: a query answers and, unless read-only, a commit lands. */
static void probe(hostile *h) {
    if (!h->open)
        return;
    long long before = count_rows(h->db, "(query [:find ?e :where [?e :hostile/probe _]])");
    if (before < 0) {
        hostile_fail(h, "probe", "query: %s", minigraf_last_error(h->db));
        return;
    }
    if (h->read_only)
        return;
    char *out = minigraf_execute(h->db, "(transact [[:hostile-probe :hostile/probe 1]])");
    if (out == NULL) {
        hostile_fail(h, "probe", "transact: %s", minigraf_last_error(h->db));
        return;
    }
    minigraf_string_free(out);
    if (count_rows(h->db, "(query [:find ?e :where [?e :hostile/probe _]])") != 1)
        hostile_fail(h, "probe", "the probe fact is missing");
}

static void run_case_here(hostile *h, const jv *c) {
    if (run_steps(h, jv_get(c, "steps")) != 0)
        hostile_fail(h, "-", "no \"steps\" array");
    const jv *usable = jv_get(c, "usable");
    if (!(usable && usable->kind == JV_FALSE))
        probe(h);
    close_db(h);
}

/* Permission cases mean nothing to root: run them as nobody. */
static void run_case_unprivileged(hostile *h, const jv *c) {
    chmod(h->dir, 0777);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(2);
        run_case_here(h, c);
        _exit(h->failures ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        hostile_fail(h, "-", "unprivileged run failed (status %d)", status);
}

static int run_case(const char *file) {
    FILE *f = fopen(file, "rb");
    if (f == NULL)
        return fprintf(stderr, "cannot read %s\n", file), 1;
    sbuf text = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&text, buf, n);
    fclose(f);
    jv c;
    if (jv_parse(text.data, &c) != 0) {
        sb_free(&text);
        return fprintf(stderr, "FAIL %s: not JSON\n", file), 1;
    }
    sb_free(&text);
    const jv *runners = jv_get(&c, "runners");
    int mine = runners == NULL;
    for (size_t i = 0; runners && i < runners->count; i++)
        mine |= runners->items[i].kind == JV_STRING && strcmp(runners->items[i].text, "c") == 0;
    hostile h = {.name = text_of(&c, "name") ? text_of(&c, "name") : file};
    if (mine) {
        strcpy(h.dir, "/tmp/minigraf-hostile-XXXXXX");
        if (mkdtemp(h.dir) == NULL)
            return perror("mkdtemp"), 1;
        snprintf(h.path, sizeof h.path, "%s/db.graph", h.dir);
        const jv *unpriv = jv_get(&c, "unprivileged");
        if (unpriv && unpriv->kind == JV_TRUE && geteuid() == 0)
            run_case_unprivileged(&h, &c);
        else
            run_case_here(&h, &c);
        hostile_remove_dir(h.dir);
    }
    printf("%s %s\n", !mine ? "skip" : h.failures ? "FAIL" : "ok", h.name);
    jv_free(&c);
    return !mine ? 2 : h.failures ? 1 : 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json of a directory, in name order. */
static void tally(int rc, int *counts) {
    counts[rc]++;
}

static int run_dir(const char *dir, int *counts) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    char *names[1024];
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 1024) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
            names[count] = malloc(strlen(dir) + l + 2);
            sprintf(names[count++], "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        tally(run_case(names[i]), counts);
        free(names[i]);
    }
    return 0;
}

int main(int argc, char **argv) {
    int counts[3] = {0}; /* passed, failed, skipped */
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(argv[i], counts);
        else
            tally(run_case(argv[i]), counts);
    }
    printf("%d passed, %d failed, %d skipped\n", counts[0], counts[1], counts[2]);
    return counts[1] == 0 && counts[0] > 0 ? 0 : 1;
}
