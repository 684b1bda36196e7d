/*
 * session.c — one shell session: its database, its settings, the ways
 * commands reach it, and its end. main.c fills a session from the command
 * line; tests/fuzz/fuzz_shell.c makes one on an in-memory database and
 * feeds it bytes.
 *
 * Under MINIGRAF_SHELL_CONFINED (the fuzz target and the confined test
 * shell) every database is opened with limits on what one query may cost,
 * so that no command can run unbounded; confine.c restricts the paths.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

#ifdef MINIGRAF_SHELL_CONFINED
#define LIMITS                                                                            \
    "\"query_timeout_ms\":50,\"query_memory_limit\":33554432,\"max_derived_facts\":5000," \
    "\"max_results\":5000"
#define OPTIONS_READ_WRITE "{" LIMITS "}"
#define OPTIONS_READ_ONLY "{\"read_only\":true," LIMITS "}"
#else
#define OPTIONS_READ_WRITE NULL
#define OPTIONS_READ_ONLY "{\"read_only\":true}"
#endif

void session_init(shell_session *s, shell_mode mode) {
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->headers = 1;
}

int session_open(shell_session *s, const char *path, int read_only) {
    char *error = NULL;
    const char *options_json = read_only ? OPTIONS_READ_ONLY : OPTIONS_READ_WRITE;
    MiniGrafDb *db = minigraf_open_with_options(path, options_json, &error);
    if (db == NULL) {
        shell_fail(s, "cannot open %s: %s", path ? path : "an in-memory database",
                   error ? error : "(no message)");
        minigraf_string_free(error);
        return -1;
    }
    minigraf_close(s->db);
    free(s->db_path);
    s->db = db;
    s->db_path = path ? shell_strdup(path) : NULL;
    s->read_only = read_only;
    s->attributes_stale = 1;
    return 0;
}

/* Runs the commands of `f` as a script: no prompts, no line editing. */
void session_run_stream(shell_session *s, FILE *f) {
    line_source *in = line_source_file(f);
    if (in == NULL) {
        shell_fail(s, "out of memory");
        return;
    }
    int interactive = s->interactive;
    s->interactive = 0;
    repl_run(s, in);
    s->interactive = interactive;
    line_source_free(in);
}

int session_run_file(shell_session *s, const char *file) {
    FILE *in = fopen(file, "r");
    if (in == NULL) {
        shell_fail(s, "cannot read %s", file);
        return -1;
    }
    session_run_stream(s, in);
    fclose(in);
    return 0;
}

void session_run_bytes(shell_session *s, const char *bytes, size_t len) {
    if (len == 0) /* fmemopen refuses an empty buffer */
        return;
    FILE *f = fmemopen((void *)bytes, len, "r");
    if (f == NULL) {
        shell_fail(s, "cannot read the command text");
        return;
    }
    session_run_stream(s, f);
    fclose(f);
}

static void banner(void) {
    printf("minigraf %s \xE2\x80\x94 bi-temporal graph database\n"
           "Enter .help for the dot-commands; a command runs once its parentheses balance.\n",
           minigraf_version());
    if (!input_has_line_editing())
        puts("(built without libedit: no line editing or history)");
}

void session_run_stdin(shell_session *s) {
    if (!s->interactive) {
        session_run_stream(s, stdin);
        return;
    }
    line_source *in = line_source_terminal(s);
    if (in == NULL) {
        shell_fail(s, "out of memory");
        return;
    }
    banner();
    repl_run(s, in);
    line_source_free(in);
}

void session_free(shell_session *s) {
    minigraf_close(s->db);
    free(s->db_path);
    free(s->nullvalue);
    free(s->widths);
    params_free(s);
    for (size_t i = 0; i < s->attribute_count; i++)
        free(s->attributes[i]);
    free(s->attributes);
    memset(s, 0, sizeof *s);
}
