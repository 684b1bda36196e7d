/*
 * minigraf_jni_stmt.c — prepared queries, write transactions and export
 * for org.minigraf.NativeCalls. Every failure throws the handle's error
 * (minigraf_jni_glue.c); text crosses as UTF-8 byte[].
 */
#include "minigraf_jni_glue.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STMT(h) ((MiniGrafStmt *)(intptr_t)(h))
#define TX(h) ((MiniGrafTx *)(intptr_t)(h))
#define DB(h) ((MiniGrafDb *)(intptr_t)(h))

/* Bind kinds, as NativeCalls.BIND_* numbers them. */
enum {
    BIND_NULL = 0,
    BIND_STRING = 1,
    BIND_INTEGER = 2,
    BIND_FLOAT = 3,
    BIND_BOOLEAN = 4,
    BIND_KEYWORD = 5,
    BIND_ENTITY = 6,
    BIND_TX_COUNT = 8,
    BIND_TIMESTAMP = 9,
    BIND_ANY_VALID_TIME = 10
};

static void throw_stmt(JNIEnv *env, MiniGrafStmt *s) {
    mgj_throw(env, minigraf_stmt_last_error_code(s), minigraf_stmt_last_error(s));
}

static void throw_tx(JNIEnv *env, MiniGrafTx *tx) {
    mgj_throw(env, minigraf_tx_last_error_code(tx), minigraf_tx_last_error(tx));
}

JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_prepare(JNIEnv *env, jclass cls, jlong db,
                                                              jbyteArray text) {
    (void)cls;
    char *command = mgj_bytes_in(env, text);
    MiniGrafStmt *s = NULL;
    if (command != NULL) {
        s = minigraf_prepare(DB(db), command);
        if (s == NULL) {
            mgj_throw_db_error(env, DB(db));
        }
        free(command);
    }
    return (jlong)(intptr_t)s;
}

/* An entity: in entity position the Entity kind, elsewhere (a value, a
 * rule argument, an expression) Val(ref). When neither suits every place
 * of the slot, the entity refusal is reported: it names the first place. */
