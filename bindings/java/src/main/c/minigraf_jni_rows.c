/*
 * minigraf_jni_rows.c — typed rows for org.minigraf.NativeCalls: many rows
 * of a cursor per down-call, with no JSON in between.
 *
 * fetch() steps the cursor up to `max` rows and writes every cell as two
 * longs into `cells` (see NativeCalls.java for the layout): the type and
 * the byte length in the first, the value (int64, double bits, boolean,
 * or an offset into the text area) in the second. Texts (UTF-8, NUL bytes
 * included) and UUID bytes go into one byte[] text area, so a batch costs
 * two array copies whatever its size, and Java decodes Strings from real
 * UTF-8 (never JNI's modified UTF-8).
 */
#include "minigraf_jni_glue.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A growable byte buffer that starts on the stack; leaving it, it takes
 * at least `first_heap` bytes. */
typedef struct {
    char *data;
    size_t len, cap;
    int heap;
    size_t first_heap;
} mgj_buf;

/* Grows `b` to hold `more` bytes past its end; -1 out of memory. */
static int buf_grow(mgj_buf *b, size_t more) {
    size_t need = b->len + more;
    size_t cap = b->cap * 2 > need ? b->cap * 2 : need;
    if (!b->heap && cap < b->first_heap) {
        cap = b->first_heap;
    }
    char *p = b->heap ? realloc(b->data, cap) : malloc(cap);
    if (p == NULL) {
        return -1;
    }
    if (!b->heap) {
        memcpy(p, b->data, b->len);
    }
    b->data = p;
    b->cap = cap;
    b->heap = 1;
    return 0;
}

/* Room for `more` bytes past the end of `b`; -1 out of memory. The test
 * is inline: a row and each of its texts ask, and a call cost ~2% of a
 * fetch. */
static inline int buf_reserve(mgj_buf *b, size_t more) {
    return b->len + more <= b->cap ? 0 : buf_grow(b, more);
}

static void buf_release(mgj_buf *b) {
    if (b->heap) {
        free(b->data);
    }
}

static void throw_oom(JNIEnv *env) {
    jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (oom != NULL) {
        (*env)->ThrowNew(env, oom, "minigraf: cannot buffer a batch of rows");
        (*env)->DeleteLocalRef(env, oom);
    }
}

/* Appends `len` bytes to the text area; its offset, or -1 out of memory. */
static inline int64_t text_add(mgj_buf *text, const void *p, size_t len) {
    if (buf_reserve(text, len) != 0) {
        return -1;
    }
    int64_t offset = (int64_t)text->len;
    if (len > 0) {
        memcpy(text->data + text->len, p, len);
    }
    text->len += len;
    return offset;
}

/* One cell of the current row into cell[0..1]; -1 out of memory. */
static int read_cell(MiniGrafCursor *c, int col, int64_t *cell, mgj_buf *text) {
    int type = minigraf_cursor_column_type(c, col);
    size_t len = 0;
    int64_t value = 0;
    switch (type) {
    case MINIGRAF_TYPE_INTEGER: value = minigraf_cursor_column_int64(c, col); break;
    case MINIGRAF_TYPE_FLOAT: {
        double d = minigraf_cursor_column_double(c, col);
        memcpy(&value, &d, sizeof value);
        break;
    }
    case MINIGRAF_TYPE_BOOLEAN: value = minigraf_cursor_column_bool(c, col); break;
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD:
    case MINIGRAF_TYPE_LIST: {
        const char *s = minigraf_cursor_column_text(c, col, &len);
        value = text_add(text, s, len);
        break;
    }
    case MINIGRAF_TYPE_REF:
        len = 16;
        value = text_add(text, minigraf_cursor_column_uuid(c, col), len);
        break;
    default: break;
    }
    if (value < 0 && (type == MINIGRAF_TYPE_STRING || type == MINIGRAF_TYPE_KEYWORD ||
                      type == MINIGRAF_TYPE_LIST || type == MINIGRAF_TYPE_REF)) {
        return -1;
    }
    cell[0] = (int64_t)type | ((int64_t)len << 8);
    cell[1] = value;
    return 0;
}

/* Copies the text area into holder[0], replacing it by a larger array
 * when it is too small. */
static void text_out(JNIEnv *env, jobjectArray holder, const mgj_buf *text) {
    if (text->len == 0) {
        return;
    }
    jbyteArray array = (jbyteArray)(*env)->GetObjectArrayElement(env, holder, 0);
    if (array != NULL && (size_t)(*env)->GetArrayLength(env, array) >= text->len) {
        (*env)->SetByteArrayRegion(env, array, 0, (jsize)text->len, (const jbyte *)text->data);
        (*env)->DeleteLocalRef(env, array);
        return;
    }
    if (array != NULL) {
        (*env)->DeleteLocalRef(env, array);
    }
    if (text->len > INT32_MAX) {
        throw_oom(env);
        return;
    }
    jbyteArray larger = (*env)->NewByteArray(
        env, (jsize)(text->len * 2 > INT32_MAX ? text->len : text->len * 2));
    if (larger == NULL) {
        return; /* OutOfMemoryError pending */
    }
    (*env)->SetObjectArrayElement(env, holder, 0, larger);
    (*env)->SetByteArrayRegion(env, larger, 0, (jsize)text->len, (const jbyte *)text->data);
    (*env)->DeleteLocalRef(env, larger);
}

