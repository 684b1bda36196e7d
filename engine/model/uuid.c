#include "model/uuid.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "base/sha1.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FROM_LE64(x) __builtin_bswap64(x)
#define TO_LE32(x) __builtin_bswap32(x)
#else
#define FROM_LE64(x) (x)
#define TO_LE32(x) (x)
#endif

/* The n (at most 8) bytes at p as a little-endian number: one load. */
static inline uint64_t load_le(const unsigned char *p, size_t n) {
    uint64_t x = 0;
    memcpy(&x, p, n); /* big-endian: the top n bytes, which the swap brings down */
    return FROM_LE64(x);
}

/* Eight hex digits, the first in the lowest byte of x, as the four bytes
 * they spell: false when one is not a hex digit. All eight at once (SWAR):
 * a byte below 0x80 plus (0x80 - lo) has its top bit set iff it is at
 * least lo, plus (0x7f - hi) iff it is above hi; no sum carries into the
 * next byte. Prepared queries parse a UUID per bind. */
static inline bool hex8(uint64_t x, uint8_t out[4]) {
    const uint64_t ones = UINT64_C(0x0101010101010101), top = ones * 0x80;
    uint64_t lower = x | ones * 0x20; /* 'A'-'F' as 'a'-'f' */
    uint64_t digit = (x + ones * (0x80 - '0')) & ~(x + ones * (0x7f - '9')) & top;
    uint64_t letter = (lower + ones * (0x80 - 'a')) & ~(lower + ones * (0x7f - 'f')) & top;
    if ((x & top) || (digit | letter) != top)
        return false;
    uint64_t nibbles = (x & ones * 0x0f) + (letter >> 7) * 9;
    /* the first digit is the high nibble: pairs into 16-bit lanes, then
     * the lanes' low bytes together */
    uint64_t b = ((nibbles << 4) | (nibbles >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    b = (b | (b >> 8)) & UINT64_C(0x0000FFFF0000FFFF);
    uint32_t bytes = TO_LE32((uint32_t)(b | b >> 16));
    memcpy(out, &bytes, 4);
    return true;
}

/* Four digits at a and four at b as one group of eight. */
static inline uint64_t split8(const unsigned char *a, const unsigned char *b) {
    return load_le(a, 4) | load_le(b, 4) << 32;
}

/* Reads 32 hex digits from s (len 32), or from the hyphenated form (len
 * 36, '-' exactly at offsets 8, 13, 18 and 23) when `hyphens` is set,
 * eight digits at a time. */
static bool parse_hex_digits(const char *s, size_t len, bool hyphens, uuid128 *out) {
    if (len != (hyphens ? 36u : 32u))
        return false;
    if (hyphens && (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-'))
        return false;
    const unsigned char *d = (const unsigned char *)s;
    uint64_t group[4];
    if (hyphens) {
        group[0] = load_le(d, 8);
        group[1] = split8(d + 9, d + 14);
        group[2] = split8(d + 19, d + 24);
        group[3] = load_le(d + 28, 8);
    } else {
        for (int g = 0; g < 4; g++)
            group[g] = load_le(d + 8 * g, 8);
    }
    uuid128 u;
    for (int g = 0; g < 4; g++)
        if (!hex8(group[g], u.bytes + 4 * g))
            return false;
    *out = u;
    return true;
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

#if defined(__SSE2__)
#include <emmintrin.h>

/* Every ref in an answer is formatted: 8-4-4-4-12 digits. SSE2 (every
 * x86-64 has it) spells the 16 bytes as 32 digits at once, each nibble
 * plus '0', plus 'a' - '0' - 10 more where it is above 9; the digits go
 * out in five overlapping stores, the later ones over the earlier. */
void uuid_format(const uuid128 *u, char out[UUID_TEXT_LEN + 1]) {
    const __m128i low = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadu_si128((const __m128i *)u->bytes);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), low), lo = _mm_and_si128(b, low);
    __m128i d0 = _mm_unpacklo_epi8(hi, lo), d1 = _mm_unpackhi_epi8(hi, lo); /* digits 0-15, 16-31 */
    const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9),
                  gap = _mm_set1_epi8('a' - '0' - 10);
    d0 = _mm_add_epi8(_mm_add_epi8(d0, zero), _mm_and_si128(_mm_cmpgt_epi8(d0, nine), gap));
    d1 = _mm_add_epi8(_mm_add_epi8(d1, zero), _mm_and_si128(_mm_cmpgt_epi8(d1, nine), gap));
    uint64_t mid = (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(d0, 8)); /* digits 8-15 */
    uint32_t fifth = (uint32_t)_mm_cvtsi128_si32(d1);                  /* digits 16-19 */
    /* digits 0-7 at 0, 8-11 at 9, 12-15 at 14, 16-19 at 19, 20-31 at 24 */
    _mm_storeu_si128((__m128i *)out, d0);
    memcpy(out + 9, &mid, 8);
    memcpy(out + 14, (const char *)&mid + 4, 4);
    _mm_storeu_si128((__m128i *)(out + 20), d1);
    memcpy(out + 19, &fifth, 4);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[UUID_TEXT_LEN] = '\0';
}
#else
/* "00" to "ff": the two lowercase hex digits of every byte value. */
static const char hex_pairs[513] = "000102030405060708090a0b0c0d0e0f"
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

/* The hex digits of the two bytes at p, at out: a load and a 2-byte
 * store a byte. */
static inline void put_hex2(char *out, const uint8_t *p) {
    memcpy(out, hex_pairs + 2 * (size_t)p[0], 2);
    memcpy(out + 2, hex_pairs + 2 * (size_t)p[1], 2);
}

/* Every ref in an answer is formatted: 8-4-4-4-12 digits. */
void uuid_format(const uuid128 *u, char out[UUID_TEXT_LEN + 1]) {
    const uint8_t *b = u->bytes;
    put_hex2(out, b);
    put_hex2(out + 4, b + 2);
    put_hex2(out + 9, b + 4);
    put_hex2(out + 14, b + 6);
    put_hex2(out + 19, b + 8);
    put_hex2(out + 24, b + 10);
    put_hex2(out + 28, b + 12);
    put_hex2(out + 32, b + 14);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[UUID_TEXT_LEN] = '\0';
}
#endif

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
    return hash_bytes(s, len) % KW_MEMO_SLOTS;
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
    return hash_bytes(s, len);
}

/* Starts small: most evaluations derive a handful of keywords, and a
 * first block of a few KiB costs malloc more than the doublings do. */
static bool cache_reserve(uuid_cache *c) {
    return array_reserve(&c->entries, &c->cap, (size_t)c->count + 1, sizeof *c->entries, 16) &&
           htab_reserve(&c->index, 1) == 0;
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
