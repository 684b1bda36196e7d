/*
 * render.c — printing results in the output modes (docs/shell.md).
 *
 *   reference  language.md §18, byte for byte: names joined by TAB, 20 dashes a
 *              column, rows joined by TAB, "N result(s) found."
 *   table box  aligned columns in ASCII / Unicode frames, values escaped
 *   csv        RFC 4180 (CRLF, quotes doubled)      tsv  TAB, \t \n \\ escaped
 *   json       one array of objects      jsonl  one object a line
 *   line       "name = value" a line, a blank line between rows
 *   edn        a vector of maps
 *
 * Every mode but table and box prints each row as the cursor hands it out.
 * table and box keep the first TABLE_BUFFER_ROWS rows to fix the column
 * widths, then print those and stream the rest at the same widths (a longer
 * value widens only its own line).
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

enum { BATCH_ROWS = 64, TABLE_BUFFER_ROWS = 50 };

static const char *const mode_names[MODE_COUNT] = {"reference", "table", "box",  "csv", "tsv",
                                                   "json",      "jsonl", "line", "edn"};

int mode_by_name(const char *name) {
    for (int i = 0; i < MODE_COUNT; i++)
        if (strcmp(name, mode_names[i]) == 0)
            return i;
    return -1;
}

const char *mode_name(shell_mode m) {
    return mode_names[m];
}

struct rows_out {
    shell_session *s;
    FILE *out;
    char **names;
    size_t ncols, rows;
    text line, cellbuf;
    /* table, box: rendered cells of the buffered rows, and their widths */
    text *pending;
    unsigned char *numeric;
    size_t npending, pending_cap;
    size_t *widths;
    int fixed;
};

static int is_framed(shell_mode m) {
    return m == MODE_TABLE || m == MODE_BOX;
}

static const char *null_text(const rows_out *r, const char *fallback) {
    return r->s->nullvalue ? r->s->nullvalue : fallback;
}

/* ---- frames (table, box) --------------------------------------------------- */

typedef struct frame_chars {
    const char *h, *v, *top[3], *mid[3], *bottom[3]; /* left, cross, right */
} frame_chars;

static const frame_chars ascii_frame = {
    "-", "|", {"+", "+", "+"}, {"+", "+", "+"}, {"+", "+", "+"}};
static const frame_chars box_frame = {"\xE2\x94\x80",
                                      "\xE2\x94\x82",
                                      {"\xE2\x94\x8C", "\xE2\x94\xAC", "\xE2\x94\x90"},
                                      {"\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4"},
                                      {"\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98"}};

static const frame_chars *frame_of(const rows_out *r) {
    return r->s->mode == MODE_BOX ? &box_frame : &ascii_frame;
}

static void frame_rule(rows_out *r, const char *const corners[3]) {
    const frame_chars *f = frame_of(r);
    fputs(corners[0], r->out);
    for (size_t c = 0; c < r->ncols; c++) {
        for (size_t i = 0; i < r->widths[c] + 2; i++)
            fputs(f->h, r->out);
        fputs(c + 1 < r->ncols ? corners[1] : corners[2], r->out);
    }
    fputc('\n', r->out);
}

static void frame_cells(rows_out *r, const text *cells, const unsigned char *numeric) {
    const frame_chars *f = frame_of(r);
    for (size_t c = 0; c < r->ncols; c++) {
        size_t w = text_width(cells[c].data, cells[c].len);
        size_t pad = w < r->widths[c] ? r->widths[c] - w : 0;
        fprintf(r->out, "%s ", f->v);
        if (numeric && numeric[c])
            fprintf(r->out, "%*s%s ", (int)pad, "", cells[c].data);
        else
            fprintf(r->out, "%s%*s ", cells[c].data, (int)pad, "");
    }
    fprintf(r->out, "%s\n", f->v);
}

/* Fixes the widths from the header, .width and the buffered rows, then
 * prints the header and those rows. */
