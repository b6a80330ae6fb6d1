/* kanebond: one point of a compiled right-hand side called from Python without ctypes.
   A CPython extension (built once per Python version into the model cache, see fastcall.py):
   point(fn, work, embedded, c, part, out, u, nx, t, x) calls the model's kb_rhs / kb_rhs_tree
   (embedded = 0) or kb_rhs_emb / kb_rhs_tree_emb (embedded = 1) on the caller's work (this
   thread's, numeric/_c/work.py) at the one point (t, x), reading x in place (a C-contiguous
   buffer of nx doubles), and returns the runtime's status kind (the point is in the work).
   It returns None, calling nothing, when x is not such a buffer (the caller then copies).
   Needs: Python.h. Provides: the module kbfast. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef int (*kb_plain)(void *, int, const double *, const double *, const double *, double *);
typedef int (*kb_emb)(void *, int, const double *, const double *, const double *, const int *,
                      double *, double *);

static PyObject *kbf_point(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "point() takes 10 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]), *work = PyLong_AsVoidPtr(args[1]);
    const long emb = PyLong_AsLong(args[2]);
    const double *c = PyLong_AsVoidPtr(args[3]);
    const int *part = PyLong_AsVoidPtr(args[4]);
    double *out = PyLong_AsVoidPtr(args[5]), *u = PyLong_AsVoidPtr(args[6]);
    const Py_ssize_t nx = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred()) return NULL;
    if (fn == NULL || work == NULL || c == NULL || out == NULL) {
        PyErr_SetString(PyExc_ValueError, "point(): a NULL pointer");
        return NULL;
    }
    const double t = PyFloat_AsDouble(args[8]);
    if (t == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[9], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (view.len != nx * (Py_ssize_t)sizeof(double) || view.itemsize != sizeof(double) ||
        view.format == NULL || strcmp(view.format, "d") != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    int code;
    Py_BEGIN_ALLOW_THREADS
    if (emb) code = ((kb_emb)fn)(work, 1, &t, (const double *)view.buf, c, part, out, u);
    else code = ((kb_plain)fn)(work, 1, &t, (const double *)view.buf, c, out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromLong(code);
}

static PyMethodDef kbf_methods[] = {
    {"point", (PyCFunction)(void (*)(void))kbf_point, METH_FASTCALL,
     "point(fn, work, embedded, c, part, out, u, nx, t, x) -> status kind, or None if x is "
     "not read"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kbf_module = {PyModuleDef_HEAD_INIT, "kbfast", NULL, -1, kbf_methods};

PyMODINIT_FUNC PyInit_kbfast(void) { return PyModule_Create(&kbf_module); }