static int bind_entity(MiniGrafStmt *s, const char *name, const unsigned char *u) {
    char uuid[37];
    snprintf(uuid, sizeof uuid,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    int rc = minigraf_stmt_bind_entity(s, name, uuid);
    if (rc != MINIGRAF_E_API_015) {
        return rc;
    }
    int ref_rc = minigraf_stmt_bind_ref(s, name, uuid);
    if (ref_rc == MINIGRAF_E_API_015) {
        return minigraf_stmt_bind_entity(s, name, uuid);
    }
    return ref_rc;
}

static int bind_text(JNIEnv *env, MiniGrafStmt *s, const char *name, jint kind, jbyteArray text) {
    jsize len = text == NULL ? 0 : (*env)->GetArrayLength(env, text);
    jbyte *bytes = text == NULL ? NULL : (*env)->GetByteArrayElements(env, text, NULL);
    int rc;
    if (text != NULL && bytes == NULL) {
        return -1; /* OutOfMemoryError pending */
    }
    if (kind == BIND_STRING) {
        rc = minigraf_stmt_bind_string(s, name, (const char *)bytes, (size_t)len);
    } else {
        char *copy = mgj_bytes_in(env, text);
        rc = copy == NULL ? -1 : minigraf_stmt_bind_keyword(s, name, copy);
        free(copy);
    }
    if (bytes != NULL) {
        (*env)->ReleaseByteArrayElements(env, text, bytes, JNI_ABORT);
    }
    return rc;
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_bind(JNIEnv *env, jclass cls, jlong stmt,
                                                          jbyteArray jname, jint kind, jlong i,
                                                          jdouble d, jbyteArray text) {
    (void)cls;
    MiniGrafStmt *s = STMT(stmt);
    char *name = mgj_bytes_in(env, jname);
    int rc = -1;
    if (name == NULL) {
        return;
    }
    switch (kind) {
    case BIND_NULL: rc = minigraf_stmt_bind_null(s, name); break;
    case BIND_STRING:
    case BIND_KEYWORD: rc = bind_text(env, s, name, kind, text); break;
    case BIND_INTEGER: rc = minigraf_stmt_bind_int64(s, name, i); break;
    case BIND_FLOAT: rc = minigraf_stmt_bind_double(s, name, d); break;
    case BIND_BOOLEAN: rc = minigraf_stmt_bind_bool(s, name, i != 0); break;
    case BIND_TX_COUNT: rc = minigraf_stmt_bind_tx_count(s, name, (uint64_t)i); break;
    case BIND_TIMESTAMP: rc = minigraf_stmt_bind_timestamp_ms(s, name, i); break;
    case BIND_ANY_VALID_TIME: rc = minigraf_stmt_bind_any_valid_time(s, name); break;
    case BIND_ENTITY: {
        jbyte uuid[16];
        (*env)->GetByteArrayRegion(env, text, 0, 16, uuid);
        if (!(*env)->ExceptionCheck(env)) {
            rc = bind_entity(s, name, (const unsigned char *)uuid);
        }
        break;
    }
    default:
        mgj_throw(env, MINIGRAF_E_API_017, "[API-017] Invalid argument: unknown bind kind");
        break;
    }
    free(name);
    if (rc != 0 && !(*env)->ExceptionCheck(env)) {
        throw_stmt(env, s);
    }
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_bindJson(JNIEnv *env, jclass cls, jlong stmt,
                                                              jbyteArray json) {
    (void)cls;
    char *binds = mgj_bytes_in(env, json);
    if (binds != NULL && minigraf_stmt_bind_json(STMT(stmt), binds) != 0) {
        throw_stmt(env, STMT(stmt));
    }
    free(binds);
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_clearBindings(JNIEnv *env, jclass cls,
                                                                   jlong stmt) {
    (void)cls;
    if (minigraf_stmt_clear_bindings(STMT(stmt)) != 0) {
        throw_stmt(env, STMT(stmt));
    }
}

JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_stmtQuery(JNIEnv *env, jclass cls,
                                                                jlong stmt) {
    (void)cls;
    MiniGrafCursor *c = minigraf_stmt_query(STMT(stmt));
    if (c == NULL) {
        throw_stmt(env, STMT(stmt));
    }
    return (jlong)(intptr_t)c;
}

JNIEXPORT jbyteArray JNICALL Java_org_minigraf_NativeCalls_stmtExecute(JNIEnv *env, jclass cls,
                                                                       jlong stmt) {
    (void)cls;
    char *json = minigraf_stmt_execute(STMT(stmt));
    if (json == NULL) {
        throw_stmt(env, STMT(stmt));
        return NULL;
    }
    return mgj_bytes_take(env, json);
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_stmtFree(JNIEnv *env, jclass cls, jlong stmt) {
    (void)env;
    (void)cls;
    minigraf_stmt_free(STMT(stmt));
}

/* ---- write transactions ---------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_beginWrite(JNIEnv *env, jclass cls,
                                                                 jlong db) {
    (void)cls;
    MiniGrafTx *tx = minigraf_begin_write(DB(db));
    if (tx == NULL) {
        mgj_throw_db_error(env, DB(db));
    }
    return (jlong)(intptr_t)tx;
}

JNIEXPORT jbyteArray JNICALL Java_org_minigraf_NativeCalls_txExecute(JNIEnv *env, jclass cls,
                                                                     jlong tx, jbyteArray text) {
    (void)cls;
    char *command = mgj_bytes_in(env, text);
    jbyteArray out = NULL;
    if (command != NULL) {
        char *json = minigraf_tx_execute(TX(tx), command);
        if (json == NULL) {
            throw_tx(env, TX(tx));
        } else {
            out = mgj_bytes_take(env, json);
        }
        free(command);
    }
    return out;
}

JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_txQuery(JNIEnv *env, jclass cls, jlong tx,
                                                              jbyteArray text) {
    (void)cls;
    char *command = mgj_bytes_in(env, text);
    MiniGrafCursor *c = NULL;
    if (command != NULL) {
        c = minigraf_tx_query(TX(tx), command);
        if (c == NULL) {
            throw_tx(env, TX(tx));
        }
        free(command);
    }
    return (jlong)(intptr_t)c;
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_txEnd(JNIEnv *env, jclass cls, jlong tx,
                                                           jboolean commit) {
    (void)cls;
    int rc = commit ? minigraf_tx_commit(TX(tx)) : minigraf_tx_rollback(TX(tx));
    if (rc != 0) {
        throw_tx(env, TX(tx));
    }
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_txFree(JNIEnv *env, jclass cls, jlong tx) {
    (void)env;
    (void)cls;
    minigraf_tx_free(TX(tx));
}

/* ---- export and options ------------------------------------------------------ */

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_export(JNIEnv *env, jclass cls, jlong db,
                                                            jbyteArray path, jbyteArray options) {
    (void)cls;
    char *target = mgj_bytes_in(env, path);
    char *json = mgj_bytes_in(env, options);
    if (target != NULL && !(*env)->ExceptionCheck(env) &&
        minigraf_export(DB(db), target, json) != 0) {
        mgj_throw_db_error(env, DB(db));
    }
    free(target);
    free(json);
}

JNIEXPORT jbyteArray JNICALL Java_org_minigraf_NativeCalls_optionsDescribe(JNIEnv *env,
                                                                           jclass cls) {
    (void)cls;
    return mgj_bytes_out(env, minigraf_options_describe());
}

/* Opens with minigraf_open_v2; NULL path is in-memory (the Java side
 * refuses an empty path before). */
JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_open(JNIEnv *env, jclass cls, jbyteArray path,
                                                           jbyteArray options) {
    (void)cls;
    char *file = mgj_bytes_in(env, path);
    char *json = mgj_bytes_in(env, options);
    MiniGrafDb *db = NULL;
    if (!(*env)->ExceptionCheck(env)) {
        char *message = NULL;
        int rc = minigraf_open_v2(file, json, &db, &message);
        if (rc != 0) {
            mgj_throw(env, rc, message);
        }
        minigraf_string_free(message);
    }
    free(file);
    free(json);
    return (jlong)(intptr_t)db;
}
