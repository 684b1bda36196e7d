#include "db/write.h"

#include <stdbool.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "model/timestamp.h"

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

static int convert_entity(const edn *d, uuid128 *out, err *e) {
    if (d->kind == EDN_KEYWORD) {
        *out = uuid_of_keyword(d->as.text.ptr, d->as.text.len);
        return 0;
    }
    if (d->kind == EDN_UUID) {
        *out = d->as.uuid;
        return 0;
    }
    char what[128];
    edn_describe(d, what, sizeof what);
    return err_set(e, ERR(INT, 1), "invalid entity: Expected keyword or UUID for entity, got %s",
                   what);
}

bool write_is_pseudo_attribute(const char *s, size_t len) {
    static const char *const names[] = {":db/valid-from", ":db/valid-to", ":db/tx-count",
                                        ":db/tx-id", ":db/valid-at"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return true;
    return false;
}

static int convert_attribute(const edn *d, value *out, err *e) {
    if (d->kind != EDN_KEYWORD)
        return err_set(e, ERR(API, 3), "attribute must be a keyword");
    if (write_is_pseudo_attribute(d->as.text.ptr, d->as.text.len))
        return err_set(e, ERR(API, 4), "cannot transact a pseudo-attribute: %.*s",
                       (int)d->as.text.len, d->as.text.ptr);
    *out = value_keyword(d->as.text.ptr, d->as.text.len);
    return 0;
}

static int convert_value(const edn *d, value *out, err *e) {
    switch (d->kind) {
    case EDN_STRING: *out = value_string(d->as.text.ptr, d->as.text.len); return 0;
    case EDN_KEYWORD: *out = value_keyword(d->as.text.ptr, d->as.text.len); return 0;
    case EDN_INTEGER: *out = value_integer(d->as.i); return 0;
    case EDN_FLOAT: *out = value_float(d->as.f); return 0;
    case EDN_BOOLEAN: *out = value_boolean(d->as.b); return 0;
    case EDN_NIL: *out = value_null(); return 0;
    case EDN_UUID: *out = value_ref(d->as.uuid); return 0;
    default: break;
    }
    char what[128];
    edn_describe(d, what, sizeof what);
    return err_set(e, ERR(INT, 2), "invalid value: Cannot convert %s to a value", what);
}

static int convert_triple(const ast_fact *af, fact *f, err *e) {
    int rc = convert_entity(af->e, &f->entity, e);
    if (rc == 0)
        rc = convert_attribute(af->a, &f->attribute, e);
    if (rc == 0)
        rc = convert_value(af->v, &f->v, e);
    return rc;
}

/* language.md §4.2 item 3: each bound from the fact's map, else the command's,
 * else the commit instant / forever. */
static int resolve_window(const ast_write *w, const ast_fact *af, int64_t tx_id, fact *f, err *e) {
    f->valid_from = af->has_valid_from ? af->valid_from : w->has_valid_from ? w->valid_from : tx_id;
    f->valid_to = af->has_valid_to  ? af->valid_to
                  : w->has_valid_to ? w->valid_to
                                    : VALID_TO_FOREVER;
    if (f->valid_to <= f->valid_from)
        return err_set(
            e, ERR(API, 19),
            "empty valid-time window: :valid-to (%lld) must be later than :valid-from (%lld)",
            (long long)f->valid_to, (long long)f->valid_from);
    return 0;
}

/* The records built so far, indexed by (entity, attribute, value identity)
 * to collapse duplicates. */
typedef struct fact_set {
    fact *facts;
    size_t count;
    htab index;
} fact_set;

typedef struct triple_key {
    const fact_set *set;
    const fact *f;
} triple_key;

bool write_same_triple(const fact *a, const fact *b) {
    return uuid_equal(&a->entity, &b->entity) && value_equal_strict(&a->attribute, &b->attribute) &&
           value_identical(&a->v, &b->v);
}

uint64_t write_triple_hash(const fact *f) {
    value ent = value_ref(f->entity);
    uint64_t h = hash_combine(HASH_FNV_BASIS, value_hash_identity(&ent));
    h = hash_combine(h, value_hash_identity(&f->attribute));
    return hash_combine(h, value_hash_identity(&f->v));
}

static bool same_triple(const void *ctx, uint32_t id) {
    const triple_key *k = ctx;
    return write_same_triple(&k->set->facts[id], k->f);
}

static int describe_fact(const ast_fact *af, err *e) {
    char ent[128], att[128], val[128];
    edn_describe(af->e, ent, sizeof ent);
    edn_describe(af->a, att, sizeof att);
    edn_describe(af->v, val, sizeof val);
    return err_set(e, ERR(API, 11),
                   "fact [%s %s %s] is given two different validity windows in one transact", ent,
                   att, val);
}

/* Adds `f` unless an identical record is there; the same triple with a
 * different window is API-011. */
static int add_fact(fact_set *set, const fact *f, const ast_fact *af, err *e) {
    triple_key k = {set, f};
    uint64_t hash = write_triple_hash(f);
    uint32_t id = htab_find(&set->index, hash, same_triple, &k);
    if (id != HTAB_NONE) {
        const fact *g = &set->facts[id];
        if (g->valid_from == f->valid_from && g->valid_to == f->valid_to)
            return 0;
        return describe_fact(af, e);
    }
    if (htab_insert(&set->index, hash, (uint32_t)set->count) != 0)
        return oom(e);
    set->facts[set->count++] = *f;
    return 0;
}

static int build(const ast_write *w, bool assert, uint64_t tx_count, int64_t tx_id, arena *a,
                 fact **out, size_t *count, err *e) {
    if (w->count >= UINT32_MAX)
        return err_set(e, ERR(INT, 0), "too many facts in one command");
    fact_set set = {arena_calloc(a, w->count ? w->count : 1, sizeof(fact)), 0, {0}};
    if (!set.facts)
        return oom(e);
    htab_init(&set.index);
    int rc = 0;
    for (size_t i = 0; i < w->count && rc == 0; i++) {
        const ast_fact *af = &w->facts[i];
        fact f = {.tx_count = tx_count, .tx_id = tx_id, .asserted = assert};
        rc = convert_triple(af, &f, e);
        if (rc == 0 && assert)
            rc = resolve_window(w, af, tx_id, &f, e);
        if (rc == 0 && !assert)
            f.valid_to = VALID_TO_FOREVER;
        if (rc == 0 && w->count == 1) /* nothing to repeat: no index */
            set.facts[set.count++] = f;
        else if (rc == 0)
            rc = add_fact(&set, &f, af, e);
    }
    htab_free(&set.index);
    if (rc == 0) {
        *out = set.facts;
        *count = set.count;
    }
    return rc;
}

int write_transact(const ast_write *w, uint64_t tx_count, int64_t tx_id, arena *a, fact **out,
                   size_t *count, err *e) {
    return build(w, true, tx_count, tx_id, a, out, count, e);
}

int write_retract(const ast_write *w, uint64_t tx_count, int64_t tx_id, arena *a, fact **out,
                  size_t *count, err *e) {
    return build(w, false, tx_count, tx_id, a, out, count, e);
}
