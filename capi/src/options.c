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

static int read_positive(reader *r, const char *key, int64_t *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(r->p, &end, 10);
    if (end == r->p || *end == '.' || *end == 'e' || *end == 'E' || errno || n < 1)
        return err_set(r->e, ERR(API, 17), "option \"%s\" must be an integer >= 1", key);
    *out = n;
    r->p = end;
    return 0;
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
    if (strcmp(key, "read_only") == 0)
        return read_bool(r, key, &o->read_only);
    if (strcmp(key, "max_derived_facts") == 0)
        return read_positive(r, key, &o->max_derived_facts);
    if (strcmp(key, "max_results") == 0)
        return read_positive(r, key, &o->max_results);
    return err_set(r->e, ERR(API, 17), "unknown option \"%s\"", key);
}

int options_parse(const char *json, db_options *o, err *e)
{
    if (!json)
        return 0;
    reader r = {json, e};
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
