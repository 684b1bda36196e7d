/* minigraf.h: minigraf_export, a thin wrapper of db_export_store. */
#include "api.h"
#include "db/export.h"
#include "handles.h"
#include "options.h"

int minigraf_export(MiniGrafDb *h, const char *path, const char *options_json)
{
    if (!handles_live(h, HANDLE_DB))
        return h ? ERR(API, 18) : ERR(API, 17);
    err e = {0};
    store_options o;
    store_options_default(&o);
    o.sync = STORE_SYNC_NORMAL; /* as the log writer: finish syncs */
    if (api_check_text(path, "path", &e) == 0 &&
        !(options_json && api_check_text(options_json, "options_json", &e)) &&
        options_parse_log_writer(options_json, &o, &e) == 0) {
        if (!*path) {
            err_set(&e, ERR(API, 17), "path must not be empty");
        } else {
            /* held shared: a close waits for the export to end */
            pthread_rwlock_rdlock(&h->use);
            db_export_store(db_store(h->engine), path, &o, &e);
            pthread_rwlock_unlock(&h->use);
        }
    }
    int code = e.code;
    if (code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    return code;
}
