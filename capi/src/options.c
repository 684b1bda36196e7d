#include "options.h"

#include <pthread.h>

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "json_write.h"
#include "minigraf.h"

/* A reader for exactly what options need: one flat object whose values are
 * booleans, integers, strings or null. */
#define OPTIONS_MAX_SEEN 32 /* more members than options: one is unknown or repeated */

typedef struct reader {
    const char *p;
    err *e;
    bool log_writer;                 /* only the options that shape a new file apply */
    char seen[OPTIONS_MAX_SEEN][64]; /* the keys read so far */
    size_t seen_count;
} reader;

static void skip_space(reader *r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

static int fail(reader *r, const char *what) {
    return err_set(r->e, ERR(API, 17), "invalid options JSON: %s", what);
}

/* Reads a plain string (escapes other than \" and \\ are not needed by any
 * option) into key[cap]. */
static int read_string(reader *r, char *key, size_t cap) {
    if (*r->p != '"')
        return fail(r, "expected a string");
    r->p++;
    size_t n = 0;
    while (*r->p != '"') {
        if (*r->p == '\0' || n + 1 >= cap)
            return fail(r, "unterminated or overlong string");
        if (*r->p == '\\' && (r->p[1] == '"' || r->p[1] == '\\'))
            r->p++;
        key[n++] = *r->p++;
    }
    key[n] = '\0';
    r->p++;
    return 0;
}

static int read_bool(reader *r, const char *key, bool *out) {
    if (strncmp(r->p, "true", 4) == 0) {
        *out = true;
        r->p += 4;
    } else if (strncmp(r->p, "false", 5) == 0) {
        *out = false;
        r->p += 5;
    } else {
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be a boolean", key);
    }
    return 0;
}

/* A JSON integer (RFC 8259): an optional '-', then 0 or a digit 1-9 and
 * more digits; strtoll alone would also take "+5" and "05". */
static bool json_integer_start(const char *p) {
    if (*p == '-')
        p++;
    return (*p >= '1' && *p <= '9') || (*p == '0' && !(p[1] >= '0' && p[1] <= '9'));
}

static int read_at_least(reader *r, const char *key, long long min, int64_t *out) {
    if (!json_integer_start(r->p))
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be an integer >= %lld", key, min);
    char *end;
    errno = 0;
    long long n = strtoll(r->p, &end, 10);
    if (end == r->p || *end == '.' || *end == 'e' || *end == 'E' || errno || n < min)
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be an integer >= %lld", key, min);
    *out = n;
    r->p = end;
    return 0;
}

static int read_sync(reader *r, const char *key, store_sync *out) {
    char text[16];
    if (*r->p != '"' || read_string(r, text, sizeof text) != 0 ||
        (strcmp(text, "full") != 0 && strcmp(text, "normal") != 0))
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be \"full\" or \"normal\"", key);
    *out = strcmp(text, "full") == 0 ? STORE_SYNC_FULL : STORE_SYNC_NORMAL;
    return 0;
}

static int read_recover(reader *r, const char *key, bool *out) {
    char text[16];
    if (*r->p != '"' || read_string(r, text, sizeof text) != 0 || strcmp(text, "truncate_wal") != 0)
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be \"truncate_wal\"", key);
    *out = true;
    return 0;
}

/* ---- the table -------------------------------------------------------------
 * Every open option, once: its name, JSON type, default, range, meaning,
 * which opens take it, and the db_options field it sets. The parser, the
 * log writer's subset and minigraf_options_describe all read this table;
 * minigraf.h (minigraf_open_with_options) and docs/c-api.md ("Open
 * options") list the same names (tests/c/test_options.c checks). */

typedef enum option_kind { OPT_BOOL, OPT_INT, OPT_SYNC, OPT_RECOVER } option_kind;
typedef enum field_kind { FIELD_BOOL, FIELD_SIZE, FIELD_U64, FIELD_I64, FIELD_SYNC } field_kind;

#define FOR_OPEN 1u
#define FOR_LOG_WRITER 2u

typedef struct option_def {
    const char *name;
    option_kind kind;
    long long min;                                      /* OPT_INT */
    const char *default_json, *log_writer_default_json; /* the latter NULL: the same */
    unsigned opens;
    size_t offset; /* in db_options */
    field_kind field;
    const char *meaning;
} option_def;

#define AT(f) offsetof(db_options, f)

