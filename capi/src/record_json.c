#include "record_json.h"

#include <math.h>
#include <string.h>

static int bad(err *e, const char *what, const char *key, const char *why) {
    return err_set(e, ERR(API, 17), "invalid %s: \"%s\" %s", what, key, why);
}

static bool key_is(const json_node *m, const char *name) {
    return m->key_len == strlen(name) && memcmp(m->key, name, m->key_len) == 0;
}

/* The index of `m`'s name in names[0..count), or -1. */
static int key_index(const json_node *m, const char *const *names, int count) {
    for (int i = 0; i < count; i++)
        if (key_is(m, names[i]))
            return i;
    return -1;
}

/* Checks a member name: known and not seen before. */
static int claim_key(const json_node *m, const char *const *names, int count, unsigned *seen,
                     const char *what, int *index, err *e) {
    *index = key_index(m, names, count);
    if (*index < 0)
        return bad(e, what, m->key, "is not a known key");
    if (*seen & (1u << *index))
        return bad(e, what, m->key, "appears twice");
    *seen |= 1u << *index;
    return 0;
}

/* ':' and what follows (the bare ':' is a keyword: language.md §2.2); whether
 * the language can write the rest is judged where it is used. */
static bool is_keyword_text(const json_node *n) {
    return n->kind == JSON_STRING && n->len >= 1 && n->text[0] == ':';
}

static bool read_uuid(const json_node *n, uuid128 *out) {
    return n->kind == JSON_STRING && uuid_parse(n->text, n->len, out);
}

/* ---- typed values ------------------------------------------------------- */

static bool read_float(const json_node *n, double *out) {
    if (n->kind != JSON_STRING)
        return json_as_double(n, out);
    if (strcmp(n->text, "NaN") == 0)
        *out = NAN;
    else if (strcmp(n->text, "Infinity") == 0)
        *out = INFINITY;
    else if (strcmp(n->text, "-Infinity") == 0)
        *out = -INFINITY;
    else
        return false;
    return true;
}

/* The payload `n` of a value of type `type`; false when it does not fit. */
static bool read_payload(const char *type, const json_node *n, value *out) {
    int64_t i;
    double f;
    uuid128 u;
    if (strcmp(type, "string") == 0 && n->kind == JSON_STRING)
        *out = value_string(n->text, n->len);
    else if (strcmp(type, "integer") == 0 && json_as_int64(n, &i))
        *out = value_integer(i);
    else if (strcmp(type, "float") == 0 && read_float(n, &f))
        *out = value_float(f);
    else if (strcmp(type, "boolean") == 0 && n->kind == JSON_BOOL)
        *out = value_boolean(n->boolean);
    else if (strcmp(type, "ref") == 0 && read_uuid(n, &u))
        *out = value_ref(u);
    else if (strcmp(type, "keyword") == 0 && is_keyword_text(n))
        *out = value_keyword(n->text, n->len);
    else if (strcmp(type, "null") == 0 && n->kind == JSON_NULL)
        *out = value_null();
    else
        return false;
    return true;
}

static int read_typed_value(const json_node *n, value *out, err *e) {
    if (n->kind != JSON_OBJECT || n->count != 2)
        return bad(e, "record", "value", "must be an object {\"type\": ..., \"value\": ...}");
    const json_node *type = json_member(n, "type"), *payload = json_member(n, "value");
    if (!type || !payload || type->kind != JSON_STRING)
        return bad(e, "record", "value", "must be an object {\"type\": ..., \"value\": ...}");
    if (!read_payload(type->text, payload, out))
        return err_set(e, ERR(API, 17), "invalid record: \"value\" is not a valid %s value",
                       type->text);
    return 0;
}

bool typed_value_from_json(const json_node *n, value *out) {
    if (n->kind != JSON_OBJECT || n->count != 2)
        return false;
    const json_node *type = json_member(n, "type"), *payload = json_member(n, "value");
    return type && payload && type->kind == JSON_STRING && read_payload(type->text, payload, out);
}

/* ---- records ------------------------------------------------------------ */

enum {
    R_ENTITY,
    R_ATTRIBUTE,
    R_VALUE,
    R_TX_COUNT,
    R_TX_ID,
    R_VALID_FROM,
    R_VALID_TO,
    R_ASSERTED,
    R_COUNT
};

static const char *const record_keys[R_COUNT] = {"entity", "attribute",  "value",    "tx_count",
                                                 "tx_id",  "valid_from", "valid_to", "asserted"};

static int read_record_field(int field, const json_node *m, fact *f, err *e) {
    bool ok = false;
    switch (field) {
    case R_ENTITY: ok = read_uuid(m, &f->entity); break;
    case R_ATTRIBUTE:
        ok = m->kind == JSON_STRING;
        f->attribute = value_keyword(m->text, m->len);
        break;
    case R_VALUE: return read_typed_value(m, &f->v, e);
    case R_TX_COUNT: ok = json_as_uint64(m, &f->tx_count); break;
    case R_TX_ID: ok = json_as_int64(m, &f->tx_id); break;
    case R_VALID_FROM: ok = json_as_int64(m, &f->valid_from); break;
    case R_VALID_TO: ok = json_as_int64(m, &f->valid_to); break;
    case R_ASSERTED:
        ok = m->kind == JSON_BOOL;
        f->asserted = m->boolean;
        break;
    }
    static const char *const wants[R_COUNT] = {[R_ENTITY] = "must be a UUID string",
                                               [R_ATTRIBUTE] = "must be a string",
                                               [R_TX_COUNT] = "must be an unsigned 64-bit integer",
                                               [R_TX_ID] = "must be a 64-bit integer",
                                               [R_VALID_FROM] = "must be a 64-bit integer",
                                               [R_VALID_TO] = "must be a 64-bit integer",
                                               [R_ASSERTED] = "must be true or false"};
    return ok ? 0 : bad(e, "record", m->key, wants[field]);
}

