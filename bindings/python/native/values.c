/*
 * values.c — minigraf values to and from Python objects.
 *
 *   NULL -> None        STRING -> str          INTEGER -> int (exact)
 *   FLOAT -> float (NaN, +-inf kept)           BOOLEAN -> bool
 *   KEYWORD -> minigraf.Keyword (a str)        REF -> minigraf.Entity
 *   LIST (collect-set) -> list of these values
 *
 * and back: the same types bind into a prepared query unchanged (plus
 * TxCount, Timestamp and ANY_VALID_TIME for :as-of / :valid-at slots).
 */
#include "mgpy.h"

#include <stdio.h>
#include <string.h>

static int arena_put(mgpy_arena *arena, const char *text, size_t len, size_t *off) {
    if (arena->len + len + 1 > arena->cap) {
        size_t cap = arena->cap ? arena->cap : 4096;
        char *grown;
        while (cap < arena->len + len + 1) {
            cap *= 2;
        }
        grown = realloc(arena->data, cap);
        if (!grown) {
            return -1;
        }
        arena->data = grown;
        arena->cap = cap;
    }
    if (len) {
        memcpy(arena->data + arena->len, text, len);
    }
    *off = arena->len;
    arena->len += len;
    return 0;
}

int mgpy_cell_read(MiniGrafCursor *cursor, int col, mgpy_cell *cell, mgpy_arena *arena) {
    const char *text;
    const unsigned char *uuid;

    cell->type = minigraf_cursor_column_type(cursor, col);
    cell->len = 0;
    switch (cell->type) {
    case MINIGRAF_TYPE_INTEGER:
        cell->v.integer = minigraf_cursor_column_int64(cursor, col);
        return 0;
    case MINIGRAF_TYPE_FLOAT: cell->v.real = minigraf_cursor_column_double(cursor, col); return 0;
    case MINIGRAF_TYPE_BOOLEAN:
        cell->v.boolean = minigraf_cursor_column_bool(cursor, col);
        return 0;
    case MINIGRAF_TYPE_REF:
        uuid = minigraf_cursor_column_uuid(cursor, col);
        if (uuid) {
            memcpy(cell->v.uuid, uuid, 16);
        } else {
            memset(cell->v.uuid, 0, 16);
        }
        return 0;
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD:
    case MINIGRAF_TYPE_LIST:
        text = minigraf_cursor_column_text(cursor, col, &cell->len);
        return arena_put(arena, text ? text : "", text ? cell->len : 0, &cell->v.off);
    default: cell->type = MINIGRAF_TYPE_NULL; return 0;
    }
}

static PyObject *keyword_from(const char *text, Py_ssize_t len) {
    PyObject *str = PyUnicode_DecodeUTF8(text, len, "strict"), *keyword;

    if (!str) {
        return NULL;
    }
    keyword = MGPY_CALL1(mgpy.keyword, str);
    Py_DECREF(str);
    return keyword;
}

/* The text of a STRING, KEYWORD or LIST cell (only those have an offset). */
static const char *cell_text(const mgpy_cell *cell, const mgpy_arena *arena) {
    return arena->data ? arena->data + cell->v.off : "";
}

PyObject *mgpy_cell_value(const mgpy_cell *cell, const mgpy_arena *arena) {
    PyObject *str, *list;

    switch (cell->type) {
    case MINIGRAF_TYPE_INTEGER: return PyLong_FromLongLong((long long)cell->v.integer);
    case MINIGRAF_TYPE_FLOAT: return PyFloat_FromDouble(cell->v.real);
    case MINIGRAF_TYPE_BOOLEAN: return PyBool_FromLong(cell->v.boolean);
    case MINIGRAF_TYPE_REF: return mgpy_entity_from_bytes(cell->v.uuid);
    case MINIGRAF_TYPE_STRING:
        return PyUnicode_DecodeUTF8(cell_text(cell, arena), (Py_ssize_t)cell->len, "strict");
    case MINIGRAF_TYPE_KEYWORD: return keyword_from(cell_text(cell, arena), (Py_ssize_t)cell->len);
    case MINIGRAF_TYPE_LIST:
        str = PyUnicode_DecodeUTF8(cell_text(cell, arena), (Py_ssize_t)cell->len, "strict");
        list = str ? MGPY_CALL1(mgpy.typed_list, str) : NULL;
        Py_XDECREF(str);
        return list;
    default: Py_RETURN_NONE;
    }
}

PyObject *mgpy_from_value(const minigraf_value *value) {
    switch (value->type) {
    case MINIGRAF_TYPE_INTEGER: return PyLong_FromLongLong((long long)value->integer);
    case MINIGRAF_TYPE_FLOAT: return PyFloat_FromDouble(value->real);
    case MINIGRAF_TYPE_BOOLEAN: return PyBool_FromLong(value->boolean);
    case MINIGRAF_TYPE_REF: return mgpy_entity_from_bytes(value->uuid);
    case MINIGRAF_TYPE_STRING:
        return PyUnicode_DecodeUTF8(value->text, (Py_ssize_t)value->text_len, "strict");
    case MINIGRAF_TYPE_KEYWORD: return keyword_from(value->text, (Py_ssize_t)value->text_len);
    default: Py_RETURN_NONE;
    }
}

