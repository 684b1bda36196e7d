/*
 * dot.c — the dot-commands: a line starting with '.' where a command may
 * start. Each takes the rest of its line only; an unknown one is reported
 * and nothing else is consumed.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shell.h"

typedef void (*dot_fn)(shell_session *s, const char *args);

typedef struct dot_command {
    const char *name, *usage, *help;
    dot_fn run;
} dot_command;

/* ---- arguments -------------------------------------------------------------- */

/* The next word of *p into `out` ("double quotes" group words, \" inside
 * them is a quote); 0 when there is none. */
static int next_word(const char **p, text *out) {
    const char *c = *p;
    text_clear(out);
    while (*c == ' ' || *c == '\t')
        c++;
    if (*c == '\0') {
        *p = c;
        return 0;
    }
    if (*c == '"') {
        for (c++; *c != '\0' && *c != '"'; c++) {
            if (*c == '\\' && (c[1] == '"' || c[1] == '\\'))
                c++;
            text_putc(out, *c);
        }
        if (*c == '"')
            c++;
    } else {
        while (*c != '\0' && *c != ' ' && *c != '\t')
            text_putc(out, *c++);
    }
    *p = c;
    return 1;
}

/* "on" / "off" (also 1/0, yes/no) into *flag; otherwise reports usage. */
static void set_flag(shell_session *s, const char *args, int *flag, const char *usage) {
    text w = {0};
    int ok = next_word(&args, &w);
    if (ok && (strcasecmp(w.data, "on") == 0 || strcmp(w.data, "1") == 0 ||
               strcasecmp(w.data, "yes") == 0))
        *flag = 1;
    else if (ok && (strcasecmp(w.data, "off") == 0 || strcmp(w.data, "0") == 0 ||
                    strcasecmp(w.data, "no") == 0))
        *flag = 0;
    else
        shell_fail(s, "usage: %s", usage);
    text_free(&w);
}

/* ---- the commands ------------------------------------------------------------ */

static void dot_help_cmd(shell_session *s, const char *args) {
    (void)s;
    (void)args;
    dot_help(stdout);
}

static void dot_quit(shell_session *s, const char *args) {
    (void)args;
    s->stop = 1;
}

static void dot_mode(shell_session *s, const char *args) {
    text w = {0};
    if (!next_word(&args, &w)) {
        printf("current output mode: %s%s\n", mode_name(s->mode), s->typed_json ? " --typed" : "");
    } else {
        int m = mode_by_name(w.data);
        int typed = 0;
        int bad = m < 0;
        while (!bad && next_word(&args, &w)) {
            if (strcmp(w.data, "--typed") == 0 && (m == MODE_JSON || m == MODE_JSONL))
                typed = 1;
            else
                bad = 1;
        }
        if (bad) {
            shell_fail(s, "usage: .mode reference|table|box|csv|tsv|json|jsonl|line|edn (json, "
                          "jsonl: [--typed])");
        } else {
            s->mode = (shell_mode)m;
            s->typed_json = typed;
        }
    }
    text_free(&w);
}

static void dot_headers(shell_session *s, const char *args) {
    set_flag(s, args, &s->headers, ".headers on|off");
}

static void dot_bail(shell_session *s, const char *args) {
    set_flag(s, args, &s->bail, ".bail on|off");
}
static void dot_timer(shell_session *s, const char *args) {
    set_flag(s, args, &s->timer, ".timer on|off");
}

static void dot_nullvalue(shell_session *s, const char *args) {
    text w = {0};
    free(s->nullvalue);
    s->nullvalue = NULL;
    if (next_word(&args, &w))
        s->nullvalue = strdup(w.data);
    text_free(&w);
}

static void dot_width(shell_session *s, const char *args) {
    text w = {0};
    size_t n = 0;
    size_t *widths = NULL;
    while (next_word(&args, &w)) {
        char *end;
        long v = strtol(w.data, &end, 10);
        if (*end != '\0' || v < 0 || v > 1000) {
            shell_fail(s, "usage: .width N ... (each 0..1000; none resets)");
            free(widths);
            text_free(&w);
            return;
        }
        widths = shell_realloc(widths, (n + 1) * sizeof *widths);
        widths[n++] = (size_t)v;
    }
    free(s->widths);
    s->widths = widths;
    s->width_count = n;
    text_free(&w);
}

static void dot_open(shell_session *s, const char *args) {
    text w = {0};
    int read_only = 0, bad = 0;
    char *path = NULL;
    while (!bad && next_word(&args, &w)) {
        if (strcmp(w.data, "--readonly") == 0 && path == NULL)
            read_only = 1;
        else if (w.data[0] != '-' && path == NULL)
            path = strdup(w.data);
        else
            bad = 1;
    }
    if (bad)
        shell_fail(s, "usage: .open [--readonly] [PATH] (no PATH: a new in-memory database)");
    else if (path == NULL || confine_path(s, ".open", path) == 0)
        session_open(s, path, read_only);
    free(path);
    text_free(&w);
}

