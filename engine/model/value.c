/* The comparison relations of language.md §6.4 / §6.5 / §8.3.2 (the one place that
 * decides what "equal" means), over decoded and stored values alike. */
#include "model/value.h"

#include <math.h>
#include <string.h>

#include "base/hash.h"

/* The bytes of a stored text; a failure (the source keeps it and fails
 * the query) reads as the empty text. */
static void text_bytes(const value *v, const char **ptr, size_t *len) {
    if (!v->stored) {
        *ptr = v->as.str.ptr;
        *len = v->as.str.len;
    } else if (v->as.stored.src->text(v->as.stored.src, v->as.stored.id, ptr, len, NULL) != 0) {
        *ptr = "";
        *len = 0;
    }
}

int value_resolve_stored(value *v, err *e) {
    const value_source *src = v->as.stored.src;
    uuid128 u;
    const char *ptr;
    size_t len;
    int rc = v->type == VT_REF ? src->entity(src, v->as.stored.id, &u, e)
                               : src->text(src, v->as.stored.id, &ptr, &len, e);
    if (rc == 0 && v->type == VT_REF)
        value_set_ref(v, &u);
    else if (rc == 0)
        *v = v->type == VT_STRING ? value_string(ptr, len) : value_keyword(ptr, len);
    return rc;
}

int value_resolve_all(value *v, size_t count, size_t *done, err *e) {
    size_t i = 0;
    while (i < count && !v[i].stored)
        i++;
    int rc = 0;
    if (i < count && v[i].as.stored.src->resolve_all) {
        size_t k = 0;
        rc = v[i].as.stored.src->resolve_all(v[i].as.stored.src, v + i, count - i, &k, e);
        i += k;
    } else {
        for (; i < count && (rc = value_resolve(&v[i], e)) == 0; i++)
            ;
    }
    *done = i;
    return rc;
}

/* The UUID a Ref names. A decoding failure (the source remembers it and
 * fails the query) reads as the zero UUID. */
static uuid128 ref_bytes(const value *v) {
    uuid128 u = {{0}};
    if (!v->stored)
        return v->as.ref;
    if (v->as.stored.src->entity(v->as.stored.src, v->as.stored.id, &u, NULL) != 0)
        memset(u.bytes, 0, sizeof u.bytes);
    return u;
}

/* Two stored values of one type from the same source are the same iff
 * their ids are. */
static bool same_source(const value *a, const value *b) {
    return a->stored && b->stored && a->as.stored.src == b->as.stored.src;
}

static bool ref_equal(const value *a, const value *b) {
    if (same_source(a, b))
        return a->as.stored.id == b->as.stored.id;
    uuid128 ua = ref_bytes(a), ub = ref_bytes(b);
    return uuid_equal(&ua, &ub);
}

static bool text_equal(const value *a, const value *b) {
    if (same_source(a, b))
        return a->as.stored.id == b->as.stored.id;
    const char *pa, *pb;
    size_t la, lb;
    text_bytes(a, &pa, &la);
    text_bytes(b, &pb, &lb);
    return la == lb && (la == 0 || memcmp(pa, pb, la) == 0);
}

static uint64_t float_bits(double f) {
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static bool list_equal(const value *a, const value *b, bool (*eq)(const value *, const value *)) {
    if (a->as.list.count != b->as.list.count)
        return false;
    for (size_t i = 0; i < a->as.list.count; i++)
        if (!eq(&a->as.list.items[i], &b->as.list.items[i]))
            return false;
    return true;
}

bool value_equal_strict(const value *a, const value *b) {
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case VT_STRING:
    case VT_KEYWORD: return text_equal(a, b);
    case VT_INTEGER: return a->as.i == b->as.i;
    case VT_FLOAT: return a->as.f == b->as.f;
    case VT_BOOLEAN: return a->as.b == b->as.b;
    case VT_REF: return ref_equal(a, b);
    case VT_NULL: return true;
    case VT_LIST: return list_equal(a, b, value_equal_strict);
    }
    return false;
}

