/*
 * shell.h — the pieces of the `minigraf` command-line shell (docs/shell.md;
 * the `reference` mode is language.md §18).
 *
 *   main.c       the command line, exit status
 *   session.c    a session: opening its database, running a script, a
 *                text or standard input through it, freeing it
 *   confine.c    what a confined build (MINIGRAF_SHELL_CONFINED) refuses
 *   repl.c       reading commands: buffering lines until a command is
 *                complete, comments, dot-commands, running a command
 *   input.c      where lines come from: a file, or the terminal through
 *                libedit (history, completion) when it was found at build
 *                time; SIGINT
 *   dot.c        the dot-commands (.help, .mode, .open, ...)
 *   dot_info.c   the dot-commands that ask the database about itself
 *                (.attributes, .rules, .stats, .explain)
 *   transfer.c   .export and .import (fact log / log writer)
 *   params.c     .param: values for $slots of prepared queries
 *   render.c     printing results in the output modes, streaming
 *   value.c      reading the library's typed JSON, writing values as text
 *
 * The shell is a plain client of minigraf.h.
 */
#ifndef MINIGRAF_SHELL_H
#define MINIGRAF_SHELL_H

#include <signal.h>
#include <stdio.h>

#include "minigraf.h"

/* ---- text and JSON (value.c) ---------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

/* realloc, calloc and strdup that end the program on out of memory
 * (never return NULL). */
void *shell_realloc(void *block, size_t size);
void *shell_calloc(size_t count, size_t size);
char *shell_strdup(const char *s);
void text_add(text *t, const char *bytes, size_t len);
void text_puts(text *t, const char *s);
void text_putc(text *t, char c);
void text_clear(text *t); /* empty, data non-NULL */
void text_free(text *t);
/* Display columns of UTF-8 text (one per code point). */
size_t text_width(const char *s, size_t len);

typedef struct scan {
    const char *p;
} scan;

void scan_ws(scan *s);
/* Consumes `c` (after whitespace) if it is next; returns whether it was. */
int scan_accept(scan *s, char c);
/* Reads a JSON string (after whitespace) into `out`, decoded. */
void scan_string(scan *s, text *out);
/* Skips one JSON value of any kind. */
void scan_skip_value(scan *s);

typedef enum value_type { /* the MINIGRAF_TYPE_* numbers */
                          VT_NULL,
                          VT_STRING,
                          VT_INTEGER,
                          VT_FLOAT,
                          VT_BOOLEAN,
                          VT_KEYWORD,
                          VT_REF,
                          VT_LIST,
                          VT_UNKNOWN,
                          VT_TEXT /* the shell's own text (.explain's clauses): printed as it is */
} value_type;

/* One typed value: {"type":...,"value":...}. A list keeps its raw JSON
 * (`raw`, borrowed from the scanned text). */
typedef struct cell {
    value_type type;
    text value; /* decoded string, or the raw token (number, true, ...) */
    int value_is_string;
    const char *raw;
    size_t raw_len;
} cell;

/* Reads one typed value object; 0, or -1 on unexpected input. */
int scan_cell(scan *s, cell *c);
void cell_free(cell *c);

typedef enum value_notation {
    VALUE_REFERENCE,
    VALUE_ESCAPED,
    VALUE_EDN,
    VALUE_PLAIN
} value_notation;

/* Appends a value in a notation (value.c explains each); `nullvalue`
 * replaces nil (NULL: "nil"). */
void value_render(text *out, const cell *c, value_notation how, const char *nullvalue);
/* Appends a value as JSON: plain as minigraf_execute would, or typed. */
void value_json(text *out, const cell *c, int typed);

/* ---- the session ---------------------------------------------------------- */

typedef enum shell_mode {
    MODE_REFERENCE,
    MODE_TABLE,
    MODE_BOX,
    MODE_CSV,
    MODE_TSV,
    MODE_JSON,
    MODE_JSONL,
    MODE_LINE,
    MODE_EDN,
    MODE_COUNT
} shell_mode;

/* The mode named so, or -1. */
int mode_by_name(const char *name);
const char *mode_name(shell_mode m);

typedef struct param {
    char *name;  /* without the '$' */
    char *value; /* the EDN literal as typed */
} param;

typedef struct shell_session {
    MiniGrafDb *db;
    char *db_path; /* NULL: in memory */
    int read_only;
    int interactive; /* reading from a terminal: prompts, line editing */
    int silent;      /* --init: no output for successful commands */
    int failures;    /* commands that failed so far */
    int bail;        /* .bail on: stop at the first failed command */
    int stop;        /* .quit, EXIT, or a failure under .bail */
    shell_mode mode;
    int typed_json;  /* json/jsonl: the lossless typed values */
    int headers;     /* column names in table, box, csv, tsv */
    char *nullvalue; /* what nil prints as (NULL: the mode's default) */
    size_t *widths;  /* .width: minimum column widths for table/box */
    size_t width_count;
    int timer;      /* .timer on */
    int read_depth; /* .read nesting */
    int reads_run;  /* .read commands run (a confined shell limits them) */
    param *params;
    size_t param_count;
    char **attributes; /* known attributes, for completion */
    size_t attribute_count;
    int attributes_stale; /* a write or .open since they were read */
} shell_session;

/* Reports an error of a command: "Error: <message>" on stderr, counts
 * the failure, stops the session under .bail. */
