/*
 * runner_c — the C runner of the parity suite (tests/parity/README.md).
 *
 *     runner_c <cases_dir> <transcript_out>
 *
 * Runs every case file (cases_dir/NAME.json, in file-name order) through minigraf.h only and
 * writes one canonical line per step. It exits non-zero only when it cannot
 * run at all; judging the answers is run_parity.py's job.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minigraf.h"
#include "runner_host.h"
#include "runner_json.h"

/* One case being run: its database and, for file storage, its file. */
typedef struct run {
    MiniGrafDb *db;
    MiniGrafTx *tx;   /* begin_write .. commit / rollback */
    char *open_error; /* "[CODE] message" when the database failed to open */
    int file_backed;
    int imports;  /* export_import steps so far: names their files */
    char dir[64]; /* "" until a file is needed */
    char path[96];
    struct {
        char *name; /* the step's "as" */
        MiniGrafStmt *stmt;
    } stmts[16]; /* prepare steps so far */
    size_t stmt_count;
} run;

/* ---- outcomes --------------------------------------------------------------- */

/* {"error":{"code":"X","message":"..."}} for a "[CODE] message" text. */
static void error_outcome(sbuf *out, const char *message) {
    char code[16] = "";
    const char *msg = message ? message : "";
    const char *close = strchr(msg, ']');
    if (msg[0] == '[' && close != NULL && (size_t)(close - msg) < sizeof code)
        memcpy(code, msg + 1, (size_t)(close - msg - 1));
    sb_puts(out, "{\"error\":{\"code\":");
    canon_string(out, code, strlen(code));
    sb_puts(out, ",\"message\":");
    canon_string(out, msg, strlen(msg));
    sb_puts(out, "}}");
}

static int row_text_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes the canonical rows of the JSON arrays `batches` as one array,
 * sorted by their text unless `ordered`. */
static void rows_outcome(sbuf *out, const jv *batches, size_t nbatches, int ordered) {
    size_t count = 0, k = 0;
    for (size_t i = 0; i < nbatches; i++)
        count += batches[i].count;
    char **rows = calloc(count + 1, sizeof *rows);
    for (size_t i = 0; i < nbatches; i++) {
        for (size_t j = 0; j < batches[i].count; j++) {
            sbuf row = {0};
            canon_value(&row, &batches[i].items[j]);
            rows[k++] = row.data;
        }
    }
    if (!ordered)
        qsort(rows, count, sizeof *rows, row_text_cmp);
    sb_putc(out, '[');
    for (k = 0; k < count; k++) {
        if (k > 0)
            sb_putc(out, ',');
        sb_puts(out, rows[k]);
        free(rows[k]);
    }
    sb_putc(out, ']');
    free(rows);
}

/* {"transacted":"<ms>"} after checking the number is a positive integer. */
static void write_tx_outcome(sbuf *out, const char *key, const jv *ms) {
    int positive = ms->kind == JV_NUMBER && ms->text[0] >= '1' && ms->text[0] <= '9' &&
                   strspn(ms->text, "0123456789") == ms->len;
    sb_puts(out, "{\"");
    sb_puts(out, key);
    sb_puts(out, "\":");
    if (positive)
        sb_puts(out, "\"<ms>\"");
    else
        canon_value(out, ms);
    sb_putc(out, '}');
}

static void execute_outcome(sbuf *out, const char *json, int ordered) {
    jv v;
    const jv *field;
    if (jv_parse(json, &v) != 0) {
        sb_puts(out, "{\"unparsable\":");
        canon_string(out, json, strlen(json));
        sb_putc(out, '}');
        return;
    }
    if ((field = jv_get(&v, "transacted")) != NULL) {
        write_tx_outcome(out, "transacted", field);
    } else if ((field = jv_get(&v, "retracted")) != NULL) {
        write_tx_outcome(out, "retracted", field);
    } else if (jv_get(&v, "variables") != NULL && jv_get(&v, "results") != NULL) {
        sb_puts(out, "{\"variables\":");
        canon_value(out, jv_get(&v, "variables"));
        sb_puts(out, ",\"results\":");
        rows_outcome(out, jv_get(&v, "results"), 1, ordered);
        sb_putc(out, '}');
    } else {
        canon_value(out, &v); /* {"ok":true} */
    }
    jv_free(&v);
}

