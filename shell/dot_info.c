/*
 * dot_info.c — the dot-commands that ask the database about itself:
 *
 *   .attributes     a Datalog query: each attribute with its fact count
 *   .rules          minigraf_rules: the registered rules' texts
 *   .stats          minigraf_stats: file, pages, cache, WAL
 *   .explain QUERY  minigraf_explain: order, join, index, estimated rows
 *
 * Their answers print in the session's output mode like a query's (json
 * and jsonl print the library's JSON as it is for .stats and .explain).
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

static const char attributes_query[] =
    "(query [:find ?a (count ?e) :where [?e ?a _] :order-by [?a]])";

void dot_attributes(shell_session *s, const char *args) {
    static const char *const names[] = {"attribute", "facts"};
    (void)args;
    MiniGrafCursor *c = minigraf_query(s->db, attributes_query);
    if (c == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return;
    }
    render_cursor_as(s, c, names);
    minigraf_cursor_free(c);
}

void attributes_refresh(shell_session *s) {
    for (size_t i = 0; i < s->attribute_count; i++)
        free(s->attributes[i]);
    s->attribute_count = 0;
    s->attributes_stale = 0;
    MiniGrafCursor *c = minigraf_query(s->db, attributes_query); /* one row an attribute */
    char *batch;
    text name = {0};
    while (c != NULL && (batch = minigraf_cursor_next_batch(c, 512)) != NULL) {
        scan sc = {batch};
        scan_accept(&sc, '[');
        while (scan_accept(&sc, '[')) {
            scan_string(&sc, &name);
            scan_accept(&sc, ',');
            scan_skip_value(&sc); /* the count */
            s->attributes = shell_realloc(s->attributes,
                                          (s->attribute_count + 1) * sizeof *s->attributes);
            s->attributes[s->attribute_count++] = strdup(name.data);
            scan_accept(&sc, ']');
            scan_accept(&sc, ',');
        }
        minigraf_string_free(batch);
    }
    text_free(&name);
    minigraf_cursor_free(c);
}

/* A cell holding the shell's own text, or a JSON token read from `sc`. */
static void cell_text(cell *c, const char *t) {
    text_clear(&c->value);
    text_puts(&c->value, t ? t : "");
    c->type = t ? VT_TEXT : VT_NULL;
    c->value_is_string = 1;
}

static void cell_from_json(cell *c, scan *sc) {
    scan_ws(sc);
    if (*sc->p == '"') {
        scan_string(sc, &c->value);
        c->type = VT_TEXT;
        c->value_is_string = 1;
        return;
    }
    const char *start = sc->p;
    scan_skip_value(sc);
    text_clear(&c->value);
    text_add(&c->value, start, (size_t)(sc->p - start));
    c->value_is_string = 0;
    const char *v = c->value.data;
    c->type = strcmp(v, "null") == 0                              ? VT_NULL
              : strcmp(v, "true") == 0 || strcmp(v, "false") == 0 ? VT_BOOLEAN
              : strpbrk(v, ".eE")                                 ? VT_FLOAT
                                                                  : VT_INTEGER;
}

static int prints_json(const shell_session *s) {
    return s->mode == MODE_JSON || s->mode == MODE_JSONL;
}

void dot_stats(shell_session *s, const char *args) {
    static const char *const names[] = {"stat", "value"};
    (void)args;
    char *json = minigraf_stats(s->db);
    if (json == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return;
    }
    if (prints_json(s)) {
        printf("%s\n", json);
    } else {
        cell cells[2] = {{0}, {0}};
        text key = {0};
        scan sc = {json};
        rows_out *r = rows_begin(s, names, 2);
        scan_accept(&sc, '{');
        for (scan_ws(&sc); *sc.p == '"'; scan_ws(&sc)) {
            scan_string(&sc, &key);
            scan_accept(&sc, ':');
            cell_text(&cells[0], key.data);
            cell_from_json(&cells[1], &sc);
            rows_add(r, cells);
            scan_accept(&sc, ',');
        }
        rows_end(r);
        text_free(&key);
        cell_free(&cells[0]);
        cell_free(&cells[1]);
    }
    minigraf_string_free(json);
}

void dot_rules(shell_session *s, const char *args) {
    (void)args;
    char *json = minigraf_rules(s->db);
    if (json == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return;
    }
    if (prints_json(s)) {
        printf("%s\n", json);
    } else {
        text rule = {0};
        scan sc = {json};
        size_t n = 0;
        scan_accept(&sc, '[');
        for (scan_ws(&sc); *sc.p == '"'; scan_ws(&sc), n++) {
            scan_string(&sc, &rule);
            printf("%s\n", rule.data);
            scan_accept(&sc, ',');
        }
        if (n == 0)
            puts("(no rules registered)");
        text_free(&rule);
    }
    minigraf_string_free(json);
}

void dot_explain(shell_session *s, const char *args) {
    static const char *const names[] = {"step", "kind",  "clause",
                                        "join", "index", "estimated rows"};
    static const char *const keys[] = {"step", "kind", "clause", "join", "index", "estimated_rows"};
    while (*args == ' ' || *args == '\t')
        args++;
    if (*args == '\0') {
        shell_fail(s, "usage: .explain (query [...])");
        return;
    }
    char *json = minigraf_explain(s->db, args);
    if (json == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return;
    }
    if (prints_json(s)) {
        printf("%s\n", json);
        minigraf_string_free(json);
        return;
    }
    cell cells[6] = {{0}};
    text key = {0};
    scan sc = {json};
    rows_out *r = rows_begin(s, names, 6);
    scan_accept(&sc, '{');
    scan_string(&sc, &key); /* "steps" */
    scan_accept(&sc, ':');
    scan_accept(&sc, '[');
    while (scan_accept(&sc, '{')) {
        for (int i = 0; i < 6; i++)
            cell_text(&cells[i], NULL);
        for (scan_ws(&sc); *sc.p == '"'; scan_ws(&sc)) {
            scan_string(&sc, &key);
            scan_accept(&sc, ':');
            int slot = -1;
            for (int i = 0; i < 6; i++)
                if (strcmp(key.data, keys[i]) == 0)
                    slot = i;
            if (slot >= 0)
                cell_from_json(&cells[slot], &sc);
            else
                scan_skip_value(&sc);
            scan_accept(&sc, ',');
        }
        scan_accept(&sc, '}');
        rows_add(r, cells);
        scan_accept(&sc, ',');
    }
    rows_end(r);
    for (int i = 0; i < 6; i++)
        cell_free(&cells[i]);
    text_free(&key);
    minigraf_string_free(json);
}
