/* Unit tests for SHA-1, CRC-32, the clock, UUIDs (language.md §6.1) and the value
 * relations E1-E4 / O3 (language.md §6.4, §6.5, §8.3.2). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/crc32.h"
#include "base/sha1.h"
#include "check.h"
#include "model/uuid.h"
#include "model/value.h"

static void sha1_hex(const char *msg, size_t len, char out[41]) {
    static const char hex[] = "0123456789abcdef";
    uint8_t d[20];
    sha1_ctx c;
    sha1_init(&c);
    sha1_update(&c, msg, len);
    sha1_final(&c, d);
    for (int i = 0; i < 20; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[40] = '\0';
}

static void test_sha1_known_vectors(void) {
    char h[41];
    sha1_hex("", 0, h);
    CHECK(strcmp(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709") == 0);
    sha1_hex("abc", 3, h);
    CHECK(strcmp(h, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha1_hex(m, strlen(m), h);
    CHECK(strcmp(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1") == 0);
}

/* The compression the hash uses here (SHA-NI when the processor has it)
 * gives the portable code's state on random blocks from random states. */
static void test_sha1_blocks_match_the_reference(void) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 2000; round++) {
        uint32_t ref[5];
        uint8_t block[64];
        for (int i = 0; i < 5; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ref[i] = (uint32_t)x;
        }
        for (int i = 0; i < 64; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            block[i] = (uint8_t)x;
        }
        /* through the hash: a state from the first block, then this one */
        sha1_ctx c;
        sha1_init(&c);
        memcpy(c.state, ref, sizeof ref);
        sha1_update(&c, block, 64);
        sha1_block_reference(ref, block);
        CHECK(memcmp(c.state, ref, sizeof ref) == 0);
    }
}

static void test_sha1_million_a_in_pieces(void) {
    char chunk[1001];
    memset(chunk, 'a', sizeof chunk);
    sha1_ctx c;
    uint8_t d[20];
    sha1_init(&c);
    for (int i = 0; i < 1000; i++)
        sha1_update(&c, chunk, i % 2 ? 999 : 1001);
    sha1_final(&c, d);
    CHECK(d[0] == 0x34 && d[1] == 0xaa && d[19] == 0x6f);
}

static uint32_t crc32_bitwise(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

static void test_crc32(void) {
    CHECK(crc32_update(0, "123456789", 9) == 0xcbf43926u);
    CHECK(crc32_update(0, "", 0) == 0);
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    CHECK(crc32_update(0, all, 256) == crc32_bitwise(all, 256));
    CHECK(crc32_update(crc32_update(0, all, 100), all + 100, 156) == crc32_bitwise(all, 256));
    /* every alignment and tail length of the eight-byte steps */
    for (size_t start = 0; start < 8; start++)
        for (size_t n = 0; n < 40; n++)
            CHECK(crc32_update(0, all + start, n) == crc32_bitwise(all + start, n));
    static uint8_t page[4096 + 8];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof page; i++) {
        x = x * 1103515245u + 12345u;
        page[i] = (uint8_t)(x >> 16);
    }
    int wrong = 0;
    for (size_t off = 0; off < 8; off++) /* every alignment, lengths up to a page */
        for (size_t n = 0; n + off <= sizeof page; n += off + 1)
            wrong += crc32_update(0, page + off, n) != crc32_bitwise(page + off, n);
    CHECK(wrong == 0);
}

static void test_clock_is_monotone_and_plausible(void) {
    int64_t prev = clock_now_ms();
    CHECK(prev > INT64_C(1577836800000)); /* after 2020-01-01 */
    bool monotone = true;
    for (int i = 0; i < 10000; i++) {
        int64_t now = clock_now_ms();
        monotone = monotone && now >= prev;
        prev = now;
    }
    CHECK(monotone);
}

static bool keyword_maps_to(const char *kw, const char *expected) {
    uuid128 u = uuid_of_keyword(kw, strlen(kw));
    char text[UUID_TEXT_LEN + 1];
    uuid_format(&u, text);
    return strcmp(text, expected) == 0;
}

