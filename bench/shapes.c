/* The shapes of spec/BENCHMARKS.md §2 (see shapes.h). */
#define _POSIX_C_SOURCE 200809L
#include "shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "minigraf.h"

/* The SQL side (bench/compare): one table eav(e, a, v, tx, tx_end, vf, vt)
 * with keyword entities :pI as the integer I and :hot as -1, references as
 * the entity's integer, tx the transaction counter that asserted the fact
 * and tx_end the one that retracted it (MAXTX while current), [vf, vt) the
 * valid window. CUR(t) is what a query sees by default (language.md §7.3): current,
 * valid now. */
#define MAXTX "9223372036854775807"
#define CUR(t) t ".tx_end = " MAXTX " AND " t ".vf <= {now} AND " t ".vt > {now}"
#define AS_OF(t) \
    t ".tx <= {txh} AND " t ".tx_end > {txh} AND " t ".vf <= {now} AND " t ".vt > {now}"
#define BOSS(seed)                                                                               \
    "WITH RECURSIVE boss(x, b) AS (SELECT e, v FROM eav m WHERE " seed                           \
    " AND " CUR("m") " UNION SELECT boss.x, m.v FROM boss JOIN eav m ON m.e = boss.b AND m.a = " \
                     "'manager' AND " CUR("m") ")"

