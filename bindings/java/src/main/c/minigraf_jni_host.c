/*
 * minigraf_jni_host.c — host functions and the progress handler for
 * org.minigraf.NativeCalls: the C callbacks call the static methods of
 * org.minigraf.HostCalls on the thread running the query (the library never
 * calls back from a thread of its own), which call the application's
 * Predicate, aggregate functions or progress handler.
 *
 * Each callback runs inside a local reference frame of its own: a query
 * may call it millions of times within one native call, whose frame would
 * otherwise keep every array made for it. HostCalls catches what the
 * application throws and hands back its message, which becomes the query's
 * API-016 error.
 */
#include "minigraf_jni_glue.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DB(h) ((MiniGrafDb *)(intptr_t)(h))

/* HostCalls and its methods, cached by hostInit. */
static jclass host_class;
static jmethodID m_predicate, m_init, m_step, m_finish, m_progress;

/* The user_data of a registration or of the progress handler. */
typedef struct {
    JavaVM *vm;
    jobject target; /* global ref: the Java function or progress state */
} mgj_host;

/* An aggregate's accumulator: the Java state and the text of the last
 * finish result, which must outlive the call. */
typedef struct {
    jobject state; /* global ref */
    char *text;
} mgj_acc;

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_hostInit(JNIEnv *env, jclass cls,
                                                              jclass host) {
    (void)cls;
    host_class = (jclass)(*env)->NewGlobalRef(env, host);
    m_predicate = (*env)->GetStaticMethodID(env, host, "predicate", "(Ljava/lang/Object;IJD[B)[B");
    m_init = (*env)->GetStaticMethodID(env, host, "init", "(Ljava/lang/Object;)Ljava/lang/Object;");
    m_step = (*env)->GetStaticMethodID(env, host, "step",
                                       "(Ljava/lang/Object;Ljava/lang/Object;IJD[B)[B");
    m_finish = (*env)->GetStaticMethodID(env, host, "finish",
                                         "(Ljava/lang/Object;Ljava/lang/Object;J)[B");
    m_progress = (*env)->GetStaticMethodID(env, host, "progress", "(Ljava/lang/Object;)I");
}

static JNIEnv *env_of(JavaVM *vm) {
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) == JNI_EDETACHED) {
        /* destroy may run on whichever thread closes or unregisters. */
        if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) {
            return NULL;
        }
    }
    return env;
}

static mgj_host *host_new(JNIEnv *env, jobject target) {
    mgj_host *h = malloc(sizeof *h);
    if (h == NULL) {
        return NULL;
    }
    (*env)->GetJavaVM(env, &h->vm);
    h->target = (*env)->NewGlobalRef(env, target);
    return h;
}

static void host_destroy(void *user_data) {
    mgj_host *h = user_data;
    JNIEnv *env = env_of(h->vm);
    if (env != NULL) {
        (*env)->DeleteGlobalRef(env, h->target);
    }
    free(h);
}

/* Copies `bytes` (UTF-8) into the library's error buffer, cut at a
 * character boundary. */
static void put_message(JNIEnv *env, jbyteArray bytes, jsize from, char *error, size_t size) {
    jsize len = (*env)->GetArrayLength(env, bytes) - from;
    size_t n = (size_t)(len > 0 ? len : 0);
    if (n >= size) {
        n = size - 1;
    }
    (*env)->GetByteArrayRegion(env, bytes, from, (jsize)n, (jbyte *)error);
    if (n < (size_t)len) {
        while (n > 0 && ((unsigned char)error[n] & 0xC0) == 0x80) {
            n--;
        }
    }
    error[n] = '\0';
}

/* A pending Java exception (one HostCalls could not catch, e.g. an
 * OutOfMemoryError while reporting) as the callback's failure. */
static int java_failure(JNIEnv *env, char *error, size_t size) {
    (*env)->ExceptionClear(env);
    strncpy(error, "a Java error was thrown while calling the function", size - 1);
    error[size - 1] = '\0';
    return 1;
}

/* The value's text or UUID bytes as a byte[]; NULL for other types. */
static jbyteArray value_bytes(JNIEnv *env, const minigraf_value *v) {
    if (v->type == MINIGRAF_TYPE_STRING || v->type == MINIGRAF_TYPE_KEYWORD) {
        jbyteArray a = (*env)->NewByteArray(env, (jsize)v->text_len);
        if (a != NULL) {
            (*env)->SetByteArrayRegion(env, a, 0, (jsize)v->text_len, (const jbyte *)v->text);
        }
        return a;
    }
    if (v->type == MINIGRAF_TYPE_REF) {
        jbyteArray a = (*env)->NewByteArray(env, 16);
        if (a != NULL) {
            (*env)->SetByteArrayRegion(env, a, 0, 16, (const jbyte *)v->uuid);
        }
        return a;
    }
    return NULL;
}