static void frame_flush(rows_out *r) {
    for (size_t c = 0; c < r->ncols; c++) {
        size_t w = r->s->headers ? text_width(r->names[c], strlen(r->names[c])) : 1;
        if (c < r->s->width_count && r->s->widths[c] > w)
            w = r->s->widths[c];
        for (size_t i = 0; i < r->npending; i++) {
            const text *t = &r->pending[i * r->ncols + c];
            size_t tw = text_width(t->data, t->len);
            if (tw > w)
                w = tw;
        }
        r->widths[c] = w;
    }
    const frame_chars *f = frame_of(r);
    frame_rule(r, f->top);
    if (r->s->headers) {
        text *names = shell_calloc(r->ncols, sizeof *names);
        for (size_t c = 0; c < r->ncols; c++)
            text_puts(&names[c], r->names[c]);
        frame_cells(r, names, NULL);
        for (size_t c = 0; c < r->ncols; c++)
            text_free(&names[c]);
        free(names);
        frame_rule(r, f->mid);
    }
    for (size_t i = 0; i < r->npending; i++)
        frame_cells(r, &r->pending[i * r->ncols], &r->numeric[i * r->ncols]);
    r->fixed = 1;
}

static void frame_add(rows_out *r, const cell *cells) {
    if (r->npending == r->pending_cap) {
        r->pending_cap = r->pending_cap ? r->pending_cap * 2 : 16;
        r->pending = shell_realloc(r->pending, r->pending_cap * r->ncols * sizeof *r->pending);
        r->numeric = shell_realloc(r->numeric, r->pending_cap * r->ncols);
    }
    size_t base = r->npending * r->ncols;
    for (size_t c = 0; c < r->ncols; c++) {
        text *t = &r->pending[base + c];
        *t = (text){0};
        text_clear(t);
        value_render(t, &cells[c], VALUE_ESCAPED, null_text(r, "nil"));
        r->numeric[base + c] = cells[c].type == VT_INTEGER || cells[c].type == VT_FLOAT;
    }
    r->npending++;
    if (r->fixed) { /* past the first screenful: print at once */
        frame_cells(r, &r->pending[base], &r->numeric[base]);
        text_free(&r->pending[base]);
        for (size_t c = 1; c < r->ncols; c++)
            text_free(&r->pending[base + c]);
        r->npending = 0;
    } else if (r->npending == TABLE_BUFFER_ROWS) {
        frame_flush(r);
        for (size_t i = 0; i < r->npending * r->ncols; i++)
            text_free(&r->pending[i]);
        r->npending = 0;
    }
}

/* ---- the other modes, one row at a time --------------------------------- */

static void csv_field(text *line, const char *v, size_t len) {
    if (strpbrk(v, ",\"\r\n") == NULL) {
        text_add(line, v, len);
        return;
    }
    text_putc(line, '"');
    for (size_t i = 0; i < len; i++) {
        if (v[i] == '"')
            text_putc(line, '"');
        text_putc(line, v[i]);
    }
    text_putc(line, '"');
}

static void tsv_field(text *line, const char *v, size_t len) {
    for (size_t i = 0; i < len; i++) {
        const char *esc = v[i] == '\t'   ? "\\t"
                          : v[i] == '\n' ? "\\n"
                          : v[i] == '\r' ? "\\r"
                          : v[i] == '\\' ? "\\\\"
                                         : NULL;
        if (esc)
            text_puts(line, esc);
        else
            text_putc(line, v[i]);
    }
}

/* The header line of csv / tsv. */
static void separated_header(rows_out *r) {
    text_clear(&r->line);
    for (size_t c = 0; c < r->ncols; c++) {
        if (c > 0)
            text_putc(&r->line, r->s->mode == MODE_CSV ? ',' : '\t');
        if (r->s->mode == MODE_CSV)
            csv_field(&r->line, r->names[c], strlen(r->names[c]));
        else
            tsv_field(&r->line, r->names[c], strlen(r->names[c]));
    }
    fprintf(r->out, "%s%s", r->line.data, r->s->mode == MODE_CSV ? "\r\n" : "\n");
}

static void json_key(text *line, const char *name) {
    cell c = {VT_STRING, {0}, 1, NULL, 0};
    text_puts(&c.value, name);
    value_json(line, &c, 0);
    cell_free(&c);
}

