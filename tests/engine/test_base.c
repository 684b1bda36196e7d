/* base/ and model/timestamp: error values, arena, arrays, the LRU table,
 * buffer, UTF-8, and the timestamp strings of language.md §7.2. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/lru.h"
#include "base/shared_lock.h"
#include "base/spares.h"
#include "base/utf8.h"
#include "check.h"
#include "model/timestamp.h"

/* The published FNV-1a 64 vectors. The dictionary's hash, which every
 * file stores (storage/dict.c), is hash_bytes_from: it must never change. */
static void test_hash(void) {
    CHECK(hash_bytes("", 0) == UINT64_C(0xcbf29ce484222325));
    CHECK(hash_bytes("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(hash_bytes("foobar", 6) == UINT64_C(0x85944171f73967e8));
    CHECK(hash_bytes_from(hash_bytes("foo", 3), "bar", 3) == hash_bytes("foobar", 6));
    CHECK(hash_mix(0) == 0 && hash_mix(1) != 1 && hash_mix(1) != hash_mix(2));
    CHECK(hash_words(0, "a", 1) != hash_words(0, "a\0", 2)); /* the length counts */
    CHECK(hash_words(0, "0123456789abcdef", 16) == hash_words(0, "0123456789abcdef", 16));
    CHECK(hash_words(0, "0123456789abcdef", 16) != hash_words(0, "0123456789abcdeg", 16));
}

static void test_error_names(void) {
    CHECK(strcmp(err_code_name(ERR(PRS, 11)), "PRS-011") == 0);
    CHECK(strcmp(err_code_name(ERR(PRS, 1)), "PRS-001") == 0);
    CHECK(strcmp(err_code_name(ERR(PRS, 80)), "PRS-080") == 0);
    CHECK(err_code_name(ERR(PRS, 81)) == NULL && err_code_name(ERR(PRS, 0)) == NULL);
    CHECK(strcmp(err_code_name(ERR(QRY, 13)), "QRY-013") == 0 && !err_code_name(ERR(QRY, 14)));
    CHECK(strcmp(err_code_name(ERR(STG, 46)), "STG-046") == 0 && !err_code_name(ERR(STG, 47)));
    CHECK(strcmp(err_code_name(ERR(WAL, 6)), "WAL-006") == 0 && !err_code_name(ERR(WAL, 7)));
    CHECK(strcmp(err_code_name(ERR(API, 22)), "API-022") == 0 && !err_code_name(ERR(API, 23)));
    CHECK(strcmp(err_code_name(ERR(INT, 0)), "INT-000") == 0);
    CHECK(strcmp(err_code_name(ERR(INT, 99)), "INT-099") == 0);
    CHECK(!err_code_name(0) && !err_code_name(-1) && !err_code_name(7000) && !err_code_name(999));
}

static void test_error_values(void) {
    err e = {0}, f = {0};
    CHECK(err_set(&e, ERR(PRS, 11), "Unknown command: %s", "insert") == 1011);
    CHECK(e.code == 1011 && strcmp(e.message, "[PRS-011] Unknown command: insert") == 0);
    err_set(&e, ERR(INT, 0), "%s", "replaced"); /* the old message is freed */
    CHECK(strcmp(e.message, "[INT-000] replaced") == 0);
    err_move(&f, &e);
    CHECK(e.code == 0 && e.message == NULL && f.code == 6000);
    err_clear(&f);
    CHECK(f.code == 0 && f.message == NULL);
    CHECK(err_set(NULL, ERR(API, 3), "x") == ERR(API, 3));
    err_clear(NULL);
}

static void test_arena(void) {
    arena a;
    arena_init(&a);
    for (int i = 0; i < 1000; i++) {
        char *p = arena_alloc(&a, (size_t)(i % 37) + 1);
        CHECK(p && ((uintptr_t)p % 16) == 0);
        memset(p, 'x', (size_t)(i % 37) + 1);
    }
    char *big = arena_alloc(&a, 1 << 20);
    CHECK(big != NULL);
    memset(big, 0, 1 << 20);
    int *z = arena_calloc(&a, 100, sizeof(int));
    CHECK(z && z[0] == 0 && z[99] == 0);
    CHECK(arena_calloc(&a, SIZE_MAX / 2, 4) == NULL);
    CHECK(arena_alloc(&a, 0) != NULL);
    char *s = arena_strndup(&a, "hello world", 5);
    CHECK(strcmp(s, "hello") == 0);
    CHECK(a.bytes_used >= (1 << 20));
    arena_free(&a);
    CHECK(a.head == NULL && a.bytes_used == 0);
    CHECK(arena_alloc(&a, 8) != NULL); /* reusable */
    arena_free(&a);
}

/* A big request gets a block of its own behind the head: the small ones
 * around it go on in the head block, next to each other, and bytes_used
 * counts exactly what was handed out. */
static void test_arena_dedicated_block(void) {
    arena a;
    arena_init(&a);
    char *first = arena_alloc(&a, 24);
    char *big = arena_alloc(&a, 1 << 20);
    char *second = arena_alloc(&a, 8);
    CHECK(first && big && second);
    CHECK(second == first + 32);
    CHECK(arena_footprint(&a) > (1 << 20) + 64 * 1024); /* both blocks */
    CHECK(a.bytes_used == 32 + (1 << 20) + 16);
    arena_free(&a);
    arena zeroed = {0}; /* an arena never initialised but zeroed works too */
    CHECK(arena_calloc(&zeroed, 4, 8) != NULL && zeroed.bytes_used == 32);
    arena_free(&zeroed);
}

/* The blocks of a freed arena, large ones too, are handed out again: the
 * next request of the size gets the same memory (no fresh mapping to fault
 * in); a request of less than half a kept block's size does not take it. */
static void test_arena_keeps_large_blocks(void) {
    arena a, b;
    arena_init(&a);
    char *big = arena_alloc(&a, 3 << 20);
    CHECK(big != NULL);
    big[(3 << 20) - 1] = 1;
    arena_free(&a);
    arena_init(&b);
    char *small = arena_alloc(&b, 1 << 20);
    CHECK(small != NULL && small != big);
    CHECK(arena_alloc(&b, 3 << 20) == big);
    CHECK(arena_footprint(&b) >= (4 << 20));
    arena_free(&b);
}

/* A rewound one-block arena hands out its block again from the start; a
 * larger one is freed. */
static void test_arena_rewind(void) {
    arena a;
    arena_init(&a);
    char *first = arena_alloc(&a, 100);
    size_t footprint = arena_footprint(&a);
    arena_rewind(&a);
    CHECK(a.bytes_used == 0 && arena_footprint(&a) == footprint);
    CHECK(arena_alloc(&a, 10) == first);
    CHECK(arena_alloc(&a, 1 << 20) != NULL);
    arena_rewind(&a);
    CHECK(a.head == NULL && a.bytes_used == 0 && arena_footprint(&a) == 0);
    CHECK(arena_alloc(&a, 8) != NULL);
    arena_free(&a);
}

enum { THREAD_ARENAS = 20 }; /* more than a thread and the process keep */

typedef struct arena_job {
    arena given; /* filled on another thread, freed here */
    int ok;      /* read after the join: CHECK is not thread-safe */
} arena_job;

/* Fills, frees and refills one-block arenas; a kept block comes back empty. */
static void *churn_arenas(void *arg) {
    arena_job *j = arg;
    arena_free(&j->given);
    j->ok = 1;
    arena as[THREAD_ARENAS];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < THREAD_ARENAS; i++) {
            arena_init(&as[i]);
            char *p = arena_alloc(&as[i], 1000);
            j->ok &= p != NULL && as[i].bytes_used == 1008;
            if (p)
                memset(p, i, 1000);
        }
        for (int i = 0; i < THREAD_ARENAS; i++)
            arena_free(&as[i]);
    }
    return NULL;
}