/* ---- steps ------------------------------------------------------------------ */

static void step_execute(run *r, const char *text, int ordered, sbuf *out) {
    char *result = minigraf_execute(r->db, text);
    if (result == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    execute_outcome(out, result, ordered);
    minigraf_string_free(result);
}

static int cancel_at_once(void *user_data) {
    (void)user_data;
    return 1;
}

/* A query run under a progress handler that cancels at its first call
 * (every `every` units of work), then the handler removed again. */
static void step_query_cancelled(run *r, const char *text, size_t every, sbuf *out) {
    minigraf_progress_handler(r->db, (int)every, cancel_at_once, NULL);
    step_execute(r, text, 0, out);
    minigraf_progress_handler(r->db, 0, NULL, NULL);
}

/* Reads every batch of `c` into `batches` (grown as needed); returns the
 * number read, or (size_t)-1 on a cursor error. */
static size_t read_batches(MiniGrafCursor *c, size_t batch_rows, jv **batches) {
    size_t n = 0;
    char *text;
    while ((text = minigraf_cursor_next_batch(c, batch_rows)) != NULL) {
        *batches = realloc(*batches, (n + 1) * sizeof **batches);
        if (jv_parse(text, &(*batches)[n]) == 0)
            n++;
        minigraf_string_free(text);
    }
    return minigraf_cursor_last_error(c) != NULL ? (size_t)-1 : n;
}

/* {"variables":[...],"rows":[...]} of a cursor drained in batches; frees it. */
static void cursor_outcome(MiniGrafCursor *c, size_t batch_rows, int ordered, sbuf *out) {
    jv vars = {0}, *batches = NULL;
    char *vars_text = minigraf_cursor_vars(c);
    size_t n = read_batches(c, batch_rows, &batches);
    if (n == (size_t)-1) {
        error_outcome(out, minigraf_cursor_last_error(c));
    } else {
        if (vars_text == NULL || jv_parse(vars_text, &vars) != 0)
            vars.kind = JV_NULL;
        sb_puts(out, "{\"variables\":");
        canon_value(out, &vars);
        sb_puts(out, ",\"rows\":");
        rows_outcome(out, batches, n, ordered);
        sb_putc(out, '}');
        for (size_t i = 0; i < n; i++)
            jv_free(&batches[i]);
    }
    free(batches);
    jv_free(&vars);
    minigraf_string_free(vars_text);
    minigraf_cursor_free(c);
}

/* ---- typed rows (query_typed) ---------------------------------------------- */

/* One value of the current row in the typed form {"type":T,"value":V}, read
 * through the column accessors (never through JSON batches). */
static void typed_column(MiniGrafCursor *c, int col, sbuf *row) {
    static const char *const names[] = {"null",    "string",  "integer", "float",
                                        "boolean", "keyword", "ref",     "list"};
    int type = minigraf_cursor_column_type(c, col);
    char num[64];
    size_t len = 0;
    const char *text;
    sb_puts(row, "{\"type\":\"");
    sb_puts(row, type >= 0 && type <= 7 ? names[type] : "?");
    sb_puts(row, "\",\"value\":");
    switch (type) {
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD:
        text = minigraf_cursor_column_text(c, col, &len);
        canon_string(row, text ? text : "", len);
        break;
    case MINIGRAF_TYPE_INTEGER:
        snprintf(num, sizeof num, "%lld", (long long)minigraf_cursor_column_int64(c, col));
        sb_puts(row, num);
        break;
    case MINIGRAF_TYPE_FLOAT: {
        double d = minigraf_cursor_column_double(c, col);
        if (d != d)
            sb_puts(row, "\"NaN\"");
        else if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
            sb_puts(row, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        else {
            snprintf(num, sizeof num, "%.17g", d);
            if (!strpbrk(num, ".eE"))
                strcat(num, ".0");
            sb_puts(row, num);
        }
        break;
    }
    case MINIGRAF_TYPE_BOOLEAN:
        sb_puts(row, minigraf_cursor_column_bool(c, col) ? "true" : "false");
        break;
    case MINIGRAF_TYPE_REF: {
        const unsigned char *u = minigraf_cursor_column_uuid(c, col);
        char uuid[40] = "";
        for (int i = 0, o = 0; u && i < 16; i++)
            o += snprintf(uuid + o, sizeof uuid - (size_t)o, "%s%02x",
                          i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
        canon_string(row, uuid, strlen(uuid));
        break;
    }
    case MINIGRAF_TYPE_LIST:
        text = minigraf_cursor_column_text(c, col, &len);
        sb_puts(row, text ? text : "null");
        break;
    default: sb_puts(row, "null");
    }
    sb_putc(row, '}');
}

/* {"query_typed": text}: the rows through minigraf_cursor_step and the
 * column accessors, each value typed → {"variables":[...],"rows":[...]}. */
static void step_query_typed(run *r, const char *text, int ordered, sbuf *out) {
    MiniGrafCursor *c = minigraf_query(r->db, text);
    if (c == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    int columns = minigraf_cursor_column_count(c), rc;
    sbuf rows = {0}, vars = {0};
    sb_puts(&rows, "[");
    sb_puts(&vars, "[");
    for (int i = 0; i < columns; i++) {
        const char *name = minigraf_cursor_column_name(c, i);
        if (i > 0)
            sb_putc(&vars, ',');
        canon_string(&vars, name ? name : "", name ? strlen(name) : 0);
    }
    sb_putc(&vars, ']');
    for (int n = 0; (rc = minigraf_cursor_step(c)) == 1; n++) {
        sb_puts(&rows, n ? ",[" : "[");
        for (int i = 0; i < columns; i++) {
            if (i > 0)
                sb_putc(&rows, ',');
            typed_column(c, i, &rows);
        }
        sb_putc(&rows, ']');
    }
    sb_putc(&rows, ']');
    jv batch;
    if (rc < 0) {
        error_outcome(out, minigraf_cursor_last_error(c));
    } else if (jv_parse(rows.data, &batch) != 0) {
        error_outcome(out, "[RUNNER] typed rows are not JSON");
    } else {
        sb_puts(out, "{\"variables\":");
        sb_puts(out, vars.data);
        sb_puts(out, ",\"rows\":");
        rows_outcome(out, &batch, 1, ordered);
        sb_putc(out, '}');
        jv_free(&batch);
    }
    sb_free(&rows);
    sb_free(&vars);
    minigraf_cursor_free(c);
}

static void step_query(run *r, const char *text, size_t batch_rows, int ordered, sbuf *out) {
    MiniGrafCursor *c = minigraf_query(r->db, text);
    if (c == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    cursor_outcome(c, batch_rows, ordered, out);
}

/* ---- write transactions ----------------------------------------------------- */

static void step_begin_write(run *r, sbuf *out) {
    MiniGrafTx *tx = minigraf_begin_write(r->db);
    if (tx == NULL) {
        error_outcome(out, minigraf_last_error(r->db)); /* the open one stays */
        return;
    }
    minigraf_tx_free(r->tx); /* ended already, or the begin would have failed */
    r->tx = tx;
    sb_puts(out, "{\"ok\":true}");
}

static void step_tx_execute(run *r, const char *text, int ordered, sbuf *out) {
    char *result = minigraf_tx_execute(r->tx, text);
    if (result == NULL) {
        error_outcome(out, minigraf_tx_last_error(r->tx));
        return;
    }
    execute_outcome(out, result, ordered);
    minigraf_string_free(result);
}

static void step_tx_query(run *r, const char *text, size_t batch_rows, int ordered, sbuf *out) {
    MiniGrafCursor *c = minigraf_tx_query(r->tx, text);
    if (c == NULL)
        error_outcome(out, minigraf_tx_last_error(r->tx));
    else
        cursor_outcome(c, batch_rows, ordered, out);
}

/* commit or rollback; the handle is kept (later tx steps see API-018). */
static void step_tx_end(run *r, int commit, sbuf *out) {
    int rc = commit ? minigraf_tx_commit(r->tx) : minigraf_tx_rollback(r->tx);
    if (rc != 0)
        error_outcome(out, minigraf_tx_last_error(r->tx));
    else
        sb_puts(out, "{\"ok\":true}");
}

static void step_tx_count(run *r, sbuf *out) {
    uint64_t n = 0;
    char num[32];
    if (minigraf_current_tx_count(r->db, &n) != 0) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    snprintf(num, sizeof num, "{\"tx_count\":%llu}", (unsigned long long)n);
    sb_puts(out, num);
}

static void step_checkpoint(run *r, sbuf *out) {
    if (minigraf_checkpoint(r->db) != 0)
        error_outcome(out, minigraf_last_error(r->db));
    else
        sb_puts(out, "{\"ok\":true}");
}

/* Opens (or reopens) the case's database; failures go to r->open_error. */
static void open_db(run *r) {
    minigraf_string_free(r->open_error);
    r->open_error = NULL;
    r->db = minigraf_open_with_options(r->file_backed ? r->path : NULL, NULL, &r->open_error);
    if (r->db && register_parity_host_functions(r->db) != 0) {
        fprintf(stderr, "runner_c: cannot register the host functions: %s\n",
                minigraf_last_error(r->db));
        exit(2);
    }
}

static void step_reopen(run *r, sbuf *out) {
    minigraf_close(r->db);
    open_db(r);
    if (r->db == NULL)
        error_outcome(out, r->open_error);
    else
        sb_puts(out, "{\"ok\":true}");
}

/* ---- fact log and log writer ----------------------------------------------- */

/* [entity, attribute, value, tx_count, valid_to, asserted]: the record
 * without its wall-clock fields. */
static void record_outcome(sbuf *out, const jv *rec) {
    static const char *const fields[] = {"entity",   "attribute", "value",
                                         "tx_count", "valid_to",  "asserted"};
    sb_putc(out, '[');
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const jv *f = jv_get(rec, fields[i]);
        if (i > 0)
            sb_putc(out, ',');
        if (f != NULL)
            canon_value(out, f);
        else
            sb_puts(out, "null");
    }
    sb_putc(out, ']');
}

/* Streams `log` in batches of 2 as {"records":[...]}, in stream order. */
static void records_outcome(MiniGrafFactLog *log, sbuf *out) {
    sbuf records = {0};
    size_t count = 0;
    char *text;
    sb_add(&records, "", 0);
    while ((text = minigraf_fact_log_next_batch(log, 2)) != NULL) {
        jv batch;
        if (jv_parse(text, &batch) == 0) {
            for (size_t i = 0; i < batch.count; i++, count++) {
                if (count > 0)
                    sb_putc(&records, ',');
                record_outcome(&records, &batch.items[i]);
            }
            jv_free(&batch);
        }
        minigraf_string_free(text);
    }
    if (minigraf_fact_log_last_error(log) != NULL) {
        error_outcome(out, minigraf_fact_log_last_error(log));
    } else {
        sb_puts(out, "{\"records\":[");
        sb_puts(out, records.data);
        sb_puts(out, "]}");
    }
    sb_free(&records);
}

static void step_fact_log(run *r, const jv *filter, sbuf *out) {
    sbuf text = {0};
    if (filter->kind != JV_NULL)
        canon_value(&text, filter);
    MiniGrafFactLog *log = minigraf_fact_log(r->db, filter->kind == JV_NULL ? NULL : text.data);
    sb_free(&text);
    if (log == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    records_outcome(log, out);
    minigraf_fact_log_free(log);
}

/* Appends every record of r->db to `w` in batches of 2 and raises the
 * counter to the database's. 0, or -1 with the error written to `out`. */
static int copy_records(run *r, MiniGrafLogWriter *w, sbuf *out) {
    MiniGrafFactLog *log = minigraf_fact_log(r->db, NULL);
    if (log == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return -1;
    }
    char *batch;
    int rc = 0;
    while (rc == 0 && (batch = minigraf_fact_log_next_batch(log, 2)) != NULL) {
        rc = minigraf_log_writer_append_batch(w, batch);
        minigraf_string_free(batch);
    }
    if (rc == 0 && minigraf_fact_log_last_error(log) != NULL) {
        error_outcome(out, minigraf_fact_log_last_error(log));
        rc = -1;
    }
    minigraf_fact_log_free(log);
    uint64_t count = 0;
    if (rc == 0 && minigraf_current_tx_count(r->db, &count) != 0) {
        error_outcome(out, minigraf_last_error(r->db));
        return -1;
    }
    if (rc == 0)
        rc = minigraf_log_writer_advance_tx_count(w, count);
    if (rc == 0)
        rc = minigraf_log_writer_finish(w);
    if (rc != 0) /* -1: the error is on the writer */
        error_outcome(out, minigraf_log_writer_last_error(w));
    return rc == 0 ? 0 : -1;
}

/* Exports the database into a new file, then continues on that file. */
static void step_export_import(run *r, sbuf *out) {
    if (r->dir[0] == '\0') {
        strcpy(r->dir, "/tmp/minigraf-parity-XXXXXX");
        if (mkdtemp(r->dir) == NULL) {
            r->dir[0] = '\0';
            error_outcome(out, "[RUNNER] cannot create a temporary directory");
            return;
        }
    }
    char path[sizeof r->path], *error = NULL;
    snprintf(path, sizeof path, "%s/import-%d.graph", r->dir, ++r->imports);
    MiniGrafLogWriter *w = minigraf_log_writer_create(path, NULL, &error);
    if (w == NULL) {
        error_outcome(out, error);
        minigraf_string_free(error);
        return;
    }
    int rc = copy_records(r, w, out);
    minigraf_log_writer_free(w);
    if (rc != 0)
        return;
    minigraf_close(r->db);
    r->file_backed = 1;
    memcpy(r->path, path, sizeof path);
    open_db(r);
    if (r->db == NULL)
        error_outcome(out, r->open_error);
    else
        sb_puts(out, "{\"ok\":true}");
}

/* ---- prepared queries (README.md: "Prepared query steps") -------------------- */

static void step_prepare(run *r, const char *text, const jv *as, sbuf *out) {
    MiniGrafStmt *s = minigraf_prepare(r->db, text);
    if (s == NULL) {
        error_outcome(out, minigraf_last_error(r->db));
        return;
    }
    if (as == NULL || as->kind != JV_STRING ||
        r->stmt_count == sizeof r->stmts / sizeof r->stmts[0]) {
        minigraf_stmt_free(s);
        error_outcome(out, "[RUNNER] a prepare step needs a string \"as\" (at most 16 per case)");
        return;
    }
    r->stmts[r->stmt_count].name = strdup(as->text);
    r->stmts[r->stmt_count++].stmt = s;
    sb_puts(out, "{\"ok\":true}");
}

/* The statement a step names (the latest of that name), or NULL. */
static MiniGrafStmt *named_stmt(run *r, const char *name) {
    for (size_t i = r->stmt_count; i-- > 0;)
        if (strcmp(r->stmts[i].name, name) == 0)
            return r->stmts[i].stmt;
    return NULL;
}

/* The step's "binds" (if any) through minigraf_stmt_bind_json, as the
 * runner's canonical text; 0 or the failure written to `out`. */
static int bind_step(MiniGrafStmt *s, const jv *step, sbuf *out) {
    const jv *binds = jv_get(step, "binds");
    if (binds == NULL)
        return 0;
    sbuf text = {0};
    canon_value(&text, binds);
    int rc = minigraf_stmt_bind_json(s, text.data);
    sb_free(&text);
    if (rc != 0)
        error_outcome(out, minigraf_stmt_last_error(s));
    return rc;
}

static void step_prepared(run *r, const jv *step, const char *name, int cursor, int ordered,
                          size_t batch_rows, sbuf *out) {
    MiniGrafStmt *s = named_stmt(r, name);
    if (s == NULL) {
        error_outcome(out, "[RUNNER] no prepared statement of that name");
        return;
    }
    if (bind_step(s, step, out) != 0)
        return;
    if (!cursor) {
        char *result = minigraf_stmt_execute(s);
        if (result == NULL) {
            error_outcome(out, minigraf_stmt_last_error(s));
            return;
        }
        execute_outcome(out, result, ordered);
        minigraf_string_free(result);
        return;
    }
    MiniGrafCursor *c = minigraf_stmt_query(s);
    if (c == NULL) {
        error_outcome(out, minigraf_stmt_last_error(s));
        return;
    }
    cursor_outcome(c, batch_rows, ordered, out);
}

static void step_clear_bindings(run *r, const char *name, sbuf *out) {
    MiniGrafStmt *s = named_stmt(r, name);
    if (s == NULL)
        error_outcome(out, "[RUNNER] no prepared statement of that name");
    else if (minigraf_stmt_clear_bindings(s) != 0)
        error_outcome(out, minigraf_stmt_last_error(s));
    else
        sb_puts(out, "{\"ok\":true}");
}

/* {"bind_entity": "pq", "slot": "v", "uuid": "..."}: an Entity bound as
 * the packages bind one (README): the Entity kind, or Val(ref) where the
 * slot takes a value; when neither suits, the Entity refusal. */
static void step_bind_entity(run *r, const jv *step, const char *name, sbuf *out) {
    MiniGrafStmt *s = named_stmt(r, name);
    const jv *slot = jv_get(step, "slot"), *uuid = jv_get(step, "uuid");
    if (s == NULL) {
        error_outcome(out, "[RUNNER] no prepared statement of that name");
        return;
    }
    if (slot == NULL || slot->kind != JV_STRING || uuid == NULL || uuid->kind != JV_STRING) {
        error_outcome(out, "[RUNNER] bind_entity needs a \"slot\" and a \"uuid\" string");
        return;
    }
    int rc = minigraf_stmt_bind_entity(s, slot->text, uuid->text);
    if (rc == MINIGRAF_E_API_015 &&
        (rc = minigraf_stmt_bind_ref(s, slot->text, uuid->text)) == MINIGRAF_E_API_015)
        rc = minigraf_stmt_bind_entity(s, slot->text, uuid->text);
    if (rc != 0)
        error_outcome(out, minigraf_stmt_last_error(s));
    else
        sb_puts(out, "{\"ok\":true}");
}

static void free_stmts(run *r) {
    for (size_t i = 0; i < r->stmt_count; i++) {
        minigraf_stmt_free(r->stmts[i].stmt);
        free(r->stmts[i].name);
    }
    r->stmt_count = 0;
}

static size_t batch_size_of(const jv *step) {
    const jv *b = jv_get(step, "batch");
    return b != NULL && b->kind == JV_NUMBER ? (size_t)strtoull(b->text, NULL, 10) : 1000;
}

static size_t every_of(const jv *step) {
    const jv *b = jv_get(step, "every");
    return b != NULL && b->kind == JV_NUMBER ? (size_t)strtoull(b->text, NULL, 10) : 1;
}

static void run_step(run *r, const jv *step, sbuf *out) {
    const jv *ordered_v = jv_get(step, "ordered"), *text;
    int ordered = ordered_v != NULL && ordered_v->kind == JV_TRUE;
    if (r->db == NULL && jv_get(step, "reopen") == NULL)
        error_outcome(out, r->open_error);
    else if ((text = jv_get(step, "execute")) != NULL && text->kind == JV_STRING)
        step_execute(r, text->text, ordered, out);
    else if ((text = jv_get(step, "query")) != NULL && text->kind == JV_STRING)
        step_query(r, text->text, batch_size_of(step), ordered, out);
    else if ((text = jv_get(step, "query_typed")) != NULL && text->kind == JV_STRING)
        step_query_typed(r, text->text, ordered, out);
    else if ((text = jv_get(step, "query_cancelled")) != NULL && text->kind == JV_STRING)
        step_query_cancelled(r, text->text, every_of(step), out);
    else if (jv_get(step, "tx_count") != NULL)
        step_tx_count(r, out);
    else if (jv_get(step, "checkpoint") != NULL)
        step_checkpoint(r, out);
    else if (jv_get(step, "reopen") != NULL)
        step_reopen(r, out);
    else if ((text = jv_get(step, "fact_log")) != NULL)
        step_fact_log(r, text, out);
    else if (jv_get(step, "export_import") != NULL)
        step_export_import(r, out);
    else if ((text = jv_get(step, "prepare")) != NULL && text->kind == JV_STRING)
        step_prepare(r, text->text, jv_get(step, "as"), out);
    else if ((text = jv_get(step, "execute_prepared")) != NULL && text->kind == JV_STRING)
        step_prepared(r, step, text->text, 0, ordered, batch_size_of(step), out);
    else if ((text = jv_get(step, "query_prepared")) != NULL && text->kind == JV_STRING)
        step_prepared(r, step, text->text, 1, ordered, batch_size_of(step), out);
    else if ((text = jv_get(step, "clear_bindings")) != NULL && text->kind == JV_STRING)
        step_clear_bindings(r, text->text, out);
    else if ((text = jv_get(step, "bind_entity")) != NULL && text->kind == JV_STRING)
        step_bind_entity(r, step, text->text, out);
    else if (jv_get(step, "begin_write") != NULL)
        step_begin_write(r, out);
    else if ((text = jv_get(step, "tx_execute")) != NULL && text->kind == JV_STRING)
        step_tx_execute(r, text->text, ordered, out);
    else if ((text = jv_get(step, "tx_query")) != NULL && text->kind == JV_STRING)
        step_tx_query(r, text->text, batch_size_of(step), ordered, out);
    else if (jv_get(step, "commit") != NULL)
        step_tx_end(r, 1, out);
    else if (jv_get(step, "rollback") != NULL)
        step_tx_end(r, 0, out);
    else
        sb_puts(out, "{\"unknown_step\":true}");
}

/* ---- cases ------------------------------------------------------------------ */

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char file[400];
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(dir);
}

static void run_case(const jv *c, FILE *transcript) {
    const jv *name = jv_get(c, "name"), *storage = jv_get(c, "storage");
    const jv *steps = jv_get(c, "steps");
    run r = {0};
    r.file_backed = storage && storage->kind == JV_STRING && strcmp(storage->text, "file") == 0;
    if (r.file_backed) {
        strcpy(r.dir, "/tmp/minigraf-parity-XXXXXX");
        if (mkdtemp(r.dir) == NULL)
            r.dir[0] = '\0';
        snprintf(r.path, sizeof r.path, "%s/case.graph", r.dir);
    }
    open_db(&r);
    for (size_t i = 0; steps && i < steps->count; i++) {
        sbuf out = {0};
        run_step(&r, &steps->items[i], &out);
        fprintf(transcript, "%s#%zu\t%s\n", name ? name->text : "?", i, out.data);
        sb_free(&out);
    }
    free_stmts(&r);
    minigraf_close(r.db);
    minigraf_tx_free(r.tx);
    minigraf_string_free(r.open_error);
    if (r.dir[0] != '\0')
        remove_dir(r.dir);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    sbuf b = {0};
    char chunk[4096];
    size_t n;
    if (f == NULL)
        return NULL;
    sb_add(&b, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_add(&b, chunk, n);
    fclose(f);
    return b.data;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of the *.json files of `dir`; count in *n. */
static char **list_cases(const char *dir, size_t *n) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    *n = 0;
    if (d == NULL)
        return NULL;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        names = realloc(names, (*n + 1) * sizeof *names);
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof *names, name_cmp);
    return names;
}

static int run_case_file(const char *dir, const char *file, FILE *transcript) {
    char path[1024];
    jv c;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = read_file(path);
    if (text == NULL || jv_parse(text, &c) != 0) {
        fprintf(stderr, "runner_c: cannot read case %s\n", path);
        free(text);
        return -1;
    }
    run_case(&c, transcript);
    jv_free(&c);
    free(text);
    return 0;
}

int main(int argc, char **argv) {
    size_t n = 0;
    int status = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: %s <cases_dir> <transcript_out>\n", argv[0]);
        return 2;
    }
    char **names = list_cases(argv[1], &n);
    FILE *transcript = fopen(argv[2], "wb");
    if (names == NULL || transcript == NULL) {
        fprintf(stderr, "runner_c: cannot open %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        if (run_case_file(argv[1], names[i], transcript) != 0)
            status = 2;
        free(names[i]);
    }
    free(names);
    fclose(transcript);
    return status;
}
