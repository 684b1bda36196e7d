/*
 * params.c — .param: values for the $slots of prepared queries (language.md §13).
 *
 *   .param set NAME VALUE   VALUE is an EDN literal: "text", 42, 4.5, true,
 *                           nil, :kw, #uuid "..."; NAME with or without '$'
 *   .param list             the values, in the order they were set
 *   .param clear [NAME]     forget one value, or all
 *
 * A query whose text has $slots is refused by minigraf_query (API-010);
 * repl.c then calls params_run_prepared, which prepares it and binds the
 * values by name. A value that fits two kinds of slot is tried as both
 * (bind_param): 5 is a Val or a TxCount, #uuid "..." an Entity or a
 * Val(Ref), :any-valid-time a keyword or AnyValidTime; #inst MS is a
 * Timestamp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

static param *param_find(shell_session *s, const char *name) {
    for (size_t i = 0; i < s->param_count; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return &s->params[i];
    return NULL;
}

static void param_remove(shell_session *s, param *p) {
    free(p->name);
    free(p->value);
    size_t i = (size_t)(p - s->params);
    memmove(p, p + 1, (s->param_count - i - 1) * sizeof *p);
    s->param_count--;
}

void params_free(shell_session *s) {
    while (s->param_count > 0)
        param_remove(s, &s->params[s->param_count - 1]);
    free(s->params);
    s->params = NULL;
}

static const char *skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void param_set(shell_session *s, const char *args) {
    args = skip_blanks(args);
    if (*args == '$')
        args++;
    size_t n = strcspn(args, " \t");
    const char *value = skip_blanks(args + n);
    size_t vlen = strlen(value);
    while (vlen > 0 && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
        vlen--;
    if (n == 0 || vlen == 0) {
        shell_fail(
            s,
            "usage: .param set NAME VALUE (VALUE an EDN literal: \"text\" 42 :kw #uuid \"...\")");
        return;
    }
    char *name = strndup(args, n);
    param *p = param_find(s, name);
    if (p != NULL) {
        free(name);
        free(p->value);
    } else {
        s->params = shell_realloc(s->params, (s->param_count + 1) * sizeof *s->params);
        p = &s->params[s->param_count++];
        p->name = name;
    }
    p->value = strndup(value, vlen);
}

void dot_param(shell_session *s, const char *args) {
    args = skip_blanks(args);
    size_t n = strcspn(args, " \t");
    if (n == 3 && strncmp(args, "set", 3) == 0) {
        param_set(s, args + 3);
    } else if (n == 4 && strncmp(args, "list", 4) == 0) {
        for (size_t i = 0; i < s->param_count; i++)
            printf("$%s %s\n", s->params[i].name, s->params[i].value);
    } else if (n == 5 && strncmp(args, "clear", 5) == 0) {
        const char *name = skip_blanks(args + 5);
        if (*name == '$')
            name++;
        if (*name == '\0') {
            params_free(s);
        } else {
            param *p = param_find(s, name);
            if (p == NULL)
                shell_fail(s, "no parameter $%s", name);
            else
                param_remove(s, p);
        }
    } else {
        shell_fail(s, "usage: .param set NAME VALUE | .param list | .param clear [NAME]");
    }
}

/* Parses an EDN string literal ("..." with \" \\ \n \t \r escapes) into a
 * new NUL-terminated text; NULL when `v` is not one. */
static char *edn_string(const char *v, size_t *len) {
    size_t n = strlen(v);
    if (n < 2 || v[0] != '"' || v[n - 1] != '"')
        return NULL;
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        char c = v[i];
        if (c == '\\' && i + 2 < n) {
            c = v[++i];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    *len = o;
    return out;
}

static int is_integer(const char *v) {
    if (*v == '-')
        v++;
    if (*v == '\0')
        return 0;
    for (; *v; v++)
        if (*v < '0' || *v > '9')
            return 0;
    return 1;
}

/* Binds one .param value by its EDN form. A value that fits two kinds of
 * slot (language.md §13) tries the value kind first, then the other: an integer
 * is a Val, else a TxCount (:as-of $t); #uuid "..." an Entity, else a
 * Val(Ref); :any-valid-time a Val keyword, else AnyValidTime; #inst N (ms)
 * a Timestamp. Returns the library's code. */
static int bind_param(MiniGrafStmt *stmt, const param *p) {
    const char *v = p->value;
    int rc;
    size_t len = 0;
    char *literal = NULL;
    if (strncmp(v, "#uuid ", 6) == 0 && (literal = edn_string(v + 6 + strspn(v + 6, " "), &len))) {
        rc = minigraf_stmt_bind_entity(stmt, p->name, literal);
        if (rc == MINIGRAF_E_API_015)
            rc = minigraf_stmt_bind_ref(stmt, p->name, literal);
    } else if (strncmp(v, "#inst ", 6) == 0 && is_integer(v + 6 + strspn(v + 6, " "))) {
        rc = minigraf_stmt_bind_timestamp_ms(stmt, p->name, strtoll(v + 6, NULL, 10));
    } else if ((literal = edn_string(v, &len)) != NULL) {
        rc = minigraf_stmt_bind_string(stmt, p->name, literal, len);
    } else if (is_integer(v)) {
        long long n = strtoll(v, NULL, 10);
        rc = minigraf_stmt_bind_int64(stmt, p->name, n);
        if (rc == MINIGRAF_E_API_015 && n >= 0)
            rc = minigraf_stmt_bind_tx_count(stmt, p->name, (uint64_t)n);
    } else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        rc = minigraf_stmt_bind_bool(stmt, p->name, v[0] == 't');
    } else if (strcmp(v, "nil") == 0) {
        rc = minigraf_stmt_bind_null(stmt, p->name);
    } else if (v[0] == ':') {
        rc = minigraf_stmt_bind_keyword(stmt, p->name, v);
        if (rc == MINIGRAF_E_API_015 && strcmp(v, ":any-valid-time") == 0)
            rc = minigraf_stmt_bind_any_valid_time(stmt, p->name);
    } else {
        char *end = NULL;
        double d = strtod(v, &end);
        rc = end != v && *end == '\0' ? minigraf_stmt_bind_double(stmt, p->name, d)
                                      : minigraf_stmt_bind_string(stmt, p->name, v, strlen(v));
    }
    free(literal);
    return rc;
}

/* Runs `query` (text with $slots) as a prepared query with the .param
 * values; a missing value or one of the wrong kind is the library's
 * API-015. */
int params_run_prepared(shell_session *s, const char *query) {
    MiniGrafStmt *stmt = minigraf_prepare(s->db, query);
    if (stmt == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < s->param_count && rc == 0; i++)
        rc = bind_param(stmt, &s->params[i]);
    MiniGrafCursor *cursor = rc == 0 ? minigraf_stmt_query(stmt) : NULL;
    if (cursor == NULL) {
        shell_fail(s, "%s", minigraf_stmt_last_error(stmt));
        minigraf_stmt_free(stmt);
        return -1;
    }
    rc = render_cursor(s, cursor);
    minigraf_cursor_free(cursor);
    minigraf_stmt_free(stmt);
    return rc;
}
