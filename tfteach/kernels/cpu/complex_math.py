"""Elementwise functions of complex numbers where NumPy's formula is not TensorFlow's.

NumPy computes most complex functions as TF's Eigen does (exp, log, sqrt, sin, tanh,
...: the same principal branches), so those kernels are the NumPy ufuncs themselves.
The functions here are the few TF defines otherwise, or NumPy lacks for complex:
- `sign(z)` is z / |z| (0 at 0), where NumPy 2 gives the same but NumPy 1 gave the sign
  of the real part;
- `rsqrt`, `expm1`, `log1p` and `sigmoid` are TF's formulas written with NumPy's
  complex exp/log/sqrt (Numba's scalar `math` module has no complex functions).
Each keeps the input's dtype: complex64 in, complex64 out. The formulas of several
steps are computed in complex128 and rounded once at the end (`_in_double`), so a
complex64 result is as close as one rounding allows.
"""
import numpy as np

__all__ = ["sign", "rsqrt", "expm1", "log1p", "sigmoid", "conj_grad"]


def sign(z):
    z = np.asarray(z)
    modulus = np.abs(z)
    safe = np.where(modulus == 0, 1, modulus).astype(z.dtype)
    return np.where(modulus == 0, z.dtype.type(0), z / safe)


def _in_double(formula):
    """`formula` computed in complex128, the result rounded to the input's dtype."""
    def kernel(z):
        z = np.asarray(z)
        return np.asarray(formula(z.astype(np.complex128, copy=False))).astype(
            z.dtype, copy=False)
    kernel.__name__ = formula.__name__
    kernel.__doc__ = formula.__doc__
    return kernel


@_in_double
def rsqrt(z):
    return 1 / np.sqrt(z)


@_in_double
def expm1(z):
    # exp(z) - 1 loses a small real part; exp(x)(cos y + i sin y) - 1 with the real part
    # written expm1(x) cos y - 2 sin^2(y / 2) keeps it.
    x, y = z.real, z.imag
    return (np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2) + 1j * (np.exp(x) * np.sin(y))


@_in_double
def log1p(z):
    return np.log(1 + z)


@_in_double
def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def conj_grad(formula):
    """The complex version of a `*Grad(y, dy)` kernel: TF multiplies dy by the
    *conjugate* of the derivative (d = formula's derivative part)."""
    def kernel(y, dy):
        return (dy * np.conj(formula(y))).astype(y.dtype, copy=False)
    kernel.__name__ = "complex_" + formula.__name__
    return kernel
