/* Unit tests for a hash join's kept rows (exec/hj_rows.h): the rows a
 * stream joins its records with, copied, chained by hash and charged to
 * the query's meter. */
#include <stdint.h>

#include "check.h"
#include "exec/hj_rows.h"

/* Row i: slots (i, 10 * i), hashed i % buckets (a few share a bucket). */
static int append_rows(hj_rows *r, size_t n, uint64_t buckets, err *e) {
    value slots[2];
    frame row = {r->p, slots, NULL};
    for (size_t i = 0; i < n; i++) {
        slots[0] = value_integer((int64_t)i);
        slots[1] = value_integer((int64_t)i * 10);
        int rc = hj_rows_append(r, &row, i % buckets, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Walks the chain of `hash` and checks it holds exactly the rows whose
 * hash it is, in row order, with their slots as appended. */
static bool chain_is(const hj_rows *r, uint64_t hash, size_t n, uint64_t buckets) {
    size_t want = hash < n ? (size_t)hash : n;
    for (size_t i = hj_rows_first(r, hash); i != HJ_ROWS_END; i = r->next[i]) {
        if (r->hash[i] != hash)
            continue; /* another hash in the same bucket */
        frame f = hj_rows_row(r, i);
        if (i != want || f.slot[0].as.i != (int64_t)i || f.slot[1].as.i != (int64_t)i * 10)
            return false;
        want += (size_t)buckets;
    }
    return want >= n;
}

static void test_rows_chain_by_hash(void) {
    plan_conj p = {.slot_count = 2};
    meter m;
    meter_init(&m, 0);
    hj_rows r;
    hj_rows_init(&r, &p, 0, &m);
    err e = {0};
    CHECK(append_rows(&r, 1000, 37, &e) == 0);
    CHECK(hj_rows_index(&r, &e) == 0);
    CHECK(r.count == 1000 && m.used > 1000 * 2 * sizeof(value));
    bool all = true;
    for (uint64_t h = 0; h < 37; h++)
        all = all && chain_is(&r, h, 1000, 37);
    CHECK(all);
    CHECK(hj_rows_first(&r, 37) == HJ_ROWS_END || r.hash[hj_rows_first(&r, 37)] != 37);
    hj_rows_free(&r);
    CHECK(m.used == 0 && r.count == 0);
}

/* No row: every bucket is empty (a stream then reads no record). */
static void test_no_rows_index_empty(void) {
    plan_conj p = {.slot_count = 1};
    meter m;
    meter_init(&m, 0);
    hj_rows r;
    hj_rows_init(&r, &p, 0, &m);
    err e = {0};
    CHECK(hj_rows_index(&r, &e) == 0);
    CHECK(hj_rows_first(&r, 0) == HJ_ROWS_END && hj_rows_first(&r, 12345) == HJ_ROWS_END);
    hj_rows_free(&r);
    CHECK(m.used == 0);
}

/* Records travel with their rows when a pseudo pattern reads them. */
static void test_rows_keep_records(void) {
    plan_conj p = {.slot_count = 1};
    meter m;
    meter_init(&m, 0);
    hj_rows r;
    hj_rows_init(&r, &p, 2, &m);
    err e = {0};
    value slot = value_integer(7);
    fact recs[2] = {{.tx_count = 3}, {.tx_count = 4}};
    frame row = {&p, &slot, recs};
    CHECK(hj_rows_append(&r, &row, 99, &e) == 0);
    CHECK(hj_rows_index(&r, &e) == 0);
    size_t i = hj_rows_first(&r, 99);
    CHECK(i == 0);
    frame f = hj_rows_row(&r, i);
    CHECK(f.slot[0].as.i == 7 && f.record[0].tx_count == 3 && f.record[1].tx_count == 4);
    hj_rows_free(&r);
    CHECK(m.used == 0);
}

/* Past the query's memory limit an append fails with QRY-012 and keeps
 * what it held charged until the rows are freed. */
static void test_rows_meter_limit(void) {
    plan_conj p = {.slot_count = 2};
    meter m;
    meter_init(&m, 4096);
    hj_rows r;
    hj_rows_init(&r, &p, 0, &m);
    err e = {0};
    CHECK(append_rows(&r, 1000, 5, &e) == ERR(QRY, 12));
    CHECK(r.count > 0 && r.count < 1000 && m.used <= 4096);
    err_clear(&e);
    hj_rows_free(&r);
    CHECK(m.used == 0);
}

int main(void) {
    test_rows_chain_by_hash();
    test_no_rows_index_empty();
    test_rows_keep_records();
    test_rows_meter_limit();
    return CHECK_DONE();
}