/* The entity a keyword names. */
static uuid128 keyword_entity(const value *kw) {
    const value_source *src = kw->stored ? kw->as.stored.src : NULL;
    if (src && src->keyword_entity) {
        uuid128 u = {{0}};
        if (src->keyword_entity(src, kw->as.stored.id, &u, NULL) != 0)
            memset(u.bytes, 0, sizeof u.bytes); /* as ref_bytes: the source keeps the failure */
        return u;
    }
    const char *ptr;
    size_t len;
    text_bytes(kw, &ptr, &len);
    return uuid_of_keyword(ptr, len);
}

static bool keyword_names_ref(const value *kw, const value *ref) {
    uuid128 u = keyword_entity(kw);
    uuid128 named = ref_bytes(ref);
    return uuid_equal(&u, &named);
}

bool value_equal_entity(const value *a, const value *b) {
    if (a->type == VT_KEYWORD && b->type == VT_REF)
        return keyword_names_ref(a, b);
    if (a->type == VT_REF && b->type == VT_KEYWORD)
        return keyword_names_ref(b, a);
    return value_equal_strict(a, b);
}

/* E3 compares canonical bytes: every NaN is one NaN; 0.0 and -0.0 differ. */
static uint64_t float_canonical_bits(double f) {
    return isnan(f) ? UINT64_C(0x7ff8000000000000) : float_bits(f);
}

bool value_identical(const value *a, const value *b) {
    if (a->type == VT_FLOAT && b->type == VT_FLOAT)
        return float_canonical_bits(a->as.f) == float_canonical_bits(b->as.f);
    if (a->type == VT_LIST && b->type == VT_LIST)
        return list_equal(a, b, value_identical);
    return value_equal_strict(a, b);
}

/* FNV-1a over the type and the payload's bytes, then hash_mix so low
 * bits are usable as bucket indexes. */
static uint64_t hash_start(value_type t) {
    unsigned char tag = (unsigned char)t;
    return hash_bytes(&tag, 1);
}

/* A UUID a word a step: hash joins hash every build row's entity. */
static uint64_t hash_uuid(uint64_t h, uuid128 u) {
    uint64_t w[2];
    memcpy(w, u.bytes, sizeof w);
    return hash_combine(hash_combine(h, w[0]), w[1]);
}

/* Hashes the payload; `f_bits` is the float's bits under the caller's
 * equality (canonical for E3, zero-normalised for E1/E2). */
static uint64_t hash_payload(uint64_t h, const value *v, uint64_t f_bits) {
    switch (v->type) {
    case VT_STRING:
    case VT_KEYWORD: {
        const char *ptr;
        size_t len;
        text_bytes(v, &ptr, &len);
        return hash_bytes_from(h, ptr, len);
    }
    case VT_INTEGER: return hash_bytes_from(h, &v->as.i, sizeof v->as.i);
    case VT_FLOAT: return hash_bytes_from(h, &f_bits, sizeof f_bits);
    case VT_BOOLEAN: {
        unsigned char b = v->as.b ? 1 : 0;
        return hash_bytes_from(h, &b, 1);
    }
    case VT_REF: return hash_uuid(h, ref_bytes(v));
    case VT_NULL: return h;
    case VT_LIST:
        for (size_t i = 0; i < v->as.list.count; i++) {
            uint64_t item = value_hash_identity(&v->as.list.items[i]);
            h = hash_combine(h, item);
        }
        return h;
    }
    return h;
}

uint64_t value_hash_identity(const value *v) {
    uint64_t f_bits = v->type == VT_FLOAT ? float_canonical_bits(v->as.f) : 0;
    return hash_mix(hash_payload(hash_start(v->type), v, f_bits));
}

uint64_t value_hash_total(const value *v) {
    if (v->type != VT_FLOAT || v->as.f != 0.0)
        return value_hash_identity(v); /* every NaN is one NaN under E3 too */
    value zero = *v;
    zero.as.f = 0.0; /* -0.0 */
    return value_hash_identity(&zero);
}