int record_from_json(const json_node *n, fact *out, err *e) {
    if (n->kind != JSON_OBJECT)
        return err_set(e, ERR(API, 17), "invalid record: a record must be a JSON object");
    memset(out, 0, sizeof *out);
    unsigned seen = 0;
    for (const json_node *m = n->first; m; m = m->next) {
        int index;
        int rc = claim_key(m, record_keys, R_COUNT, &seen, "record", &index, e);
        if (rc == 0)
            rc = read_record_field(index, m, out, e);
        if (rc != 0)
            return rc;
    }
    for (int i = 0; i < R_COUNT; i++)
        if (!(seen & (1u << i)))
            return bad(e, "record", record_keys[i], "is missing");
    return 0;
}

/* ---- fact log filters --------------------------------------------------- */

enum { L_ATTRIBUTES, L_PREFIXES, L_ENTITIES, L_TX_FROM, L_TX_TO, L_WINDOW, L_ORDER, L_COUNT };

static const char *const filter_keys[L_COUNT] = {
    "attributes", "attribute_prefixes", "entities", "tx_from", "tx_to", "window", "order"};

/* An array of strings as texts in `a`; `keywords`: each must start with ':'. */
static int read_texts(const json_node *m, bool keywords, arena *a, const fact_log_text **out,
                      size_t *count, err *e) {
    if (m->kind != JSON_ARRAY)
        return bad(e, "fact log filter", m->key, "must be an array of strings");
    fact_log_text *texts = arena_alloc(a, (m->count ? m->count : 1) * sizeof *texts);
    if (!texts)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t n = 0;
    for (const json_node *item = m->first; item; item = item->next) {
        if (item->kind != JSON_STRING)
            return bad(e, "fact log filter", m->key, "must be an array of strings");
        if (keywords && !is_keyword_text(item))
            return bad(e, "fact log filter", m->key, "must hold keywords such as \":person/name\"");
        texts[n++] = (fact_log_text){item->text, item->len};
    }
    *out = texts;
    *count = n;
    return 0;
}

static int read_entities(const json_node *m, arena *a, fact_log_filter *f, err *e) {
    if (m->kind != JSON_ARRAY)
        return bad(e, "fact log filter", m->key, "must be an array of UUID strings");
    uuid128 *ids = arena_alloc(a, (m->count ? m->count : 1) * sizeof *ids);
    if (!ids)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t n = 0;
    for (const json_node *item = m->first; item; item = item->next)
        if (!read_uuid(item, &ids[n++]))
            return bad(e, "fact log filter", m->key, "must be an array of UUID strings");
    f->entities = ids;
    f->entity_count = n;
    f->has_entities = true;
    return 0;
}

static int read_window(const json_node *m, fact_log_filter *f, err *e) {
    if (m->kind != JSON_OBJECT)
        return bad(e, "fact log filter", m->key, "must be an object {\"from\": ms, \"to\": ms}");
    for (const json_node *b = m->first; b; b = b->next) {
        bool from = key_is(b, "from"), to = key_is(b, "to");
        if ((!from && !to) || (from ? f->has_window_from : f->has_window_to))
            return bad(e, "fact log filter window", b->key, "is not \"from\" or \"to\" once");
        if (!json_as_int64(b, from ? &f->window_from : &f->window_to))
            return bad(e, "fact log filter window", b->key, "must be a 64-bit integer (ms)");
        *(from ? &f->has_window_from : &f->has_window_to) = true;
    }
    return 0;
}

static int read_order(const json_node *m, fact_log_filter *f, err *e) {
    if (m->kind == JSON_STRING && strcmp(m->text, "tx") == 0)
        f->order = FACT_LOG_TX;
    else if (m->kind == JSON_STRING && strcmp(m->text, "storage") == 0)
        f->order = FACT_LOG_STORAGE;
    else
        return bad(e, "fact log filter", m->key, "must be \"tx\" or \"storage\"");
    return 0;
}

static int read_filter_field(int field, const json_node *m, arena *a, fact_log_filter *f, err *e) {
    switch (field) {
    case L_ATTRIBUTES:
        f->has_attributes = true;
        return read_texts(m, true, a, &f->attributes, &f->attribute_count, e);
    case L_PREFIXES:
        f->has_prefixes = true;
        return read_texts(m, false, a, &f->prefixes, &f->prefix_count, e);
    case L_ENTITIES: return read_entities(m, a, f, e);
    case L_TX_FROM:
    case L_TX_TO:
        if (!json_as_uint64(m, field == L_TX_FROM ? &f->tx_from : &f->tx_to))
            return bad(e, "fact log filter", m->key, "must be an unsigned 64-bit integer");
        return 0;
    case L_WINDOW: return read_window(m, f, e);
    default: return read_order(m, f, e);
    }
}

int filter_from_json(const json_node *n, arena *a, fact_log_filter *out, err *e) {
    fact_log_filter_default(out);
    if (n->kind == JSON_NULL)
        return 0;
    if (n->kind != JSON_OBJECT)
        return err_set(e, ERR(API, 17), "invalid fact log filter: it must be a JSON object");
    unsigned seen = 0;
    for (const json_node *m = n->first; m; m = m->next) {
        int index;
        int rc = claim_key(m, filter_keys, L_COUNT, &seen, "fact log filter", &index, e);
        if (rc == 0)
            rc = read_filter_field(index, m, a, out, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}
