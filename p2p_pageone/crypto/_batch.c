/* Many independent secp256k1 multiplications in one call, spread over threads.
 *
 * Python calls libsecp256k1 once per multiplication and re-takes its global lock after each:
 * two Python threads multiplying hand the lock back and forth and gain nothing. This module
 * takes a list of points (libsecp256k1's 64-byte parsed form), a list of 32-byte scalars, and
 * one of libsecp256k1's own (context, point, 32-byte scalar) functions with its context (from
 * coincurve, passed as addresses): secp256k1_ec_pubkey_tweak_mul (k·P in place) or
 * secp256k1_ec_pubkey_create (k·G into the slot). It runs the whole list with the lock
 * released, cut among `threads` threads.
 * libsecp256k1 documents a context as safe to share between threads for every function that
 * takes it const, which both do. Nothing here does arithmetic of its own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#define POINT 64
#define SCALAR 32
#define MAX_THREADS 8

typedef int (*tweak_mul_fn)(const void *ctx, void *pubkey, const unsigned char *tweak32);

struct job {
    tweak_mul_fn fn;
    const void *ctx;
    unsigned char *points;
    const unsigned char *scalars;
    Py_ssize_t from, to;
    int failed;
};

static void *run_job(void *arg) {
    struct job *job = (struct job *)arg;
    for (Py_ssize_t i = job->from; i < job->to; i++) {
        if (!job->fn(job->ctx, job->points + POINT * i, job->scalars + SCALAR * i)) {
            job->failed = 1;
        }
    }
    return NULL;
}

/* mul_many(fn, ctx, points: bytearray, scalars: bytes, threads: int) -> bool
 * fn(ctx, points[i], scalars[i]) for every i; True if every call succeeded. */
static PyObject *mul_many(PyObject *self, PyObject *args) {
    unsigned long long fn, ctx;
    Py_buffer points, scalars;
    int threads;
    (void)self;
    if (!PyArg_ParseTuple(args, "KKw*y*i", &fn, &ctx, &points, &scalars, &threads)) {
        return NULL;
    }
    Py_ssize_t count = points.len / POINT;
    if (points.len % POINT || scalars.len != count * SCALAR || !fn || !ctx) {
        PyBuffer_Release(&points);
        PyBuffer_Release(&scalars);
        PyErr_SetString(PyExc_ValueError, "points are 64 bytes and scalars 32, one each");
        return NULL;
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > count) threads = count > 0 ? (int)count : 1;
    struct job jobs[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t step = (count + threads - 1) / threads;
    for (int t = 0; t < threads; t++) {
        Py_ssize_t from = step * t, to = from + step < count ? from + step : count;
        jobs[t] = (struct job){(tweak_mul_fn)(uintptr_t)fn, (const void *)(uintptr_t)ctx,
                               (unsigned char *)points.buf, (const unsigned char *)scalars.buf,
                               from, to, 0};
        if (t > 0) started[t] = pthread_create(&ids[t], NULL, run_job, &jobs[t]) == 0;
    }
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else run_job(&jobs[t]); /* no thread to be had: do its share here */
    }
    for (int t = 0; t < threads; t++) failed |= jobs[t].failed;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&points);
    PyBuffer_Release(&scalars);
    return PyBool_FromLong(!failed);
}

static PyMethodDef methods[] = {
    {"mul_many", mul_many, METH_VARARGS,
     "mul_many(fn, ctx, points, scalars, threads): multiply in place; True if all succeeded"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_batch", NULL, -1, methods};

PyMODINIT_FUNC PyInit__batch(void) { return PyModule_Create(&module); }