uint64_t value_hash_entity(const value *v) {
    if (v->type == VT_KEYWORD) /* as the Ref it names: a stream hashes one per record */
        return hash_mix(hash_uuid(hash_start(VT_REF), keyword_entity(v)));
    /* E1 equates 0.0 and -0.0, so they must hash alike. */
    uint64_t f_bits = 0;
    if (v->type == VT_FLOAT)
        f_bits = v->as.f == 0.0 ? 0 : float_bits(v->as.f);
    return hash_mix(hash_payload(hash_start(v->type), v, f_bits));
}

static int compare_text(const value *a, const value *b) {
    if (same_source(a, b) && a->as.stored.id == b->as.stored.id)
        return 0;
    const char *pa, *pb;
    size_t la, lb;
    text_bytes(a, &pa, &la);
    text_bytes(b, &pb, &lb);
    size_t n = la < lb ? la : lb;
    int c = n == 0 ? 0 : memcmp(pa, pb, n);
    if (c != 0)
        return c < 0 ? -1 : 1;
    if (la == lb)
        return 0;
    return la < lb ? -1 : 1;
}

/* NaN sorts above every other float and equals NaN; -0.0 equals 0.0. */
static int compare_float(double a, double b) {
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

static int compare_lists(const value *a, const value *b) {
    size_t n = a->as.list.count < b->as.list.count ? a->as.list.count : b->as.list.count;
    for (size_t i = 0; i < n; i++) {
        int c = value_compare_total(&a->as.list.items[i], &b->as.list.items[i]);
        if (c != 0)
            return c;
    }
    return (a->as.list.count > b->as.list.count) - (a->as.list.count < b->as.list.count);
}

int value_compare_total(const value *a, const value *b) {
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    switch (a->type) {
    case VT_STRING:
    case VT_KEYWORD: return compare_text(a, b);
    case VT_INTEGER: return (a->as.i > b->as.i) - (a->as.i < b->as.i);
    case VT_FLOAT: return compare_float(a->as.f, b->as.f);
    case VT_BOOLEAN: return (int)a->as.b - (int)b->as.b;
    case VT_REF: {
        if (same_source(a, b) && a->as.stored.id == b->as.stored.id)
            return 0;
        uuid128 ua = ref_bytes(a), ub = ref_bytes(b);
        int c = uuid_compare(&ua, &ub);
        return (c > 0) - (c < 0);
    }
    case VT_NULL: return 0;
    case VT_LIST: return compare_lists(a, b);
    }
    return 0;
}

bool value_equal_total(const value *a, const value *b) {
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case VT_STRING:
    case VT_KEYWORD: return text_equal(a, b);
    case VT_INTEGER: return a->as.i == b->as.i;
    case VT_FLOAT: return compare_float(a->as.f, b->as.f) == 0;
    case VT_BOOLEAN: return a->as.b == b->as.b;
    case VT_REF: return ref_equal(a, b);
    case VT_NULL: return true;
    case VT_LIST: return compare_lists(a, b) == 0;
    }
    return false;
}

/* Machine epsilon: the tolerance of float constants in patterns (language.md §8.3.2). */
#define VALUE_FLOAT_MATCH_EPSILON 2.220446049250313e-16

bool value_match_constant(const value *constant, const value *stored) {
    switch (constant->type) {
    case VT_KEYWORD:
    case VT_REF: return value_equal_entity(constant, stored);
    case VT_FLOAT:
        return stored->type == VT_FLOAT &&
               fabs(constant->as.f - stored->as.f) < VALUE_FLOAT_MATCH_EPSILON;
    default: return value_equal_strict(constant, stored);
    }
}

bool value_as_entity(const value *v, uuid128 *out) {
    if (v->type == VT_REF) {
        *out = ref_bytes(v);
        return true;
    }
    if (v->type == VT_KEYWORD) {
        *out = keyword_entity(v);
        return true;
    }
    return false;
}

const char *value_type_name(value_type t) {
    switch (t) {
    case VT_STRING: return "String";
    case VT_INTEGER: return "Integer";
    case VT_FLOAT: return "Float";
    case VT_BOOLEAN: return "Boolean";
    case VT_REF: return "Ref";
    case VT_KEYWORD: return "Keyword";
    case VT_NULL: return "Null";
    case VT_LIST: return "List";
    }
    return "Unknown";
}