/* Blocks kept per thread must not leak when the thread ends (the ASan
 * build checks), and an arena may be freed on another thread than the one
 * that filled it. */
static void test_arena_threads(void) {
    arena_job jobs[3];
    pthread_t t[2];
    for (int i = 0; i < 3; i++) {
        arena_init(&jobs[i].given);
        CHECK(arena_alloc(&jobs[i].given, 64) != NULL);
    }
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, churn_arenas, &jobs[i]) == 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].ok);
    }
    churn_arenas(&jobs[2]);
    CHECK(jobs[2].ok);
}

/* Spares: at most n kept, one given back is the next taken when it is
 * the only one out, and under threads taking and giving back the same
 * objects none is ever out twice at once. */
static void test_spares(void) {
    spares s;
    int a, b, c;
    spares_init(&s, 2);
    CHECK(spares_take(&s) == NULL);
    CHECK(spares_give(&s, &a) && spares_give(&s, &b) && !spares_give(&s, &c));
    CHECK(spares_take(&s) == &a);
    CHECK(spares_give(&s, &a) && spares_take(&s) == &a);
    CHECK(spares_take(&s) == &b && spares_take(&s) == NULL);
}

enum { SPARE_OBJECTS = 6, SPARE_ROUNDS = 20000 };

typedef struct spare_job {
    spares *pool;
    _Atomic int *out; /* per object: how many threads hold it */
    _Atomic int *objects;
    bool ok;
} spare_job;

