/* Tests of the keyword → entity memo (store/keyword_memo.h) and of the
 * readers that keep it between queries: the table finds what it was
 * given, grows only when granted, and a reused reader joins keyword
 * values with entities exactly as a fresh one, across commits that add
 * keywords and retract facts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "db/db.h"
#include "exec/result.h"
#include "model/uuid.h"
#include "store/keyword_memo.h"

static size_t granted_bytes;
static bool refuse;

static bool grant(void *ctx, size_t bytes) {
    (void)ctx;
    if (refuse)
        return false;
    CHECK(bytes > granted_bytes);
    granted_bytes = bytes;
    return true;
}

static uuid128 uuid_n(uint64_t n) {
    char text[32];
    int len = snprintf(text, sizeof text, ":k%llu", (unsigned long long)n);
    return uuid_of_keyword(text, (size_t)len);
}

static void test_table(void) {
    keyword_memo m = {0};
    uuid128 u;
    keyword_memo_prefetch(&m, 0); /* an empty table has no slot to load */
    CHECK(!keyword_memo_find(&m, 0, &u));
    /* Location 0 is a key like any other; spaced locations collide less
     * than the hash would make them. */
    for (uint64_t i = 0; i < 5000; i++) {
        uuid128 want = uuid_n(i);
        keyword_memo_put(&m, i * 4096, &want, grant, NULL);
    }
    CHECK(m.count == 5000 && m.cap >= 5000 * 4 / 3);
    CHECK(granted_bytes == m.cap * sizeof(keyword_slot));
    int right = 0;
    for (uint64_t i = 0; i < 5000; i++) {
        uuid128 want = uuid_n(i);
        keyword_memo_prefetch(&m, i * 4096); /* a hint: the find is the same after it */
        right += keyword_memo_find(&m, i * 4096, &u) && uuid_equal(&u, &want);
    }
    CHECK(right == 5000);
    CHECK(!keyword_memo_find(&m, 1, &u) && !keyword_memo_find(&m, 5000 * 4096, &u));
    /* A put of a known location replaces it without counting it twice. */
    uuid128 other = uuid_n(99999);
    keyword_memo_put(&m, 0, &other, grant, NULL);
    CHECK(m.count == 5000 && keyword_memo_find(&m, 0, &u) && uuid_equal(&u, &other));

    /* Refused growth: what fits stays, the rest is not remembered. */
    refuse = true;
    size_t cap = m.cap, added = 0;
    for (uint64_t i = 5000; i < 5000 + cap; i++) {
        uuid128 want = uuid_n(i);
        keyword_memo_put(&m, i * 4096, &want, grant, NULL);
    }
    CHECK(m.cap == cap && m.count * 4 <= m.cap * 3);
    for (uint64_t i = 5000; i < 5000 + cap; i++)
        added += keyword_memo_find(&m, i * 4096, &u);
    CHECK(added == m.count - 5000);
    refuse = false;
    keyword_memo_free(&m);
    CHECK(m.slots == NULL && m.count == 0 && !keyword_memo_find(&m, 0, &u));
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

/* The hash join of join_3_scan's shape derives the entity of every
 * `:follows` keyword; the second and later runs read it from the reused
 * reader's memo. */
static void test_joins_through_reused_readers(void) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    char text[256];
    for (int i = 0; i < 300; i++) {
        snprintf(text, sizeof text, "(transact [[:p%d :group %d] [:p%d :follows :p%d]])", i, i % 3,
                 i, (i + 1) % 300);
        CHECK(exec(d, text) == 0);
    }
    const char *join = "(query [:find ?e ?f :where [?e :follows ?f] [?f :group 1]])";
    for (int round = 0; round < 3; round++)
        CHECK(rows(d, join) == 100);
    /* A pseudo pattern reads the joined record's times: that table keeps
     * its records. */
    const char *pseudo = "(query [:find ?e ?t :valid-at :any-valid-time :where [?f :group 1]"
                         " [?e :follows ?f] [?e :db/tx-count ?t]])";
    for (int round = 0; round < 2; round++)
        CHECK(rows(d, pseudo) == 100);
    /* New keywords after the memo was filled, and a keyword spelling a
     * UUID (its entity is that UUID). */
    CHECK(exec(d, "(transact [[:q1 :follows :p1] [:q2 :follows :q3] [:q3 :group 1]])") == 0);
    CHECK(rows(d, join) == 102);
    CHECK(exec(d, "(transact [[:u :follows :6ba7b812-9dad-11d1-80b4-00c04fd430c8]"
                  " [#uuid \"6ba7b812-9dad-11d1-80b4-00c04fd430c8\" :group 1]])") == 0);
    CHECK(rows(d, join) == 103);
    CHECK(exec(d, "(retract [[:q1 :follows :p1]])") == 0);
    for (int round = 0; round < 2; round++)
        CHECK(rows(d, join) == 102);
    db_close(d);
    err_clear(&e);
}

/* A join on keyword values reads each value's text only to derive its
 * entity: the texts are not kept for the query, so joining more of them
 * than the query's memory limit would hold still answers. */
static void test_join_texts_not_charged(void) {
    db_options o;
    db_options_default(&o);
    o.query_memory_limit = 64 * 1024;
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, &o, &d, &e) == 0);
    char text[512];
    enum { N = 3000 };
    const char *pad = "a-keyword-long-enough-that-three-thousand-texts-pass-the-limit";
    for (int i = 0; i < N; i++) {
        snprintf(text, sizeof text, "(transact [[:%s-%d :group %d] [:%s-%d :follows :%s-%d]])", pad,
                 i, i % 100, pad, i, pad, (i + 1) % N);
        CHECK(exec(d, text) == 0);
    }
    const char *join = "(query [:find ?e :where [?e :follows ?f] [?f :group 1]])";
    for (int round = 0; round < 2; round++)
        CHECK(rows(d, join) == N / 100);
    db_close(d);
    err_clear(&e);
}

int main(void) {
    test_table();
    test_joins_through_reused_readers();
    test_join_texts_not_charged();
    return CHECK_DONE();
}