/* The cells gathered in `buf` into cells[*done...]; empties `buf`. Rows
 * go out a stack buffer at a time: a batch's cells never grow a heap
 * buffer (which cost a copy per doubling) and are copied while still in
 * the cache. */
static void cells_out(JNIEnv *env, jlongArray cells, mgj_buf *buf, jsize *done) {
    jsize n = (jsize)(buf->len / sizeof(int64_t));
    (*env)->SetLongArrayRegion(env, cells, *done, n, (const jlong *)(void *)buf->data);
    *done += n;
    buf->len = 0;
}

/* The most a text area takes at once when it leaves the stack: 64
 * batches' worth of one UUID column. */
#define TEXT_FIRST_HEAP_MAX ((size_t)1 << 20)

/* Rows read, with bit 32 set when the cursor reached its end. An error met
 * after some rows is left for the next call (step repeats it). `text_room`
 * is the length of holder[0]: texts that outgrow the stack go to a buffer
 * that large at once (as many as the last batches needed, with no copy
 * per doubling). */
JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_fetch(JNIEnv *env, jclass cls, jlong handle,
                                                            jint max, jint cols, jlongArray cells,
                                                            jobjectArray holder, jint text_room) {
    (void)cls;
    MiniGrafCursor *c = (MiniGrafCursor *)(intptr_t)handle;
    char cell_stack[8192], text_stack[4096];
    mgj_buf cellbuf = {cell_stack, 0, sizeof cell_stack, 0, 0};
    /* capped: after one answer of huge texts, a later batch that just
     * outgrows the stack need not take as much at once */
    size_t first_text = text_room > 0 ? (size_t)text_room : 0;
    mgj_buf text = {text_stack, 0, sizeof text_stack, 0,
                    first_text < TEXT_FIRST_HEAP_MAX ? first_text : TEXT_FIRST_HEAP_MAX};
    size_t row_bytes = (size_t)cols * 2 * sizeof(int64_t);
    jsize cells_done = 0;
    jint rows = 0;
    int end = 0, failed = 0;

    while (rows < max) {
        int rc = minigraf_cursor_step(c);
        if (rc == 0) {
            end = 1;
            break;
        }
        if (rc < 0) {
            failed = rows == 0;
            break;
        }
        if (cellbuf.len + row_bytes > cellbuf.cap && cellbuf.len > 0) {
            cells_out(env, cells, &cellbuf, &cells_done);
        }
        if (buf_reserve(&cellbuf, row_bytes) != 0) {
            throw_oom(env);
            break;
        }
        int64_t *row = (int64_t *)(void *)(cellbuf.data + cellbuf.len);
        int oom = 0; /* a flag, not ExceptionCheck: no JNI call per row */
        for (int col = 0; col < cols && !oom; col++) {
            oom = read_cell(c, col, row + 2 * col, &text) != 0;
        }
        if (oom) {
            throw_oom(env);
            break;
        }
        cellbuf.len += row_bytes;
        rows++;
    }
    if (failed) {
        mgj_throw_cursor_error(env, c);
    }
    if (!(*env)->ExceptionCheck(env) && rows > 0) {
        cells_out(env, cells, &cellbuf, &cells_done);
        text_out(env, holder, &text);
    }
    buf_release(&cellbuf);
    buf_release(&text);
    return (jlong)rows | (end ? ((jlong)1 << 32) : 0);
}

JNIEXPORT jint JNICALL Java_org_minigraf_NativeCalls_columnCount(JNIEnv *env, jclass cls,
                                                                 jlong handle) {
    (void)cls;
    MiniGrafCursor *c = (MiniGrafCursor *)(intptr_t)handle;
    int n = minigraf_cursor_column_count(c);
    if (n <= 0) {
        mgj_throw_cursor_error(env, c);
    }
    return n;
}

JNIEXPORT jbyteArray JNICALL Java_org_minigraf_NativeCalls_columnName(JNIEnv *env, jclass cls,
                                                                      jlong handle, jint col) {
    (void)cls;
    MiniGrafCursor *c = (MiniGrafCursor *)(intptr_t)handle;
    const char *name = minigraf_cursor_column_name(c, col);
    if (name == NULL) {
        mgj_throw_cursor_error(env, c);
        return NULL;
    }
    return mgj_bytes_out(env, name);
}

JNIEXPORT void JNICALL Java_org_minigraf_NativeCalls_cursorFree(JNIEnv *env, jclass cls,
                                                                jlong handle) {
    (void)env;
    (void)cls;
    minigraf_cursor_free((MiniGrafCursor *)(intptr_t)handle);
}

JNIEXPORT jlong JNICALL Java_org_minigraf_NativeCalls_query(JNIEnv *env, jclass cls, jlong db,
                                                            jbyteArray text) {
    (void)cls;
    char *command = mgj_bytes_in(env, text);
    MiniGrafCursor *c = NULL;
    if (command != NULL) {
        c = minigraf_query((MiniGrafDb *)(intptr_t)db, command);
        if (c == NULL) {
            mgj_throw_db_error(env, (MiniGrafDb *)(intptr_t)db);
        }
        free(command);
    }
    return (jlong)(intptr_t)c;
}
