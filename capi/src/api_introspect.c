/* minigraf.h, "Introspection": the plan of a query, the database's figures,
 * the registered rules, as JSON (db/db.h, db_info.c). */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "db_calls.h"
#include "base/buf.h"
#include "handles.h"
#include "json_write.h"

/* The outcome of a call on `h`: the result, or NULL with the error kept. */
/* Ends the call (api_db_leave) with its JSON or its error. */
static char *finish_json(MiniGrafDb *h, buf *out, err *e) {
    char *json = NULL;
    if (!e->code) {
        json = buf_detach(out);
        if (!json)
            err_set(e, ERR(INT, 0), "out of memory");
    }
    buf_free(out);
    if (e->code) {
        thread_errors_set(&h->errors, e);
        free(json);
        json = NULL;
    } else {
        thread_errors_clear(&h->errors);
    }
    api_db_leave(h);
    return json;
}

static void write_text_or_null(buf *out, const char *s) {
    if (s)
        json_write_string(out, s, strlen(s));
    else
        buf_puts(out, "null");
}

char *minigraf_explain(MiniGrafDb *h, const char *query) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    buf out;
    buf_init(&out);
    size_t len = 0, count = 0;
    db_plan_step *steps = NULL;
    if (api_check_text_len(query, "query", &len, &e) == 0 &&
        db_explain(h->engine, query, len, &steps, &count, &e) == 0) {
        buf_puts(&out, "{\"steps\":[");
        for (size_t i = 0; i < count; i++) {
            buf_printf(&out, "%s{\"step\":%zu,\"kind\":", i ? "," : "", i + 1);
            json_write_string(&out, steps[i].kind, strlen(steps[i].kind));
            buf_puts(&out, ",\"clause\":");
            json_write_string(&out, steps[i].clause, strlen(steps[i].clause));
            buf_puts(&out, ",\"join\":");
            write_text_or_null(&out, steps[i].join);
            buf_puts(&out, ",\"index\":");
            write_text_or_null(&out, steps[i].index);
            if (steps[i].estimate < 0)
                buf_puts(&out, ",\"estimated_rows\":null}");
            else
                buf_printf(&out, ",\"estimated_rows\":%lld}", (long long)steps[i].estimate);
        }
        buf_puts(&out, "]}");
        db_plan_steps_free(steps, count);
    }
    return finish_json(h, &out, &e);
}

char *minigraf_stats(MiniGrafDb *h) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    buf out;
    buf_init(&out);
    store_stats st;
    if (db_stats(h->engine, &st, &e) != 0)
        return finish_json(h, &out, &e);
    uint64_t lookups = st.cache_hits + st.cache_misses;
    buf_printf(&out,
               "{\"in_memory\":%s,\"file_size\":%llu,\"pages\":%lu,\"page_size\":%lu,"
               "\"wal_size\":%llu,\"wal_facts\":%llu,\"facts\":%llu,\"entities\":%llu,"
               "\"tx_count\":%llu,\"history_index\":%s,\"cache_pages\":%zu,"
               "\"cache_capacity\":%zu,\"cache_hits\":%llu,\"cache_misses\":%llu,"
               "\"cache_hit_rate\":",
               st.in_memory ? "true" : "false",
               st.in_memory ? 0ULL : (unsigned long long)st.pages * st.page_size,
               (unsigned long)st.pages, (unsigned long)st.page_size,
               (unsigned long long)st.wal_bytes, (unsigned long long)st.wal_facts,
               (unsigned long long)st.facts, (unsigned long long)st.entities,
               (unsigned long long)st.tx_count, st.history_index ? "true" : "false", st.cache_pages,
               st.cache_capacity, (unsigned long long)st.cache_hits,
               (unsigned long long)st.cache_misses);
    if (lookups == 0)
        buf_puts(&out, "null}");
    else
        buf_printf(&out, "%.4f}", (double)st.cache_hits / (double)lookups);
    return finish_json(h, &out, &e);
}

char *minigraf_rules(MiniGrafDb *h) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    buf out;
    buf_init(&out);
    char **texts = NULL;
    size_t count = 0;
    if (db_rule_texts(h->engine, &texts, &count, &e) == 0) {
        buf_putc(&out, '[');
        for (size_t i = 0; i < count; i++) {
            if (i > 0)
                buf_putc(&out, ',');
            json_write_string(&out, texts[i], strlen(texts[i]));
        }
        buf_putc(&out, ']');
        db_texts_free(texts, count);
    }
    return finish_json(h, &out, &e);
}
