/* A not body of one pattern and filters probed for one outer row at a
 * time on its records' identifiers (exec/sub_probe.c): a record whose V
 * field lies in an exact stretch of the filters (exec/sub_range.h) is a
 * solution without running them, one in no stretch is none, and one of a
 * stretch the filters must see (floats, or a filter the stretches do not
 * decide) is decoded and tested. The answers must be the filters':
 * integers, floats and strings under one attribute (language.md §6.5 O1),
 * an entity with two values of which only the later passes, retractions
 * read :as-of before and after them, valid time, not-join, and bodies no
 * record can pass. Each query has one outer row, so every one is probed
 * (the set of sub_set.h is not worth reading for it). */
#include <stdbool.h>
#include <stdio.h>

#include "support.h"

#define N 4000
#define PROBED 120 /* the entities asked about, one query each */
#define LINKED 45

/* Writes the age `age` (-1: i % 50) of every 20th entity from `first`
 * under `head` ("(transact", "(retract", with options), whose answer
 * names `key`. */
static void every_20th(MiniGrafDb *db, const char *head, int first, int age, const char *key) {
    static char tx[(N / 20 + 1) * 24 + 128];
    size_t len = (size_t)snprintf(tx, sizeof tx, "%s [", head);
    for (int i = first; i < N; i += 20)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i,
                                age < 0 ? i % 50 : age);
    snprintf(tx + len, sizeof tx - len, "])");
    expect_write_at(__FILE__, __LINE__, db, tx, key);
}

/* Entity i's :age at transaction 1: an integer (i % 50) when i % 4 is 0,
 * i % 50 + 0.5 when 1, a string when 2, true when i % 8 is 3 (above every
 * number in V order), else none. Transaction 2 retracts the integers of
 * i % 20 == 4 and gives i % 20 == 8 a second age, 3; transaction 3 gives
 * i % 20 == 12 the age 1 valid from 2999 on. */
static void fill(MiniGrafDb *db) {
    static char tx[N * 48 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < N; i++) {
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :name \"n%d\"] ", i, i);
        if (i % 4 == 0)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i % 50);
        else if (i % 4 == 1)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d.5] ", i, i % 50);
        else if (i % 4 == 2)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age \"a%d\"] ", i, i);
        else if (i % 8 == 3)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age true] ", i);
    }
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    every_20th(db, "(retract", 4, -1, "retracted");
    every_20th(db, "(transact", 8, 3, "transacted");
    every_20th(db, "(transact {:valid-from \"2999-01-01T00:00:00Z\"}", 12, 1, "transacted");
}

/* What the model knows of a moment: the transactions seen (:as-of) and
 * whether valid time is 2999. */
typedef struct moment {
    int tx;
    bool later;
} moment;

/* Whether entity i has a visible numeric age for which `pass` holds. */
static bool has_age(int i, moment m, bool (*pass)(double)) {
    bool number = i % 4 == 0 || i % 4 == 1;
    bool retracted = m.tx >= 2 && i % 20 == 4;
    if (number && !retracted && pass((i % 50) + (i % 4 == 1 ? 0.5 : 0.0)))
        return true;
    if (m.tx >= 3 && i % 20 == 8 && pass(3))
        return true;
    return m.tx >= 4 && m.later && i % 20 == 12 && pass(1);
}

static bool below_ten(double a) {
    return a < 10;
}
static bool above_ten_not_twenty(double a) {
    return a > 10 && a != 20;
}
static bool at_most_ten_and_a_half(double a) {
    return a < 10.5;
}
static bool below_thousand(double a) {
    return a < 1000;
}
static bool never(double a) {
    (void)a;
    return false;
}

/* Asks about each of the first PROBED entities alone. */
static void expect_each(MiniGrafDb *db, const char *opts, const char *body, moment m,
                        bool (*pass)(double)) {
    for (int i = 0; i < PROBED; i++) {
        char q[320], want[96];
        snprintf(q, sizeof q, "(query [:find ?n %s :where [?e :name \"n%d\"] [?e :name ?n] %s])",
                 opts, i, body);
        if (has_age(i, m, pass))
            snprintf(want, sizeof want, "{\"variables\":[\"?n\"],\"results\":[]}");
        else
            snprintf(want, sizeof want, "{\"variables\":[\"?n\"],\"results\":[[\"n%d\"]]}", i);
        EXPECT_EXEC(db, q, want);
    }
}

static const moment NOW = {4, false};

