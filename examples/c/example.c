/*
 * example.c — a first program with minigraf: open an in-memory database,
 * record a few facts, ask a question through a cursor, print the rows.
 *
 *     cc example.c -lminigraf -o example && ./example
 */
#include <stdio.h>

#include <minigraf.h>

/* Prints the database's last error and returns 1 (for `return fail(db)`). */
static int fail(MiniGrafDb *db, const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, minigraf_last_error(db));
    minigraf_close(db);
    return 1;
}

int main(void) {
    MiniGrafDb *db = minigraf_open_in_memory();
    if (db == NULL)
        return 1;

    /* Writes return a small JSON object: {"transacted": <commit ms>}. */
    char *result = minigraf_execute(
        db, "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]"
            "           [:bob :person/name \"Bob\"] [:bob :person/age 25]"
            "           [:alice :friend :bob]])");
    if (result == NULL)
        return fail(db, "transact");
    printf("%s\n", result);
    minigraf_string_free(result);

    /* Queries stream through a cursor, a JSON array of rows per batch. */
    MiniGrafCursor *cursor = minigraf_query(
        db, "(query [:find ?name ?age"
            "        :where [:alice :friend ?f] [?f :person/name ?name] [?f :person/age ?age]])");
    if (cursor == NULL)
        return fail(db, "query");
    char *vars = minigraf_cursor_vars(cursor);
    printf("columns: %s\n", vars);
    minigraf_string_free(vars);
    char *batch;
    while ((batch = minigraf_cursor_next_batch(cursor, 100)) != NULL) {
        printf("rows: %s\n", batch); /* [["Bob",25]] */
        minigraf_string_free(batch);
    }
    int status = minigraf_cursor_last_error(cursor) == NULL ? 0 : 1;
    minigraf_cursor_free(cursor);

    /* Errors carry a spec code: this one is "[PRS-011] Unknown command: ...". */
    if (minigraf_execute(db, "(frobnicate)") == NULL)
        printf("expected error: %s (%s)\n", minigraf_last_error(db),
               minigraf_error_code_name(minigraf_last_error_code(db)));

    minigraf_close(db);
    return status;
}
