#include "options.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A reader for exactly what options need: one flat object whose values are
 * booleans, integers, strings or null. */
typedef struct reader {
    const char *p;
    err *e;
    bool log_writer; /* only the options that shape a new file apply */
} reader;

static void skip_space(reader *r)
{
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

static int fail(reader *r, const char *what)
{
    return err_set(r->e, ERR(API, 17), "invalid options JSON: %s", what);
}

/* Reads a plain string (escapes other than \" and \\ are not needed by any
 * option) into key[cap]. */
static int read_string(reader *r, char *key, size_t cap)
{
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

static int read_bool(reader *r, const char *key, bool *out)
{
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

static int read_at_least(reader *r, const char *key, long long min, int64_t *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(r->p, &end, 10);
    if (end == r->p || *end == '.' || *end == 'e' || *end == 'E' || errno || n < min)
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be an integer >= %lld", key, min);
    *out = n;
    r->p = end;
    return 0;
}

static int read_positive(reader *r, const char *key, int64_t *out)
{
    return read_at_least(r, key, 1, out);
}

static int read_sync(reader *r, const char *key, store_sync *out)
{
    char text[16];
    if (*r->p != '"' || read_string(r, text, sizeof text) != 0 ||
        (strcmp(text, "full") != 0 && strcmp(text, "normal") != 0))
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be \"full\" or \"normal\"", key);
    *out = strcmp(text, "full") == 0 ? STORE_SYNC_FULL : STORE_SYNC_NORMAL;
    return 0;
}

/* The storage options (store.h). */
static int read_store_member(reader *r, const char *key, store_options *s)
{
    int64_t n = 0;
    int rc;
    if (strcmp(key, "read_only") == 0)
        return read_bool(r, key, &s->read_only);
    if (strcmp(key, "allow_unlocked") == 0)
        return read_bool(r, key, &s->allow_unlocked);
    if (strcmp(key, "synchronous") == 0)
        return read_sync(r, key, &s->sync);
    if (strcmp(key, "page_cache_size") == 0) {
        rc = read_positive(r, key, &n);
        s->page_cache_size = (size_t)n;
        return rc;
    }
    if (strcmp(key, "wal_checkpoint_threshold") == 0) {
        rc = read_at_least(r, key, 0, &n);
        s->wal_checkpoint_threshold = (uint64_t)n;
        return rc;
    }
    return err_set(r->e, ERR(API, 17), "unknown option \"%s\"", key);
}

static int read_member(reader *r, db_options *o)
{
    char key[64];
    if (read_string(r, key, sizeof key))
        return r->e->code;
    skip_space(r);
    if (*r->p++ != ':')
        return fail(r, "expected ':'");
    skip_space(r);
    if (r->log_writer && strcmp(key, "synchronous") != 0 && strcmp(key, "page_cache_size") != 0 &&
        strcmp(key, "wal_checkpoint_threshold") != 0)
        return err_set(r->e, ERR(API, 17), "unknown log writer option \"%s\"", key);
    if (strcmp(key, "max_derived_facts") == 0)
        return read_positive(r, key, &o->max_derived_facts);
    if (strcmp(key, "max_results") == 0)
        return read_positive(r, key, &o->max_results);
    if (strcmp(key, "query_memory_limit") == 0)
        return read_at_least(r, key, 0, &o->query_memory_limit);
    if (strcmp(key, "query_timeout_ms") == 0)
        return read_at_least(r, key, 0, &o->query_timeout_ms);
    return read_store_member(r, key, &o->store);
}

static int parse_object(const char *json, db_options *o, bool log_writer, err *e)
{
    if (!json)
        return 0;
    reader r = {json, e, log_writer};
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

int options_parse(const char *json, db_options *o, err *e)
{
    return parse_object(json, o, false, e);
}

int options_parse_log_writer(const char *json, store_options *o, err *e)
{
    db_options all;
    db_options_default(&all);
    all.store = *o;
    int rc = parse_object(json, &all, true, e);
    *o = all.store;
    return rc;
}
