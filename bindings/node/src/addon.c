/*
 * addon.c — module registration, per-environment state, errors and
 * argument helpers of the minigraf Node-API addon.
 *
 * The module is context-aware (NAPI_MODULE_INIT): every environment that
 * loads it — the main thread and each worker_thread — gets its own
 * mg_instance through napi_set_instance_data, and nothing is global.
 */
#include "addon.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-environment state ----------------------------------------------- */

static void instance_finalize(napi_env env, void *data, void *hint) {
    mg_instance *inst = data;
    (void)hint;
    napi_ref refs[7] = {inst->error_class,  inst->keyword_of,    inst->entity_of,
                        inst->list_decoder, inst->keyword_class, inst->entity_class,
                        inst->pack_buffer};
    for (int i = 0; i < 7; i++)
        if (refs[i] != NULL)
            napi_delete_reference(env, refs[i]);
    mg_js_life_detach(env, inst->life);
    mg_rows_free(inst->rows);
    free(inst);
}

mg_instance *mg_instance_get(napi_env env) {
    void *data = NULL;
    if (napi_get_instance_data(env, &data) != napi_ok)
        return NULL;
    return data;
}

/* setErrorClass(ctor): index.js registers MinigrafError once per env. */
static napi_value set_error_class(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    napi_valuetype type;
    mg_instance *inst = mg_instance_get(env);
    if (!mg_args(env, info, 1, argv))
        return NULL;
    MG_CHECK(env, napi_typeof(env, argv[0], &type));
    if (type != napi_function) {
        napi_throw_type_error(env, NULL, "setErrorClass expects a class");
        return NULL;
    }
    if (inst->error_class != NULL)
        napi_delete_reference(env, inst->error_class);
    inst->error_class = NULL;
    MG_CHECK(env, napi_create_reference(env, argv[0], 1, &inst->error_class));
    return NULL;
}

/* ---- errors --------------------------------------------------------------- */

void mg_throw_last_status(napi_env env) {
    bool pending = false;
    const napi_extended_error_info *info = NULL;
    napi_is_exception_pending(env, &pending);
    if (pending)
        return;
    napi_get_last_error_info(env, &info);
    napi_throw_error(env, NULL,
                     info != NULL && info->error_message != NULL
                         ? info->error_message
                         : "minigraf: a Node-API call failed");
}

void mg_error_set(mg_error *err, int code, const char *message) {
    err->code = code;
    err->message = NULL;
    if (message != NULL) {
        size_t n = strlen(message) + 1;
        err->message = malloc(n);
        if (err->message != NULL)
            memcpy(err->message, message, n);
    }
}

void mg_error_clear(mg_error *err) {
    free(err->message);
    err->message = NULL;
    err->code = 0;
}

/* The numeric code named by the "[FAM-NNN]" prefix of `message`, found by
 * asking the library for the name of FAM's code NNN in every family; 0 if
 * the message has no such prefix. Used for errors that come only as text
 * (minigraf_open_with_options). */
static int code_from_message(const char *message) {
    char name[8];
    int nnn;
    if (message == NULL || message[0] != '[' || strlen(message) < 9 || message[8] != ']')
        return 0;
    memcpy(name, message + 1, 7);
    name[7] = '\0';
    if (name[3] != '-' || !isdigit((unsigned char)name[4]) || !isdigit((unsigned char)name[5]) ||
        !isdigit((unsigned char)name[6]))
        return 0;
    nnn = (name[4] - '0') * 100 + (name[5] - '0') * 10 + (name[6] - '0');
    for (int family = MINIGRAF_FAMILY_PRS; family <= MINIGRAF_FAMILY_INT; family++) {
        const char *candidate = minigraf_error_code_name(family * 1000 + nnn);
        if (candidate != NULL && strcmp(candidate, name) == 0)
            return family * 1000 + nnn;
    }
    return 0;
}

napi_value mg_error_value(napi_env env, const mg_error *err) {
    mg_instance *inst = mg_instance_get(env);
    int code = err->code != 0 ? err->code : code_from_message(err->message);
    const char *name = minigraf_error_code_name(code);
    const char *text = err->message;
    char fallback[64];
    napi_value argv[3], ctor, result = NULL;

    if (name == NULL)
        name = "INT-001";
    if (text == NULL) {
        snprintf(fallback, sizeof fallback, "[%s] unknown error", name);
        text = fallback;
    }
    if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &argv[0]) != napi_ok ||
        napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &argv[1]) != napi_ok ||
        napi_create_int32(env, code, &argv[2]) != napi_ok)
        return NULL;

    if (inst != NULL && inst->error_class != NULL &&
        napi_get_reference_value(env, inst->error_class, &ctor) == napi_ok && ctor != NULL &&
        napi_new_instance(env, ctor, 3, argv, &result) == napi_ok)
        return result;

    /* No class registered (the .node file was loaded directly): a plain Error
     * with the same fields. */
    if (napi_create_error(env, argv[1], argv[0], &result) != napi_ok)
        return NULL;
    napi_set_named_property(env, result, "errno", argv[2]);
    return result;
}

