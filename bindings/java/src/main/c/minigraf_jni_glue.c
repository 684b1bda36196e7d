/*
 * minigraf_jni_glue.c — see minigraf_jni_glue.h.
 *
 * Strings cross JNI as byte[] holding UTF-8: GetStringUTFChars and
 * NewStringUTF speak "modified UTF-8" (NUL as two bytes, characters beyond
 * the BMP as surrogate pairs), which is not what the library reads or writes.
 * Every local reference made here is deleted before returning, so the helpers
 * can be called in loops without filling the local reference table.
 */
#include "minigraf_jni_glue.h"

#include <stdlib.h>
#include <string.h>

/* The numeric form of API-017 (invalid argument); see minigraf.h. */
#define MGJ_API_INVALID_ARGUMENT (MINIGRAF_FAMILY_API * 1000 + 17)

char *mgj_bytes_in(JNIEnv *env, jbyteArray bytes) {
    jsize length;
    char *copy;

    if (bytes == NULL || (*env)->ExceptionCheck(env)) {
        return NULL;
    }
    length = (*env)->GetArrayLength(env, bytes);
    copy = malloc((size_t)length + 1);
    if (copy == NULL) {
        jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
        if (oom != NULL) {
            (*env)->ThrowNew(env, oom, "minigraf: cannot copy a string argument");
            (*env)->DeleteLocalRef(env, oom);
        }
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)copy);
    copy[length] = '\0';
    if (memchr(copy, '\0', (size_t)length) != NULL) {
        free(copy);
        mgj_throw(env, MGJ_API_INVALID_ARGUMENT,
                  "[API-017] Invalid argument: text contains a NUL character");
        return NULL;
    }
    return copy;
}

jbyteArray mgj_bytes_out(JNIEnv *env, const char *s) {
    jsize length;
    jbyteArray bytes;

    if (s == NULL || (*env)->ExceptionCheck(env)) {
        return NULL;
    }
    length = (jsize)strlen(s);
    bytes = (*env)->NewByteArray(env, length); /* throws OutOfMemoryError */
    if (bytes != NULL) {
        (*env)->SetByteArrayRegion(env, bytes, 0, length, (const jbyte *)s);
    }
    return bytes;
}

jbyteArray mgj_bytes_take(JNIEnv *env, char *s) {
    jbyteArray bytes = mgj_bytes_out(env, s);
    minigraf_string_free(s);
    return bytes;
}

/* Builds the exception through MinigrafException.fromNative(int, byte[]),
 * which picks the subclass, so the code -> class mapping lives in Java. */
void mgj_throw(JNIEnv *env, int code, const char *message) {
    jclass cls;
    jmethodID factory;
    jbyteArray text = NULL;
    jobject exception = NULL;

    if ((*env)->ExceptionCheck(env)) {
        return;
    }
    cls = (*env)->FindClass(env, "org/minigraf/MinigrafException");
    if (cls == NULL) {
        return; /* NoClassDefFoundError pending */
    }
    factory = (*env)->GetStaticMethodID(env, cls, "fromNative",
                                        "(I[B)Lorg/minigraf/MinigrafException;");
    if (factory != NULL) {
        text = mgj_bytes_out(env, message);
    }
    if (factory != NULL && !(*env)->ExceptionCheck(env)) {
        exception = (*env)->CallStaticObjectMethod(env, cls, factory, (jint)code, text);
    }
    if (exception != NULL && !(*env)->ExceptionCheck(env)) {
        (*env)->Throw(env, (jthrowable)exception);
    }
    if (exception != NULL) {
        (*env)->DeleteLocalRef(env, exception);
    }
    if (text != NULL) {
        (*env)->DeleteLocalRef(env, text);
    }
    (*env)->DeleteLocalRef(env, cls);
}

/* The code and message are read before anything else calls the library:
 * the message is borrowed until the next call on the handle. */
void mgj_throw_db_error(JNIEnv *env, const MiniGrafDb *db) {
    if (!(*env)->ExceptionCheck(env)) {
        mgj_throw(env, minigraf_last_error_code(db), minigraf_last_error(db));
    }
}

void mgj_throw_cursor_error(JNIEnv *env, const MiniGrafCursor *cursor) {
    if (!(*env)->ExceptionCheck(env)) {
        mgj_throw(env, minigraf_cursor_last_error_code(cursor), minigraf_cursor_last_error(cursor));
    }
}

void mgj_throw_fact_log_error(JNIEnv *env, const MiniGrafFactLog *log) {
    if (!(*env)->ExceptionCheck(env)) {
        mgj_throw(env, minigraf_fact_log_last_error_code(log), minigraf_fact_log_last_error(log));
    }
}

void mgj_throw_log_writer_error(JNIEnv *env, const MiniGrafLogWriter *writer) {
    if (!(*env)->ExceptionCheck(env)) {
        mgj_throw(env, minigraf_log_writer_last_error_code(writer),
                  minigraf_log_writer_last_error(writer));
    }
}
