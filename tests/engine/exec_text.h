/* Runs one statement on an engine handle and drops its result: for the
 * tests that only care whether a statement succeeded (the fault-layer
 * tests count acknowledged commits by it). */
#ifndef MG_TEST_EXEC_TEXT_H
#define MG_TEST_EXEC_TEXT_H

#include <string.h>

#include "db/db.h"
#include "exec/result.h"

static inline int exec_text(db *d, const char *text, err *e) {
    db_result r = {0};
    int rc = db_execute(d, text, strlen(text), &r, e);
    if (rc == 0 && r.rows)
        result_free(r.rows);
    return rc;
}

#endif
