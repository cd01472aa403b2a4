"""A matrix's transpose as a new C-contiguous array, by OpenBLAS's `?omatcopy`.

`np.ascontiguousarray(w.T)` walks one of the two arrays across its rows. For a weight
matrix 512 columns wide that stride is 2 KiB, a power of two: every row lands in the
same few cache sets, and the copy runs at ~2 ns an element. Measured (2-core AMD EPYC,
float32): 156x512 173 us, 256x512 285 us, 512x512 589 us. OpenBLAS's out-of-place
transpose (`cblas_somatcopy`, in NumPy's own OpenBLAS, openblas.py) works in small
tiles with vector shuffles: 20, 26 and 49 us on the same matrices.

The values are the copy's: omatcopy computes `alpha * a` with alpha = 1, exact for
every float (zeros keep their sign, infinities stay, a NaN stays a NaN; only a
signalling NaN comes out quiet, which no GEMM reading the copy can tell apart). It runs
on the calling thread (no BLAS threads are woken), releasing the GIL (ctypes).

Where NumPy's BLAS is not OpenBLAS, or the matrix is not an aligned C-contiguous
float32/float64 one, or it is small (below `MIN_ELEMENTS` the ctypes call costs more
than NumPy's copy), NumPy makes the copy.
"""
import ctypes

import numpy as np

from tfteach.kernels.cpu import openblas

__all__ = ["transposed_copy", "MIN_ELEMENTS"]

_ROW_MAJOR, _TRANS = 101, 112
_FUNCTIONS = {np.dtype(np.float32): ("cblas_somatcopy", ctypes.c_float),
              np.dtype(np.float64): ("cblas_domatcopy", ctypes.c_double)}
_FOUND = {}
# Below this many elements NumPy's copy is as fast (a ctypes call costs ~3 us).
MIN_ELEMENTS = 4096


def _omatcopy(dtype):
    """cblas_?omatcopy of NumPy's OpenBLAS for `dtype` (argument types set), or None."""
    if dtype not in _FOUND:
        name, scalar = _FUNCTIONS.get(dtype, (None, None))
        pointer = ctypes.c_void_p
        _FOUND[dtype] = name and openblas.typed_function(name, lambda integer: [
            ctypes.c_int, ctypes.c_int, integer, integer, scalar, pointer, integer,
            pointer, integer])
    return _FOUND[dtype]


def transposed_copy(w):
    """np.ascontiguousarray(w.T) for a 2-D array w: the same shape, dtype and values."""
    flags = w.flags if w.__class__ is np.ndarray else None
    # Aligned elements only, as NumPy hands BLAS (a view at an odd byte offset of a
    # buffer is copied by NumPy: no BLAS kernel ever reads a misaligned float).
    if (flags is not None and w.ndim == 2 and flags.c_contiguous and flags.aligned and
            w.size >= MIN_ELEMENTS):
        omatcopy = _omatcopy(w.dtype)
        if omatcopy is not None:
            rows, cols = w.shape
            out = np.empty((cols, rows), w.dtype)
            omatcopy(_ROW_MAJOR, _TRANS, rows, cols, 1.0, w.ctypes.data, cols,
                     out.ctypes.data, rows)
            return out
    return np.ascontiguousarray(w.T)