static void test_uuid_of_keyword_matches_spec_table(void) {
    CHECK(keyword_maps_to(":alice", "e340ebba-e050-5d3b-8c2e-5388ce184a79"));
    CHECK(keyword_maps_to(":bob", "2340101d-cda1-5ebe-a64b-0d27506374ef"));
    CHECK(keyword_maps_to(":a", "ddac7794-6537-5d40-a911-e7998b77f717"));
    CHECK(keyword_maps_to(":b", "9f1d2640-cbed-5dbd-8614-24c5d9f2daf7"));
    CHECK(keyword_maps_to(":c", "b46ef719-32f4-5970-9f83-d69c79b7670f"));
    CHECK(keyword_maps_to(":d", "812db7a0-28bf-5c2d-ad1b-d53e91ee2fdf"));
    CHECK(keyword_maps_to(":e1", "eb723470-492e-5f57-a568-d7a4362287c8"));
    CHECK(keyword_maps_to(":p1", "2c167094-7fcb-5c31-95b1-64f3ed1718c5"));
    CHECK(keyword_maps_to(":carol", "bb8e4db4-5f3b-579f-accb-f19c3f3c3031"));
    CHECK(keyword_maps_to(":550e8400-e29b-41d4-a716-446655440000",
                          "550e8400-e29b-41d4-a716-446655440000"));
}

static void test_uuid_of_keyword_body_forms(void) {
    CHECK(keyword_maps_to(":550E8400E29B41D4A716446655440000",
                          "550e8400-e29b-41d4-a716-446655440000"));
    /* Braced and urn forms are not keyword bodies: hashed instead. */
    CHECK(!keyword_maps_to(":urn:uuid:550e8400-e29b-41d4-a716-446655440000",
                           "550e8400-e29b-41d4-a716-446655440000"));
    uuid128 u = uuid_of_keyword(":person/name", 12);
    CHECK((u.bytes[6] >> 4) == 5 && (u.bytes[8] & 0xc0) == 0x80);
}

/* Every byte value at every position, against printf's digits. */
static void test_uuid_format_every_byte(void) {
    bool same = true;
    for (int b = 0; b < 256; b++) {
        uuid128 u;
        char expected[UUID_TEXT_LEN + 1], text[UUID_TEXT_LEN + 1];
        size_t at = 0;
        for (int i = 0; i < 16; i++) {
            u.bytes[i] = (uint8_t)(b + 37 * i);
            at += (size_t)snprintf(expected + at, sizeof expected - at, "%s%02x",
                                   i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u.bytes[i]);
        }
        uuid_format(&u, text);
        same = same && strcmp(text, expected) == 0;
    }
    CHECK(same);
}

static bool parses_to(const char *s, const char *expected) {
    uuid128 u;
    if (!uuid_parse(s, strlen(s), &u))
        return false;
    char text[UUID_TEXT_LEN + 1];
    uuid_format(&u, text);
    return strcmp(text, expected) == 0;
}

/* The scoped cache answers exactly what the derivation answers, for many
 * more keywords than the per-thread memo holds, nested, and after its end. */
static void test_uuid_cache_is_exact(void) {
    enum { N = 3000 };
    static uuid128 plain[N];
    char kw[32];
    for (int i = 0; i < N; i++) {
        int len = snprintf(kw, sizeof kw, ":k%d", i);
        plain[i] = uuid_of_keyword(kw, (size_t)len);
    }
    uuid_cache outer, inner;
    uuid_cache_begin(&outer);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++) {
            int len = snprintf(kw, sizeof kw, ":k%d", i);
            uuid128 u = uuid_of_keyword(kw, (size_t)len);
            CHECK(uuid_equal(&u, &plain[i]));
        }
    CHECK(outer.count == N);
    uuid_cache_begin(&inner);
    uuid128 u = uuid_of_keyword(":k7", 3);
    CHECK(uuid_equal(&u, &plain[7]) && inner.count == 1);
    uuid_cache_end(&inner);
    u = uuid_of_keyword(":k8", 3);
    CHECK(uuid_equal(&u, &plain[8]) && outer.count == N);
    u = uuid_of_keyword(":00000000-0000-0000-0000-000000000001", 37);
    CHECK(u.bytes[15] == 1 && outer.count == N); /* a UUID body is parsed, not cached */
    uuid_cache_end(&outer);
    u = uuid_of_keyword(":k9", 3);
    CHECK(uuid_equal(&u, &plain[9]));
}

