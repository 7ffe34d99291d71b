/* Optional accelerator for fusion_core._write._json: one pass over orjson's output.
 *
 * float_fixups(data) returns the (start, end) byte offsets of every number
 * token that orjson prints differently from JavaScript's Number#toString:
 * integral floats ("4500.0", "-0.0"), exponents e+16..e+20 ("1e+16") and
 * exponent e-6 ("1.5e-6"). Each contains ".0" or an "e" and a sign. In
 * indented JSON a number stands only at the end of a line (before an
 * optional comma) and a string cannot hold a raw newline, so a candidate
 * whose token ends a line is a number, never the inside of a string.
 *
 * The pure-Python fallback in _json.py gives the same bytes; tests check both.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <string.h>

static int
is_number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

static int
needs_fix(const char *token, Py_ssize_t length)
{
    Py_ssize_t exponent_at = -1;
    int has_dot = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        if (token[i] == '.') {
            has_dot = 1;
        }
        else if (token[i] == 'e' || token[i] == 'E') {
            exponent_at = i;
        }
    }
    if (exponent_at < 0) {
        return has_dot && length >= 2 && token[length - 2] == '.' && token[length - 1] == '0';
    }
    Py_ssize_t i = exponent_at + 1;
    char sign = '+';
    if (i < length && (token[i] == '+' || token[i] == '-')) {
        sign = token[i];
        i++;
    }
    long exponent = 0;
    for (; i < length; i++) {
        exponent = exponent * 10 + (token[i] - '0');
        if (exponent > 1000) {
            break;
        }
    }
    if (sign == '+') {
        return exponent < 21;
    }
    return exponent == 6;
}

/* The token around a candidate at `at` (a ".0" or an "e+"/"e-" pair): its
 * span must end a line (optionally before ','), start after a non-number
 * byte, and need a fix. Appends (start, stop) to `found` and returns its
 * stop, 0 when the candidate is not such a token, -1 on error. */
static Py_ssize_t
check_candidate(const char *data, Py_ssize_t size, Py_ssize_t at, Py_ssize_t done,
                PyObject *found)
{
    if (at < done) {
        return 0;
    }
    Py_ssize_t stop = at + 2;
    while (stop < size && data[stop] >= '0' && data[stop] <= '9') {
        stop++;
    }
    Py_ssize_t after = stop;
    if (after < size && data[after] == ',') {
        after++;
    }
    if (after < size && data[after] != '\n') {
        return 0;
    }
    Py_ssize_t start = at;
    while (start > 0 && is_number_char(data[start - 1])) {
        start--;
    }
    if (start > 0 && data[start - 1] != ' ' && data[start - 1] != '\n' && data[start - 1] != '[') {
        return 0;
    }
    if (!needs_fix(data + start, stop - start)) {
        return 0;
    }
    PyObject *span = Py_BuildValue("(nn)", start, stop);
    if (span == NULL) {
        return -1;
    }
    int status = PyList_Append(found, span);
    Py_DECREF(span);
    return status < 0 ? -1 : stop;
}

static int
is_candidate(const char *data, Py_ssize_t size, Py_ssize_t at)
{
    if (at + 1 >= size) {
        return 0;
    }
    char first = data[at], second = data[at + 1];
    return (first == '.' && second == '0')
        || ((first == 'e' || first == 'E') && (second == '+' || second == '-'));
}

static PyObject *
float_fixups(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const char *data = (const char *)view.buf;
    Py_ssize_t size = view.len;
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_ssize_t done = 0;
    Py_ssize_t i = 0;
#ifdef __SSE2__
    /* Sixteen bytes at a time: candidates are a '.' followed by '0', or an
     * 'e' followed by a sign. Both are rare in typical data, so the loop
     * body almost never branches. */
    const __m128i dot = _mm_set1_epi8('.'), zero = _mm_set1_epi8('0');
    const __m128i lower_e = _mm_set1_epi8('e'), plus = _mm_set1_epi8('+');
    const __m128i minus = _mm_set1_epi8('-');
    for (; i + 17 <= size; i += 16) {
        __m128i here = _mm_loadu_si128((const __m128i *)(data + i));
        __m128i next = _mm_loadu_si128((const __m128i *)(data + i + 1));
        __m128i pairs = _mm_or_si128(
            _mm_and_si128(_mm_cmpeq_epi8(here, dot), _mm_cmpeq_epi8(next, zero)),
            _mm_and_si128(_mm_cmpeq_epi8(here, lower_e),
                          _mm_or_si128(_mm_cmpeq_epi8(next, plus), _mm_cmpeq_epi8(next, minus))));
        unsigned int mask = (unsigned int)_mm_movemask_epi8(pairs);
        while (mask) {
            Py_ssize_t at = i + __builtin_ctz(mask);
            mask &= mask - 1;
            Py_ssize_t stop = check_candidate(data, size, at, done, found);
            if (stop < 0) {
                goto error;
            }
            if (stop > 0) {
                done = stop;
            }
        }
    }
#endif
    for (; i < size; i++) {
        if (is_candidate(data, size, i)) {
            Py_ssize_t stop = check_candidate(data, size, i, done, found);
            if (stop < 0) {
                goto error;
            }
            if (stop > 0) {
                done = stop;
            }
        }
    }
    PyBuffer_Release(&view);
    return found;
error:
    Py_DECREF(found);
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef speedups_methods[] = {
    {"float_fixups", float_fixups, METH_O,
     "float_fixups(data) -> list of (start, end) spans of floats JS prints differently."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "fusion_core._write._speedups",
    "C accelerator for fusion_core._write._json (optional).", -1, speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&speedups_module);
}
