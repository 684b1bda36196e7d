/* The org chart rule tests query (test_magic.c, test_rule_cache.c):
 * :p{i} :manager :p{i/2} for i in 1..63, and the boss closure. */
#ifndef MG_TEST_ORG_DB_H
#define MG_TEST_ORG_DB_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "db/db.h"

/* Executes `text` on d (a write or a rule), which must succeed. */
static inline void run(db *d, const char *text) {
    db_result r;
    err e = {0};
    CHECK(db_execute(d, text, strlen(text), &r, &e) == 0);
    result_free(r.rows);
    err_clear(&e);
}

/* The chart in memory; `names`: each :p{i} also has :name "p{i}". */
static inline db *org_db(bool names) {
    db *d = NULL;
    err e = {0};
    CHECK(db_open(NULL, NULL, &d, &e) == 0);
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "(transact [");
    for (int i = 1; i < 64; i++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "[:p%d :manager :p%d]", i, i / 2);
        if (names)
            len += (size_t)snprintf(text + len, sizeof text - len, "[:p%d :name \"p%d\"]", i, i);
    }
    snprintf(text + len, sizeof text - len, "])");
    run(d, text);
    run(d, "(rule [(boss ?x ?b) [?x :manager ?b]])");
    run(d, "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])");
    return d;
}

#endif
