"""c += alpha * (a @ b), written into c by one BLAS GEMM call (beta = 1).

GEMM computes `C = alpha * A @ B + beta * C`; NumPy's `matmul` only ever asks it for
beta = 0, a new C. A gradient-descent step on a weight matrix, `w -= lr * (x.T @ dy)`,
done with NumPy makes the gradient (a new array as large as w, page faults included),
then reads it and w again to write w. With beta = 1 the update happens in the pass that
computes the product and the gradient never exists. Measured here (float32, 2 cores):
784x500 (the MNIST MLP's first layer) 0.72 -> 0.49 ms, 3136x1024 (LeNet's fc1)
6.2 -> 2.7 ms per update.

The call goes to NumPy's own OpenBLAS (openblas.py), so it uses the same threads and the
same thread count (one inside a BLAS window). Operands are read in place when BLAS can
address them (rows or columns contiguous: any transpose view), else copied once.
"""
import ctypes

import numpy as np

from tfteach.kernels.cpu import openblas

__all__ = ["can_add_product", "blas_operand", "add_product"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_SCALARS = {np.dtype(np.float32): ("cblas_sgemm", ctypes.c_float),
            np.dtype(np.float64): ("cblas_dgemm", ctypes.c_double)}
_GEMMS = {}


def _gemm(dtype):
    """cblas_?gemm of NumPy's OpenBLAS for `dtype` (argument types set), or None."""
    dtype = np.dtype(dtype)
    if dtype not in _GEMMS:
        name, scalar = _SCALARS.get(dtype, (None, None))
        pointer = ctypes.c_void_p
        _GEMMS[dtype] = name and openblas.typed_function(name, lambda integer: [
            ctypes.c_int, ctypes.c_int, ctypes.c_int, integer, integer, integer, scalar,
            pointer, integer, pointer, integer, scalar, pointer, integer])
    return _GEMMS[dtype]


def can_add_product(dtype):
    """True when add_product can run for arrays of `dtype` (float32/64, OpenBLAS found)."""
    return _gemm(dtype) is not None


def _layout(x):
    """(transpose flag, leading dimension) under which row-major BLAS reads the 2-D x in
    place, or None. A dimension of size 1 has no meaningful stride, so any passes."""
    item = x.itemsize
    rows, cols = x.shape
    s0, s1 = x.strides
    if (cols <= 1 or s1 == item) and (rows <= 1 or (s0 % item == 0 and s0 // item >= cols)):
        return _NO_TRANS, max(s0 // item if rows > 1 else cols, cols, 1)
    if (rows <= 1 or s0 == item) and (cols <= 1 or (s1 % item == 0 and s1 // item >= rows)):
        return _TRANS, max(s1 // item if cols > 1 else rows, rows, 1)
    return None


def blas_operand(x):
    """x itself when BLAS can read it in place, else a C-contiguous copy."""
    return x if _layout(x) is not None else np.ascontiguousarray(x)


def add_product(c, a, b, alpha):
    """c += alpha * (a @ b) in place: c is m x n and writeable, a is m x k, b is k x n,
    all of one dtype for which can_add_product is true; c shares no memory with a or b."""
    m, n = c.shape
    k = a.shape[1]
    if a.shape != (m, k) or b.shape != (k, n):
        raise ValueError("add_product: shapes %s += %s @ %s" % (c.shape, a.shape, b.shape))
    if m == 0 or n == 0 or k == 0:
        return
    if np.may_share_memory(c, a) or np.may_share_memory(c, b):
        raise ValueError("add_product: the output overlaps an operand")
    out = _layout(c)
    if out is None or not c.flags.writeable:
        raise ValueError("add_product: BLAS cannot write the output in place")
    if out[0] == _TRANS:                # a column-major c: c.T += alpha * b.T @ a.T
        c, a, b, m, n = c.T, b.T, a.T, n, m
        out = _layout(c)
    a, b = blas_operand(a), blas_operand(b)
    (trans_a, lda), (trans_b, ldb) = _layout(a), _layout(b)
    _gemm(c.dtype)(_ROW_MAJOR, trans_a, trans_b, m, n, k, float(alpha), a.ctypes.data, lda,
                   b.ctypes.data, ldb, 1.0, c.ctypes.data, out[1])
