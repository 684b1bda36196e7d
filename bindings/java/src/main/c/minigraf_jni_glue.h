/*
 * minigraf_jni_glue.h — the hand-written JNI helpers the SWIG typemaps of
 * swig/minigraf_java.i call: UTF-8 byte[] <-> C strings, and C errors ->
 * org.minigraf.MinigrafException.
 *
 * Every function may be called with a Java exception pending; the ones that
 * would throw then do nothing, so the first exception is the one Java sees.
 */
#ifndef MINIGRAF_JNI_GLUE_H
#define MINIGRAF_JNI_GLUE_H

#include <jni.h>

#include "minigraf.h"

/* A malloc'ed, NUL-terminated copy of `bytes` (free with free()), or NULL:
 * for a null `bytes` (no exception), or on failure with an exception
 * pending — API-017 when `bytes` holds a NUL byte, OutOfMemoryError. */
char *mgj_bytes_in(JNIEnv *env, jbyteArray bytes);

/* A new byte[] holding `s` without its NUL; NULL for a NULL `s` or, with an
 * OutOfMemoryError pending, when the array cannot be made. `s` is borrowed. */
jbyteArray mgj_bytes_out(JNIEnv *env, const char *s);

/* mgj_bytes_out, then minigraf_string_free(s) in every case. */
jbyteArray mgj_bytes_take(JNIEnv *env, char *s);

/* Throws the MinigrafException for numeric `code` and the "[CODE] message"
 * text `message` (borrowed; may be NULL). Code 0 means "read it from the
 * message". */
void mgj_throw(JNIEnv *env, int code, const char *message);

/* Throws the last error of `db` / `cursor` / `log` / `writer`. */
void mgj_throw_db_error(JNIEnv *env, const MiniGrafDb *db);
void mgj_throw_cursor_error(JNIEnv *env, const MiniGrafCursor *cursor);
void mgj_throw_fact_log_error(JNIEnv *env, const MiniGrafFactLog *log);
void mgj_throw_log_writer_error(JNIEnv *env, const MiniGrafLogWriter *writer);

#endif /* MINIGRAF_JNI_GLUE_H */
