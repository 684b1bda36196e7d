/*
 * entity.c — minigraf.Entity: an entity id (a 128-bit UUID) as rows give
 * it and as binds take it. Sixteen bytes in the object, so a row's entity
 * costs one small allocation; `.uuid` is the uuid.UUID it wraps.
 */
#include <string.h>

#include "mgpy.h"

typedef struct {
    PyObject_HEAD unsigned char bytes[16];
} Entity;

static const char HEX[] = "0123456789abcdef";

static void format_uuid(const unsigned char bytes[16], char text[37]) {
    int i, out = 0;

    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            text[out++] = '-';
        }
        text[out++] = HEX[bytes[i] >> 4];
        text[out++] = HEX[bytes[i] & 15];
    }
    text[36] = '\0';
}

PyObject *mgpy_entity_from_bytes(const unsigned char bytes[16]) {
    Entity *e = PyObject_New(Entity, mgpy_EntityType);

    if (e) {
        memcpy(e->bytes, bytes, 16);
    }
    return (PyObject *)e;
}

/* The 16 bytes of a uuid.UUID (its .bytes). 0, or -1 with an exception. */
static int uuid_bytes(PyObject *uuid, unsigned char out[16]) {
    PyObject *b = PyObject_GetAttrString(uuid, "bytes");
    int rc = -1;

    if (b && PyBytes_Check(b) && PyBytes_Size(b) == 16) {
        memcpy(out, PyBytes_AsString(b), 16);
        rc = 0;
    } else if (b) {
        PyErr_SetString(PyExc_TypeError, "UUID.bytes is not 16 bytes");
    }
    Py_XDECREF(b);
    return rc;
}

int mgpy_uuid_text(PyObject *object, char text[37]) {
    unsigned char bytes[16];

    if (Py_TYPE(object) == mgpy_EntityType) {
        format_uuid(((Entity *)object)->bytes, text);
        return 0;
    }
    if (mgpy.uuid && PyObject_IsInstance(object, mgpy.uuid) == 1) {
        if (uuid_bytes(object, bytes) < 0) {
            return -1;
        }
        format_uuid(bytes, text);
        return 0;
    }
    mgpy_type_error("an entity must be minigraf.Entity or uuid.UUID", object);
    return -1;
}

/* Entity(x): x an Entity, a uuid.UUID, its text (any form uuid.UUID
 * reads) or its 16 bytes. */
static PyObject *entity_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *value, *uuid = NULL, *e;
    unsigned char bytes[16];

    if (kwargs && PyDict_Size(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "Entity() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:Entity", &value)) {
        return NULL;
    }
    if (Py_TYPE(value) == mgpy_EntityType) {
        memcpy(bytes, ((Entity *)value)->bytes, 16);
    } else if (PyBytes_Check(value) && PyBytes_Size(value) == 16) {
        memcpy(bytes, PyBytes_AsString(value), 16);
    } else if (PyUnicode_Check(value) || PyObject_IsInstance(value, mgpy.uuid) == 1) {
        uuid = PyUnicode_Check(value) ? MGPY_CALL1(mgpy.uuid, value) : (Py_INCREF(value), value);
        if (!uuid || uuid_bytes(uuid, bytes) < 0) {
            Py_XDECREF(uuid);
            return NULL;
        }
        Py_DECREF(uuid);
    } else {
        if (!PyErr_Occurred()) {
            mgpy_type_error("Entity() takes a uuid.UUID, its text or 16 bytes", value);
        }
        return NULL;
    }
    e = ((allocfunc)PyType_GetSlot(type, Py_tp_alloc))(type, 0);
    if (e) {
        memcpy(((Entity *)e)->bytes, bytes, 16);
    }
    return e;
}

static PyObject *entity_str(PyObject *self) {
    char text[37];

    format_uuid(((Entity *)self)->bytes, text);
    return PyUnicode_FromStringAndSize(text, 36);
}