static void test_uuid_parse_forms(void) {
    const char *want = "550e8400-e29b-41d4-a716-446655440000";
    CHECK(parses_to("550e8400-e29b-41d4-a716-446655440000", want));
    CHECK(parses_to("550E8400-E29B-41D4-A716-446655440000", want));
    CHECK(parses_to("550e8400e29b41d4a716446655440000", want));
    CHECK(parses_to("{550e8400-e29b-41d4-a716-446655440000}", want));
    CHECK(parses_to("urn:uuid:550e8400-e29b-41d4-a716-446655440000", want));
    CHECK(parses_to("URN:UUID:550E8400-E29B-41D4-A716-446655440000", want));
    uuid128 u;
    const char *bad[] = {"",
                         "550e8400-e29b-41d4-a716-44665544000",
                         "550e8400-e29b-41d4-a716-4466554400000",
                         "550e8400e29b-41d4-a716-446655440000-",
                         "g50e8400-e29b-41d4-a716-446655440000",
                         "{550e8400-e29b-41d4-a716-446655440000",
                         "550e8400-e29b41d4-a716-4466554400000",
                         "urn:uuid:550e8400e29b41d4a716446655440000x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!uuid_parse(bad[i], strlen(bad[i]), &u));
}

/* Every byte that is not a hex digit, at every digit position of both
 * forms, is refused and leaves the output alone; every digit is read. */
static void test_uuid_parse_every_digit_checked(void) {
    const char *forms[] = {"550e8400-e29b-41d4-a716-446655440000",
                           "550e8400e29b41d4a716446655440000"};
    for (size_t f = 0; f < 2; f++) {
        char text[40];
        size_t len = strlen(forms[f]);
        int refused = 0, tried = 0, read_right = 1;
        for (size_t pos = 0; pos < len; pos++) {
            if (forms[f][pos] == '-')
                continue;
            for (int c = 0; c < 256; c++) {
                memcpy(text, forms[f], len + 1);
                text[pos] = (char)c;
                bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                           (c >= 'A' && c <= 'F');
                uuid128 u = {{0xAB}}, before = u;
                bool ok = uuid_parse(text, len, &u);
                if (hex) {
                    int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
                    size_t digit = pos -
                                   (f == 0 ? (pos > 8) + (pos > 13) + (pos > 18) + (pos > 23) : 0);
                    int got = (u.bytes[digit / 2] >> (digit % 2 ? 0 : 4)) & 15;
                    read_right &= ok && got == v;
                } else {
                    tried++;
                    refused += !ok && uuid_equal(&u, &before);
                }
            }
        }
        CHECK(refused == tried && tried == (256 - 22) * 32);
        CHECK(read_right);
    }
}

static value kw(const char *s) {
    return value_keyword(s, strlen(s));
}

static value str(const char *s) {
    return value_string(s, strlen(s));
}

static value ref_of(const char *keyword) {
    return value_ref(uuid_of_keyword(keyword, strlen(keyword)));
}

static void test_e1_strict_equality(void) {
    value a = value_integer(1), b = value_float(1.0), z = value_float(0.0), nz = value_float(-0.0);
    value nan = value_float(NAN), bob = kw(":bob"), bob_ref = ref_of(":bob");
    CHECK(!value_equal_strict(&a, &b));
    CHECK(value_equal_strict(&z, &nz));
    CHECK(!value_equal_strict(&nan, &nan));
    CHECK(!value_equal_strict(&bob, &bob_ref));
    value s1 = str("x"), s2 = str("x"), k1 = kw(":x");
    CHECK(value_equal_strict(&s1, &s2));
    CHECK(!value_equal_strict(&s1, &k1));
    value n1 = value_null(), n2 = value_null();
    CHECK(value_equal_strict(&n1, &n2));
}

static void test_e2_entity_equivalence(void) {
    value bob = kw(":bob"), bob_ref = ref_of(":bob"), alice_ref = ref_of(":alice");
    CHECK(value_equal_entity(&bob, &bob_ref));
    CHECK(value_equal_entity(&bob_ref, &bob));
    CHECK(!value_equal_entity(&bob, &alice_ref));
    value s = str(":bob");
    CHECK(!value_equal_entity(&s, &bob_ref));
    CHECK(value_hash_entity(&bob) == value_hash_entity(&bob_ref));
    value z = value_float(0.0), nz = value_float(-0.0);
    CHECK(value_equal_entity(&z, &nz) && value_hash_entity(&z) == value_hash_entity(&nz));
}

static void test_e3_record_identity(void) {
    value z = value_float(0.0), nz = value_float(-0.0);
    value nan1 = value_float(NAN), nan2 = value_float(-NAN);
    value i30 = value_integer(30), f30 = value_float(30.0);
    value bob = kw(":bob"), bob_ref = ref_of(":bob");
    CHECK(!value_identical(&z, &nz));
    CHECK(value_identical(&nan1, &nan2));
    CHECK(value_hash_identity(&nan1) == value_hash_identity(&nan2));
    CHECK(!value_identical(&i30, &f30));
    CHECK(!value_identical(&bob, &bob_ref));
    value s1 = str("abc"), s2 = str("abc");
    CHECK(value_identical(&s1, &s2) && value_hash_identity(&s1) == value_hash_identity(&s2));
}

static void test_o3_total_order(void) {
    value order[] = {str(""),
                     str("a"),
                     str("b"),
                     value_integer(INT64_MIN),
                     value_integer(5),
                     value_float(-INFINITY),
                     value_float(-1.5),
                     value_float(2.0),
                     value_float(NAN),
                     value_boolean(false),
                     value_boolean(true),
                     ref_of(":a"),
                     kw(":a"),
                     kw(":b"),
                     value_null()};
    size_t n = sizeof order / sizeof *order;
    bool consistent = true;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = value_compare_total(&order[i], &order[j]);
            consistent = consistent && ((i < j && c < 0) || (i == j && c == 0) || (i > j && c > 0));
        }
    CHECK(consistent);
    value i100 = value_integer(100), f1 = value_float(1.0);
    CHECK(value_compare_total(&i100, &f1) < 0); /* every Integer before every Float */
    value z = value_float(0.0), nz = value_float(-0.0), n1 = value_float(NAN),
          n2 = value_float(NAN);
    CHECK(value_compare_total(&z, &nz) == 0);
    CHECK(value_compare_total(&n1, &n2) == 0);
    value ab = str("ab"), a = str("a");
    CHECK(value_compare_total(&a, &ab) < 0);
}