const shape SHAPES[] = {
    {"point_entity", "[:find ?a :where [:p{m} :age ?a]]", 3, 0, 19,
     "SELECT v FROM eav f WHERE f.e = {m} AND f.a = 'age' AND " CUR("f"), 0},
    {"as_of", "[:find ?a :as-of {txh} :where [:p{m4} :age ?a]]", 3, 0, 19,
     "SELECT v FROM eav f WHERE f.e = {m4} AND f.a = 'age' AND " AS_OF("f"), 0},
    {"valid_at", "[:find ?s :valid-at \"2021-06-01T00:00:00Z\" :where [:p{m} :status ?s]]", 3, 0,
     19,
     "SELECT v FROM eav f WHERE f.e = {m} AND f.a = 'status' AND f.tx_end = " MAXTX
     " AND f.vf <= 1622505600000 AND f.vt > 1622505600000",
     0},
    {"hot_current", "[:find ?v :where [:hot :counter ?v]]", 0, 0, 290,
     "SELECT v FROM eav f WHERE f.e = -1 AND f.a = 'counter' AND " CUR("f"), 0},
    {"hot_as_of", "[:find ?v :as-of {hoth} :where [:hot :counter ?v]]", 0, 0, 0,
     "SELECT v FROM eav f WHERE f.e = -1 AND f.a = 'counter' AND f.tx <= {hoth} AND f.tx_end > "
     "{hoth}"
     " AND f.vf <= {now} AND f.vt > {now}",
     0},
    {"as_of_ts", "[:find ?a :as-of \"{ts}\" :where [:p{m} :age ?a]]", 0, 0, 920,
     "SELECT v FROM eav f WHERE f.e = {m} AND f.a = 'age' AND " AS_OF("f"), 0},
    {"attribute_value", "[:find ?e :where [?e :name \"p{m}\"]]", 3, 0, 17,
     "SELECT e FROM eav f WHERE f.a = 'name' AND f.v = 'p{m}' AND " CUR("f"), 0},
    {"join_2", "[:find ?n :where [:p{m} :follows ?f] [?f :name ?n]]", 8, 0, 40,
     "SELECT n.v FROM eav f JOIN eav n ON n.e = f.v AND n.a = 'name' AND " CUR(
         "n") " WHERE f.e = {m} AND f.a = 'follows' AND " CUR("f"),
     0},
    {"join_2_pseudo",
     "[:find ?n :valid-at :any-valid-time :where [:p{m} :follows ?f] [?f :name ?n] "
     "[?f :db/tx-count ?t]]",
     0, 0, 0,
     "SELECT n.v FROM eav f JOIN eav n ON n.e = f.v AND n.a = 'name' AND n.tx_end = " MAXTX
     " WHERE f.e = {m} AND f.a = 'follows' AND f.tx_end = " MAXTX,
     0},
    {"join_3_selective", "[:find ?s ?n :where [:p{m} :manager ?b] [?s :manager ?b] [?s :name ?n]]",
     40, 0, 195,
     "SELECT s.e, n.v FROM eav b JOIN eav s ON s.a = 'manager' AND s.v = b.v AND " CUR(
         "s") " JOIN eav n ON n.e = s.e AND n.a = 'name' AND " CUR("n") " WHERE b.e = {m} AND b.a "
                                                                        "= 'manager' AND " CUR("b"),
     0},
    {"recursive_ancestors", "[:find ?b :where (boss :p{leaf} ?b)]", 0, 0, 1.93e3,
     BOSS("m.e = {leaf} AND m.a = 'manager'") " SELECT b FROM boss", 1},
    {"limit", "[:find ?e ?a :where [?e :age ?a] :limit 10]", 30, 0, 320,
     "SELECT e, v FROM eav f WHERE f.a = 'age' AND " CUR("f") " LIMIT 10", 0},
    {"top_k", "[:find ?e ?a :where [?e :age ?a] :order-by [?a :desc] :limit 10]", 0, 0, 2.54e6,
     "SELECT e, v FROM eav f WHERE f.a = 'age' AND " CUR("f") " ORDER BY v DESC LIMIT 10", 0},
    {"not_probe", "[:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])]", 0, 0, 291e3,
     "SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND " CUR(
         "g") " AND NOT EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' AND x.v < 10 "
              "AND " CUR("x") ")",
     0},
    {"not_join", "[:find ?e :where [?e :group 7] (not-join [?e] [?e :age ?a] [(< ?a 50)])]", 0, 0,
     0,
     "SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND " CUR(
         "g") " AND NOT EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' AND x.v < 50 "
              "AND " CUR("x") ")",
     0},
    {"or_2", "[:find ?e :where [?e :group 7] (or [?e :age 7] [?e :age 17])]", 0, 0, 864e3,
     "SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND " CUR(
         "g") " AND EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' AND x.v IN (7, 17) "
              "AND " CUR("x") ")",
     0},
    {"count_grouped", "[:find ?g (count ?e) :where [?e :group ?g]]", 20e3, 1, 610e3,
     "SELECT v, count(e) FROM eav f WHERE f.a = 'group' AND " CUR("f") " GROUP BY v", 0},
    {"count", "[:find (count ?v) :where [?e ?a ?v]]", 0, 0, 4.52e6,
     "SELECT count(v) FROM eav f WHERE " CUR("f"), 0},
    {"attribute_scan", "[:find ?e ?a :where [?e :age ?a]]", 50e3, 1, 2.55e6,
     "SELECT e, v FROM eav f WHERE f.a = 'age' AND " CUR("f"), 0},
    {"as_of_ts_scan", "[:find ?e ?a :as-of \"{ts}\" :where [?e :age ?a]]", 0, 0, 1.40e6,
     "SELECT e, v FROM eav f WHERE f.a = 'age' AND " AS_OF("f"), 0},
    {"window", "[:find ?e (rank :over (:order-by ?a)) :where [?e :age ?a]]", 0, 0, 5.95e6,
     "SELECT e, rank() OVER (ORDER BY v) FROM eav f WHERE f.a = 'age' AND " CUR("f"), 0},
    {"join_3_scan", "[:find ?e ?n :where [?e :follows ?f] [?f :group 7] [?f :name ?n]]", 0, 0,
     13.2e6,
     "SELECT f.e, n.v FROM eav f JOIN eav g ON g.e = f.v AND g.a = 'group' AND g.v = 7 AND " CUR(
         "g") " JOIN eav n ON n.e = f.v AND n.a = 'name' AND " CUR("n") " WHERE f.a = 'follows' "
                                                                        "AND " CUR("f"),
     0},
    {"recursive", "[:find ?x ?b :where (boss ?x ?b)]", 0, 0, 57.4e6,
     BOSS("m.a = 'manager'") " SELECT x, b FROM boss", 1},
};
const char *const BOSS_RULES[2] = {
    "(rule [(boss ?x ?b) [?x :manager ?b]])",
    "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])",
};

const size_t SHAPE_COUNT = sizeof SHAPES / sizeof SHAPES[0];

const shape *shape_named(const char *name) {
    for (size_t i = 0; i < SHAPE_COUNT; i++)
        if (!strcmp(SHAPES[i].name, name))
            return &SHAPES[i];
    return NULL;
}

