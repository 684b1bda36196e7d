/*
 * main.c — the `minigraf` shell's entry point (docs/shell.md).
 *
 *     minigraf [options] [FILE] [COMMAND...]
 *
 * FILE (or --file FILE) opens a file-backed database, none an in-memory
 * one. COMMANDs (and -c CMD, -f SCRIPT, in order) run and the shell exits;
 * otherwise it reads standard input: a terminal interactively, anything
 * else as a script (the `reference` mode of language.md §18 by default).
 *
 * Exit status: 0; 1 when the database cannot be opened, the arguments are
 * wrong, or (when not interactive) a command failed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

typedef struct action {
    char kind; /* 'c' a command, 'f' a script file */
    const char *arg;
} action;

typedef struct options {
    const char *path;      /* NULL: in memory */
    const char *init_file; /* NULL: none */
    int mode;              /* -1: by the input */
    int typed, read_only, bail, headers;
    action *actions;
    size_t action_count;
} options;

static void usage(FILE *out) {
    fputs("usage: minigraf [options] [FILE] [COMMAND...]\n"
          "  FILE             open (or create) a file-backed database; default: in memory\n"
          "  COMMAND...       run these commands (Datalog or dot-commands), then exit\n"
          "  -c CMD           run CMD (repeatable; in order with -f)\n"
          "  -f SCRIPT        run the commands in SCRIPT (repeatable)\n"
          "  --file PATH      the database file (same as FILE)\n"
          "  --init FILE      run FILE's commands silently first\n"
          "  --mode MODE      reference table box csv tsv json jsonl line edn\n"
          "                   (default: table on a terminal, reference otherwise)\n"
          "  --json           the same as --mode json; --typed: lossless values\n"
          "  --noheader       no column names in table, box, csv, tsv\n"
          "  --readonly       open the database read-only\n"
          "  --bail           stop at the first failed command\n"
          "  --version        print the versions and exit\n"
          "  --help           this text\n"
          "Inside the shell, .help lists the dot-commands.\n",
          out);
}

static void add_action(options *o, char kind, const char *arg) {
    o->actions = shell_realloc(o->actions, (o->action_count + 1) * sizeof *o->actions);
    o->actions[o->action_count++] = (action){kind, arg};
}

static int bad_argument(const char *a) {
    fprintf(stderr, "minigraf: unexpected argument '%s'\n", a);
    usage(stderr);
    return -1;
}

/* Parses argv into *o; returns -1 on a usage error, 1 when done (help or
 * version printed), 0 to go on. */
static int parse_args(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_next = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("minigraf %s (ABI %d), line editing: %s\n", minigraf_version(),
                   minigraf_abi_version(),
                   input_has_line_editing() ? "libedit" : "none (built without libedit)");
            return 1;
        } else if (strcmp(a, "--init") == 0 && has_next) {
            o->init_file = argv[++i];
        } else if (strcmp(a, "--file") == 0 && has_next && o->path == NULL) {
            o->path = argv[++i];
        } else if (strcmp(a, "-c") == 0 && has_next) {
            add_action(o, 'c', argv[++i]);
        } else if (strcmp(a, "-f") == 0 && has_next) {
            add_action(o, 'f', argv[++i]);
        } else if (strcmp(a, "--mode") == 0 && has_next) {
            o->mode = mode_by_name(argv[++i]);
            if (o->mode < 0)
                return bad_argument(argv[i]);
        } else if (strcmp(a, "--json") == 0) {
            o->mode = MODE_JSON;
        } else if (strcmp(a, "--typed") == 0) {
            o->typed = 1;
        } else if (strcmp(a, "--noheader") == 0) {
            o->headers = 0;
        } else if (strcmp(a, "--readonly") == 0) {
            o->read_only = 1;
        } else if (strcmp(a, "--bail") == 0) {
            o->bail = 1;
        } else if (a[0] != '-' && o->path == NULL && o->action_count == 0) {
            o->path = a;
        } else if (a[0] != '-' || strcmp(a, "-") == 0) {
            add_action(o, 'c', a);
        } else {
            return bad_argument(a);
        }
    }
    return 0;
}

/* Runs the session: init file, then the actions, else standard input. */
static void run(shell_session *s, const options *o) {
    if (o->init_file != NULL) {
        s->silent = 1;
        session_run_file(s, o->init_file);
        s->silent = 0;
    }
    for (size_t i = 0; i < o->action_count && !s->stop; i++) {
        if (o->actions[i].kind == 'f')
            session_run_file(s, o->actions[i].arg);
        else
            session_run_bytes(s, o->actions[i].arg, strlen(o->actions[i].arg));
    }
    if (o->action_count > 0 || s->stop)
        return;
    session_run_stdin(s);
}

int main(int argc, char **argv) {
    options o = {NULL, NULL, -1, 0, 0, 0, 1, NULL, 0};
    int parsed = parse_args(argc, argv, &o);
    if (parsed != 0) {
        free(o.actions);
        return parsed < 0 ? 1 : 0;
    }
    shell_session s;
    session_init(&s, o.mode >= 0            ? (shell_mode)o.mode
                     : isatty(STDIN_FILENO) ? MODE_TABLE
                                            : MODE_REFERENCE);
    s.interactive = isatty(STDIN_FILENO) && o.action_count == 0;
    s.typed_json = o.typed;
    s.headers = o.headers;
    s.bail = o.bail;
    interrupt_install();
    if (session_open(&s, o.path, o.read_only) != 0) {
        session_free(&s);
        free(o.actions);
        return 1;
    }
    run(&s, &o);
    int status = !s.interactive && s.failures > 0 ? 1 : 0;
    session_free(&s);
    free(o.actions);
    return status;
}
