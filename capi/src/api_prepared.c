/* minigraf.h: prepared queries (language.md §13) over db/prepared.h. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "db/prepared.h"
#include "db_calls.h"
#include "handles.h"
#include "json_read.h"
#include "json_write.h"
#include "record_json.h"

/* A statement keeps its database struct alive (api_db_retain), not its
 * engine: once the database is closed, every call but free fails. */
struct MiniGrafStmt {
    MiniGrafDb *db;
    prepared *p;
    err last;
};

static int stmt_error(MiniGrafDb *h, err *e) {
    if (e->code)
        return thread_errors_set(&h->errors, e);
    thread_errors_clear(&h->errors);
    return 0;
}

MiniGrafStmt *minigraf_prepare(MiniGrafDb *h, const char *text) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    size_t len = 0;
    prepared *p = NULL;
    MiniGrafStmt *s = NULL;
    if (api_check_text_len(text, "text", &len, &e) == 0 && prepared_new(text, len, &p, &e) == 0) {
        s = malloc(sizeof *s);
        if (s && handles_add(s, HANDLE_STMT)) {
            *s = (MiniGrafStmt){.db = h, .p = p};
            api_db_retain(h);
        } else {
            free(s);
            s = NULL;
            prepared_free(p);
            err_set(&e, ERR(INT, 0), "out of memory");
        }
    }
    stmt_error(h, &e);
    api_db_leave(h);
    return s;
}

/* ---- calls on a statement ------------------------------------------------------
 * Each runs as a call on its database (api_db_enter), so a close waits
 * for it; a closed database fails the call with API-018. */

static int bad_handle(const MiniGrafStmt *s) {
    return s ? ERR(API, 18) : ERR(API, 17);
}

static bool stmt_begin(MiniGrafStmt *s) {
    if (!handles_live(s, HANDLE_STMT))
        return false;
    err_clear(&s->last);
    if (api_db_enter_held(s->db) == 0)
        return true;
    err_set(&s->last, ERR(API, 18), "the statement's database was closed");
    return false;
}

static int stmt_end(MiniGrafStmt *s) {
    api_db_leave(s->db);
    return s->last.code;
}

/* A slot name, without its '$' (a leading one is dropped). */
static int slot_name(const char *name, const char **out, size_t *len, err *e) {
    int rc = api_check_text_len(name, "name", len, e);
    if (rc == 0 && *name == '$')
        name++, (*len)--;
    *out = name;
    return rc;
}

static int bind(MiniGrafStmt *s, const char *name, bind_value v) {
    if (!stmt_begin(s))
        return handles_live(s, HANDLE_STMT) ? s->last.code : bad_handle(s);
    const char *n;
    size_t len;
    if (slot_name(name, &n, &len, &s->last) == 0)
        prepared_bind(s->p, n, len, &v, &s->last);
    return stmt_end(s);
}

static bind_value val(value v) {
    return (bind_value){.kind = BIND_VAL, .val = v};
}

/* An early failure of a setter (a bad argument), with the handle checked. */
static int refuse(MiniGrafStmt *s, const char *why) {
    if (!stmt_begin(s))
        return handles_live(s, HANDLE_STMT) ? s->last.code : bad_handle(s);
    err_set(&s->last, ERR(API, 17), "%s", why);
    return stmt_end(s);
}

#define UUID_WANTED "uuid_text must be a UUID such as \"e340ebba-e050-5d3b-8c2e-5388ce184a79\""

/* An Entity's or a Val(ref)'s `uuid_text` argument as a UUID. */
static bool uuid_arg(const char *uuid_text, uuid128 *u) {
    return uuid_text && uuid_parse(uuid_text, strlen(uuid_text), u);
}

int minigraf_stmt_bind_entity(MiniGrafStmt *s, const char *name, const char *uuid_text) {
    uuid128 u;
    if (!uuid_arg(uuid_text, &u))
        return refuse(s, UUID_WANTED);
    return bind(s, name, (bind_value){.kind = BIND_ENTITY, .val = value_ref(u)});
}

int minigraf_stmt_bind_ref(MiniGrafStmt *s, const char *name, const char *uuid_text) {
    uuid128 u;
    if (!uuid_arg(uuid_text, &u))
        return refuse(s, UUID_WANTED);
    return bind(s, name, val(value_ref(u)));
}

int minigraf_stmt_bind_keyword(MiniGrafStmt *s, const char *name, const char *text) {
    if (!text || !utf8_valid(text, strlen(text)))
        return refuse(s, "keyword text must be valid UTF-8, not NULL");
    return bind(s, name, val(value_keyword(text, strlen(text))));
}

