/*
 * params.c — .param: values for the $slots of prepared queries (spec 13).
 *
 *   .param set NAME VALUE   VALUE is an EDN literal: "text", 42, 4.5, true,
 *                           nil, :kw, #uuid "..."; NAME with or without '$'
 *   .param list             the values, in the order they were set
 *   .param clear [NAME]     forget one value, or all
 *
 * A query whose text has $slots is refused by minigraf_query (API-010);
 * repl.c then calls params_run_prepared, which prepares it and binds the
 * values by name.
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

static param *param_find(shell_session *s, const char *name)
{
    for (size_t i = 0; i < s->param_count; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return &s->params[i];
    return NULL;
}

static void param_remove(shell_session *s, param *p)
{
    free(p->name);
    free(p->value);
    size_t i = (size_t)(p - s->params);
    memmove(p, p + 1, (s->param_count - i - 1) * sizeof *p);
    s->param_count--;
}

void params_free(shell_session *s)
{
    while (s->param_count > 0)
        param_remove(s, &s->params[s->param_count - 1]);
    free(s->params);
    s->params = NULL;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void param_set(shell_session *s, const char *args)
{
    args = skip_blanks(args);
    if (*args == '$')
        args++;
    size_t n = strcspn(args, " \t");
    const char *value = skip_blanks(args + n);
    size_t vlen = strlen(value);
    while (vlen > 0 && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
        vlen--;
    if (n == 0 || vlen == 0) {
        shell_fail(s, "usage: .param set NAME VALUE (VALUE an EDN literal: \"text\" 42 :kw #uuid \"...\")");
        return;
    }
    char *name = strndup(args, n);
    param *p = param_find(s, name);
    if (p != NULL) {
        free(name);
        free(p->value);
    } else {
        s->params = realloc(s->params, (s->param_count + 1) * sizeof *s->params);
        p = &s->params[s->param_count++];
        p->name = name;
    }
    p->value = strndup(value, vlen);
}

void dot_param(shell_session *s, const char *args)
{
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

/* Runs `query` (text with $slots) as a prepared query with the .param
 * values.
 * AFTER THE ABI MERGE: minigraf_prepare(s->db, query); for each
 * s->params[i]: minigraf_stmt_bind_json(stmt, name, value-as-typed-JSON)
 * (EDN literal → {"type":...,"value":...}), or let the library parse the
 * EDN if it offers that; then minigraf_stmt_query(stmt) gives a cursor for
 * render_cursor(s, cursor); errors (API-015 wrong kind / missing value)
 * through shell_fail. Until then the library's API-010 is reported with
 * what the shell would bind. */
int params_run_prepared(shell_session *s, const char *query)
{
    (void)query;
    shell_fail(s, "%s (prepared queries with $slots arrive with the 0.2 C ABI; %zu .param value%s set)",
               minigraf_last_error(s->db), s->param_count, s->param_count == 1 ? "" : "s");
    return -1;
}
