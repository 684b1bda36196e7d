/*
 * host.c — predicates and aggregates written in Python, called by queries.
 *
 * Each callback takes the GIL only for itself (the query runs without it),
 * calls the Python function, and turns an exception into the callback's
 * failure: its text goes to the library, which stops the query with
 * API-016 "[API-016] predicate 'name' failed: <text>". KeyboardInterrupt
 * (any BaseException that is not an Exception) stays set and is what the
 * query's call raises. References are released by destroy / release, which
 * the library calls exactly once.
 *
 * Aggregates: init() -> acc; step(acc, value) -> acc; finish(acc) -> value.
 */
#include <string.h>

#include "mgpy.h"

typedef struct {
    PyObject *init, *step, *finish;
} aggregate;

typedef struct {
    PyObject *acc;
    PyObject *keep; /* owns the text of the last finish result */
} accumulator;

/* The exception of this thread's last failed callback, kept to become the
 * __cause__ of the API-016 error its query raises (mgpy_fail). */
static _Thread_local PyObject *last_callback_error;

PyObject *mgpy_take_callback_error(void) {
    PyObject *exc = last_callback_error;
    last_callback_error = NULL;
    return exc;
}

int mgpy_callback_failed(char *error, size_t error_size) {
    PyObject *type, *value, *traceback, *text;
    const char *utf8;
    Py_ssize_t len;

    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    text = value ? PyObject_Str(value) : NULL;
    utf8 = text ? PyUnicode_AsUTF8AndSize(text, &len) : NULL;
    if (!utf8) { /* no str(): the exception's class name */
        PyErr_Clear();
        Py_XDECREF(text);
        text = type ? PyObject_GetAttrString(type, "__name__") : NULL;
        utf8 = text && PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &len) : NULL;
        if (!utf8) {
            PyErr_Clear();
            utf8 = "error";
            len = 5;
        }
    }
    if ((size_t)len >= error_size) {
        len = (Py_ssize_t)error_size - 1;
    }
    memcpy(error, utf8, (size_t)len);
    error[len] = '\0';
    Py_XDECREF(text);
    if (type && !PyErr_GivenExceptionMatches(type, PyExc_Exception)) {
        PyErr_Restore(type, value, traceback); /* Ctrl-C: the caller raises it */
    } else {
        if (value && traceback) {
            PyException_SetTraceback(value, traceback);
        }
        MGPY_SETREF(last_callback_error, value);
        Py_XDECREF(type);
        Py_XDECREF(traceback);
    }
    return 1;
}

static void release_object(void *user_data) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF((PyObject *)user_data);
    PyGILState_Release(gil);
}

static int predicate_call(void *user_data, const minigraf_value *value, int *result, char *error,
                          size_t error_size) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *arg, *answer = NULL;
    int truth = -1, rc = 0;

    if (PyErr_Occurred()) { /* an earlier callback of this call was interrupted */
        PyGILState_Release(gil);
        return 1;
    }
    arg = mgpy_from_value(value);
    if (arg) {
        answer = MGPY_CALL1((PyObject *)user_data, arg);
        Py_DECREF(arg);
    }
    if (answer) {
        truth = PyObject_IsTrue(answer);
        Py_DECREF(answer);
    }
    if (truth < 0) {
        rc = mgpy_callback_failed(error, error_size);
    } else {
        *result = truth;
    }
    PyGILState_Release(gil);
    return rc;
}

static void aggregate_destroy(void *user_data) {
    aggregate *a = user_data;
    PyGILState_STATE gil = PyGILState_Ensure();

    Py_XDECREF(a->init);
    Py_XDECREF(a->step);
    Py_XDECREF(a->finish);
    PyGILState_Release(gil);
    free(a);
}

static int aggregate_init(void *user_data, void **acc, char *error, size_t error_size) {
    aggregate *a = user_data;
    PyGILState_STATE gil = PyGILState_Ensure();
    accumulator *box = calloc(1, sizeof *box);
    int rc = 0;

    if (!box) {
        PyErr_NoMemory();
    } else if (!PyErr_Occurred()) {
        box->acc = PyObject_CallObject(a->init, NULL);
    }
    if (!box || !box->acc) {
        free(box);
        box = NULL;
        rc = mgpy_callback_failed(error, error_size);
    }
    *acc = box;
    PyGILState_Release(gil);
    return rc;
}

