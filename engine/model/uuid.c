#include "model/uuid.h"

#include <stdlib.h>
#include <string.h>

#include "base/sha1.h"

static int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads 32 hex digits from s, skipping '-' exactly at the offsets of the
 * hyphenated form when `hyphens` is set. */
static bool parse_hex_digits(const char *s, size_t len, bool hyphens, uuid128 *out) {
    size_t digit = 0;
    for (size_t i = 0; i < len; i++) {
        if (hyphens && (i == 8 || i == 13 || i == 18 || i == 23)) {
            if (s[i] != '-')
                return false;
            continue;
        }
        int h = hex_digit(s[i]);
        if (h < 0 || digit >= 32)
            return false;
        if (digit % 2 == 0)
            out->bytes[digit / 2] = (uint8_t)(h << 4);
        else
            out->bytes[digit / 2] |= (uint8_t)h;
        digit++;
    }
    return digit == 32;
}

/* The two forms a keyword body can spell: 8-4-4-4-12 and 32 hex digits. */
static bool parse_plain(const char *s, size_t len, uuid128 *out) {
    if (len == 36)
        return parse_hex_digits(s, len, true, out);
    if (len == 32)
        return parse_hex_digits(s, len, false, out);
    return false;
}

static bool prefix_nocase(const char *s, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    if (len < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != prefix[i])
            return false;
    }
    return true;
}

bool uuid_parse(const char *s, size_t len, uuid128 *out) {
    uuid128 u;
    bool ok;
    if (len == 38 && s[0] == '{' && s[37] == '}')
        ok = parse_hex_digits(s + 1, 36, true, &u);
    else if (prefix_nocase(s, len, "urn:uuid:"))
        ok = len == 45 && parse_hex_digits(s + 9, 36, true, &u);
    else
        ok = parse_plain(s, len, &u);
    if (ok)
        *out = u;
    return ok;
}

/* The two hex digits of every byte value. */
static const char hex_pairs[] =
    "000102030405060708090a0b0c0d0e0f"
    "101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f"
    "303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f"
    "505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f"
    "707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f"
    "909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
    "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeef"
    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* Every ref in an answer is formatted: a fixed layout, two digits a byte. */
void uuid_format(const uuid128 *u, char out[UUID_TEXT_LEN + 1]) {
    static const unsigned char at[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
    for (size_t i = 0; i < 16; i++)
        memcpy(out + at[i], hex_pairs + 2 * u->bytes[i], 2);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[UUID_TEXT_LEN] = '\0';
}

bool uuid_equal(const uuid128 *a, const uuid128 *b) {
    return memcmp(a->bytes, b->bytes, 16) == 0;
}

int uuid_compare(const uuid128 *a, const uuid128 *b) {
    return memcmp(a->bytes, b->bytes, 16);
}

/* RFC 4122 OID namespace 6ba7b812-9dad-11d1-80b4-00c04fd430c8. */
static const uint8_t oid_namespace[16] = {0x6b, 0xa7, 0xb8, 0x12, 0x9d, 0xad, 0x11, 0xd1,
                                          0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};

static uuid128 uuid_v5_oid(const char *name, size_t len) {
    sha1_ctx c;
    uint8_t digest[20];
    uuid128 u;
    sha1_init(&c);
    sha1_update(&c, oid_namespace, sizeof oid_namespace);
    sha1_update(&c, name, len);
    sha1_final(&c, digest);
    memcpy(u.bytes, digest, 16);
    u.bytes[6] = (uint8_t)((u.bytes[6] & 0x0f) | 0x50);
    u.bytes[8] = (uint8_t)((u.bytes[8] & 0x3f) | 0x80);
    return u;
}

/* A per-thread memo of recent keyword -> UUIDv5 results. A query compares
 * the same keyword constant with many stored refs (E4) and seeks it more
 * than once, and each derivation is a SHA-1 (about a third of a point
 * query's instructions before the memo). Direct-mapped, keyed by the whole
 * keyword text, so a hit is always the exact result; per thread, so no lock. */
#define KW_MEMO_SLOTS 16
#define KW_MEMO_MAX 64 /* longer keywords are derived every time */

typedef struct kw_memo {
    size_t len; /* 0: empty */
    char text[KW_MEMO_MAX];
    uuid128 u;
} kw_memo;

static _Thread_local kw_memo memo[KW_MEMO_SLOTS];

static size_t memo_slot(const char *s, size_t len) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % KW_MEMO_SLOTS;
}

static uuid128 memo_v5(const char *keyword, size_t len) {
    if (len > KW_MEMO_MAX)
        return uuid_v5_oid(keyword, len);
    kw_memo *m = &memo[memo_slot(keyword, len)];
    if (m->len == len && memcmp(m->text, keyword, len) == 0)
        return m->u;
    m->u = uuid_v5_oid(keyword, len);
    memcpy(m->text, keyword, len);
    m->len = len;
    return m->u;
}

/* ---- the scoped cache (uuid_cache_begin) ----------------------------------- */

struct uuid_cache_entry {
    const char *text; /* in the cache's arena */
    size_t len;
    uuid128 u;
};

static _Thread_local uuid_cache *current_cache;

void uuid_cache_begin(uuid_cache *c) {
    memset(c, 0, sizeof *c);
    htab_init(&c->index);
    arena_init(&c->text);
    c->outer = current_cache;
    current_cache = c;
}

void uuid_cache_end(uuid_cache *c) {
    current_cache = c->outer;
    htab_free(&c->index);
    arena_free(&c->text);
    free(c->entries);
    memset(c, 0, sizeof *c);
}

typedef struct text_probe {
    const uuid_cache *c;
    const char *text;
    size_t len;
} text_probe;

static bool same_text(const void *ctx, uint32_t id) {
    const text_probe *p = ctx;
    const uuid_cache_entry *en = &p->c->entries[id];
    return en->len == p->len && memcmp(en->text, p->text, p->len) == 0;
}

static uint64_t text_hash(const char *s, size_t len) {
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static bool cache_reserve(uuid_cache *c) {
    if (c->count == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 256;
        uuid_cache_entry *n = realloc(c->entries, (size_t)cap * sizeof *n);
        if (!n)
            return false;
        c->entries = n;
        c->cap = cap;
    }
    return htab_reserve(&c->index, 1) == 0;
}

static void cache_put(uuid_cache *c, uint64_t h, const char *keyword, size_t len, uuid128 u) {
    if (c->count >= UUID_CACHE_MAX || !cache_reserve(c))
        return;
    char *copy = arena_strndup(&c->text, keyword, len);
    if (!copy)
        return;
    c->entries[c->count] = (uuid_cache_entry){copy, len, u};
    htab_insert(&c->index, h, c->count++); /* cannot fail: reserved */
}

static uuid128 cached_v5(uuid_cache *c, const char *keyword, size_t len) {
    uint64_t h = text_hash(keyword, len);
    text_probe p = {c, keyword, len};
    uint32_t id = htab_find(&c->index, h, same_text, &p);
    if (id != HTAB_NONE)
        return c->entries[id].u;
    uuid128 u = memo_v5(keyword, len); /* the few keywords every query sees */
    cache_put(c, h, keyword, len, u);
    return u;
}

uuid128 uuid_of_keyword(const char *keyword, size_t len) {
    uuid128 u;
    if (len > 0 && keyword[0] == ':' && parse_plain(keyword + 1, len - 1, &u))
        return u;
    if (len == 0)
        return uuid_v5_oid(keyword, len);
    return current_cache ? cached_v5(current_cache, keyword, len) : memo_v5(keyword, len);
}
