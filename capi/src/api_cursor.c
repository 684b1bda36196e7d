/* minigraf.h: cursors over a query's answer. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/buf.h"
#include "handles.h"
#include "json_write.h"

MiniGrafCursor *minigraf_query(MiniGrafDb *h, const char *text)
{
    if (!handles_live(h, HANDLE_DB))
        return NULL;
    err e = {0};
    MiniGrafCursor *c = NULL;
    result_set *rows = NULL;
    if (api_check_text(text, "text", &e) == 0 &&
        db_query(h->engine, text, strlen(text), &rows, &e) == 0) {
        c = calloc(1, sizeof *c);
        if (c && handles_add(c, HANDLE_CURSOR)) {
            c->rows = rows;
        } else {
            free(c);
            c = NULL;
            result_free(rows);
            err_set(&e, ERR(INT, 0), "out of memory");
        }
    }
    if (e.code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    return c;
}

/* Starts a call on a cursor: false (and nothing touched) for a bad handle. */
static bool cursor_begin(MiniGrafCursor *c)
{
    if (!handles_live(c, HANDLE_CURSOR))
        return false;
    err_clear(&c->last);
    return true;
}

static char *out_of_memory(MiniGrafCursor *c)
{
    err_set(&c->last, ERR(INT, 0), "out of memory");
    return NULL;
}

char *minigraf_cursor_vars(MiniGrafCursor *c)
{
    if (!cursor_begin(c))
        return NULL;
    buf out;
    buf_init(&out);
    json_write_columns(&out, c->rows);
    char *json = buf_detach(&out);
    return json ? json : out_of_memory(c);
}

int minigraf_cursor_set_format(MiniGrafCursor *c, int format)
{
    if (!cursor_begin(c))
        return c ? ERR(API, 18) : ERR(API, 17);
    if (format != MINIGRAF_FORMAT_JSON && format != MINIGRAF_FORMAT_TYPED)
        return err_set(&c->last, ERR(API, 17), "unknown cursor format %d", format);
    c->format = format;
    return 0;
}

char *minigraf_cursor_next_batch(MiniGrafCursor *c, size_t max_rows)
{
    if (!cursor_begin(c))
        return NULL;
    size_t left = result_row_count(c->rows) - c->next_row;
    if (left == 0)
        return NULL;
    size_t count = max_rows == 0 ? 1 : max_rows < left ? max_rows : left;
    buf out;
    buf_init(&out);
    json_write_rows(&out, c->rows, c->next_row, count, c->format == MINIGRAF_FORMAT_TYPED);
    char *json = buf_detach(&out);
    if (!json)
        return out_of_memory(c);
    c->next_row += count;
    return json;
}

const char *minigraf_cursor_last_error(const MiniGrafCursor *c)
{
    if (!c)
        return API_NULL_HANDLE;
    if (!handles_live(c, HANDLE_CURSOR))
        return API_DEAD_HANDLE;
    return c->last.message;
}

int minigraf_cursor_last_error_code(const MiniGrafCursor *c)
{
    if (!c)
        return ERR(API, 17);
    if (!handles_live(c, HANDLE_CURSOR))
        return ERR(API, 18);
    return c->last.code;
}

void minigraf_cursor_free(MiniGrafCursor *c)
{
    if (!c || !handles_remove(c, HANDLE_CURSOR))
        return;
    result_free(c->rows);
    err_clear(&c->last);
    free(c);
}
