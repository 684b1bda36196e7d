/*
 * progress.c — Ctrl-C, minigraf_interrupt and the progress handler.
 *
 * Every database gets this module's progress handler at open. It does two
 * things, without the GIL unless there is work:
 *
 *  - Ctrl-C: at import, a SIGINT handler is chained in front of Python's
 *    (which still runs: KeyboardInterrupt is raised as usual). It only
 *    sets a flag. A query running on the main thread sees the flag at its
 *    next progress call (every CHECK_EVERY units of work: well under
 *    10 ms), takes the GIL and runs PyErr_CheckSignals: the query stops
 *    (API-013) and its call raises KeyboardInterrupt instead. If a
 *    program later replaces the SIGINT handler with signal.signal, Ctrl-C
 *    is seen when the query ends.
 *  - set_progress_handler(fn, every_n): fn() is called (with the GIL)
 *    about every every_n units on the thread running the call; a true
 *    result stops it with API-013, an exception stops it and is raised.
 */
#include "mgpy.h" /* Python.h first: it sets the POSIX feature macros */

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

enum { CHECK_EVERY = 256 };

typedef struct {
    MiniGrafDb *db;
    PyObject *fn;      /* None or the user's handler; changed with the GIL */
    atomic_int has_fn; /* fn is not None (read without the GIL) */
    atomic_int every;  /* the user's every_n */
    atomic_int rate;   /* the every_n_rows installed in the library */
    atomic_long ticks; /* units since fn was last called */
} progress;

static atomic_int sigint_seen;
static unsigned long main_ident;
static struct sigaction python_sigint;
static int chained;

static void on_sigint(int sig, siginfo_t *info, void *context) {
    atomic_store(&sigint_seen, 1);
    if (python_sigint.sa_flags & SA_SIGINFO) {
        python_sigint.sa_sigaction(sig, info, context);
    } else if (python_sigint.sa_handler != SIG_DFL && python_sigint.sa_handler != SIG_IGN) {
        python_sigint.sa_handler(sig);
    }
}

/* Chains the SIGINT handler once, if Python's own handler is installed. */
static void chain_sigint(void) {
    struct sigaction ours;

    if (chained || sigaction(SIGINT, NULL, &python_sigint) != 0) {
        return;
    }
    chained = 1;
    if (!(python_sigint.sa_flags & SA_SIGINFO) &&
        (python_sigint.sa_handler == SIG_DFL || python_sigint.sa_handler == SIG_IGN)) {
        return; /* Python does not handle SIGINT here: nothing to raise */
    }
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_sigint;
    ours.sa_flags = SA_SIGINFO | (python_sigint.sa_flags & SA_ONSTACK);
    sigemptyset(&ours.sa_mask);
    sigaction(SIGINT, &ours, NULL);
}

static int call_user(progress *p) {
    PyObject *fn = p->fn, *result;
    int stop;

    Py_INCREF(fn); /* the handler may be replaced while it runs */
    result = PyObject_CallObject(fn, NULL);
    Py_DECREF(fn);
    if (!result) {
        return 1; /* the exception stays set: the call raises it */
    }
    stop = PyObject_IsTrue(result);
    Py_DECREF(result);
    return stop != 0; /* -1 (an exception) stops too */
}

static int on_progress(void *user_data) {
    progress *p = user_data;
    int on_main = PyThread_get_thread_ident() == main_ident;
    int signalled = on_main && atomic_load(&sigint_seen);
    int due = 0, stop = 0;
    PyGILState_STATE gil;

    if (atomic_load(&p->has_fn)) {
        int rate = atomic_load(&p->rate);
        due = atomic_fetch_add(&p->ticks, rate) + rate >= atomic_load(&p->every);
    }
    if (!signalled && !due) {
        return 0;
    }
    gil = PyGILState_Ensure();
    if (PyErr_Occurred()) {
        stop = 1;
    } else if (signalled) {
        atomic_store(&sigint_seen, 0);
        stop = PyErr_CheckSignals() < 0;
    }
    if (!stop && due && p->fn != Py_None) {
        atomic_store(&p->ticks, 0);
        stop = call_user(p);
    }
    PyGILState_Release(gil);
    return stop;
}