int minigraf_stmt_bind_string(MiniGrafStmt *s, const char *name, const char *text, size_t len) {
    if ((!text && len) || (text && !utf8_valid(text, len)))
        return refuse(s, "string text must be valid UTF-8 (NULL only with length 0)");
    return bind(s, name, val(value_string(text ? text : "", len)));
}

int minigraf_stmt_bind_int64(MiniGrafStmt *s, const char *name, int64_t v) {
    return bind(s, name, val(value_integer(v)));
}

int minigraf_stmt_bind_double(MiniGrafStmt *s, const char *name, double v) {
    return bind(s, name, val(value_float(v)));
}

int minigraf_stmt_bind_bool(MiniGrafStmt *s, const char *name, int v) {
    return bind(s, name, val(value_boolean(v != 0)));
}

int minigraf_stmt_bind_null(MiniGrafStmt *s, const char *name) {
    return bind(s, name, val(value_null()));
}

int minigraf_stmt_bind_tx_count(MiniGrafStmt *s, const char *name, uint64_t tx_count) {
    /* beyond INT64_MAX a counter means "every transaction", as INT64_MAX does */
    int64_t n = tx_count > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)tx_count;
    return bind(s, name, (bind_value){.kind = BIND_TX_COUNT, .number = n});
}

int minigraf_stmt_bind_timestamp_ms(MiniGrafStmt *s, const char *name, int64_t ms) {
    return bind(s, name, (bind_value){.kind = BIND_TIMESTAMP, .number = ms});
}

int minigraf_stmt_bind_any_valid_time(MiniGrafStmt *s, const char *name) {
    return bind(s, name, (bind_value){.kind = BIND_ANY_VALID_TIME});
}

/* ---- bind_json -------------------------------------------------------------------- */

static int bad_bind(err *e, const json_node *m, const char *why) {
    return err_set(e, ERR(API, 17), "invalid binds JSON: \"%s\" %s", m->key, why);
}

static bool is_integer_text(const json_node *n) {
    return n->kind == JSON_NUMBER && !memchr(n->text, '.', n->len) &&
           !memchr(n->text, 'e', n->len) && !memchr(n->text, 'E', n->len);
}

/* {"val": V}: a typed value, or a plain JSON scalar. */
static int read_val(const json_node *m, const json_node *v, value *out, err *e) {
    int64_t i;
    double f;
    switch (v->kind) {
    case JSON_OBJECT:
        if (typed_value_from_json(v, out))
            return 0;
        return bad_bind(e, m,
                        "has a \"val\" object that is not a typed value "
                        "{\"type\": \"keyword\", \"value\": \":a\"}");
    case JSON_STRING: *out = value_string(v->text, v->len); return 0;
    case JSON_BOOL: *out = value_boolean(v->boolean); return 0;
    case JSON_NULL: *out = value_null(); return 0;
    case JSON_NUMBER:
        if (is_integer_text(v)) {
            if (!json_as_int64(v, &i))
                return bad_bind(e, m, "has an integer \"val\" out of the 64-bit range");
            *out = value_integer(i);
        } else {
            if (!json_as_double(v, &f))
                return bad_bind(e, m, "has a float \"val\" out of the double range");
            *out = value_float(f);
        }
        return 0;
    case JSON_ARRAY: break;
    }
    return bad_bind(e, m, "has a \"val\" that is neither a typed value nor a JSON scalar");
}

/* One member {"<slot>": {"<kind>": ...}} as a bind value. */
static int read_bind(const json_node *m, bind_value *out, err *e) {
    if (m->kind != JSON_OBJECT || m->count != 1)
        return bad_bind(e, m,
                        "must be an object with one key: \"entity\", \"val\", \"tx_count\", "
                        "\"timestamp\" or \"any_valid_time\"");
    const json_node *v = m->first;
    uint64_t u;
    *out = (bind_value){0};
    if (strcmp(v->key, "entity") == 0) {
        uuid128 id;
        if (v->kind != JSON_STRING || !uuid_parse(v->text, v->len, &id))
            return bad_bind(e, m, "has an \"entity\" that is not a UUID string");
        *out = (bind_value){.kind = BIND_ENTITY, .val = value_ref(id)};
    } else if (strcmp(v->key, "val") == 0) {
        out->kind = BIND_VAL;
        return read_val(m, v, &out->val, e);
    } else if (strcmp(v->key, "tx_count") == 0) {
        if (!json_as_uint64(v, &u))
            return bad_bind(e, m, "has a \"tx_count\" that is not an unsigned 64-bit integer");
        *out = (bind_value){.kind = BIND_TX_COUNT,
                            .number = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u};
    } else if (strcmp(v->key, "timestamp") == 0) {
        if (!json_as_int64(v, &out->number))
            return bad_bind(e, m, "has a \"timestamp\" that is not a 64-bit integer (ms)");
        out->kind = BIND_TIMESTAMP;
    } else if (strcmp(v->key, "any_valid_time") == 0) {
        if (v->kind != JSON_BOOL || !v->boolean)
            return bad_bind(e, m, "has an \"any_valid_time\" that is not true");
        out->kind = BIND_ANY_VALID_TIME;
    } else {
        return bad_bind(e, m,
                        "has an unknown kind (expected \"entity\", \"val\", \"tx_count\", "
                        "\"timestamp\" or \"any_valid_time\")");
    }
    return 0;
}