static void test_e4_constant_matching(void) {
    value bob = kw(":bob"), bob_ref = ref_of(":bob"), bob_str = str(":bob");
    CHECK(value_match_constant(&bob, &bob));
    CHECK(value_match_constant(&bob, &bob_ref));
    CHECK(value_match_constant(&bob_ref, &bob));
    CHECK(!value_match_constant(&bob, &bob_str));
    CHECK(!value_match_constant(&bob_str, &bob_ref));
    value i30 = value_integer(30), f30 = value_float(30.0);
    CHECK(!value_match_constant(&i30, &f30));
    CHECK(!value_match_constant(&f30, &i30));
    value f1 = value_float(0.1 + 0.2), f2 = value_float(0.3), f3 = value_float(0.31);
    CHECK(value_match_constant(&f2, &f1)); /* within machine epsilon */
    CHECK(!value_match_constant(&f2, &f3));
    value nan = value_float(NAN);
    CHECK(!value_match_constant(&nan, &nan));
    value nil = value_null(), t = value_boolean(true);
    CHECK(value_match_constant(&nil, &nil));
    CHECK(!value_match_constant(&nil, &t));
}

static void test_value_as_entity_and_names(void) {
    uuid128 u;
    value bob = kw(":bob"), s = str("bob"), r = ref_of(":bob");
    CHECK(value_as_entity(&bob, &u) && uuid_equal(&u, &r.as.ref));
    CHECK(value_as_entity(&r, &u) && uuid_equal(&u, &r.as.ref));
    CHECK(!value_as_entity(&s, &u));
    CHECK(strcmp(value_type_name(VT_STRING), "String") == 0);
    CHECK(strcmp(value_type_name(VT_REF), "Ref") == 0);
    CHECK(strcmp(value_type_name(VT_NULL), "Null") == 0);
}