static int aggregate_step(void *user_data, void *acc, const minigraf_value *value, char *error,
                          size_t error_size) {
    aggregate *a = user_data;
    accumulator *box = acc;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *arg = PyErr_Occurred() ? NULL : mgpy_from_value(value), *next = NULL;
    int rc = 0;

    if (arg) {
        next = PyObject_CallFunctionObjArgs(a->step, box->acc, arg, NULL);
        Py_DECREF(arg);
    }
    if (next) {
        MGPY_SETREF(box->acc, next);
    } else {
        rc = mgpy_callback_failed(error, error_size);
    }
    PyGILState_Release(gil);
    return rc;
}

static int aggregate_finish(void *user_data, void *acc, int64_t n, minigraf_value *result,
                            char *error, size_t error_size) {
    aggregate *a = user_data;
    accumulator *box = acc;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *value = PyErr_Occurred() ? NULL : MGPY_CALL1(a->finish, box->acc), *keep = NULL;
    int rc = 0;

    (void)n;
    if (!value || mgpy_to_value(value, result, &keep) < 0) {
        rc = mgpy_callback_failed(error, error_size);
    } else {
        MGPY_SETREF(box->keep, keep);
    }
    Py_XDECREF(value);
    PyGILState_Release(gil);
    return rc;
}

static void aggregate_release(void *user_data, void *acc) {
    accumulator *box = acc;
    PyGILState_STATE gil;

    (void)user_data;
    if (!box) {
        return;
    }
    gil = PyGILState_Ensure();
    Py_XDECREF(box->acc);
    Py_XDECREF(box->keep);
    PyGILState_Release(gil);
    free(box);
}

static PyObject *registered(MiniGrafDb *db, int rc) {
    if (rc != 0) {
        return mgpy_fail(rc, minigraf_last_error(db));
    }
    Py_RETURN_NONE;
}

PyObject *mgpy_register_predicate(PyObject *self, PyObject *args) {
    PyObject *db_arg, *fn;
    const char *name;
    MiniGrafDb *db;
    int rc;

    (void)self;
    if (!PyArg_ParseTuple(args, "OsO", &db_arg, &name, &fn)) {
        return NULL;
    }
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "a predicate must be callable (or None to unregister)");
        return NULL;
    }
    db = mgpy_pointer(db_arg);
    if (!db) {
        return NULL;
    }
    if (fn == Py_None) {
        Py_BEGIN_ALLOW_THREADS rc = minigraf_register_predicate(db, name, NULL, NULL, NULL);
        Py_END_ALLOW_THREADS
    } else {
        Py_INCREF(fn); /* the library's until destroy */
        Py_BEGIN_ALLOW_THREADS rc = minigraf_register_predicate(db, name, predicate_call, fn,
                                                                release_object);
        Py_END_ALLOW_THREADS
    }
    return registered(db, rc);
}

PyObject *mgpy_register_aggregate(PyObject *self, PyObject *args) {
    PyObject *db_arg, *init, *step, *finish;
    const char *name;
    MiniGrafDb *db;
    aggregate *a;
    int rc;

    (void)self;
    if (!PyArg_ParseTuple(args, "OsOOO", &db_arg, &name, &init, &step, &finish)) {
        return NULL;
    }
    db = mgpy_pointer(db_arg);
    if (!db) {
        return NULL;
    }
    if (init == Py_None && step == Py_None && finish == Py_None) {
        Py_BEGIN_ALLOW_THREADS rc = minigraf_register_aggregate(db, name, NULL, NULL, NULL, NULL,
                                                                NULL, NULL);
        Py_END_ALLOW_THREADS return registered(db, rc);
    }
    if (!PyCallable_Check(init) || !PyCallable_Check(step) || !PyCallable_Check(finish)) {
        PyErr_SetString(PyExc_TypeError, "init, step and finish must be callables");
        return NULL;
    }
    a = malloc(sizeof *a);
    if (!a) {
        return PyErr_NoMemory();
    }
    a->init = init;
    a->step = step;
    a->finish = finish;
    Py_INCREF(init);
    Py_INCREF(step);
    Py_INCREF(finish);
    Py_BEGIN_ALLOW_THREADS rc = minigraf_register_aggregate(
        db, name, aggregate_init, aggregate_step, aggregate_finish, aggregate_release, a,
        aggregate_destroy);
    Py_END_ALLOW_THREADS return registered(db, rc);
}
