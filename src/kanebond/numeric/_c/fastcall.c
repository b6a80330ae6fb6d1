/* kanebond: one point of a compiled right-hand side called from Python without ctypes.
   A CPython extension (built once per Python version into the model cache, see fastcall.py):
   point(fn, embedded, c, part, out, u, nx, t, x) calls the model's kb_rhs / kb_rhs_tree
   (embedded = 0) or kb_rhs_emb / kb_rhs_tree_emb (embedded = 1) at the one point (t, x),
   reading x in place (a C-contiguous buffer of nx doubles), and returns the runtime's code.
   It returns None, calling nothing, when x is not such a buffer (the caller then copies). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef int (*kb_plain)(int, const double *, const double *, const double *, double *);
typedef int (*kb_emb)(int, const double *, const double *, const double *, const int *,
                      double *, double *);

static PyObject *kbf_point(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "point() takes 9 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    const long emb = PyLong_AsLong(args[1]);
    const double *c = PyLong_AsVoidPtr(args[2]);
    const int *part = PyLong_AsVoidPtr(args[3]);
    double *out = PyLong_AsVoidPtr(args[4]), *u = PyLong_AsVoidPtr(args[5]);
    const Py_ssize_t nx = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (fn == NULL || c == NULL || out == NULL) {
        PyErr_SetString(PyExc_ValueError, "point(): a NULL pointer");
        return NULL;
    }
    const double t = PyFloat_AsDouble(args[7]);
    if (t == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[8], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
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
    if (emb) code = ((kb_emb)fn)(1, &t, (const double *)view.buf, c, part, out, u);
    else code = ((kb_plain)fn)(1, &t, (const double *)view.buf, c, out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromLong(code);
}

static PyMethodDef kbf_methods[] = {
    {"point", (PyCFunction)(void (*)(void))kbf_point, METH_FASTCALL,
     "point(fn, embedded, c, part, out, u, nx, t, x) -> code, or None if x is not read"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kbf_module = {PyModuleDef_HEAD_INIT, "kbfast", NULL, -1, kbf_methods};

PyMODINIT_FUNC PyInit_kbfast(void) { return PyModule_Create(&kbf_module); }