TEST(exact_stretches_and_checked_records_answer_as_the_filters) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    expect_each(db, "", "(not [?e :age ?a] [(< ?a 10)])", NOW, below_ten);
    expect_each(db, "", "(not [?e :age ?a] [(< 10 ?a)] [(!= ?a 20)])", NOW, above_ten_not_twenty);
    expect_each(db, "", "(not-join [?e] [?e :age ?a] [(< ?a 10.5)])", NOW, at_most_ten_and_a_half);
    /* a comparison with a boolean always fails: nothing is removed */
    expect_each(db, "", "(not [?e :age ?a] [(< ?a true)])", NOW, never);
    expect_each(db, "", "(not [?e :age ?a] [(< ?a 10)] [(> ?a 20)])", NOW, never);
    minigraf_close(db);
}

TEST(transaction_and_valid_time_decide_which_records_are_probed) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    for (int tx = 1; tx <= 4; tx++) {
        char opts[32];
        snprintf(opts, sizeof opts, ":as-of %d", tx);
        expect_each(db, opts, "(not [?e :age ?a] [(< ?a 10)])", (moment){tx, false}, below_ten);
    }
    expect_each(db, ":valid-at \"2999-06-01T00:00:00Z\"", "(not [?e :age ?a] [(< ?a 10)])",
                (moment){4, true}, below_ten);
    minigraf_close(db);
}

/* Row i links to an entity when i % 4 < 2: one with two ages (3 and
 * another) then one without, so that a probe whose scan stopped inside an
 * entity's records comes just before one that must find none; else to an
 * integer (i % 4 == 2) or a keyword that names no entity (3). */
static int link_target(int i) {
    return i % 4 == 0 ? 8 + 20 * (i / 4) : 7 + 8 * (i / 4);
}

static size_t put_link(char *out, size_t size, int i) {
    switch (i % 4) {
    case 2: return (size_t)snprintf(out, size, "[:p%d :link %d] ", i, i);
    case 3: return (size_t)snprintf(out, size, "[:p%d :link :nobody] ", i);
    default: return (size_t)snprintf(out, size, "[:p%d :link :p%d] ", i, link_target(i));
    }
}

/* Outer rows probed in turn through one scan sought again for each
 * (pattern_scan_reopen), their ?e a Ref, an integer or a keyword. LINKED
 * rows, far fewer than the probes reading the body's numbers would cost:
 * all are probed. */
TEST(one_scan_sought_again_for_each_outer_row) {
    MiniGrafDb *db = open_memory_db();
    fill(db);
    static char tx[LINKED * 40 + 64], want[LINKED * 16 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < LINKED; i++)
        len += put_link(tx + len, sizeof tx - len, i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    len = (size_t)snprintf(want, sizeof want, "{\"variables\":[\"?n\"],\"results\":[");
    const char *sep = "";
    for (int i = 0; i < LINKED; i++)
        if (i % 4 >= 2 || !has_age(link_target(i), NOW, below_thousand)) {
            len += (size_t)snprintf(want + len, sizeof want - len, "%s[\"n%d\"]", sep, i);
            sep = ",";
        }
    snprintf(want + len, sizeof want - len, "]}");
    EXPECT_EXEC(db,
                "(query [:find ?n :where [?x :link ?e] [?x :name ?n] "
                "(not [?e :age ?a] [(< ?a 1000)])])",
                want);
    minigraf_close(db);
}

/* Many outer rows in entity order, so that probes go through the :age
 * leaves in key order and land on every place in them, their last keys
 * among them: entity i (of SOUGHT) in group i % 15 has the age i % 50,
 * alone, except when i % 7 is 3 (valid only from 2999 on), 5 (a second
 * age, 90, after it in V order) or 6 (retracted: two records). A probe
 * that judges the record its seek found must find the same as reading. */
#define SOUGHT 3000

/* Entities given the age 2 as well by a later transaction (i % 7 == 0),
 * once `seconds` is set. */
static bool seconds;

static bool sought_has_age(int i, bool later, bool (*pass)(double)) {
    if (seconds && i % 7 == 0 && pass(2))
        return true;
    switch (i % 7) {
    case 3: return later && pass(i % 50);
    case 5: return pass(i % 50) || pass(90);
    case 6: return false;
    default: return pass(i % 50);
    }
}

static void fill_sought(MiniGrafDb *db) {
    static char tx[SOUGHT * 64 + 128];
    for (int round = 0; round < 3; round++) {
        size_t len = (size_t)snprintf(tx, sizeof tx, "%s [",
                                      round == 0 ? "(transact"
                                      : round == 1
                                          ? "(transact {:valid-from \"2999-01-01T00:00:00Z\"}"
                                          : "(retract");
        for (int i = 0; i < SOUGHT; i++) {
            if (round == 0) {
                len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :group %d] ", i, i % 15);
                if (i % 7 != 3)
                    len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i,
                                            i % 50);
                if (i % 7 == 5)
                    len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age 90] ", i);
            } else if (i % 7 == (round == 1 ? 3 : 6)) {
                len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i % 50);
            }
        }
        snprintf(tx + len, sizeof tx - len, "])");
        expect_write_at(__FILE__, __LINE__, db, tx, round == 2 ? "retracted" : "transacted");
    }
}

