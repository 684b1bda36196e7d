/*
 * shell.h — the pieces of the `minigraf` command-line shell (spec section 18).
 *
 *   main.c    arguments, opening the database, --init, exit status
 *   repl.c    reading lines, buffering a command until its parentheses
 *             balance, running it (query through a cursor, the rest through
 *             minigraf_execute)
 *   render.c  printing results: write confirmations, query tables, values
 *
 * The shell is a plain client of minigraf.h.
 */
#ifndef MINIGRAF_SHELL_H
#define MINIGRAF_SHELL_H

#include <stdio.h>

#include "minigraf.h"

/* One session: the database and how to talk to the user. */
typedef struct shell_session {
    MiniGrafDb *db;
    int interactive; /* banner, prompts, blank line after each output */
    int silent;      /* --init: no output for successful commands */
    int failures;    /* commands that failed so far */
} shell_session;

/* Reads commands from `in` until EOF or an EXIT line. Returns 1 when EXIT
 * ended the session, 0 at end of input. */
int repl_run(shell_session *s, FILE *in);

/* Runs one complete command text and prints its outcome. */
void repl_run_command(shell_session *s, const char *text);

/* Prints the result JSON of a write or rule ({"transacted":N}, {"ok":true},
 * ...) in the shell's words. */
void render_execute_result(FILE *out, const char *json);

/* Prints a query's answer as a table (or "No results found."), fetching it
 * batch by batch in the typed format. Returns 0, or -1 after printing the
 * cursor's error to stderr. */
int render_cursor(FILE *out, MiniGrafCursor *cursor);

#endif