static void row_line(rows_out *r, const cell *cells) {
    shell_mode m = r->s->mode;
    text *line = &r->line, *v = &r->cellbuf;
    text_clear(line);
    for (size_t c = 0; c < r->ncols; c++) {
        text_clear(v);
        switch (m) {
        case MODE_REFERENCE:
            if (c > 0)
                text_putc(line, '\t');
            value_render(line, &cells[c], VALUE_REFERENCE, NULL);
            break;
        case MODE_CSV:
        case MODE_TSV:
            if (c > 0)
                text_putc(line, m == MODE_CSV ? ',' : '\t');
            value_render(v, &cells[c], VALUE_PLAIN, null_text(r, ""));
            if (m == MODE_CSV)
                csv_field(line, v->data, v->len);
            else
                tsv_field(line, v->data, v->len);
            break;
        case MODE_JSON:
        case MODE_JSONL:
            text_puts(line, c == 0 ? "{" : ",");
            json_key(line, r->names[c]);
            text_putc(line, ':');
            value_json(line, &cells[c], r->s->typed_json);
            break;
        case MODE_EDN:
            text_puts(line, c == 0 ? "{" : ", ");
            text_puts(line, r->names[c]);
            text_putc(line, ' ');
            value_render(line, &cells[c], VALUE_EDN, NULL);
            break;
        default: break;
        }
    }
    switch (m) {
    case MODE_CSV: fprintf(r->out, "%s\r\n", line->data); break;
    case MODE_JSON: fprintf(r->out, "%s%s}", r->rows == 0 ? "[" : ",\n", line->data); break;
    case MODE_EDN: fprintf(r->out, "%s%s}", r->rows == 0 ? "[" : "\n ", line->data); break;
    case MODE_JSONL: fprintf(r->out, "%s}\n", line->data); break;
    default: fprintf(r->out, "%s\n", line->data);
    }
}

/* line mode: "   name = value", names right-aligned to the longest. */
static void line_mode_row(rows_out *r, const cell *cells) {
    if (r->rows > 0)
        fputc('\n', r->out);
    for (size_t c = 0; c < r->ncols; c++) {
        text_clear(&r->cellbuf);
        value_render(&r->cellbuf, &cells[c], VALUE_ESCAPED, null_text(r, "nil"));
        size_t w = text_width(r->names[c], strlen(r->names[c]));
        fprintf(r->out, "%*s%s = %s\n", (int)(r->widths[0] - w), "", r->names[c], r->cellbuf.data);
    }
}

/* ---- the row stream --------------------------------------------------------- */

rows_out *rows_begin(shell_session *s, const char *const *names, size_t count) {
    rows_out *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->s = s;
    r->out = stdout;
    r->ncols = count;
    r->names = shell_calloc(count + 1, sizeof *r->names);
    r->widths = shell_calloc(count + 1, sizeof *r->widths);
    for (size_t c = 0; c < count; c++) {
        r->names[c] = shell_strdup(names[c]);
        size_t w = text_width(names[c], strlen(names[c]));
        if (w > r->widths[0] && s->mode == MODE_LINE)
            r->widths[0] = w;
    }
    text_clear(&r->line);
    text_clear(&r->cellbuf);
    return r;
}

void rows_add(rows_out *r, const cell *cells) {
    if (r == NULL)
        return;
    shell_mode m = r->s->mode;
    if (r->rows == 0) {
        if (m == MODE_REFERENCE) {
            for (size_t c = 0; c < r->ncols; c++)
                fprintf(r->out, "%s%s", c ? "\t" : "", r->names[c]);
            fputc('\n', r->out);
            for (size_t i = 0; i < r->ncols * 20; i++)
                fputc('-', r->out);
            fputc('\n', r->out);
        } else if ((m == MODE_CSV || m == MODE_TSV) && r->s->headers) {
            separated_header(r);
        }
    }
    if (is_framed(m))
        frame_add(r, cells);
    else if (m == MODE_LINE)
        line_mode_row(r, cells);
    else
        row_line(r, cells);
    r->rows++;
}

void rows_end(rows_out *r) {
    if (r == NULL)
        return;
    switch (r->s->mode) {
    case MODE_REFERENCE:
        if (r->rows == 0)
            fputs("No results found.\n", r->out);
        else
            fprintf(r->out, "\n%zu result(s) found.\n", r->rows);
        break;
    case MODE_TABLE:
    case MODE_BOX:
        if (!r->fixed)
            frame_flush(r);
        frame_rule(r, frame_of(r)->bottom);
        fprintf(r->out, "(%zu row%s)\n", r->rows, r->rows == 1 ? "" : "s");
        break;
    case MODE_CSV:
    case MODE_TSV:
        if (r->rows == 0 && r->s->headers)
            separated_header(r);
        break;
    case MODE_JSON: fputs(r->rows == 0 ? "[]\n" : "]\n", r->out); break;
    case MODE_EDN: fputs(r->rows == 0 ? "[]\n" : "]\n", r->out); break;
    default: break;
    }
    for (size_t i = 0; i < r->npending * r->ncols; i++)
        text_free(&r->pending[i]);
    for (size_t c = 0; c < r->ncols; c++)
        free(r->names[c]);
    free(r->names);
    free(r->widths);
    free(r->pending);
    free(r->numeric);
    text_free(&r->line);
    text_free(&r->cellbuf);
    fflush(r->out);
    free(r);
}

