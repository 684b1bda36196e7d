/*
 * confine.c — what a confined shell (built with MINIGRAF_SHELL_CONFINED:
 * the fuzz target, the confined test shell) refuses, so that input it is
 * fed cannot reach files outside the current directory or run unbounded.
 *
 *   - A dot-command's file (.open, .read, .export, .import) must be a plain
 *     file name in the current directory: not empty, no '/', no "..".
 *   - .read nests at most CONFINED_READ_DEPTH deep and runs at most
 *     CONFINED_READ_TOTAL times in a session (a file reading itself twice
 *     would otherwise run 2^16 times).
 *   - An answer prints at most CONFINED_ROWS rows (a few more: whole
 *     batches); the query itself is bounded by the open options of
 *     session.c.
 *
 * A refusal is API-017, reported as every error of the shell is. An
 * ordinary build allows everything (only .read's depth of 16 holds).
 */
#include "shell.h"

#include <stdint.h>
#include <string.h>

#define CODE_API_017 (MINIGRAF_FAMILY_API * 1000 + 17)

#ifdef MINIGRAF_SHELL_CONFINED
enum { CONFINED_READ_DEPTH = 4, CONFINED_READ_TOTAL = 64, CONFINED_ROWS = 2000 };
#endif

int confine_path(shell_session *s, const char *command, const char *path) {
#ifdef MINIGRAF_SHELL_CONFINED
    if (path[0] == '\0' || strchr(path, '/') != NULL || strstr(path, "..") != NULL) {
        shell_fail(s,
                   "[%s] %s: this shell is confined to plain file names in the current "
                   "directory (no '/', no '..'): '%.200s'",
                   minigraf_error_code_name(CODE_API_017), command, path);
        return -1;
    }
#else
    (void)s;
    (void)command;
    (void)path;
#endif
    return 0;
}

int confine_read(shell_session *s) {
#ifdef MINIGRAF_SHELL_CONFINED
    if (s->read_depth >= CONFINED_READ_DEPTH || s->reads_run >= CONFINED_READ_TOTAL) {
        shell_fail(s, "[%s] .read: this shell is confined to %d nested and %d in all",
                   minigraf_error_code_name(CODE_API_017), CONFINED_READ_DEPTH,
                   CONFINED_READ_TOTAL);
        return -1;
    }
    s->reads_run++;
#else
    (void)s;
#endif
    return 0;
}

size_t confine_row_limit(void) {
#ifdef MINIGRAF_SHELL_CONFINED
    return CONFINED_ROWS;
#else
    return SIZE_MAX;
#endif
}

int confine_rows(shell_session *s, size_t rows) {
    if (rows < confine_row_limit())
        return 0;
    shell_fail(s, "[%s] this shell is confined to answers of %zu rows; the rest is not printed",
               minigraf_error_code_name(CODE_API_017), confine_row_limit());
    return -1;
}
