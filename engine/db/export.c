/* db_export_store (export.h): fact_log → log_writer. */
#include "db/export.h"

#include "db/fact_log.h"
#include "db/log_writer.h"

/* Records moved per fact_log_next call: each call takes (and releases) a
 * store reader, so a writer waits at most for one batch. */
#define EXPORT_BATCH 1024

static int append_record(void *ctx, const fact *f, err *e) {
    return log_writer_append(ctx, f, 1, e);
}

static int copy_log(fact_log *l, log_writer *w, err *e) {
    int rc = 0;
    while (rc == 0 && !fact_log_done(l)) {
        size_t produced = 0;
        rc = fact_log_next(l, EXPORT_BATCH, append_record, w, &produced, e);
    }
    if (rc == 0)
        rc = log_writer_advance(w, fact_log_tx_count(l), e);
    return rc == 0 ? log_writer_finish(w, e) : rc;
}

int db_export_store(store *s, const char *path, const store_options *o, err *e) {
    log_writer *w = NULL;
    int rc = log_writer_create(path, o, &w, e);
    if (rc != 0)
        return rc;
    fact_log_filter f;
    fact_log_filter_default(&f); /* every record, commit order */
    fact_log *l = NULL;
    rc = fact_log_open(s, &f, &l, e);
    if (rc == 0)
        rc = copy_log(l, w, e);
    fact_log_close(l);
    log_writer_free(w); /* unfinished (an error): deletes the partial copy */
    return rc;
}
