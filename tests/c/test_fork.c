/* fork() (issue 20, finding 7): a child process that uses its parent's
 * handles gets API-022 on every call and writes nothing; the parent goes
 * on committing meanwhile, and every commit it was told succeeded is in
 * the file afterwards. (Before: the child's commits were acknowledged and
 * half of both processes' commits were lost.) */
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#define BEFORE 10
#define DURING 50
#define AFTER 10

static void commit(MiniGrafDb *db, const char *who, int i) {
    char text[96];
    snprintf(text, sizeof text, "(transact [[:%s-%d :n %d]])", who, i, i);
    EXPECT_TRANSACT(db, text);
}

/* In the child: 0 when every call on the parent's handles was refused
 * with API-022, else the number of the first check that failed. */
static int child_checks(MiniGrafDb *db, MiniGrafCursor *c, const char *path) {
    if (minigraf_execute(db, "(transact [[:child :n 1]])") != NULL)
        return 1;
    if (minigraf_last_error_code(db) != MINIGRAF_E_API_022)
        return 2;
    const char *msg = minigraf_last_error(db);
    if (!msg || strncmp(msg, "[API-022] ", 10) != 0)
        return 3;
    if (minigraf_query(db, "(query [:find ?e :where [?e :n _]])") != NULL)
        return 4;
    if (minigraf_checkpoint(db) == 0)
        return 5;
    uint64_t tx = 0;
    if (minigraf_current_tx_count(db, &tx) == 0)
        return 6;
    if (minigraf_cursor_next_batch(c, 10) != NULL ||
        minigraf_cursor_last_error_code(c) != MINIGRAF_E_API_022)
        return 7;
    minigraf_cursor_free(c); /* nothing: the parent's */
    minigraf_close(db);      /* nothing: no checkpoint, no lock released */
    if (minigraf_last_error_code(db) != MINIGRAF_E_API_022)
        return 8;
    char *error = NULL;
    MiniGrafDb *again = minigraf_open_with_options(path, NULL, &error);
    int locked = !again && error && strncmp(error, "[STG-026]", 9) == 0;
    minigraf_string_free(error);
    if (!locked) /* the parent still holds the file */
        return 9;
    MiniGrafDb *own = minigraf_open_in_memory(); /* the child's own handles work */
    char *r = own ? minigraf_execute(own, "(transact [[:child :n 1]])") : NULL;
    int rc = r ? 0 : 10;
    minigraf_string_free(r);
    minigraf_close(own);
    return rc;
}

static void
a_handle_used_in_a_child_after_fork_fails_with_api_022_and_the_parent_keeps_every_commit(void) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open_with_options(t.path, "{\"wal_checkpoint_threshold\": 16}", NULL);
    CHECK(db != NULL);
    for (int i = 0; i < BEFORE; i++)
        commit(db, "before", i);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e :where [?e :n _]])");
    CHECK(c != NULL);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(child_checks(db, c, t.path));
    for (int i = 0; i < DURING; i++) /* while the child runs */
        commit(db, "during", i);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_INT_EQ(WEXITSTATUS(status), 0);
    char *rows = minigraf_cursor_next_batch(c, 1000); /* the parent's cursor still reads */
    CHECK(rows != NULL);
    minigraf_string_free(rows);
    minigraf_cursor_free(c);
    for (int i = 0; i < AFTER; i++)
        commit(db, "after", i);
    minigraf_close(db);
    db = minigraf_open(t.path);
    CHECK(db != NULL);
    EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :n _]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[70]]}");
    EXPECT_EXEC(db, "(query [:find ?e :where [?e :n _] [(= ?e :child)]])",
                "{\"variables\":[\"?e\"],\"results\":[]}");
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(
    a_handle_used_in_a_child_after_fork_fails_with_api_022_and_the_parent_keeps_every_commit))