static PyObject *entity_repr(PyObject *self) {
    char text[37];

    format_uuid(((Entity *)self)->bytes, text);
    return PyUnicode_FromFormat("Entity('%s')", text);
}

static PyObject *entity_int(const unsigned char b[16]) {
    unsigned long long hi = 0, lo = 0;
    PyObject *h, *l, *shift, *shifted, *sum = NULL;
    int i;

    for (i = 0; i < 8; i++) {
        hi = hi << 8 | b[i];
        lo = lo << 8 | b[i + 8];
    }
    h = PyLong_FromUnsignedLongLong(hi);
    l = PyLong_FromUnsignedLongLong(lo);
    shift = PyLong_FromLong(64);
    shifted = h && shift ? PyNumber_Lshift(h, shift) : NULL;
    if (shifted && l) {
        sum = PyNumber_Or(shifted, l);
    }
    Py_XDECREF(h);
    Py_XDECREF(l);
    Py_XDECREF(shift);
    Py_XDECREF(shifted);
    return sum;
}

/* Equal to the uuid.UUID it wraps, so the hash is the UUID's: hash(int). */
static Py_hash_t entity_hash(PyObject *self) {
    PyObject *n = entity_int(((Entity *)self)->bytes);
    Py_hash_t h;

    if (!n) {
        return -1;
    }
    h = PyObject_Hash(n);
    Py_DECREF(n);
    return h;
}

static PyObject *entity_richcompare(PyObject *self, PyObject *other, int op) {
    unsigned char theirs[16];
    int cmp;

    if (Py_TYPE(other) == mgpy_EntityType) {
        memcpy(theirs, ((Entity *)other)->bytes, 16);
    } else if (mgpy.uuid && PyObject_IsInstance(other, mgpy.uuid) == 1) {
        if (uuid_bytes(other, theirs) < 0) {
            return NULL;
        }
    } else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    cmp = memcmp(((Entity *)self)->bytes, theirs, 16);
    Py_RETURN_RICHCOMPARE(cmp, 0, op);
}

static PyObject *entity_uuid(PyObject *self, void *closure) {
    PyObject *kwargs, *args, *b, *u = NULL;

    (void)closure;
    b = PyBytes_FromStringAndSize((const char *)((Entity *)self)->bytes, 16);
    kwargs = b ? Py_BuildValue("{sO}", "bytes", b) : NULL;
    args = PyTuple_New(0);
    if (kwargs && args) {
        u = PyObject_Call(mgpy.uuid, args, kwargs);
    }
    Py_XDECREF(b);
    Py_XDECREF(kwargs);
    Py_XDECREF(args);
    return u;
}

static PyObject *entity_bytes(PyObject *self, void *closure) {
    (void)closure;
    return PyBytes_FromStringAndSize((const char *)((Entity *)self)->bytes, 16);
}

static PyObject *entity_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(self), entity_bytes(self, NULL));
}

static PyGetSetDef entity_getset[] = {
    {"uuid", entity_uuid, NULL, "The entity id as a uuid.UUID.", NULL},
    {"bytes", entity_bytes, NULL, "The 16 bytes of the UUID (RFC 4122 order).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef entity_methods[] = {
    {"__reduce__", entity_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot entity_slots[] = {
    {Py_tp_doc, "Entity(uuid) -- an entity id: rows give one for every ref value, and binds\n"
                "take one for entity slots. str() is the UUID text; .uuid the uuid.UUID.\n"
                "Equal to (and hashed as) the uuid.UUID it wraps."},
    {Py_tp_new, entity_new},
    {Py_tp_str, entity_str},
    {Py_tp_repr, entity_repr},
    {Py_tp_hash, entity_hash},
    {Py_tp_richcompare, entity_richcompare},
    {Py_tp_getset, entity_getset},
    {Py_tp_methods, entity_methods},
    {Py_tp_dealloc, mgpy_free_instance},
    {0, NULL},
};

PyType_Spec mgpy_entity_spec = {
    "minigraf.Entity", sizeof(Entity), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    entity_slots,
};