napi_value mg_throw(napi_env env, const mg_error *err) {
    napi_value value;
    bool pending = false;
    /* A JS callback (progress handler) threw during the call: that exception
     * is the call's. */
    napi_is_exception_pending(env, &pending);
    if (pending)
        return NULL;
    value = mg_error_value(env, err);
    if (value != NULL)
        napi_throw(env, value);
    else
        mg_throw_last_status(env);
    return NULL;
}

napi_value mg_throw_code(napi_env env, int code, const char *message) {
    mg_error err;
    mg_error_set(&err, code, message);
    mg_throw(env, &err);
    mg_error_clear(&err);
    return NULL;
}

/* ---- arguments ------------------------------------------------------------ */

bool mg_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
    size_t argc = n;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
        mg_throw_last_status(env);
        return false;
    }
    return true; /* missing arguments were filled with undefined */
}

/* Whether the JS string `value` holds a surrogate without its pair. */
static bool has_lone_surrogate(napi_env env, napi_value value, bool *lone) {
    size_t len = 0, i;
    char16_t *units;
    *lone = false;
    if (napi_get_value_string_utf16(env, value, NULL, 0, &len) != napi_ok ||
        (units = malloc((len + 1) * sizeof *units)) == NULL)
        return false;
    if (napi_get_value_string_utf16(env, value, units, len + 1, &len) != napi_ok) {
        free(units);
        return false;
    }
    for (i = 0; i < len && !*lone; i++) {
        if (units[i] >= 0xD800 && units[i] <= 0xDBFF && i + 1 < len && units[i + 1] >= 0xDC00 &&
            units[i + 1] <= 0xDFFF)
            i++;
        else if (units[i] >= 0xD800 && units[i] <= 0xDFFF)
            *lone = true;
    }
    free(units);
    return true;
}

int mg_text_replaced(napi_env env, napi_value value, const char *utf8, size_t len) {
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    bool lone = false;
    size_t i;
    const char *at = utf8;
    /* memchr for its lead byte first: a memcmp at every byte was ~1% of a
     * point query's time. */
    while ((at = memchr(at, replacement[0], len - (size_t)(at - utf8))) != NULL &&
           (size_t)(at - utf8) + 3 <= len && memcmp(at, replacement, 3) != 0)
        at++;
    i = at == NULL ? len : (size_t)(at - utf8);
    if (i + 3 > len)
        return 0; /* V8 wrote no U+FFFD: nothing replaced */
    if (!has_lone_surrogate(env, value, &lone))
        return -1;
    return lone ? 1 : 0; /* else a real U+FFFD */
}

bool mg_text_faithful(napi_env env, napi_value value, const char *utf8, size_t len,
                      const char *what) {
    char message[128];
    int replaced = mg_text_replaced(env, value, utf8, len);
    if (replaced < 0) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return false;
    }
    if (replaced == 0)
        return true;
    snprintf(message, sizeof message,
             "[API-017] %s holds a lone UTF-16 surrogate (not Unicode text)", what);
    mg_throw_code(env, MG_API_017, message);
    return false;
}

/* The UTF-8 text of a JS string in a malloc'd buffer, NULL with an
 * exception pending. A text that fits `small` is read once; a longer one
 * is measured first (a second pass over it). */
static char *string_utf8(napi_env env, napi_value value, size_t *copied) {
    char small[1024], *buf;
    size_t len = 0;
    if (napi_get_value_string_utf8(env, value, small, sizeof small, copied) != napi_ok)
        goto status;
    /* Cut short, the copy would end within a character's 4 bytes of the end. */
    if (*copied + 4 < sizeof small - 1) {
        if ((buf = malloc(*copied + 1)) == NULL)
            goto oom;
        memcpy(buf, small, *copied + 1);
        return buf;
    }
    if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok)
        goto status;
    if ((buf = malloc(len + 1)) == NULL)
        goto oom;
    if (napi_get_value_string_utf8(env, value, buf, len + 1, copied) != napi_ok) {
        free(buf);
        goto status;
    }
    return buf;