static const option_def OPTIONS[] = {
    {"read_only", OPT_BOOL, 0, "false", NULL, FOR_OPEN, AT(store.read_only), FIELD_BOOL,
     "writes fail with API-014; the file lock is shared, so read-only opens in several "
     "processes coexist, never with a writer (STG-026)"},
    {"allow_unlocked", OPT_BOOL, 0, "false", NULL, FOR_OPEN, AT(store.allow_unlocked), FIELD_BOOL,
     "where the filesystem cannot lock files (STG-027), open without the inter-process lock"},
    {"page_cache_size", OPT_INT, 1, "4096", NULL, FOR_OPEN | FOR_LOG_WRITER,
     AT(store.page_cache_size), FIELD_SIZE, "pages of 4096 bytes kept in the LRU page cache"},
    {"wal_checkpoint_threshold", OPT_INT, 0, "100000", NULL, FOR_OPEN | FOR_LOG_WRITER,
     AT(store.wal_checkpoint_threshold), FIELD_U64,
     "facts pending in <path>.wal that trigger a checkpoint after a commit, as do 4096000 "
     "bytes of it (1000 pages); 0: only explicit checkpoints and close"},
    {"synchronous", OPT_SYNC, 0, "\"full\"", "\"normal\"", FOR_OPEN | FOR_LOG_WRITER,
     AT(store.sync), FIELD_SYNC,
     "\"full\": each commit's WAL frame is fsync'd before the call returns; \"normal\": synced "
     "at checkpoint and close only (a commit survives a process crash, maybe not a power "
     "failure; never torn)"},
    {"recover", OPT_RECOVER, 0, "null", NULL, FOR_OPEN, AT(store.recover_truncate_wal), FIELD_BOOL,
     "\"truncate_wal\": open a database whose WAL is corrupt (STG-045) by dropping the WAL from "
     "the damaged frame on, knowingly losing the commits the STG-045 message counts"},
    {"history_index", OPT_BOOL, 0, "false", NULL, FOR_OPEN | FOR_LOG_WRITER,
     AT(store.history_index), FIELD_BOOL,
     "keep the history index: reads of one entity and attribute cost the same at any history "
     "depth, each write costs more and the file grows; a file keeps the choice it was made "
     "with, true builds the index in a file without it at a read-write open"},
    {"max_derived_facts", OPT_INT, 1, "1000000", NULL, FOR_OPEN, AT(max_derived_facts), FIELD_I64,
     "rule evaluation limit (language.md §9.6)"},
    {"max_results", OPT_INT, 1, "1000000", NULL, FOR_OPEN, AT(max_results), FIELD_I64,
     "rule evaluation limit (language.md §9.6)"},
    {"query_memory_limit", OPT_INT, 0, "1073741824", NULL, FOR_OPEN, AT(query_memory_limit),
     FIELD_I64,
     "bytes one query may hold before it fails with QRY-012 (language.md §8.14); 0: unlimited"},
    {"busy_timeout_ms", OPT_INT, 0, "5000", NULL, FOR_OPEN, AT(busy_timeout_ms), FIELD_I64,
     "milliseconds a writer waits for another thread's write transaction before API-020"},
    {"query_timeout_ms", OPT_INT, 0, "0", NULL, FOR_OPEN, AT(query_timeout_ms), FIELD_I64,
     "milliseconds a statement may run before it is interrupted (API-013); 0: no limit"},
};
#define OPTION_COUNT (sizeof OPTIONS / sizeof OPTIONS[0])

static const option_def *find_option(const char *name) {
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (strcmp(OPTIONS[i].name, name) == 0)
            return &OPTIONS[i];
    return NULL;
}

static void set_field(db_options *o, const option_def *d, int64_t n) {
    char *at = (char *)o + d->offset;
    switch (d->field) {
    case FIELD_BOOL: *(bool *)(void *)at = n != 0; break;
    case FIELD_SIZE: *(size_t *)(void *)at = (size_t)n; break;
    case FIELD_U64: *(uint64_t *)(void *)at = (uint64_t)n; break;
    case FIELD_I64: *(int64_t *)(void *)at = n; break;
    case FIELD_SYNC: *(store_sync *)(void *)at = n ? STORE_SYNC_FULL : STORE_SYNC_NORMAL; break;
    }
}

static int read_value(reader *r, const option_def *d, db_options *o) {
    int64_t n = 0;
    int rc = 0;
    if (d->kind == OPT_BOOL) {
        bool b = false;
        rc = read_bool(r, d->name, &b);
        n = b;
    } else if (d->kind == OPT_RECOVER) {
        bool b = false;
        rc = read_recover(r, d->name, &b);
        n = b;
    } else if (d->kind == OPT_INT) {
        rc = read_at_least(r, d->name, d->min, &n);
    } else {
        store_sync sync = STORE_SYNC_FULL;
        rc = read_sync(r, d->name, &sync);
        n = sync == STORE_SYNC_FULL;
    }
    if (rc == 0)
        set_field(o, d, n);
    return rc;
}