/* [0] status (0 ok, 1 failed), then the answer or the message. */
static int predicate_cb(void *user_data, const minigraf_value *value, int *result, char *error,
                        size_t error_size) {
    mgj_host *h = user_data;
    JNIEnv *env = env_of(h->vm);
    int rc = 1;
    if (env == NULL || (*env)->PushLocalFrame(env, 8) != 0) {
        return env == NULL ? 1 : java_failure(env, error, error_size);
    }
    jbyteArray text = value_bytes(env, value);
    jbyteArray out = NULL;
    if (!(*env)->ExceptionCheck(env)) {
        out = (jbyteArray)(*env)->CallStaticObjectMethod(env, host_class, m_predicate, h->target,
                                                         (jint)value->type, (jlong)value->integer,
                                                         value->real, text);
    }
    if ((*env)->ExceptionCheck(env) || out == NULL) {
        rc = java_failure(env, error, error_size);
    } else {
        jbyte head[2] = {1, 0};
        (*env)->GetByteArrayRegion(env, out, 0, 2, head);
        if (head[0] == 0) {
            *result = head[1] != 0;
            rc = 0;
        } else {
            put_message(env, out, 1, error, error_size);
        }
    }
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

static int agg_init(void *user_data, void **acc, char *error, size_t error_size) {
    mgj_host *h = user_data;
    JNIEnv *env = env_of(h->vm);
    int rc = 1;
    if (env == NULL || (*env)->PushLocalFrame(env, 8) != 0) {
        return env == NULL ? 1 : java_failure(env, error, error_size);
    }
    jobject state = (*env)->CallStaticObjectMethod(env, host_class, m_init, h->target);
    jclass bytes_class = NULL;
    if (!(*env)->ExceptionCheck(env)) {
        bytes_class = (*env)->FindClass(env, "[B");
    }
    if ((*env)->ExceptionCheck(env) || state == NULL || bytes_class == NULL) {
        rc = java_failure(env, error, error_size);
    } else if ((*env)->IsInstanceOf(env, state, bytes_class)) {
        put_message(env, (jbyteArray)state, 0, error, error_size);
    } else {
        mgj_acc *a = calloc(1, sizeof *a);
        if (a != NULL) {
            a->state = (*env)->NewGlobalRef(env, state);
            *acc = a;
            rc = 0;
        } else {
            strncpy(error, "out of memory", error_size - 1);
        }
    }
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

static int agg_step(void *user_data, void *acc, const minigraf_value *value, char *error,
                    size_t error_size) {
    mgj_host *h = user_data;
    mgj_acc *a = acc;
    JNIEnv *env = env_of(h->vm);
    int rc = 0;
    if (env == NULL || (*env)->PushLocalFrame(env, 8) != 0) {
        return env == NULL ? 1 : java_failure(env, error, error_size);
    }
    jbyteArray text = value_bytes(env, value);
    jbyteArray out = NULL;
    if (!(*env)->ExceptionCheck(env)) {
        out = (jbyteArray)(*env)->CallStaticObjectMethod(env, host_class, m_step, h->target,
                                                         a->state, (jint)value->type,
                                                         (jlong)value->integer, value->real, text);
    }
    if ((*env)->ExceptionCheck(env)) {
        rc = java_failure(env, error, error_size);
    } else if (out != NULL) {
        put_message(env, out, 0, error, error_size);
        rc = 1;
    }
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

static int64_t read_be64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = (v << 8) | p[i];
    }
    return (int64_t)v;
}

/* The finish answer [0, type, payload...] into *result; its text kept in
 * the accumulator until the next call on it. */
static int finish_result(JNIEnv *env, jbyteArray out, mgj_acc *a, minigraf_value *result) {
    jsize len = (*env)->GetArrayLength(env, out);
    unsigned char *p = malloc((size_t)len + 1);
    if (p == NULL) {
        return -1;
    }
    (*env)->GetByteArrayRegion(env, out, 0, len, (jbyte *)p);
    p[len] = '\0';
    int type = len > 1 ? p[1] : MINIGRAF_TYPE_NULL;
    size_t payload = len > 2 ? (size_t)len - 2 : 0;
    result->type = type;
    switch (type) {
    case MINIGRAF_TYPE_INTEGER: result->integer = payload >= 8 ? read_be64(p + 2) : 0; break;
    case MINIGRAF_TYPE_FLOAT: {
        int64_t bits = payload >= 8 ? read_be64(p + 2) : 0;
        memcpy(&result->real, &bits, sizeof bits);
        break;
    }
    case MINIGRAF_TYPE_BOOLEAN: result->boolean = payload > 0 && p[2] != 0; break;
    case MINIGRAF_TYPE_REF: memcpy(result->uuid, p + 2, payload >= 16 ? 16 : payload); break;
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD:
        free(a->text);
        a->text = (char *)p;
        result->text = a->text + 2;
        result->text_len = payload;
        return 0;
    default: break;
    }
    free(p);
    return 0;
}

static int agg_finish(void *user_data, void *acc, int64_t n, minigraf_value *result, char *error,
                      size_t error_size) {
    mgj_host *h = user_data;
    mgj_acc *a = acc;
    JNIEnv *env = env_of(h->vm);
    int rc = 1;
    if (env == NULL || (*env)->PushLocalFrame(env, 8) != 0) {
        return env == NULL ? 1 : java_failure(env, error, error_size);
    }
    jbyteArray out = (jbyteArray)(*env)->CallStaticObjectMethod(env, host_class, m_finish,
                                                                h->target, a->state, (jlong)n);
    if ((*env)->ExceptionCheck(env) || out == NULL) {
        rc = java_failure(env, error, error_size);
    } else {
        jbyte status = 1;
        (*env)->GetByteArrayRegion(env, out, 0, 1, &status);
        if (status != 0) {
            put_message(env, out, 1, error, error_size);
        } else if (finish_result(env, out, a, result) == 0) {
            rc = 0;
        } else {
            strncpy(error, "out of memory", error_size - 1);
        }
    }
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

static void agg_release(void *user_data, void *acc) {
    mgj_host *h = user_data;
    mgj_acc *a = acc;
    if (a == NULL) {
        return;
    }
    JNIEnv *env = env_of(h->vm);
    if (env != NULL) {
        (*env)->DeleteGlobalRef(env, a->state);
    }
    free(a->text);
    free(a);
}

/* Registers fn (a HostCalls-known Java object) as a predicate, or as an
 * aggregate; fn null unregisters the name. */
JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_register(JNIEnv *env, jclass cls, jlong db,
                                                              jbyteArray jname, jobject fn,
                                                              jboolean aggregate) {
    (void)cls;
    char *name = mgj_bytes_in(env, jname);
    if (name == NULL) {
        return;
    }
    mgj_host *h = NULL;
    if (fn != NULL && (h = host_new(env, fn)) == NULL) {
        free(name);
        mgj_throw(env, MINIGRAF_E_INT_000, "[INT-000] out of memory");
        return;
    }
    int rc;
    if (aggregate) {
        rc = fn == NULL
                 ? minigraf_register_aggregate(DB(db), name, NULL, NULL, NULL, NULL, NULL, NULL)
                 : minigraf_register_aggregate(DB(db), name, agg_init, agg_step, agg_finish,
                                               agg_release, h, host_destroy);
    } else {
        rc = minigraf_register_predicate(DB(db), name, fn == NULL ? NULL : predicate_cb, h,
                                         fn == NULL ? NULL : host_destroy);
    }
    free(name);
    if (rc != 0) {
        mgj_throw_db_error(env, DB(db));
    }
}

/* ---- the progress handler -------------------------------------------------- */

static int progress_cb(void *user_data) {
    mgj_host *h = user_data;
    JNIEnv *env = env_of(h->vm);
    if (env == NULL) {
        return 0;
    }
    jint stop = (*env)->CallStaticIntMethod(env, host_class, m_progress, h->target);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return 1;
    }
    return stop;
}

/* Installs HostCalls.progress(state) every `n` units; returns its context
 * (free it with progressFree once the database is closed). */
JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_progressInstall(JNIEnv *env, jclass cls,
                                                                      jlong db, jint n,
                                                                      jobject state) {
    (void)cls;
    mgj_host *h = host_new(env, state);
    if (h == NULL) {
        mgj_throw(env, MINIGRAF_E_INT_000, "[INT-000] out of memory");
        return 0;
    }
    if (minigraf_progress_handler(DB(db), n, progress_cb, h) != 0) {
        mgj_throw_db_error(env, DB(db));
        host_destroy(h);
        return 0;
    }
    return (jlong)(intptr_t)h;
}

/* Changes how often the installed handler runs. */
JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_progressEvery(JNIEnv *env, jclass cls,
                                                                   jlong db, jlong ctx, jint n) {
    (void)cls;
    if (minigraf_progress_handler(DB(db), n, progress_cb, (void *)(intptr_t)ctx) != 0) {
        mgj_throw_db_error(env, DB(db));
    }
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_progressFree(JNIEnv *env, jclass cls,
                                                                  jlong ctx) {
    (void)env;
    (void)cls;
    if (ctx != 0) {
        host_destroy((void *)(intptr_t)ctx);
    }
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_interrupt(JNIEnv *env, jclass cls, jlong db) {
    (void)env;
    (void)cls;
    minigraf_interrupt(DB(db));
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_close(JNIEnv *env, jclass cls, jlong db) {
    (void)env;
    (void)cls;
    minigraf_close(DB(db));
}