static void *churn_spares(void *arg) {
    spare_job *j = arg;
    j->ok = true;
    for (int i = 0; i < SPARE_ROUNDS; i++) {
        _Atomic int *o = spares_take(j->pool);
        if (!o)
            continue;
        size_t k = (size_t)(o - j->objects);
        j->ok = j->ok && atomic_fetch_add(&j->out[k], 1) == 0;
        atomic_fetch_sub(&j->out[k], 1);
        j->ok = j->ok && spares_give(j->pool, o);
    }
    return NULL;
}

static void test_spares_threads(void) {
    spares pool;
    _Atomic int objects[SPARE_OBJECTS], out[SPARE_OBJECTS];
    spares_init(&pool, SPARE_OBJECTS);
    for (int i = 0; i < SPARE_OBJECTS; i++) {
        atomic_init(&objects[i], 0);
        atomic_init(&out[i], 0);
        CHECK(spares_give(&pool, &objects[i]));
    }
    spare_job jobs[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        jobs[i] = (spare_job){&pool, out, objects, false};
        CHECK(pthread_create(&t[i], NULL, churn_spares, &jobs[i]) == 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].ok);
    }
    int kept = 0;
    while (spares_take(&pool))
        kept++;
    CHECK(kept == SPARE_OBJECTS);
}

static void test_array_reserve(void) {
    int *items = NULL;
    size_t cap = 0;
    CHECK(array_reserve(&items, &cap, 1, sizeof *items, 4) && cap == 4);
    for (int i = 0; i < 4; i++)
        items[i] = i;
    CHECK(array_reserve(&items, &cap, 4, sizeof *items, 4) && cap == 4);  /* fits: unchanged */
    CHECK(array_reserve(&items, &cap, 9, sizeof *items, 4) && cap == 16); /* doubles past need */
    CHECK(items[0] == 0 && items[3] == 3);
    int *before = items;
    CHECK(!array_reserve(&items, &cap, SIZE_MAX / 2, sizeof *items, 4)); /* would overflow */
    CHECK(items == before && cap == 16);
    free(items);
}

/* Two arrays on one capacity grow together, and neither loses its items;
 * when they cannot grow the capacity stays. */
static void test_array_reserve2(void) {
    int *a = NULL;
    char *b = NULL;
    size_t cap = 0;
    CHECK(array_reserve2(&a, sizeof *a, &b, sizeof *b, &cap, 3, 2) && cap == 4);
    for (int i = 0; i < 4; i++) {
        a[i] = i;
        b[i] = (char)('a' + i);
    }
    CHECK(array_reserve2(&a, sizeof *a, &b, sizeof *b, &cap, 4, 2) && cap == 4);
    CHECK(array_reserve2(&a, sizeof *a, &b, sizeof *b, &cap, 5, 2) && cap == 8);
    CHECK(a[3] == 3 && b[3] == 'd');
    CHECK(
        !array_reserve2(&a, sizeof *a, &b, sizeof *b, &cap, SIZE_MAX / 2, 2)); /* would overflow */
    CHECK(cap == 8 && a[0] == 0 && b[0] == 'a');
    free(a);
    free(b);
}

/* The array is the same while it fits; a larger one keeps the first
 * `count` items and is zeroed past them. */