oom:
    napi_throw_error(env, NULL, "minigraf: out of memory");
    return NULL;
status:
    mg_throw_last_status(env);
    return NULL;
}

char *mg_string_arg(napi_env env, napi_value value, const char *what) {
    napi_valuetype type;
    size_t copied = 0;
    char *buf;
    char message[96];

    if (napi_typeof(env, value, &type) != napi_ok) {
        mg_throw_last_status(env);
        return NULL;
    }
    if (type != napi_string) {
        snprintf(message, sizeof message, "%s must be a string", what);
        napi_throw_type_error(env, NULL, message);
        return NULL;
    }
    if ((buf = string_utf8(env, value, &copied)) == NULL)
        return NULL;
    /* The C API takes NUL-terminated text: an embedded U+0000 would silently
     * cut it short, so refuse it the way the library refuses bad text. */
    if (strlen(buf) != copied) {
        free(buf);
        snprintf(message, sizeof message, "[API-017] %s contains a NUL character", what);
        mg_throw_code(env, MG_API_017, message);
        return NULL;
    }
    if (!mg_text_faithful(env, value, buf, copied, what)) {
        free(buf);
        return NULL;
    }
    return buf;
}

bool mg_optional_string_arg(napi_env env, napi_value value, const char *what, char **out) {
    napi_valuetype type;
    *out = NULL;
    if (napi_typeof(env, value, &type) != napi_ok) {
        mg_throw_last_status(env);
        return false;
    }
    if (type == napi_null || type == napi_undefined)
        return true;
    *out = mg_string_arg(env, value, what);
    return *out != NULL;
}

bool mg_max_rows_arg(napi_env env, napi_value value, size_t *out) {
    napi_valuetype type;
    double d;
    if (napi_typeof(env, value, &type) != napi_ok) {
        mg_throw_last_status(env);
        return false;
    }
    if (type != napi_number) {
        napi_throw_type_error(env, NULL, "maxRows must be a number");
        return false;
    }
    napi_get_value_double(env, value, &d);
    if (!isfinite(d) || d < 0 || d != floor(d)) {
        napi_throw_range_error(env, NULL, "maxRows must be a non-negative integer");
        return false;
    }
    /* More rows than this in one batch cannot be useful; the cap keeps the
     * conversion to size_t defined. */
    *out = d > 1e9 ? (size_t)1000000000 : (size_t)d;
    return true;
}

#define MG_MAX_SAFE_INTEGER 9007199254740991ULL /* 2^53 - 1 */

bool mg_uint64_arg(napi_env env, napi_value value, const char *what, uint64_t *out) {
    napi_valuetype type;
    char message[96];
    if (napi_typeof(env, value, &type) != napi_ok) {
        mg_throw_last_status(env);
        return false;
    }
    if (type == napi_number) {
        double d;
        napi_get_value_double(env, value, &d);
        if (isfinite(d) && d >= 0 && d == floor(d) && d <= (double)MG_MAX_SAFE_INTEGER) {
            *out = (uint64_t)d;
            return true;
        }
    } else if (type == napi_bigint) {
        bool lossless = false;
        if (napi_get_value_bigint_uint64(env, value, out, &lossless) != napi_ok) {
            mg_throw_last_status(env);
            return false;
        }
        if (lossless)
            return true; /* false for negatives and for >= 2^64 */
    } else {
        snprintf(message, sizeof message, "%s must be a number or a bigint", what);
        napi_throw_type_error(env, NULL, message);
        return false;
    }
    snprintf(message, sizeof message,
             "%s must be an integer from 0 to 2^64 - 1 (a bigint beyond 2^53 - 1)", what);
    napi_throw_range_error(env, NULL, message);
    return false;
}

napi_value mg_uint64_value(napi_env env, uint64_t value) {
    napi_value result;
    /* The rule for integers in results: a Number while exact. */
    if (value <= MG_MAX_SAFE_INTEGER)
        MG_CHECK(env, napi_create_double(env, (double)value, &result));
    else
        MG_CHECK(env, napi_create_bigint_uint64(env, value, &result));
    return result;
}

/* ---- module --------------------------------------------------------------- */

static napi_value abi_version(napi_env env, napi_callback_info info) {
    napi_value result;
    (void)info;
    MG_CHECK(env, napi_create_int32(env, minigraf_abi_version(), &result));
    return result;
}

