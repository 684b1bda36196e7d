/* Unit tests for hash join tables (exec/hj_table.h): the entries a probe
 * walks, with and without a key. */
#include "check.h"
#include "exec/hj_table.h"

static void append(hj_table *t, int64_t e, int64_t v) {
    value vals[3] = {value_integer(e), value_keyword(":k", 2), value_integer(v)};
    fact rec = {0};
    err e_ = {0};
    CHECK(hj_table_append(t, vals, &rec, &e_) == 0);
}

/* The entries of the chain from `first`, as their entity numbers. */
static size_t walk(const hj_table *t, size_t i, int64_t *out, size_t max) {
    size_t n = 0;
    for (; i != HJ_END && n < max; i = t->entries[i].next)
        out[n++] = t->entries[i].vals[0].as.i;
    return n;
}

static void a_table_without_key_is_one_chain_in_order(void) {
    meter m;
    meter_init(&m, 0);
    hj_table t;
    hj_table_init(&t, -1, &m);
    err e = {0};
    CHECK(hj_table_index(&t, &e) == 0);
    CHECK(hj_table_first(&t, NULL) == HJ_END); /* empty */
    hj_table_free(&t);
    for (int64_t i = 0; i < 5; i++)
        append(&t, i, 10 * i);
    CHECK(hj_table_index(&t, &e) == 0);
    CHECK(t.heads == NULL); /* no bucket array for one chain */
    int64_t got[8];
    CHECK(walk(&t, hj_table_first(&t, NULL), got, 8) == 5);
    for (int64_t i = 0; i < 5; i++)
        CHECK(got[i] == i);
    CHECK(m.used > 0);
    hj_table_free(&t);
    CHECK(m.used == 0 && t.first == HJ_END);
}

static void a_keyed_table_finds_the_entries_of_a_key(void) {
    hj_table t;
    hj_table_init(&t, 2, NULL);
    err e = {0};
    for (int64_t i = 0; i < 40; i++)
        append(&t, i, i % 4);
    CHECK(hj_table_index(&t, &e) == 0);
    value three = value_integer(3);
    int64_t got[64];
    size_t found = 0;
    for (size_t i = hj_table_first(&t, &three); i != HJ_END; i = t.entries[i].next)
        if (value_identical(&t.entries[i].vals[2], &three))
            got[found++] = t.entries[i].vals[0].as.i;
    CHECK(found == 10);
    for (size_t k = 0; k < found; k++)
        CHECK(got[k] % 4 == 3);
    hj_table_free(&t);
}

int main(void) {
    a_table_without_key_is_one_chain_in_order();
    a_keyed_table_finds_the_entries_of_a_key();
    return CHECK_DONE();
}
