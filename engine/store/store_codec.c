#include "store/store_codec.h"

#include <stdlib.h>
#include <string.h>

static void put_u8(buf *out, uint8_t v) {
    buf_append(out, (const char *)&v, 1);
}

static void put_u32(buf *out, uint32_t v) {
    char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (char)(uint8_t)(v >> (8 * i));
    buf_append(out, b, 4);
}

static void put_u64(buf *out, uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (char)(uint8_t)(v >> (8 * i));
    buf_append(out, b, 8);
}

static void put_text(buf *out, const char *p, size_t len) {
    put_u32(out, (uint32_t)len);
    buf_append(out, p, len);
}

static void put_value(buf *out, const value *v) {
    put_u8(out, (uint8_t)v->type);
    switch (v->type) {
    case VT_STRING:
    case VT_KEYWORD: put_text(out, v->as.str.ptr, v->as.str.len); break;
    case VT_INTEGER: put_u64(out, (uint64_t)v->as.i); break;
    case VT_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &v->as.f, sizeof bits);
        put_u64(out, bits);
        break;
    }
    case VT_BOOLEAN: put_u8(out, v->as.b ? 1 : 0); break;
    case VT_REF: buf_append(out, (const char *)v->as.ref.bytes, 16); break;
    case VT_NULL:
    case VT_LIST: break; /* lists are query results only, never stored */
    }
}

/* Lengths above u32 are refused by store_commit before encoding. */
void store_codec_encode(uint64_t tx_count, const fact *facts, size_t count, buf *out) {
    put_u64(out, tx_count);
    put_u32(out, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const fact *f = &facts[i];
        buf_append(out, (const char *)f->entity.bytes, 16);
        put_text(out, f->attribute.as.str.ptr, f->attribute.as.str.len);
        put_value(out, &f->v);
        put_u64(out, f->tx_count);
        put_u64(out, (uint64_t)f->tx_id);
        put_u64(out, (uint64_t)f->valid_from);
        put_u64(out, (uint64_t)f->valid_to);
        put_u8(out, f->asserted ? 1 : 0);
    }
}

typedef struct reader {
    const uint8_t *p;
    size_t left;
    bool bad;
} reader;

static const uint8_t *take(reader *r, size_t n) {
    if (r->bad || n > r->left) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static uint64_t get_le(reader *r, size_t n) {
    const uint8_t *p = take(r, n);
    uint64_t v = 0;
    for (size_t i = 0; p && i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Two's complement reinterpretation without implementation-defined casts. */
static int64_t to_i64(uint64_t u) {
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void get_text(reader *r, const char **ptr, size_t *len) {
    size_t n = (size_t)get_le(r, 4);
    const uint8_t *p = take(r, n);
    *ptr = p ? (const char *)p : "";
    *len = p ? n : 0;
}

static void get_value(reader *r, value *v) {
    uint8_t tag = (uint8_t)get_le(r, 1);
    const char *ptr;
    size_t len;
    switch (tag) {
    case VT_STRING:
        get_text(r, &ptr, &len);
        *v = value_string(ptr, len);
        break;
    case VT_KEYWORD:
        get_text(r, &ptr, &len);
        *v = value_keyword(ptr, len);
        break;
    case VT_INTEGER: *v = value_integer(to_i64(get_le(r, 8))); break;
    case VT_FLOAT: {
        uint64_t bits = get_le(r, 8);
        double f;
        memcpy(&f, &bits, sizeof f);
        *v = value_float(f);
        break;
    }
    case VT_BOOLEAN: *v = value_boolean(get_le(r, 1) != 0); break;
    case VT_REF: {
        const uint8_t *p = take(r, 16);
        uuid128 u = {{0}};
        if (p)
            memcpy(u.bytes, p, 16);
        *v = value_ref(u);
        break;
    }
    case VT_NULL: *v = value_null(); break;
    default:
        r->bad = true;
        *v = value_null();
        break;
    }
}

static void get_fact(reader *r, fact *f) {
    const uint8_t *ent = take(r, 16);
    if (ent)
        memcpy(f->entity.bytes, ent, 16);
    const char *ptr;
    size_t len;
    get_text(r, &ptr, &len);
    f->attribute = value_keyword(ptr, len);
    get_value(r, &f->v);
    f->tx_count = get_le(r, 8);
    f->tx_id = to_i64(get_le(r, 8));
    f->valid_from = to_i64(get_le(r, 8));
    f->valid_to = to_i64(get_le(r, 8));
    uint8_t asserted = (uint8_t)get_le(r, 1);
    if (asserted > 1)
        r->bad = true;
    f->asserted = asserted == 1;
}

/* Every fact of a record belongs to the record's transaction. */
static bool facts_consistent(const fact *facts, size_t count, uint64_t tx_count) {
    for (size_t i = 0; i < count; i++)
        if (facts[i].tx_count != tx_count || facts[i].attribute.as.str.len == 0)
            return false;
    return true;
}

int store_codec_decode(const uint8_t *payload, size_t len, uint64_t *tx_count, fact **facts,
                       size_t *count, err *e) {
    reader r = {payload, len, false};
    uint64_t tx = get_le(&r, 8);
    size_t n = (size_t)get_le(&r, 4);
    /* Each fact takes at least 54 bytes, which bounds the allocation. */
    if (r.bad || n > r.left / 54)
        return err_set(e, ERR(STG, 5), "corrupt transaction record: bad fact count");
    fact *out = calloc(n ? n : 1, sizeof *out);
    if (!out)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < n && !r.bad; i++)
        get_fact(&r, &out[i]);
    if (r.bad || r.left != 0 || !facts_consistent(out, n, tx)) {
        free(out);
        return err_set(e, ERR(STG, 5), "corrupt transaction record for tx_count %llu",
                       (unsigned long long)tx);
    }
    *tx_count = tx;
    *facts = out;
    *count = n;
    return 0;
}