/* A source whose entity `id` is ref_of(":e<id>") and text `id` ":e<id>";
 * id 0 cannot be read. */
typedef struct counting_source {
    value_source base;
    int decodes;
    char texts[4][8];
} counting_source;

static int counting_text(const value_source *src, uint64_t id, const char **ptr, size_t *len,
                         err *e) {
    counting_source *c = (counting_source *)src;
    c->decodes++;
    if (id == 0 || id > 3) {
        c->base.failed = c->base.failed || !e;
        return err_set(e, ERR(STG, 29), "unreadable");
    }
    snprintf(c->texts[id], sizeof c->texts[id], ":e%llu", (unsigned long long)id);
    *ptr = c->texts[id];
    *len = strlen(c->texts[id]);
    return 0;
}

static int counting_entity(const value_source *src, uint64_t id, uuid128 *out, err *e) {
    counting_source *c = (counting_source *)src;
    c->decodes++;
    if (id == 0) {
        c->base.failed = c->base.failed || !e;
        return err_set(e, ERR(STG, 29), "unreadable");
    }
    char name[32];
    snprintf(name, sizeof name, ":e%llu", (unsigned long long)id);
    *out = ref_of(name).as.ref;
    return 0;
}

static void test_stored_references_are_their_refs(void) {
    counting_source s = {.base = {.entity = counting_entity, .text = counting_text}}, t = s;
    value s1 = value_stored(VT_REF, &s.base, 1), s1b = value_stored(VT_REF, &s.base, 1);
    value s2 = value_stored(VT_REF, &s.base, 2), t1 = value_stored(VT_REF, &t.base, 1);
    value r1 = ref_of(":e1"), k1 = kw(":e1");
    /* One source: by id, nothing decoded. */
    CHECK(value_equal_strict(&s1, &s1b) && value_equal_entity(&s1, &s1b));
    CHECK(!value_equal_strict(&s1, &s2) && !value_equal_total(&s1, &s2));
    CHECK(value_compare_total(&s1, &s1b) == 0 && value_equal_total(&s1, &s1b));
    CHECK(s.decodes == 0);
    /* Anything else: as the decoded Ref. */
    CHECK(value_equal_strict(&s1, &t1) && value_equal_strict(&s1, &r1) &&
          value_identical(&r1, &s1));
    CHECK(value_equal_entity(&k1, &s1) && value_match_constant(&k1, &s1));
    CHECK(value_hash_identity(&s1) == value_hash_identity(&r1));
    CHECK(value_hash_entity(&s1) == value_hash_entity(&k1));
    value r2 = ref_of(":e2");
    CHECK(value_compare_total(&s1, &s2) == value_compare_total(&r1, &r2));
    uuid128 u;
    CHECK(value_as_entity(&s2, &u) && uuid_equal(&u, &r2.as.ref));
    /* Resolving replaces it by the Ref; a failure is the source's error. */
    err e = {0};
    value v = s1;
    CHECK(value_resolve(&v, &e) == 0 && !v.stored && uuid_equal(&v.as.ref, &r1.as.ref));
    v = value_stored(VT_REF, &s.base, 0);
    CHECK(value_resolve(&v, &e) == ERR(STG, 29) && v.stored && !s.base.failed);
    err_clear(&e);
    /* Inside a comparison the source keeps the failure for its owner. */
    CHECK(!value_equal_strict(&v, &r1) && s.base.failed);
}