static bool below_45(double a) {
    return a < 45;
}
static bool above_40(double a) {
    return a > 40;
}

static void expect_sought(MiniGrafDb *db, const char *opts, const char *filter, bool later,
                          bool (*pass)(double)) {
    for (int group = 0; group < 15; group += 7) {
        int kept = 0;
        for (int i = group; i < SOUGHT; i += 15)
            kept += !sought_has_age(i, later, pass);
        char q[320], want[96];
        snprintf(q, sizeof q,
                 "(query [:find (count ?e) %s :where [?e :group %d] (not [?e :age ?a] %s)])", opts,
                 group, filter);
        snprintf(want, sizeof want, "{\"variables\":[\"(count ?e)\"],\"results\":[[%d]]}", kept);
        EXPECT_EXEC(db, q, want);
    }
}

TEST(records_the_seek_found_answer_as_read) {
    MiniGrafDb *db = open_memory_db();
    fill_sought(db);
    const char *later = ":valid-at \"2999-06-01T00:00:00Z\"";
    expect_sought(db, "", "[(< ?a 45)]", false, below_45);
    expect_sought(db, "", "[(> ?a 40)]", false, above_40);
    expect_sought(db, later, "[(< ?a 45)]", true, below_45);
    expect_sought(db, later, "[(> ?a 40)]", true, above_40);
    /* a record added after the probed one, between queries of a reader
     * that keeps its cursor: the found record is no longer alone */
    static char tx[SOUGHT / 7 * 24 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    for (int i = 0; i < SOUGHT; i += 7)
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age 2] ", i);
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    seconds = true;
    expect_sought(db, "", "[(< ?a 45)]", false, below_45);
    expect_sought(db, "", "[(> ?a 40)]", false, above_40);
    seconds = false;
    minigraf_close(db);
}

/* A body whose attribute comes from the outer row: each probe seeks the
 * row's own attribute (a scan sought again keeps only a constant
 * attribute's lookup, exec/op_scan.c). Entity :r<i> asks about :p<i> and
 * the attribute :age when i is even, :nick when odd; :p<i> has an :age
 * when i % 3 is 0 and a :nick when i % 5 is 0. */
#define ASKED 60

TEST(an_attribute_from_the_outer_row_is_sought_for_each_row) {
    MiniGrafDb *db = open_memory_db();
    static char tx[ASKED * 112 + 64];
    size_t len = (size_t)snprintf(tx, sizeof tx, "(transact [");
    int kept = 0;
    for (int i = 0; i < ASKED; i++) {
        bool age = i % 2 == 0;
        len += (size_t)snprintf(tx + len, sizeof tx - len, "[:r%d :about :p%d] [:r%d :asks %s] ", i,
                                i, i, age ? ":age" : ":nick");
        if (i % 3 == 0)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :age %d] ", i, i);
        if (i % 5 == 0)
            len += (size_t)snprintf(tx + len, sizeof tx - len, "[:p%d :nick \"k%d\"] ", i, i);
        kept += age ? i % 3 != 0 : i % 5 != 0;
    }
    snprintf(tx + len, sizeof tx - len, "])");
    EXPECT_TRANSACT(db, tx);
    char want[96];
    snprintf(want, sizeof want, "{\"variables\":[\"(count ?r)\"],\"results\":[[%d]]}", kept);
    EXPECT_EXEC(db,
                "(query [:find (count ?r) :where [?r :about ?e] [?r :asks ?k] "
                "(not [?e ?k ?v])])",
                want);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(exact_stretches_and_checked_records_answer_as_the_filters),
           TEST_ENTRY(transaction_and_valid_time_decide_which_records_are_probed),
           TEST_ENTRY(one_scan_sought_again_for_each_outer_row),
           TEST_ENTRY(records_the_seek_found_answer_as_read),
           TEST_ENTRY(an_attribute_from_the_outer_row_is_sought_for_each_row))