/* Each option once: a repeated key would silently win or lose. */
static int claim_key(reader *r, const char *key) {
    for (size_t i = 0; i < r->seen_count; i++)
        if (strcmp(r->seen[i], key) == 0)
            return err_set(r->e, ERR(API, 17), "option \"%s\" given twice", key);
    if (r->seen_count == OPTIONS_MAX_SEEN)
        return err_set(r->e, ERR(API, 17), "invalid options JSON: too many members");
    strcpy(r->seen[r->seen_count++], key);
    return 0;
}

static int read_member(reader *r, db_options *o) {
    char key[64];
    if (read_string(r, key, sizeof key) || claim_key(r, key))
        return r->e->code;
    skip_space(r);
    if (*r->p++ != ':')
        return fail(r, "expected ':'");
    skip_space(r);
    const option_def *d = find_option(key);
    if (r->log_writer && (!d || !(d->opens & FOR_LOG_WRITER)))
        return err_set(r->e, ERR(API, 17), "unknown log writer option \"%s\"", key);
    if (!d)
        return err_set(r->e, ERR(API, 17), "unknown option \"%s\"", key);
    return read_value(r, d, o);
}

static int parse_object(const char *json, db_options *o, bool log_writer, err *e) {
    if (!json)
        return 0;
    reader r = {.p = json, .e = e, .log_writer = log_writer};
    skip_space(&r);
    if (*r.p++ != '{')
        return fail(&r, "expected an object");
    skip_space(&r);
    if (*r.p == '}')
        r.p++;
    else
        for (;;) {
            if (read_member(&r, o))
                return e->code;
            skip_space(&r);
            if (*r.p == '}') {
                r.p++;
                break;
            }
            if (*r.p++ != ',')
                return fail(&r, "expected ',' or '}'");
            skip_space(&r);
        }
    skip_space(&r);
    if (*r.p != '\0')
        return fail(&r, "trailing characters after the object");
    return 0;
}

int options_parse(const char *json, db_options *o, err *e) {
    return parse_object(json, o, false, e);
}

int options_parse_log_writer(const char *json, store_options *o, err *e) {
    db_options all;
    db_options_default(&all);
    all.store = *o;
    int rc = parse_object(json, &all, true, e);
    *o = all.store;
    return rc;
}

/* ---- minigraf_options_describe ---------------------------------------------- */

static void describe_option(buf *out, const option_def *d) {
    static const char *const types[] = {"bool", "int", "string", "string"};
    buf_puts(out, "{\"name\":");
    json_write_string(out, d->name, strlen(d->name));
    buf_printf(out, ",\"type\":\"%s\"", types[d->kind]);
    if (d->kind == OPT_INT)
        buf_printf(out, ",\"min\":%lld", d->min);
    if (d->kind == OPT_SYNC)
        buf_puts(out, ",\"values\":[\"full\",\"normal\"]");
    if (d->kind == OPT_RECOVER)
        buf_puts(out, ",\"values\":[\"truncate_wal\"]");
    buf_printf(out, ",\"default\":%s", d->default_json);
    if (d->log_writer_default_json)
        buf_printf(out, ",\"log_writer_default\":%s", d->log_writer_default_json);
    buf_puts(out, ",\"for\":[");
    if (d->opens & FOR_OPEN)
        buf_puts(out, "\"open\"");
    if (d->opens & FOR_LOG_WRITER)
        buf_puts(out, d->opens & FOR_OPEN ? ",\"log_writer\"" : "\"log_writer\"");
    buf_puts(out, "],\"meaning\":");
    json_write_string(out, d->meaning, strlen(d->meaning));
    buf_putc(out, '}');
}

static char described[8192];
static pthread_once_t describe_once = PTHREAD_ONCE_INIT;

static void describe_all(void) {
    buf out;
    buf_init(&out);
    buf_putc(&out, '[');
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        if (i)
            buf_putc(&out, ',');
        describe_option(&out, &OPTIONS[i]);
    }
    buf_putc(&out, ']');
    if (!out.oom && out.len < sizeof described)
        memcpy(described, out.data, out.len + 1);
    buf_free(&out);
}

const char *minigraf_options_describe(void) {
    pthread_once(&describe_once, describe_all);
    return described[0] ? described : NULL;
}