/* Every member decoded and checked before any is bound: all or nothing. */
static int bind_all(prepared *p, const json_node *root, arena *a, err *e) {
    if (root->kind != JSON_OBJECT)
        return err_set(e, ERR(API, 17), "invalid binds JSON: must be an object {\"slot\": {...}}");
    bind_value *vals = arena_alloc(a, (root->count ? root->count : 1) * sizeof *vals);
    if (!vals)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t i = 0;
    int rc = 0;
    for (const json_node *m = root->first; m && rc == 0; m = m->next, i++) {
        rc = read_bind(m, &vals[i], e);
        if (rc == 0)
            rc = prepared_check(p, m->key, m->key_len, &vals[i], e);
    }
    i = 0;
    for (const json_node *m = root->first; m && rc == 0; m = m->next, i++)
        rc = prepared_bind(p, m->key, m->key_len, &vals[i], e);
    return rc;
}

int minigraf_stmt_bind_json(MiniGrafStmt *s, const char *binds) {
    if (!stmt_begin(s))
        return handles_live(s, HANDLE_STMT) ? s->last.code : bad_handle(s);
    arena a;
    arena_init(&a);
    json_node *root = NULL;
    if (api_check_text(binds, "binds", &s->last) == 0 &&
        json_parse(binds, "binds", &a, &root, &s->last) == 0)
        bind_all(s->p, root, &a, &s->last);
    arena_free(&a);
    return stmt_end(s);
}

int minigraf_stmt_clear_bindings(MiniGrafStmt *s) {
    if (!stmt_begin(s))
        return handles_live(s, HANDLE_STMT) ? s->last.code : bad_handle(s);
    prepared_clear(s->p, &s->last);
    return stmt_end(s);
}

/* ---- running ---------------------------------------------------------------------- */

static char *render_query(const result_set *r) {
    buf out;
    buf_init(&out);
    buf_puts(&out, "{\"variables\":");
    json_write_columns(&out, r);
    buf_puts(&out, ",\"results\":");
    json_write_rows(&out, r, 0, result_row_count(r), 0);
    buf_putc(&out, '}');
    return buf_detach(&out);
}

char *minigraf_stmt_execute(MiniGrafStmt *s) {
    if (!stmt_begin(s))
        return NULL;
    result_set *r = NULL;
    char *json = NULL;
    if (prepared_execute(s->p, s->db->engine, &r, &s->last) == 0) {
        json = render_query(r);
        result_free(r);
        if (!json)
            err_set(&s->last, ERR(INT, 0), "out of memory");
    }
    stmt_end(s);
    return json;
}

MiniGrafCursor *minigraf_stmt_query(MiniGrafStmt *s) {
    if (!stmt_begin(s))
        return NULL;
    db_cursor *rows = NULL;
    MiniGrafCursor *c = NULL;
    if (prepared_cursor(s->p, s->db->engine, &rows, &s->last) == 0)
        c = api_cursor_new(rows, &s->last);
    stmt_end(s);
    return c;
}

const char *minigraf_stmt_last_error(const MiniGrafStmt *s) {
    if (!s)
        return NULL; /* as every *_last_error(NULL) */
    if (!handles_live(s, HANDLE_STMT))
        return API_DEAD_HANDLE;
    return s->last.message;
}

int minigraf_stmt_last_error_code(const MiniGrafStmt *s) {
    if (!s)
        return ERR(API, 17);
    if (!handles_live(s, HANDLE_STMT))
        return ERR(API, 18);
    return s->last.code;
}

void minigraf_stmt_free(MiniGrafStmt *s) {
    if (!s || !handles_remove(s, HANDLE_STMT))
        return;
    prepared_free(s->p);
    err_clear(&s->last);
    MiniGrafDb *h = s->db;
    free(s);
    api_db_release(h);
}