void shape_params(long n, params *p) {
    memset(p, 0, sizeof *p);
    p->n = n;
    p->entities = fixture_entities(n);
    p->m = p->entities / 2;
    p->leaf = p->entities - 1;
    p->tx_half = fixture_tx_half(n);
    /* the hot entity: assert (1 tx), then 1,000 retract + assert pairs;
     * after 1,001 of its 2,001 transactions it holds the value 500 */
    p->hot_half = fixture_entity_txs(n) + 1001;
}

void shape_set_tx_half_ms(params *p, long long ms) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t len = strftime(p->tx_half_iso, sizeof p->tx_half_iso, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(p->tx_half_iso + len, sizeof p->tx_half_iso - len, ".%03dZ", (int)(ms % 1000));
    p->tx_half_ms = ms;
}

long long shape_read_tx_half_ms(const char *path, const params *p) {
    char filter[96];
    MiniGrafDb *db = minigraf_open_with_options(path, "{\"read_only\": true}", NULL);
    snprintf(filter, sizeof filter, "{\"tx_from\": %ld, \"tx_to\": %ld}", p->tx_half, p->tx_half);
    MiniGrafFactLog *log = db ? minigraf_fact_log(db, filter) : NULL;
    char *b = log ? minigraf_fact_log_next_batch(log, 1) : NULL;
    const char *at = b ? strstr(b, "\"tx_id\":") : NULL;
    long long ms = at ? atoll(at + 8) : -1;
    minigraf_string_free(b);
    minigraf_fact_log_free(log);
    minigraf_close(db);
    return ms;
}

/* The text of placeholder `name` (`k` bytes) into `val`. */
static void placeholder(const char *name, size_t k, const params *p, char *val, size_t size) {
    static const char *names[] = {"m", "m4", "leaf", "txh", "hoth", "ts", "now"};
    size_t which = 0;
    while (which < sizeof names / sizeof names[0] &&
           !(strlen(names[which]) == k && !strncmp(names[which], name, k)))
        which++;
    switch (which) {
    case 0: snprintf(val, size, "%ld", p->m); break;
    case 1: snprintf(val, size, "%ld", p->m / 4); break;
    case 2: snprintf(val, size, "%ld", p->leaf); break;
    case 3: snprintf(val, size, "%ld", p->tx_half); break;
    case 4: snprintf(val, size, "%ld", p->hot_half); break;
    case 5: snprintf(val, size, "%s", p->tx_half_iso); break;
    case 6: snprintf(val, size, "%lld", (long long)time(NULL) * 1000); break;
    default: snprintf(val, size, "{%.*s}", (int)k, name); break;
    }
}

void shape_expand(const char *tmpl, const params *p, int wrap, char *out, size_t size) {
    size_t len = wrap ? (size_t)snprintf(out, size, "(query ") : 0;
    for (const char *c = tmpl; *c && len + 64 < size; c++) {
        const char *end = *c == '{' ? strchr(c, '}') : NULL;
        if (!end) {
            out[len++] = *c;
            continue;
        }
        char val[48];
        placeholder(c + 1, (size_t)(end - c - 1), p, val, sizeof val);
        len += (size_t)snprintf(out + len, size - len, "%s", val);
        c = end;
    }
    snprintf(out + len, size - len, wrap ? ")" : "");
}

/* ---- expected answers, computed from the fixture's definition ---------- */

static long count_group7(long e, long age_lo, long age_hi, int or_ages) {
    long c = 0;
    for (long i = 7; i < e; i += 100) {
        long a = i % 90;
        if (or_ages ? (a == 7 || a == 17) : (a >= age_lo && a < age_hi))
            c++;
    }
    return c;
}

/* Entities whose :follows target is in group 7. */
static long count_follows_group7(long e) {
    long c = 0;
    for (long i = 0; i < e; i++)
        c += ((7919 * i + 1) % e) % 100 == 7;
    return c;
}

/* Entities sharing :p{m}'s manager (itself included). */
static long count_siblings(long e, long m) {
    long b = m / 10, c = 0;
    for (long s = 10 * b; s < 10 * b + 10 && s < e; s++)
        c += s >= 1;
    return c;
}

