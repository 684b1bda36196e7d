/* Tests of a store reader's budget (store_reader_set_budget): the texts it
 * decodes and the memo that finds them are charged before they are taken,
 * once per distinct text, the same whichever idle reader serves the query,
 * and all given back when the reader closes; a refused charge fails the
 * read and leaves what was decoded before valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"
#include "base/meter.h"
#include "model/timestamp.h"
#include "model/uuid.h"
#include "store/store.h"

#define TEXTS 100
#define TEXT_LEN 50

static int charge(void *m, size_t bytes, err *e) {
    return meter_charge(m, bytes, "scan", e);
}

static void release(void *m, size_t bytes) {
    meter_release(m, bytes);
}

static void text_of(int i, char out[TEXT_LEN + 1]) {
    snprintf(out, TEXT_LEN + 1, "%04d%046d", i, 0);
}

/* TEXTS facts [:tI :text "<TEXT_LEN chars, distinct>"] in one commit. */
static store *texts_store(void) {
    store *s = NULL;
    err e = {0};
    CHECK(store_open_memory(false, &s, &e) == 0);
    static char texts[TEXTS][TEXT_LEN + 1];
    fact facts[TEXTS];
    for (int i = 0; i < TEXTS; i++) {
        char entity[16];
        snprintf(entity, sizeof entity, ":t%d", i);
        text_of(i, texts[i]);
        facts[i] = (fact){.entity = uuid_of_keyword(entity, strlen(entity)),
                          .attribute = value_keyword(":text", 5),
                          .v = value_string(texts[i], TEXT_LEN),
                          .tx_count = 1,
                          .tx_id = 1,
                          .valid_from = 1,
                          .valid_to = VALID_TO_FOREVER,
                          .asserted = true};
    }
    CHECK(store_commit(s, facts, TEXTS, &e) == 0);
    err_clear(&e);
    return s;
}

/* Decodes every :text record; returns how many, or -1 with *e set. The
 * first `keep` values are copied to `kept` (they borrow from the reader). */
static int scan_texts(store_reader *r, value *kept, int keep, err *e) {
    store_bound b = {0};
    value attr = value_keyword(":text", 5);
    store_scan *sc = NULL;
    if (store_bound_attribute(r, &attr, &b, e) != 1 || store_scan_open(r, &b, &sc, e) != 0)
        return -1;
    store_rec rec;
    int n = 0, rc;
    while ((rc = store_scan_next(sc, &rec, e)) == 1) {
        if (n < keep)
            kept[n] = rec.f.v;
        n++;
    }
    store_scan_close(sc);
    return rc == 0 ? n : -1;
}

static store_reader *open_metered(store *s, meter *m) {
    store_reader *r = NULL;
    err e = {0};
    CHECK(store_reader_open(s, &r, &e) == 0);
    store_reader_set_budget(r, &(store_budget){charge, release, m, m->limit});
    return r;
}

static void test_each_text_is_charged_once(void) {
    store *s = texts_store();
    meter m;
    meter_init(&m, 0);
    store_reader *r = open_metered(s, &m);
    err e = {0};
    CHECK(scan_texts(r, NULL, 0, &e) == TEXTS);
    size_t after_one = m.used;
    CHECK(after_one >= TEXTS * arena_size(TEXT_LEN + 1));
    CHECK(after_one < 2 * TEXTS * arena_size(TEXT_LEN + 1) + 16384);
    CHECK(scan_texts(r, NULL, 0, &e) == TEXTS); /* found again: nothing more */
    CHECK(m.used == after_one);
    store_reader_close(r);
    CHECK(m.used == 0);
    CHECK(m.peak >= after_one);

    /* The next query takes the same reader without a budget: nothing
     * reaches the closed reader's meter any more. */
    size_t peak = m.peak;
    CHECK(store_reader_open(s, &r, &e) == 0);
    CHECK(scan_texts(r, NULL, 0, &e) == TEXTS);
    store_reader_close(r);
    CHECK(m.used == 0 && m.peak == peak);
    store_close(s);
    err_clear(&e);
}

/* The second reader is the first one, idle, with its memo kept: the
 * query's charge must not depend on it. */
static void test_a_reused_reader_charges_the_same(void) {
    store *s = texts_store();
    size_t peaks[2];
    for (int round = 0; round < 2; round++) {
        meter m;
        meter_init(&m, 0);
        store_reader *r = open_metered(s, &m);
        err e = {0};
        CHECK(scan_texts(r, NULL, 0, &e) == TEXTS);
        store_reader_close(r);
        CHECK(m.used == 0);
        peaks[round] = m.peak;
        err_clear(&e);
    }
    CHECK(peaks[0] == peaks[1]);
    store_close(s);
}

static void test_a_refused_charge_fails_the_read(void) {
    store *s = texts_store();
    meter m;
    meter_init(&m, TEXTS / 2 * arena_size(TEXT_LEN + 1));
    store_reader *r = open_metered(s, &m);
    err e = {0};
    value kept[TEXTS];
    CHECK(scan_texts(r, kept, TEXTS, &e) == -1);
    CHECK(e.code == ERR(QRY, 12));
    CHECK(e.message && strstr(e.message, "exceeded in scan") != NULL);
    CHECK(m.used <= m.limit);
    /* The values decoded before the refusal still read their texts. */
    char want[TEXT_LEN + 1];
    text_of(0, want);
    CHECK(kept[0].type == VT_STRING && kept[0].as.str.len == TEXT_LEN &&
          memcmp(kept[0].as.str.ptr, want, TEXT_LEN) == 0);
    store_reader_close(r);
    CHECK(m.used == 0);
    err_clear(&e);
    store_close(s);
}

int main(void) {
    test_each_text_is_charged_once();
    test_a_reused_reader_charges_the_same();
    test_a_refused_charge_fails_the_read();
    return CHECK_DONE();
}