static void test_arena_grow_array(void) {
    arena a;
    arena_init(&a);
    size_t cap = 0;
    int *items = arena_grow_array(&a, NULL, 0, &cap, 1, sizeof *items, 4);
    CHECK(items && cap == 4);
    for (int i = 0; i < 4; i++)
        items[i] = i + 1;
    CHECK(arena_grow_array(&a, items, 4, &cap, 4, sizeof *items, 4) == items && cap == 4);
    int *grown = arena_grow_array(&a, items, 3, &cap, 9, sizeof *items, 4);
    CHECK(grown && grown != items && cap == 16);
    CHECK(grown[0] == 1 && grown[2] == 3 && grown[3] == 0 && grown[15] == 0);
    CHECK(!arena_grow_array(&a, grown, 3, &cap, SIZE_MAX / 2, sizeof *items, 4) && cap == 16);
    arena_free(&a);
}

typedef struct lru_item {
    int key;
    lru_node node;
} lru_item;

/* Every key hashes to one of two buckets, so chains hold several. */
static lru_item *lru_find(lru_table *t, int key) {
    for (lru_node *n = lru_bucket(t, (uint64_t)key % 2); n; n = n->hnext)
        if (LRU_ENTRY(n, lru_item, node)->key == key)
            return LRU_ENTRY(n, lru_item, node);
    return NULL;
}

/* The table finds what was inserted, orders by use and forgets what is
 * removed, from any place in a chain or the list. */
static void test_lru(void) {
    lru_node *buckets[2] = {NULL, NULL};
    lru_table t;
    lru_init(&t, buckets, 2);
    lru_item items[5];
    for (int i = 0; i < 5; i++) {
        items[i].key = i;
        lru_insert(&t, &items[i].node, (uint64_t)i % 2);
    }
    CHECK(LRU_ENTRY(t.oldest, lru_item, node)->key == 0);
    CHECK(LRU_ENTRY(t.newest, lru_item, node)->key == 4);
    for (int i = 0; i < 5; i++)
        CHECK(lru_find(&t, i) == &items[i]);
    lru_touch(&t, &items[0].node); /* the oldest becomes the newest */
    CHECK(LRU_ENTRY(t.oldest, lru_item, node)->key == 1 && t.newest == &items[0].node);
    lru_remove(&t, &items[2].node); /* from the middle of its chain and of the list */
    CHECK(!lru_find(&t, 2) && lru_find(&t, 4) == &items[4] && lru_find(&t, 0) == &items[0]);
    int order[4], n = 0;
    for (lru_node *p = t.oldest; p; p = p->newer)
        order[n++] = LRU_ENTRY(p, lru_item, node)->key;
    CHECK(n == 4 && order[0] == 1 && order[1] == 3 && order[2] == 4 && order[3] == 0);
    for (int i = 0; i < 5; i++)
        if (i != 2)
            lru_remove(&t, &items[i].node);
    CHECK(!t.newest && !t.oldest && !buckets[0] && !buckets[1]);
}

static void test_buf(void) {
    buf b;
    buf_init(&b);
    buf_puts(&b, "a");
    buf_putc(&b, 'b');
    buf_append(&b, "cdef", 2);
    buf_printf(&b, "-%d-%s", 42, "x");
    CHECK(b.len == 9 && strcmp(b.data, "abcd-42-x") == 0);
    for (int i = 0; i < 1000; i++)
        buf_putc(&b, 'z');
    CHECK(b.len == 1009 && b.data[b.len] == '\0');
    char *s = buf_detach(&b);
    CHECK(s && strlen(s) == 1009 && b.data == NULL && b.len == 0);
    free(s);
    s = buf_detach(&b); /* empty buffer gives an empty string */
    CHECK(s && s[0] == '\0');
    free(s);
    buf_free(&b);
}

