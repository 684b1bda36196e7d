/*
 * module.c — the module `minigraf._native`: its function table, the value
 * classes given by the Python layer, and turning failures into exceptions.
 */
#include <string.h>

#include "mgpy.h"

mgpy_types mgpy;
PyTypeObject *mgpy_EntityType;
PyTypeObject *mgpy_CursorType;
PyTypeObject *mgpy_StatementType;

void mgpy_raise(int code, const char *message) {
    PyObject *text, *exc = NULL;

    if (message) {
        text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
    } else {
        text = Py_None;
        Py_INCREF(text);
    }
    if (text && mgpy.from_native) {
        exc = PyObject_CallFunction(mgpy.from_native, "iO", code, text);
    } else if (text) {
        PyErr_SetString(PyExc_ImportError, "minigraf._native: the package did not initialise it");
    }
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    }
    Py_XDECREF(exc);
    Py_XDECREF(text);
}

PyObject *mgpy_fail(int code, const char *message) {
    PyObject *cause = mgpy_take_callback_error(), *type, *value, *traceback;

    if (!PyErr_Occurred()) {
        mgpy_raise(code, message);
        if (cause && code == MINIGRAF_E_API_016) {
            /* the host function's own exception, with its traceback */
            PyErr_Fetch(&type, &value, &traceback);
            PyErr_NormalizeException(&type, &value, &traceback);
            if (value) {
                PyException_SetCause(value, cause); /* steals */
                cause = NULL;
            }
            PyErr_Restore(type, value, traceback);
        }
    }
    Py_XDECREF(cause);
    return NULL;
}

PyObject *mgpy_type_error(const char *what, PyObject *object) {
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(object), "__name__");

    if (name && PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "%s, not %.100U", what, name);
    } else if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s", what);
    }
    Py_XDECREF(name);
    return NULL;
}

void mgpy_free_instance(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);

    free_slot(self);
    Py_DECREF(type);
}

void *mgpy_pointer(PyObject *handle) {
    void *pointer;

    if (!PyLong_Check(handle)) {
        return mgpy_type_error("a handle must be an int", handle);
    }
    pointer = PyLong_AsVoidPtr(handle);
    if (!pointer && !PyErr_Occurred()) {
        mgpy_raise(MINIGRAF_E_API_018, "[API-018] database is closed");
    }
    return pointer;
}

static PyObject *set_types(PyObject *self, PyObject *args) {
    mgpy_types given;

    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &given.keyword, &given.tx_count, &given.timestamp,
                          &given.any_valid_time, &given.uuid, &given.from_native,
                          &given.typed_list)) {
        return NULL;
    }
    Py_INCREF(given.keyword);
    Py_INCREF(given.tx_count);
    Py_INCREF(given.timestamp);
    Py_INCREF(given.any_valid_time);
    Py_INCREF(given.uuid);
    Py_INCREF(given.from_native);
    Py_INCREF(given.typed_list);
    mgpy = given; /* once, at import: the old values (none) are not released */
    Py_RETURN_NONE;
}

static PyObject *take_callback_error(PyObject *self, PyObject *unused) {
    PyObject *exc = mgpy_take_callback_error();

    (void)self;
    (void)unused;
    if (!exc) {
        Py_RETURN_NONE;
    }
    return exc;
}

static PyMethodDef methods[] = {
    {"take_callback_error", take_callback_error, METH_NOARGS,
     "take_callback_error() -> exception or None: the last failed host function's exception\n"
     "on this thread (for API-016 errors raised through minigraf.capi)"},
    {"set_types", set_types, METH_VARARGS,
     "set_types(Keyword, TxCount, Timestamp, ANY_VALID_TIME, UUID, from_native, typed_list)"},
    {"query", (PyCFunction)(void (*)(void))mgpy_query, METH_FASTCALL,
     "query(db, text, row_factory) -> Cursor: minigraf_query without the GIL"},
    {"wrap_cursor", mgpy_wrap_cursor, METH_VARARGS,
     "wrap_cursor(cursor, row_factory) -> Cursor: takes a cursor handle opened elsewhere"},
    {"prepare", mgpy_prepare, METH_VARARGS, "prepare(db, text, row_factory) -> PreparedQuery"},
    {"register_predicate", mgpy_register_predicate, METH_VARARGS,
     "register_predicate(db, name, fn or None)"},
    {"register_aggregate", mgpy_register_aggregate, METH_VARARGS,
     "register_aggregate(db, name, init, step, finish) (all None: unregister)"},
    {"progress_new", mgpy_progress_new, METH_VARARGS,
     "progress_new(db) -> state: installs the Ctrl-C watcher on a new database"},
    {"set_progress", mgpy_set_progress, METH_VARARGS,
     "set_progress(state, db, fn or None, every_n)"},
    {"interrupt", mgpy_interrupt, METH_VARARGS, "interrupt(db): minigraf_interrupt"},
    {"bench_c", mgpy_bench_c, METH_VARARGS,
     "bench_c(db, text, runs) -> [seconds]: the C baseline of bench/bindings (thread CPU time)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_native",
    "minigraf's hand-written CPython glue",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m;

    mgpy_EntityType = (PyTypeObject *)PyType_FromSpec(&mgpy_entity_spec);
    mgpy_CursorType = (PyTypeObject *)PyType_FromSpec(&mgpy_cursor_spec);
    mgpy_StatementType = (PyTypeObject *)PyType_FromSpec(&mgpy_statement_spec);
    if (!mgpy_EntityType || !mgpy_CursorType || !mgpy_StatementType) {
        return NULL;
    }
    m = PyModule_Create(&module);
    if (!m) {
        return NULL;
    }
    /* The module's references; the globals keep theirs for the process. */
    Py_INCREF(mgpy_EntityType);
    Py_INCREF(mgpy_CursorType);
    Py_INCREF(mgpy_StatementType);
    if (PyModule_AddObject(m, "Entity", (PyObject *)mgpy_EntityType) < 0 ||
        PyModule_AddObject(m, "Cursor", (PyObject *)mgpy_CursorType) < 0 ||
        PyModule_AddObject(m, "PreparedQuery", (PyObject *)mgpy_StatementType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