static napi_value library_version(napi_env env, napi_callback_info info) {
    napi_value result;
    (void)info;
    MG_CHECK(env, napi_create_string_utf8(env, minigraf_version(), NAPI_AUTO_LENGTH, &result));
    return result;
}

#define MG_METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_enumerable, NULL}

NAPI_MODULE_INIT() {
    napi_value compiled_abi;
    mg_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    inst->js_thread = pthread_self();
    if (napi_set_instance_data(env, inst, instance_finalize, NULL) != napi_ok) {
        free(inst);
        mg_throw_last_status(env);
        return NULL;
    }
    /* From here on the instance finalizer owns `inst`. */
    if ((inst->life = mg_js_life_new(env)) == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    MG_CHECK(env, napi_create_int32(env, MINIGRAF_ABI_VERSION, &compiled_abi));

    napi_property_descriptor props[] = {
        {"ABI_VERSION", NULL, NULL, NULL, NULL, compiled_abi, napi_enumerable, NULL},
        MG_METHOD("abiVersion", abi_version),
        MG_METHOD("version", library_version),
        MG_METHOD("setErrorClass", set_error_class),
        MG_METHOD("dbOpen", mg_db_open),
        MG_METHOD("dbClose", mg_db_close),
        MG_METHOD("dbExecute", mg_db_execute),
        MG_METHOD("dbExecuteAsync", mg_db_execute_async),
        MG_METHOD("dbTxCount", mg_db_tx_count),
        MG_METHOD("dbCheckpoint", mg_db_checkpoint),
        MG_METHOD("dbQuery", mg_db_query),
        MG_METHOD("cursorClose", mg_cursor_close),
        MG_METHOD("dbFactLog", mg_db_fact_log),
        MG_METHOD("factLogNextBatch", mg_fact_log_next_batch),
        MG_METHOD("factLogNextBatchAsync", mg_fact_log_next_batch_async),
        MG_METHOD("factLogClose", mg_fact_log_close),
        MG_METHOD("logWriterCreate", mg_log_writer_create),
        MG_METHOD("logWriterAppend", mg_log_writer_append),
        MG_METHOD("logWriterAppendBatch", mg_log_writer_append_batch),
        MG_METHOD("logWriterAdvanceTxCount", mg_log_writer_advance_tx_count),
        MG_METHOD("logWriterTxCount", mg_log_writer_tx_count),
        MG_METHOD("logWriterFinish", mg_log_writer_finish),
        MG_METHOD("logWriterClose", mg_log_writer_close),
        MG_METHOD("setValueClasses", mg_set_value_classes),
        MG_METHOD("dbQueryAsync", mg_db_query_async),
        MG_METHOD("cursorColumns", mg_cursor_columns),
        MG_METHOD("cursorRows", mg_cursor_rows),
        MG_METHOD("cursorRowsAsync", mg_cursor_rows_async),
        MG_METHOD("dbPrepare", mg_db_prepare),
        MG_METHOD("stmtBind", mg_stmt_bind),
        MG_METHOD("stmtBindJson", mg_stmt_bind_json),
        MG_METHOD("stmtClear", mg_stmt_clear),
        MG_METHOD("stmtQuery", mg_stmt_query),
        MG_METHOD("stmtQueryAsync", mg_stmt_query_async),
        MG_METHOD("stmtRowsAsync", mg_stmt_rows_async),
        MG_METHOD("stmtExecute", mg_stmt_execute),
        MG_METHOD("stmtRows", mg_stmt_rows),
        MG_METHOD("stmtClose", mg_stmt_close),
        MG_METHOD("dbBeginWrite", mg_db_begin_write),
        MG_METHOD("txExecute", mg_tx_execute),
        MG_METHOD("txQuery", mg_tx_query),
        MG_METHOD("txCommit", mg_tx_commit),
        MG_METHOD("txRollback", mg_tx_rollback),
        MG_METHOD("txClose", mg_tx_close),
        MG_METHOD("dbExport", mg_db_export),
        MG_METHOD("dbInterrupt", mg_db_interrupt),
        MG_METHOD("dbSetProgressHandler", mg_db_set_progress_handler),
        MG_METHOD("dbRegisterPredicate", mg_db_register_predicate),
        MG_METHOD("dbRegisterAggregate", mg_db_register_aggregate),
        MG_METHOD("abortNew", mg_abort_new),
        MG_METHOD("abortFire", mg_abort_fire),
    };
    MG_CHECK(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
    return exports;
}