static void test_utf8(void) {
    uint32_t cp;
    CHECK(utf8_valid("plain", 5));
    CHECK(utf8_valid("\xc3\xa9\xe5\x90\x8d\xf0\x9f\x98\x80", 9));
    CHECK(!utf8_valid("\xc0\xaf", 2));         /* overlong */
    CHECK(!utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
    CHECK(!utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    CHECK(!utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    CHECK(!utf8_valid("\xc3", 1));             /* truncated */
    CHECK(!utf8_valid("\x80", 1));
    /* Past and across the eight-byte ASCII steps. */
    CHECK(utf8_valid("0123456789abcdef\xc3\xa9xyz01234567", 29));
    CHECK(utf8_valid("0123456\xc3\xa9"
                     "0123456789",
                     19));
    CHECK(!utf8_valid("0123456789abcdef\xc3", 17));
    CHECK(!utf8_valid("01234567\xff"
                      "01234567",
                      17));
    CHECK(!utf8_valid("0123456789abcdefghijklm\x80", 24));
    CHECK(utf8_decode("\xc3\xa9", 2, &cp) == 2 && cp == 0xE9);
    CHECK(utf8_decode("\xf0\x9f\x98\x80", 4, &cp) == 4 && cp == 0x1F600);
    CHECK(utf8_decode("", 0, &cp) == 0);
    CHECK(unicode_is_alpha('a') && unicode_is_alpha('Z') && !unicode_is_alpha('1'));
    CHECK(!unicode_is_alpha('_') && !unicode_is_alpha('?') && unicode_is_alnum('7'));
    CHECK(unicode_is_alpha(0xE9) && unicode_is_alpha(0x3B1) && unicode_is_alpha(0x436));
    CHECK(unicode_is_alpha(0x540D) && unicode_is_alpha(0xAC00));
    CHECK(!unicode_is_alpha(0xD7) && !unicode_is_alpha(0xF7) && !unicode_is_alpha(0x1F600));
    CHECK(!unicode_is_alpha(0xA0) && !unicode_is_alpha(0x2014));
    CHECK(utf8_clip("ab\xc3\xa9", 4, 3) == 2 && utf8_clip("abc", 3, 5) == 3);
}

static int ts(const char *s, int64_t *ms, err *e) {
    return timestamp_parse(s, strlen(s), ms, e);
}

static void test_timestamps(void) {
    struct {
        const char *s;
        int64_t ms;
    } ok[] = {
        {"1970-01-01", 0},
        {"2020-01-01", 1577836800000},
        {"2023-01-01", 1672531200000},
        {"2023-03-01", 1677628800000},
        {"2023-06-01", 1685577600000},
        {"2023-06-30", 1688083200000},
        {"2024-01-01", 1704067200000},
        {"2024-01-15T10:00:00Z", 1705312800000},
        {"2024-01-15T10:00:00z", 1705312800000},
        {"2024-01-15T10:00:00.5Z", 1705312800500},
        {"2024-01-15T10:00:00.123999Z", 1705312800123},
        {"2024-02-29", 1709164800000},
        {"1969-12-31", -86400000},
        {"1969-12-31T23:59:59.999Z", -1},
        {"0001-01-01", -62135596800000},
    };
    err e = {0};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ms = 42;
        int rc = ts(ok[i].s, &ms, &e);
        CHECK(rc == 0 && ms == ok[i].ms);
        if (rc || ms != ok[i].ms)
            fprintf(stderr, "  %s -> %lld\n", ok[i].s, (long long)ms);
    }
    struct {
        const char *s, *prefix;
    } bad[] = {
        {"2024-01-15T10:00:00+01:00", "[PRS-075] timezone offsets are not supported; use UTC (Z) "
                                      "timestamps only."},
        {"2024-01-15T10:00:00-05:00", "[PRS-075] timezone offsets are not supported"},
        {"+2024-01-15", "[PRS-075] timezone offsets are not supported"},
        {"2024-01-15T10:00:00", "[PRS-075] invalid UTC timestamp '2024-01-15T10:00:00': "},
        {"2024-01-15T25:00:00Z", "[PRS-075] invalid UTC timestamp"},
        {"2024-01-15T10:00Z", "[PRS-075] invalid UTC timestamp"},
        {"2024-01-15T10:00:00.Z", "[PRS-075] invalid UTC timestamp"},
        {"2024-01-15T10:00:00Zjunk", "[PRS-075] invalid UTC timestamp"},
        {"2023-02-30", "[PRS-075] invalid date '2023-02-30': "},
        {"2023-02-29", "[PRS-075] invalid date"},
        {"not-a-date", "[PRS-075] invalid date 'not-a-date': "},
        {"2023-6-1", "[PRS-075] invalid date"},
        {"2023-13-01", "[PRS-075] invalid date"},
        {"", "[PRS-075] invalid date"},
        {"2023-01-01 ", "[PRS-075] invalid date"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ms;
        int rc = ts(bad[i].s, &ms, &e);
        int ok_msg = e.message && strncmp(e.message, bad[i].prefix, strlen(bad[i].prefix)) == 0;
        CHECK(rc == ERR(PRS, 75) && ok_msg);
        if (!ok_msg)
            fprintf(stderr, "  %s -> %s\n", bad[i].s, e.message ? e.message : "(none)");
        err_clear(&e);
    }
}

typedef struct lock_job {
    shared_lock *l;
    int stage; /* written under the lock's own protocol */
} lock_job;

static void *take_read_hold(void *arg) {
    lock_job *j = arg;
    shared_lock_read(j->l);
    return NULL;
}

static void *write_once(void *arg) {
    lock_job *j = arg;
    shared_lock_write(j->l);
    j->stage = 2;
    shared_lock_write_done(j->l);
    return NULL;
}

/* A read hold taken on one thread is given back on another; a writer
 * waits for it, and a reader may take another hold meanwhile. */
static void test_shared_lock_holds_move_between_threads(void) {
    shared_lock l;
    CHECK(shared_lock_init(&l) == 0);
    lock_job j = {&l, 0};
    pthread_t reader, writer;
    CHECK(pthread_create(&reader, NULL, take_read_hold, &j) == 0);
    pthread_join(reader, NULL);
    shared_lock_read(&l); /* another hold while the first is out, taken before the writer */
    shared_lock_read_done(&l);
    CHECK(pthread_create(&writer, NULL, write_once, &j) == 0);
    j.stage = 1;
    shared_lock_read_done(&l); /* the first thread's hold */
    pthread_join(writer, NULL);
    CHECK(j.stage == 2);
    shared_lock_destroy(&l);
}

/* Readers on the lock-free path and a writer never overlap: each side
 * checks the other's count while it holds the lock. */
typedef struct exclusion {
    shared_lock l;
    atomic_int readers_in, writers_in, overlaps;
} exclusion;

static void *read_many(void *arg) {
    exclusion *x = arg;
    for (int i = 0; i < 20000; i++) {
        shared_lock_read(&x->l);
        atomic_fetch_add(&x->readers_in, 1);
        if (atomic_load(&x->writers_in) != 0)
            atomic_fetch_add(&x->overlaps, 1);
        atomic_fetch_sub(&x->readers_in, 1);
        shared_lock_read_done(&x->l);
    }
    return NULL;
}

static void *write_many(void *arg) {
    exclusion *x = arg;
    for (int i = 0; i < 2000; i++) {
        shared_lock_write(&x->l);
        atomic_fetch_add(&x->writers_in, 1);
        if (atomic_load(&x->readers_in) != 0 || atomic_load(&x->writers_in) != 1)
            atomic_fetch_add(&x->overlaps, 1);
        atomic_fetch_sub(&x->writers_in, 1);
        shared_lock_write_done(&x->l);
    }
    return NULL;
}

static void test_shared_lock_exclusion(void) {
    exclusion x;
    CHECK(shared_lock_init(&x.l) == 0);
    atomic_init(&x.readers_in, 0);
    atomic_init(&x.writers_in, 0);
    atomic_init(&x.overlaps, 0);
    pthread_t t[5];
    for (int i = 0; i < 5; i++)
        CHECK(pthread_create(&t[i], NULL, i < 3 ? read_many : write_many, &x) == 0);
    for (int i = 0; i < 5; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&x.overlaps) == 0);
    size_t holds = 0;
    for (int i = 0; i < SHARED_LOCK_STRIPES; i++)
        holds += atomic_load(&x.l.readers[i].n);
    CHECK(holds == 0 && !atomic_load(&x.l.shut));
    shared_lock_destroy(&x.l);
}

int main(void) {
    test_array_reserve();
    test_array_reserve2();
    test_arena_grow_array();
    test_lru();
    test_hash();
    test_error_names();
    test_error_values();
    test_arena();
    test_arena_dedicated_block();
    test_arena_keeps_large_blocks();
    test_arena_rewind();
    test_arena_threads();
    test_spares();
    test_spares_threads();
    test_buf();
    test_utf8();
    test_timestamps();
    test_shared_lock_holds_move_between_threads();
    test_shared_lock_exclusion();
    return CHECK_DONE();
}