/* The UTF-8 of a str, borrowed from it; NULL with an exception. */
static const char *utf8_of(PyObject *str, Py_ssize_t *len) {
    return PyUnicode_AsUTF8AndSize(str, len);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int mgpy_to_value(PyObject *object, minigraf_value *out, PyObject **keep) {
    Py_ssize_t len;
    char text[37];
    int i, j;

    memset(out, 0, sizeof *out);
    *keep = NULL;
    if (object == Py_None) {
        out->type = MINIGRAF_TYPE_NULL;
    } else if (PyBool_Check(object)) {
        out->type = MINIGRAF_TYPE_BOOLEAN;
        out->boolean = object == Py_True;
    } else if (PyLong_Check(object)) {
        out->type = MINIGRAF_TYPE_INTEGER;
        out->integer = PyLong_AsLongLong(object);
        if (out->integer == -1 && PyErr_Occurred())
            return -1;
    } else if (PyFloat_Check(object)) {
        out->type = MINIGRAF_TYPE_FLOAT;
        out->real = PyFloat_AsDouble(object);
    } else if (PyUnicode_Check(object)) {
        out->type = PyObject_TypeCheck(object, (PyTypeObject *)mgpy.keyword) ? MINIGRAF_TYPE_KEYWORD
                                                                             : MINIGRAF_TYPE_STRING;
        out->text = utf8_of(object, &len);
        if (!out->text)
            return -1;
        out->text_len = (size_t)len;
        Py_INCREF(object);
        *keep = object;
    } else if (mgpy_uuid_text(object, text) == 0) {
        out->type = MINIGRAF_TYPE_REF;
        for (i = 0, j = 0; i < 36 && j < 16; i++) {
            if (text[i] != '-') {
                out->uuid[j++] = (unsigned char)(hex_value(text[i]) << 4 | hex_value(text[i + 1]));
                i++;
            }
        }
    } else {
        PyErr_Clear();
        mgpy_type_error("a minigraf value must be None, bool, int, float, str, Keyword or Entity",
                        object);
        return -1;
    }
    return 0;
}

static int bind_text(MiniGrafStmt *stmt, const char *name, PyObject *value, int keyword) {
    Py_ssize_t len;
    const char *text = utf8_of(value, &len);

    if (!text) {
        return -1;
    }
    if (keyword) {
        if (strlen(text) != (size_t)len) {
            PyErr_SetString(PyExc_ValueError, "embedded null character in a keyword");
            return -1;
        }
        return minigraf_stmt_bind_keyword(stmt, name, text);
    }
    return minigraf_stmt_bind_string(stmt, name, text, (size_t)len);
}

int mgpy_bind(MiniGrafStmt *stmt, const char *name, PyObject *value) {
    char text[37];
    long long n;

    if (value == Py_None) {
        return minigraf_stmt_bind_null(stmt, name);
    }
    if (PyBool_Check(value)) {
        return minigraf_stmt_bind_bool(stmt, name, value == Py_True);
    }
    if (value == mgpy.any_valid_time) {
        return minigraf_stmt_bind_any_valid_time(stmt, name);
    }
    if (PyLong_Check(value)) {
        if (PyObject_TypeCheck(value, (PyTypeObject *)mgpy.tx_count)) {
            unsigned long long count = PyLong_AsUnsignedLongLong(value);
            if (count == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            return minigraf_stmt_bind_tx_count(stmt, name, (uint64_t)count);
        }
        n = PyLong_AsLongLong(value);
        if (n == -1 && PyErr_Occurred())
            return -1;
        if (PyObject_TypeCheck(value, (PyTypeObject *)mgpy.timestamp)) {
            return minigraf_stmt_bind_timestamp_ms(stmt, name, (int64_t)n);
        }
        return minigraf_stmt_bind_int64(stmt, name, (int64_t)n);
    }
    if (PyFloat_Check(value)) {
        return minigraf_stmt_bind_double(stmt, name, PyFloat_AsDouble(value));
    }
    if (PyUnicode_Check(value)) {
        return bind_text(stmt, name, value,
                         PyObject_TypeCheck(value, (PyTypeObject *)mgpy.keyword));
    }
    if (mgpy_uuid_text(value, text) == 0) {
        /* an entity where the slot takes a value (a pattern's value, a rule
         * or expression argument) is the value Val(ref); when neither kind
         * suits every place of the slot, the Entity refusal is the error */
        int rc = minigraf_stmt_bind_entity(stmt, name, text);
        if (rc == MINIGRAF_E_API_015 && minigraf_stmt_bind_ref(stmt, name, text) == 0)
            return 0;
        return rc == MINIGRAF_E_API_015 ? minigraf_stmt_bind_entity(stmt, name, text) : rc;
    }
    PyErr_Clear();
    {
        char what[256];
        snprintf(what, sizeof what,
                 "cannot bind '%.80s': a bind value must be None, bool, int, float, str, Keyword, "
                 "Entity, uuid.UUID, TxCount, Timestamp or ANY_VALID_TIME",
                 name);
        mgpy_type_error(what, value);
    }
    return -1;
}