static void test_stored_texts_are_their_texts(void) {
    counting_source s = {.base = {.entity = counting_entity, .text = counting_text}}, t = s;
    value k1 = value_stored(VT_KEYWORD, &s.base, 1), k2 = value_stored(VT_KEYWORD, &s.base, 2);
    value s1 = value_stored(VT_STRING, &s.base, 1), tk1 = value_stored(VT_KEYWORD, &t.base, 1);
    CHECK(value_equal_strict(&k1, &k1) && !value_equal_strict(&k1, &k2) &&
          !value_equal_total(&k1, &k2));
    CHECK(!value_equal_strict(&k1, &s1) && value_compare_total(&s1, &k1) < 0);
    CHECK(s.decodes == 0);
    value d1 = kw(":e1"), d2 = kw(":e2"), ds1 = str(":e1"), r1 = ref_of(":e1");
    CHECK(value_equal_strict(&k1, &tk1) && value_equal_strict(&k1, &d1) &&
          value_equal_strict(&s1, &ds1));
    CHECK(value_compare_total(&k1, &k2) == value_compare_total(&d1, &d2));
    CHECK(value_hash_identity(&k1) == value_hash_identity(&d1));
    CHECK(value_hash_entity(&k1) == value_hash_entity(&r1) && value_equal_entity(&k1, &r1));
    CHECK(value_match_constant(&d1, &k1) && value_match_constant(&r1, &k1));
    uuid128 u;
    CHECK(value_as_entity(&k1, &u) && uuid_equal(&u, &r1.as.ref));
    err e = {0};
    value v = s1;
    CHECK(value_resolve(&v, &e) == 0 && !v.stored && value_identical(&v, &ds1));
    v = value_stored(VT_STRING, &s.base, 9);
    CHECK(!value_equal_strict(&v, &ds1) && s.base.failed);
    CHECK(value_resolve(&v, &e) == ERR(STG, 29));
    err_clear(&e);
}

/* A block of rows decoded at once: in order, the unstored values left as
 * they are, and on a failure the values before it decoded, *done saying
 * how many. */
static void test_resolve_all_stops_at_the_first_failure(void) {
    counting_source s = {.base = {.entity = counting_entity, .text = counting_text}};
    err e = {0};
    value row[6] = {value_stored(VT_REF, &s.base, 1),     value_integer(7),
                    value_stored(VT_STRING, &s.base, 2),  value_stored(VT_REF, &s.base, 0),
                    value_stored(VT_KEYWORD, &s.base, 3), value_integer(8)};
    value want_r1 = ref_of(":e1"), want_s2 = str(":e2");
    size_t done = 99;
    CHECK(value_resolve_all(row, 6, &done, &e) == ERR(STG, 29) && done == 3);
    CHECK(value_identical(&row[0], &want_r1) && row[1].as.i == 7 &&
          value_identical(&row[2], &want_s2) && row[3].stored && row[4].stored);
    err_clear(&e);
    row[3] = value_integer(9);
    CHECK(value_resolve_all(row, 6, &done, &e) == 0 && done == 6);
    value want_k3 = kw(":e3");
    CHECK(value_identical(&row[4], &want_k3) && !row[4].stored && row[5].as.i == 8);
    value plain[2] = {value_integer(1), value_null()};
    CHECK(value_resolve_all(plain, 2, &done, &e) == 0 && done == 2);
    CHECK(value_resolve_all(plain, 0, &done, &e) == 0 && done == 0);
}

int main(void) {
    test_sha1_known_vectors();
    test_sha1_blocks_match_the_reference();
    test_sha1_million_a_in_pieces();
    test_crc32();
    test_clock_is_monotone_and_plausible();
    test_uuid_of_keyword_matches_spec_table();
    test_uuid_of_keyword_body_forms();
    test_uuid_format_every_byte();
    test_uuid_cache_is_exact();
    test_uuid_parse_forms();
    test_uuid_parse_every_digit_checked();
    test_e1_strict_equality();
    test_e2_entity_equivalence();
    test_e3_record_identity();
    test_o3_total_order();
    test_e4_constant_matching();
    test_value_as_entity_and_names();
    test_stored_references_are_their_refs();
    test_stored_texts_are_their_texts();
    test_resolve_all_stops_at_the_first_failure();
    return CHECK_DONE();
}