static void dot_read(shell_session *s, const char *args) {
    text w = {0};
    if (!next_word(&args, &w)) {
        shell_fail(s, "usage: .read FILE");
    } else if (s->read_depth >= 16) {
        shell_fail(s, ".read nested too deeply (16 levels)");
    } else if (confine_path(s, ".read", w.data) == 0 && confine_read(s) == 0) {
        s->read_depth++;
        session_run_file(s, w.data);
        s->read_depth--;
    }
    text_free(&w);
}

static void dot_changes(shell_session *s, const char *args) {
    (void)args;
    uint64_t n = 0;
    if (minigraf_current_tx_count(s->db, &n) != 0)
        shell_fail(s, "%s", minigraf_last_error(s->db));
    else
        printf("transactions: %llu\n", (unsigned long long)n);
}

static void dot_checkpoint(shell_session *s, const char *args) {
    (void)args;
    if (minigraf_checkpoint(s->db) != 0)
        shell_fail(s, "%s", minigraf_last_error(s->db));
}

static void dot_show(shell_session *s, const char *args) {
    (void)args;
    printf("     database: %s%s\n", s->db_path ? s->db_path : "(in memory)",
           s->read_only ? " (read-only)" : "");
    printf("         mode: %s%s\n", mode_name(s->mode), s->typed_json ? " --typed" : "");
    printf("      headers: %s\n", s->headers ? "on" : "off");
    printf("    nullvalue: %s\n", s->nullvalue ? s->nullvalue : "(mode default)");
    printf("        timer: %s\n", s->timer ? "on" : "off");
    printf("         bail: %s\n", s->bail ? "on" : "off");
    printf("        width:");
    for (size_t i = 0; i < s->width_count; i++)
        printf(" %zu", s->widths[i]);
    printf("\n line editing: %s\n",
           input_has_line_editing() ? "libedit" : "none (built without libedit)");
}

static const dot_command commands[] = {
    {".attributes", "", "each attribute with its fact count", dot_attributes},
    {".bail", "on|off", "stop at the first failed command (exit status 1)", dot_bail},
    {".changes", "", "the transaction counter (what :as-of counts)", dot_changes},
    {".checkpoint", "", "write the log into the database file", dot_checkpoint},
    {".exit", "", "leave the shell", dot_quit},
    {".explain", "QUERY", "the plan of a (query ...): order, index, estimated rows", dot_explain},
    {".export", "[--jsonl] FILE", "copy the database, with its history, to a new file", dot_export},
    {".headers", "on|off", "column names in table, box, csv and tsv", dot_headers},
    {".help", "", "this list", dot_help_cmd},
    {".import", "FILE DB", "build the new database DB from FILE's fact records, open it",
     dot_import},
    {".mode", "MODE [--typed]", "reference table box csv tsv json jsonl line edn", dot_mode},
    {".nullvalue", "[TEXT]", "print nil as TEXT (none: the mode's default)", dot_nullvalue},
    {".open", "[--readonly] [PATH]", "open another database (no PATH: in memory)", dot_open},
    {".param", "set NAME VALUE|list|clear [NAME]", "values for $slots of queries", dot_param},
    {".quit", "", "leave the shell", dot_quit},
    {".read", "FILE", "run the commands in FILE", dot_read},
    {".rules", "", "the registered rules", dot_rules},
    {".show", "", "the current settings", dot_show},
    {".stats", "", "file size, pages, cache hit rate, WAL size", dot_stats},
    {".timer", "on|off", "wall and CPU time of each command", dot_timer},
    {".width", "[N ...]", "minimum column widths for table and box", dot_width},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

const char *const dot_command_names[] = {
    ".attributes", ".bail",    ".changes", ".checkpoint", ".exit",  ".explain",
    ".export",     ".headers", ".help",    ".import",     ".mode",  ".nullvalue",
    ".open",       ".param",   ".quit",    ".read",       ".rules", ".show",
    ".stats",      ".timer",   ".width",   NULL};

void dot_help(FILE *out) {
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s %s", commands[i].name, commands[i].usage);
        fprintf(out, "%-42s %s\n", left, commands[i].help);
    }
    fputs("\nDatalog commands end when their parentheses balance; EXIT also leaves.\n", out);
    fprintf(out, "Line editing and history: %s.\n",
            input_has_line_editing() ? "on (libedit; ~/.minigraf_history)"
                                     : "off (this shell was built without libedit)");
}

void dot_run(shell_session *s, const char *line) {
    size_t n = strcspn(line, " \t");
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        if (strlen(commands[i].name) == n && strncmp(commands[i].name, line, n) == 0) {
            commands[i].run(s, line + n);
            fflush(stdout);
            return;
        }
    }
    shell_fail(s, "unknown command '%.*s' (.help lists the commands)", (int)n, line);
}