/* ---- results of the library ------------------------------------------------- */

void render_execute_result(shell_session *s, const char *json) {
    static const struct {
        const char *key, *words;
    } writes[] = {{"{\"transacted\":", "Transacted"}, {"{\"retracted\":", "Retracted"}};
    if (s->mode == MODE_JSON || s->mode == MODE_JSONL) {
        printf("%s\n", json);
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        size_t klen = strlen(writes[i].key);
        if (strncmp(json, writes[i].key, klen) == 0) {
            size_t digits = strspn(json + klen, "0123456789");
            printf("\xE2\x9C\x93 %s successfully (tx: %.*s)\n", writes[i].words, (int)digits,
                   json + klen);
            return;
        }
    }
    fputs("\xE2\x9C\x93 OK\n", stdout);
}

/* The column names of minigraf_cursor_vars' JSON array. */
static char **column_names(const char *vars_json, size_t *count) {
    scan sc = {vars_json ? vars_json : "[]"};
    text name = {0};
    char **names = NULL;
    size_t n = 0;
    scan_accept(&sc, '[');
    for (scan_ws(&sc); *sc.p == '"'; scan_ws(&sc)) {
        scan_string(&sc, &name);
        names = shell_realloc(names, (n + 2) * sizeof *names);
        names[n++] = shell_strdup(name.data);
        scan_accept(&sc, ',');
    }
    text_free(&name);
    *count = n;
    return names;
}

/* Feeds every row of one typed batch to `r`; returns the rows seen. */
static size_t feed_batch(rows_out *r, const char *batch, size_t ncols) {
    scan sc = {batch};
    cell *cells = shell_calloc(ncols + 1, sizeof *cells);
    size_t rows = 0;
    scan_accept(&sc, '[');
    while (scan_accept(&sc, '[')) {
        size_t i = 0;
        while (!scan_accept(&sc, ']')) {
            cell scratch = {0};
            cell *c = i < ncols ? &cells[i] : &scratch;
            if (scan_cell(&sc, c) != 0) {
                cell_free(&scratch);
                break;
            }
            cell_free(&scratch);
            i++;
            scan_accept(&sc, ',');
        }
        for (; i < ncols; i++)
            cells[i].type = VT_NULL;
        rows_add(r, cells);
        rows++;
        scan_accept(&sc, ',');
    }
    for (size_t i = 0; i < ncols; i++)
        cell_free(&cells[i]);
    free(cells);
    return rows;
}

int render_cursor(shell_session *s, MiniGrafCursor *cursor) {
    return render_cursor_as(s, cursor, NULL);
}

int render_cursor_as(shell_session *s, MiniGrafCursor *cursor, const char *const *given) {
    minigraf_cursor_set_format(cursor, MINIGRAF_FORMAT_TYPED);
    char *vars = minigraf_cursor_vars(cursor);
    size_t ncols = 0;
    char **names = column_names(vars, &ncols);
    minigraf_string_free(vars);
    rows_out *r = rows_begin(s, given ? given : (const char *const *)names, ncols);
    char *batch;
    int stopped = 0;
    size_t rows = 0, row_limit = confine_row_limit();
    while (!(stopped = interrupt_pending()) && rows < row_limit &&
           (batch = minigraf_cursor_next_batch(cursor, BATCH_ROWS)) != NULL) {
        rows += feed_batch(r, batch, ncols);
        minigraf_string_free(batch);
        fflush(stdout);
    }
    rows_end(r);
    for (size_t i = 0; i < ncols; i++)
        free(names[i]);
    free(names);
    if (confine_rows(s, rows) != 0)
        return -1;
    if (stopped) {
        shell_fail(s, "interrupted (the answer stopped streaming)");
        return -1;
    }
    if (minigraf_cursor_last_error(cursor) != NULL) {
        shell_fail(s, "%s", minigraf_cursor_last_error(cursor));
        return -1;
    }
    return 0;
}
