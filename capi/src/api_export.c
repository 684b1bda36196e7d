/* minigraf.h: minigraf_export, a thin wrapper of db_export_store. */
#include "api.h"
#include "db/export.h"
#include "db_calls.h"
#include "handles.h"
#include "options.h"

int minigraf_export(MiniGrafDb *h, const char *path, const char *options_json) {
    int entered = api_db_enter(h);
    if (entered != 0)
        return entered;
    err e = {0};
    store_options o;
    store_options_default(&o);
    o.sync = STORE_SYNC_NORMAL; /* as the log writer: finish syncs */
    if (api_check_path(path, &e) == 0 &&
        !(options_json && api_check_text(options_json, "options_json", &e)) &&
        options_parse_log_writer(options_json, &o, &e) == 0)
        db_export_store(db_store(h->engine), path, &o, &e); /* a close waits for it */
    int code = e.code;
    if (code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    api_db_leave(h);
    return code;
}