static void progress_free(PyObject *capsule) {
    progress *p = PyCapsule_GetPointer(capsule, "minigraf.progress");

    if (p) {
        Py_XDECREF(p->fn);
        free(p);
    }
}

/* progress_new(db) -> state. The state must outlive the database: the
 * Python layer drops it only after closing the database. */
PyObject *mgpy_progress_new(PyObject *self, PyObject *args) {
    PyObject *db_arg, *capsule, *threading, *main_thread, *ident;
    progress *p;
    MiniGrafDb *db;

    (void)self;
    if (!PyArg_ParseTuple(args, "O", &db_arg) || !(db = mgpy_pointer(db_arg))) {
        return NULL;
    }
    if (!main_ident) {
        threading = PyImport_ImportModule("threading");
        main_thread = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
        ident = main_thread ? PyObject_GetAttrString(main_thread, "ident") : NULL;
        main_ident = ident ? PyLong_AsUnsignedLong(ident) : 0;
        Py_XDECREF(threading);
        Py_XDECREF(main_thread);
        Py_XDECREF(ident);
        if (PyErr_Occurred()) {
            return NULL;
        }
        chain_sigint();
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        return PyErr_NoMemory();
    }
    p->db = db;
    p->fn = Py_None;
    Py_INCREF(Py_None);
    atomic_store(&p->every, CHECK_EVERY);
    atomic_store(&p->rate, CHECK_EVERY);
    capsule = PyCapsule_New(p, "minigraf.progress", progress_free);
    if (!capsule) {
        Py_DECREF(Py_None);
        free(p);
        return NULL;
    }
    if (minigraf_progress_handler(db, CHECK_EVERY, on_progress, p) != 0) {
        Py_DECREF(capsule);
        return mgpy_fail(minigraf_last_error_code(db), minigraf_last_error(db));
    }
    return capsule;
}

/* set_progress(state, fn or None, every_n) */
PyObject *mgpy_set_progress(PyObject *self, PyObject *args) {
    PyObject *capsule, *fn;
    int every, rate, rc;
    progress *p;

    (void)self;
    if (!PyArg_ParseTuple(args, "OOi", &capsule, &fn, &every)) {
        return NULL;
    }
    p = PyCapsule_GetPointer(capsule, "minigraf.progress");
    if (!p) {
        return NULL;
    }
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the progress handler must be callable or None");
        return NULL;
    }
    if (fn != Py_None && every < 1) {
        mgpy_raise(MINIGRAF_E_API_017, "[API-017] every_n must be at least 1");
        return NULL;
    }
    /* Installed again so that the engine calls at the finer of the two
     * rates (the running calls keep the old rate: same handler, same state). */
    rate = fn != Py_None && every < CHECK_EVERY ? every : CHECK_EVERY;
    rc = minigraf_progress_handler(p->db, rate, on_progress, p);
    if (rc != 0) {
        return mgpy_fail(rc, minigraf_last_error(p->db));
    }
    Py_INCREF(fn);
    MGPY_SETREF(p->fn, fn);
    atomic_store(&p->rate, rate);
    atomic_store(&p->every, fn != Py_None ? every : CHECK_EVERY);
    atomic_store(&p->ticks, 0);
    atomic_store(&p->has_fn, fn != Py_None);
    Py_RETURN_NONE;
}

PyObject *mgpy_interrupt(PyObject *self, PyObject *args) {
    PyObject *db_arg;
    MiniGrafDb *db;

    (void)self;
    if (!PyArg_ParseTuple(args, "O", &db_arg) || !(db = mgpy_pointer(db_arg))) {
        return NULL;
    }
    minigraf_interrupt(db); /* lock-free: no need to release the GIL */
    Py_RETURN_NONE;
}