void shell_fail(shell_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the session's life (session.c) ---------------------------------------- */

/* An empty session printing in `mode`, column names on, no database yet. */
void session_init(shell_session *s, shell_mode mode);
/* Opens `path` (NULL: in memory) for the session, closing the previous
 * database only when the new one opened. Returns 0 or -1 (reported). */
int session_open(shell_session *s, const char *path, int read_only);
/* Runs the commands read from `f` as a script (no prompts, no editing). */
void session_run_stream(shell_session *s, FILE *f);
/* The same for the file named `file`; -1 (reported) when it cannot be read. */
int session_run_file(shell_session *s, const char *file);
/* The same for `len` bytes of text (line breaks separate lines, as in a
 * file): -c, a COMMAND argument, the fuzz target. */
void session_run_bytes(shell_session *s, const char *bytes, size_t len);
/* Reads standard input: the terminal with a banner and prompts when
 * s->interactive, otherwise as a script. */
void session_run_stdin(shell_session *s);
/* Closes the database and frees everything the session holds; every
 * field of `s` is zero afterwards. */
void session_free(shell_session *s);

/* ---- confinement (confine.c) ------------------------------------------------ */

/* 0 when `command` may use the file `path`; in a confined build -1 after
 * reporting API-017 unless it is a plain name in the current directory. */
int confine_path(shell_session *s, const char *command, const char *path);
/* 0 when one more .read may run (and counts it); -1 after reporting. */
int confine_read(shell_session *s);
/* How many rows one answer may print: SIZE_MAX unless confined. */
size_t confine_row_limit(void);
/* 0 while an answer of `rows` rows is under the limit; -1 after reporting. */
int confine_rows(shell_session *s, size_t rows);

/* ---- reading commands (repl.c) -------------------------------------------- */

typedef struct line_source line_source;

/* Reads and runs commands from `in` until its end, EXIT / .quit or a
 * failure under .bail. */
void repl_run(shell_session *s, line_source *in);

/* Runs a Datalog command and prints its outcome. */
void repl_run_command(shell_session *s, const char *command);

/* The state of a partial command after some lines (also tells completion
 * and the prompt whether a command is open). */
typedef struct command_state {
    long depth;    /* open '(' minus ')' outside strings */
    int opened;    /* some '(' seen */
    int in_string; /* inside a string literal */
    int escaped;   /* the last character was a '\' inside a string */
} command_state;

void command_state_feed(command_state *st, const char *bytes, size_t len);

/* ---- input (input.c) ------------------------------------------------------ */

/* A source of lines: a FILE, or the terminal (with libedit if built with
 * it). Lines come without their final '\n'. */
line_source *line_source_file(FILE *f);
line_source *line_source_terminal(shell_session *s);
/* The next line (borrowed until the next call), or NULL at the end.
 * `continuation`: the prompt is "   ...> " instead of "minigraf> ". A
 * Ctrl-C while reading returns "" with *interrupted set. */
const char *line_source_next(line_source *in, int continuation, int *interrupted);
void line_source_free(line_source *in);
/* Whether the shell was built with libedit (line editing, history). */
int input_has_line_editing(void);

/* SIGINT: while a query runs, asks it to stop; while reading, discards
 * the line (input.c). */
void interrupt_install(void);
void interrupt_begin_query(MiniGrafDb *db);
void interrupt_end_query(void);
/* Whether Ctrl-C was pressed since the last call (and clears it). */
int interrupt_take(void);
/* Whether Ctrl-C was pressed during the running query. */
int interrupt_pending(void);

/* ---- dot-commands (dot.c, dot_info.c, transfer.c, params.c) -------------- */

/* Runs one dot-command line (starting with '.'). */
void dot_run(shell_session *s, const char *line);
/* Prints .help. */
void dot_help(FILE *out);
/* Names for completion: NULL-terminated. */
extern const char *const dot_command_names[];

void dot_attributes(shell_session *s, const char *args);
void dot_rules(shell_session *s, const char *args);
void dot_stats(shell_session *s, const char *args);
void dot_explain(shell_session *s, const char *args);
/* Refreshes s->attributes (for completion) from the database. */
void attributes_refresh(shell_session *s);

void dot_export(shell_session *s, const char *args);
void dot_import(shell_session *s, const char *args);

void dot_param(shell_session *s, const char *args);
void params_free(shell_session *s);
/* A query with $slots (minigraf_query said API-010): runs it as a
 * prepared query with the .param values. Returns 0, or -1 after
 * reporting why it could not. */
int params_run_prepared(shell_session *s, const char *query);

/* ---- output (render.c) ---------------------------------------------------- */

/* Prints the result JSON of a write or rule ({"transacted":N}, ...). */
void render_execute_result(shell_session *s, const char *json);

/* Prints a query's answer in the session's mode, fetching it batch by
 * batch; stops early on Ctrl-C. Returns 0, or -1 after reporting the
 * cursor's error. */
int render_cursor(shell_session *s, MiniGrafCursor *cursor);
/* The same with other column names (NULL: the cursor's). */
int render_cursor_as(shell_session *s, MiniGrafCursor *cursor, const char *const *names);

/* A query-shaped answer produced by the shell itself (.stats, .explain):
 * columns and rows of typed values printed in the session's mode. */
typedef struct rows_out rows_out;
rows_out *rows_begin(shell_session *s, const char *const *names, size_t count);
void rows_add(rows_out *r, const cell *cells);
void rows_end(rows_out *r);

#endif
