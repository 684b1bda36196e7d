/* Tests of the dictionary lookups readers share (store/lookup_cache.h)
 * and of reused readers: a found entry holds for every snapshot, an
 * absent one only for its own, and nothing a closed reader looked up or
 * decoded leaks into the next snapshot. A dictionary location on a header
 * page is STG-009. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "db/db.h"
#include "exec/result.h"
#include "storage/dict.h"
#include "store/lookup_cache.h"
#include "store/store.h"

static void test_cache(void) {
    lookup_cache c;
    uint64_t loc = 0;
    int kind = 0;
    size_t len = 0;
    uint8_t bytes[LOOKUP_CACHE_KEY];
    CHECK(lookup_cache_init(&c) == 0);
    CHECK(lookup_cache_get(&c, DICT_TEXT, ":name", 5, 1, &loc) == -1);
    CHECK(lookup_cache_entry(&c, 77, &kind, bytes, &len) == 0);

    lookup_cache_put(&c, DICT_TEXT, ":name", 5, 1, 1, 77);
    CHECK(lookup_cache_get(&c, DICT_TEXT, ":name", 5, 9, &loc) == 1 && loc == 77);
    CHECK(lookup_cache_get(&c, DICT_UUID, ":name", 5, 9, &loc) == -1); /* kinds differ */
    CHECK(lookup_cache_entry(&c, 77, &kind, bytes, &len) == 1);
    CHECK(kind == DICT_TEXT && len == 5 && memcmp(bytes, ":name", 5) == 0);

    /* Absent holds only at its transaction count. */
    lookup_cache_put(&c, DICT_TEXT, ":age", 4, 3, 0, 0);
    CHECK(lookup_cache_get(&c, DICT_TEXT, ":age", 4, 3, &loc) == 0);
    CHECK(lookup_cache_get(&c, DICT_TEXT, ":age", 4, 4, &loc) == -1);

    /* Keys longer than a slot are not kept. */
    char long_key[LOOKUP_CACHE_KEY + 1];
    memset(long_key, 'k', sizeof long_key);
    lookup_cache_put(&c, DICT_TEXT, long_key, sizeof long_key, 1, 1, 5);
    CHECK(lookup_cache_get(&c, DICT_TEXT, long_key, sizeof long_key, 1, &loc) == -1);
    lookup_cache_free(&c);
}

static int exec(db *d, const char *text) {
    db_result r = {0};
    err e = {0};
    int rc = db_execute(d, text, strlen(text), &r, &e);
    if (rc == 0 && r.kind == DB_RESULT_QUERY)
        result_free(r.rows);
    err_clear(&e);
    return rc;
}

static long rows(db *d, const char *text) {
    result_set *rs = NULL;
    err e = {0};
    long n = db_query(d, text, strlen(text), &rs, &e) == 0 ? (long)result_row_count(rs) : -1;
    result_free(rs);
    err_clear(&e);
    return n;
}

/* A query that found nothing must see what a later commit adds: entity,
 * attribute and value lookups that missed are not kept past their
 * snapshot, by the shared cache or by the reused reader. */
static void test_misses_across_commits(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    CHECK(exec(d, "(transact [[:a :name \"A\"]])") == 0);
    const char *by_entity = "(query [:find ?n :where [:b :name ?n]])";
    const char *by_attr = "(query [:find ?v :where [:a :nick ?v]])";
    const char *by_value = "(query [:find ?e :where [?e :name \"B\"]])";
    for (int round = 0; round < 2; round++) { /* the second round reuses readers */
        CHECK(rows(d, by_entity) == 0);
        CHECK(rows(d, by_attr) == 0);
        CHECK(rows(d, by_value) == 0);
    }
    CHECK(exec(d, "(transact [[:b :name \"B\"] [:a :nick \"aa\"]])") == 0);
    CHECK(rows(d, by_entity) == 1);
    CHECK(rows(d, by_attr) == 1);
    CHECK(rows(d, by_value) == 1);
    /* Decoded values of an earlier query do not stand for new ones. */
    CHECK(exec(d, "(retract [[:b :name \"B\"]])") == 0);
    CHECK(exec(d, "(transact [[:b :name \"C\"]])") == 0);
    CHECK(rows(d, "(query [:find ?e :where [?e :name \"C\"]])") == 1);
    CHECK(rows(d, by_value) == 0);
    db_close(d);
    err_clear(&e);
}

/* Many readers in turn, each closing before the next opens (the pool
 * holds a few), and several open at once. */
static void test_reader_reuse(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    CHECK(exec(d, "(transact [[:a :name \"A\"] [:b :name \"B\"]])") == 0);
    store_reader *open[8];
    for (int i = 0; i < 8; i++)
        CHECK(store_reader_open(db_store(d), &open[i], &e) == 0);
    for (int i = 0; i < 8; i++)
        store_reader_close(open[i]);
    for (int i = 0; i < 20; i++)
        CHECK(rows(d, "(query [:find ?n :where [?e :name ?n]])") == 2);
    db_close(d);
    err_clear(&e);
}

/* A damaged location on page 0 (or the other header page) is STG-009:
 * never the entry that a reader's held page buffer happens to contain
 * while it holds no page (0), nor a header page read as a heap page. */
static void test_location_on_a_header_page(void) {
    pager *pg;
    format_header h;
    err e = {0};
    CHECK(pager_open_memory(&pg, &h, &e) == 0);
    dict d;
    dict_init(&d);
    uint8_t page[FORMAT_PAGE_SIZE] = {0};
    page[16] = DICT_TEXT; /* what a held page left behind: "old" at offset 16 */
    page[17] = 3;
    memcpy(page + 16 + DICT_ENTRY_HEADER, "old", 3);
    uint32_t held = 0;
    int kind = 0;
    const uint8_t *bytes = NULL;
    size_t len = 0;
    for (uint64_t pgno = 0; pgno < FORMAT_FIRST_DATA_PAGE; pgno++) {
        CHECK(dict_read_held(&d, pg, PAGER_LATEST, pgno << 12 | 16, page, &held, &kind, &bytes,
                             &len, &e) == ERR(STG, 9));
        err_clear(&e);
    }
    dict_free(&d);
    pager_close(pg);
}

int main(void) {
    test_cache();
    test_misses_across_commits();
    test_reader_reuse();
    test_location_on_a_header_page();
    return CHECK_DONE();
}