/* Depth of entity i in the manager tree (its number of ancestors). */
static long depth(long i) {
    long d = 0;
    for (; i > 0; i /= 10)
        d++;
    return d;
}

static long count_boss_pairs(long e) {
    long c = 0;
    for (long i = 1; i < e; i++)
        c += depth(i);
    return c;
}

long shape_expected_rows(const shape *sh, const params *p) {
    const char *name = sh->name;
    long e = p->entities;
    if (!strcmp(name, "join_3_selective"))
        return count_siblings(e, p->m);
    if (!strcmp(name, "limit") || !strcmp(name, "top_k"))
        return 10;
    if (!strcmp(name, "not_probe"))
        return count_group7(e, 10, 90, 0);
    if (!strcmp(name, "not_join"))
        return count_group7(e, 50, 90, 0);
    if (!strcmp(name, "or_2"))
        return count_group7(e, 0, 0, 1);
    if (!strcmp(name, "count_grouped"))
        return e < 100 ? e : 100;
    if (!strcmp(name, "attribute_scan") || !strcmp(name, "window"))
        return e;
    if (!strcmp(name, "join_3_scan"))
        return count_follows_group7(e);
    if (!strcmp(name, "recursive_ancestors"))
        return depth(p->leaf);
    if (!strcmp(name, "recursive"))
        return count_boss_pairs(e);
    if (!strcmp(name, "as_of_ts_scan"))
        return -1;
    return 1;
}

long shape_table_rows(const shape *sh, long n) {
    static const struct {
        const char *name;
        long rows[3];
    } t[] = {
        {"join_3_selective", {10, 10, 10}}, {"not_probe", {148, 1481, 14815}},
        {"not_join", {72, 740, 7407}},      {"or_2", {38, 372, 3704}},
        {"count_grouped", {100, 100, 100}}, {"join_3_scan", {167, 1667, 16667}},
        {"recursive_ancestors", {5, 6, 7}}, {"recursive", {72219, 888885, 10555551}},
    };
    int k = n == 100000 ? 0 : n == 1000000 ? 1 : n == 10000000 ? 2 : -1;
    for (size_t i = 0; k >= 0 && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, sh->name))
            return t[i].rows[k];
    return 0;
}

void shape_expected_text(const shape *sh, const params *p, char *out, size_t size) {
    const char *name = sh->name;
    long f = (7919 * p->m + 1) % p->entities;
    out[0] = '\0';
    if (!strcmp(name, "point_entity") || !strcmp(name, "as_of_ts"))
        snprintf(out, size, "[[%ld]]", p->m % 90);
    else if (!strcmp(name, "as_of"))
        snprintf(out, size, "[[%ld]]", (p->m / 4) % 90);
    else if (!strcmp(name, "valid_at"))
        snprintf(out, size, "[[\"a\"]]");
    else if (!strcmp(name, "hot_current"))
        snprintf(out, size, "[[1000]]");
    else if (!strcmp(name, "hot_as_of"))
        snprintf(out, size, "[[%ld]]", (p->hot_half - fixture_entity_txs(p->n)) / 2);
    else if (!strcmp(name, "join_2") || !strcmp(name, "join_2_pseudo"))
        snprintf(out, size, "[[\"p%ld\"]]", f);
}

int shape_parse_args(int argc, char **argv, shape_args *out) {
    memset(out, 0, sizeof *out);
    if (argc < 2) {
        fprintf(stderr, "usage: %s CACHE_DIR [N ...] [-s SHAPE]... [-c]\n", argv[0]);
        return 2;
    }
    out->dir = argv[1];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-c"))
            out->cold = 1;
        else if (!strcmp(argv[i], "-s") && i + 1 < argc && out->only_count < 64)
            out->only[out->only_count++] = argv[++i];
        else if (out->scale_count < 8)
            out->scales[out->scale_count++] = atol(argv[i]);
    }
    if (out->scale_count == 0) {
        out->scales[0] = 100000;
        out->scales[1] = 1000000;
        out->scale_count = 2;
    }
    return 0;
}

int shape_selected(const shape *sh, const shape_args *a) {
    for (int i = 0; i < a->only_count; i++)
        if (!strcmp(a->only[i], sh->name))
            return 1;
    return a->only_count == 0;
}
