/* kanebond: one point of a compiled right-hand side called from Python without ctypes.
   A CPython extension (built once per Python version into the model cache, see fastcall.py):
   bind(fn, work, embedded, c, part, out, u, nx, copy) holds, once per thread and model, the
   model's kb_rhs / kb_rhs_tree (embedded = 0) or kb_rhs_emb / kb_rhs_tree_emb (embedded = 1),
   the caller's work (this thread's, numeric/_c/work.py) and buffers; point(bound, t, x) calls
   it at the one point (t, x), reading x in place (a C-contiguous one-dimensional buffer of nx
   doubles), and returns a new array of the result (out's copy), or the runtime's status kind
   where it failed (the point is in the work), or None, calling nothing, when t or x cannot be
   read so (the caller then copies and checks).
   Needs: Python.h. Provides: the module kbfast. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef int (*kb_plain)(void *, int, const double *, const double *, const double *, double *);
typedef int (*kb_emb)(void *, int, const double *, const double *, const double *, const int *,
                      double *, double *);

/* what one thread's caller of one model binds once: the entry, its work, the buffers, and the
   output array's bound copy method (the result of a call is a new array) */
typedef struct {
    void *fn, *work;
    long emb;
    const double *c;
    const int *part;
    double *out, *u;
    Py_ssize_t nx;
    PyObject *copy;
} kbf_bound;

static void kbf_free(PyObject *cap) {
    kbf_bound *b = PyCapsule_GetPointer(cap, "kbfast.bound");
    if (b) {
        Py_XDECREF(b->copy);
        PyMem_Free(b);
    }
}

/* bind(fn, work, embedded, c, part, out, u, nx, copy) -> a capsule for point() */
static PyObject *kbf_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "bind() takes 9 arguments");
        return NULL;
    }
    kbf_bound b = {PyLong_AsVoidPtr(args[0]), PyLong_AsVoidPtr(args[1]), PyLong_AsLong(args[2]),
                   PyLong_AsVoidPtr(args[3]), PyLong_AsVoidPtr(args[4]),
                   PyLong_AsVoidPtr(args[5]), PyLong_AsVoidPtr(args[6]),
                   PyLong_AsSsize_t(args[7]), args[8]};
    if (PyErr_Occurred()) return NULL;
    if (b.fn == NULL || b.work == NULL || b.c == NULL || b.out == NULL || !PyCallable_Check(b.copy)) {
        PyErr_SetString(PyExc_ValueError, "bind(): a NULL pointer or no copy method");
        return NULL;
    }
    kbf_bound *h = PyMem_Malloc(sizeof *h);
    if (h == NULL) return PyErr_NoMemory();
    *h = b;
    Py_INCREF(h->copy);
    PyObject *cap = PyCapsule_New(h, "kbfast.bound", kbf_free);
    if (cap == NULL) {
        Py_DECREF(h->copy);
        PyMem_Free(h);
    }
    return cap;
}

/* point(bound, t, x) -> a new array x' (the copy of the bound output), the runtime's status
   kind (an int, not 0: the point is in the work), or None, calling nothing, where t is not a
   number or x not a C-contiguous one-dimensional buffer of nx doubles */
static PyObject *kbf_point(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "point() takes 3 arguments");
        return NULL;
    }
    const kbf_bound *b = PyCapsule_GetPointer(args[0], "kbfast.bound");
    if (b == NULL) return NULL;
    const double t = PyFloat_AsDouble(args[1]);
    if (t == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (view.ndim != 1 || view.len != b->nx * (Py_ssize_t)sizeof(double) ||
        view.itemsize != sizeof(double) || view.format == NULL || strcmp(view.format, "d") != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    int code;
    Py_BEGIN_ALLOW_THREADS
    if (b->emb)
        code = ((kb_emb)b->fn)(b->work, 1, &t, (const double *)view.buf, b->c, b->part, b->out,
                               b->u);
    else code = ((kb_plain)b->fn)(b->work, 1, &t, (const double *)view.buf, b->c, b->out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (code) return PyLong_FromLong(code);
    return PyObject_CallNoArgs(b->copy);
}

static PyMethodDef kbf_methods[] = {
    {"bind", (PyCFunction)(void (*)(void))kbf_bind, METH_FASTCALL,
     "bind(fn, work, embedded, c, part, out, u, nx, copy) -> a capsule for point()"},
    {"point", (PyCFunction)(void (*)(void))kbf_point, METH_FASTCALL,
     "point(bound, t, x) -> a new array x', a status kind (int), or None if x is not read"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kbf_module = {PyModuleDef_HEAD_INIT, "kbfast", NULL, -1, kbf_methods};

PyMODINIT_FUNC PyInit_kbfast(void) { return PyModule_Create(&kbf_module); }
