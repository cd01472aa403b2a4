"""Numba kernels for elementwise math that NumPy cannot do in one C loop.

Each kernel is written as a plain function of scalars, exactly the formula TensorFlow's
C++ functor uses. `LazyUfunc` turns it into a NumPy ufunc with `numba.vectorize` the
first time it meets a dtype, with the explicit signature `dtype(dtype, ...)`, so float32
in gives float32 out (Numba would otherwise widen `1 + x` to float64). Nothing is
compiled at import time; compiled code is cached on disk (`cache=True`).

float16 has no Numba arithmetic: it is computed in float32 and rounded back, as TF's
Eigen does for `half`.
"""
import math

import numba
import numpy as np

__all__ = ["LazyUfunc", "sigmoid", "rsqrt", "sign", "squared_difference", "floor_div_real",
           "floor_mod_real"]


class LazyUfunc:
    """A ufunc made from `scalar_fn` on first use, one compiled signature per dtype."""

    def __init__(self, scalar_fn):
        self._scalar_fn = scalar_fn
        self._nargs = scalar_fn.__code__.co_argcount
        self._by_dtype = {}
        self.__name__ = scalar_fn.__name__.lstrip("_")

    def __call__(self, *args):
        ufunc = self._by_dtype.get(args[0].dtype)
        if ufunc is None:
            ufunc = self._by_dtype[args[0].dtype] = self._compile(args[0].dtype)
        return ufunc(*args)

    def _compile(self, dtype):
        if dtype == np.float16:
            in_float32 = self._compile(np.dtype(np.float32))
            return lambda *args: in_float32(
                *[np.asarray(a, np.float32) for a in args]).astype(np.float16)
        numba_type = numba.from_dtype(dtype)
        signature = numba_type(*[numba_type] * self._nargs)
        compiled = numba.vectorize([signature], cache=True)(self._scalar_fn)
        # Numba wraps the ufunc it built in a DUFunc, whose Python-level dispatch costs
        # ~10 us a call (a 32x128 sigmoid: 32 us instead of 22; an LSTM step makes
        # hundreds). The NumPy ufunc inside runs the same compiled loop, and releases
        # the GIL while it does. Its one loop takes this dtype; other dtypes cast to it.
        return getattr(compiled, "ufunc", compiled)

    def __repr__(self):
        return "<LazyUfunc %s, compiled for %s>" % (self.__name__, sorted(
            str(d) for d in self._by_dtype))


# -- unary -------------------------------------------------------------------------------
def _sigmoid(x):
    # 1 / (1 + e^-x), written so that e^(...) never overflows: for x < 0 use
    # e^x / (1 + e^x), which is the same number.
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _rsqrt(x):
    # 1 / sqrt(x): inf at 0 and nan below 0, as TF's Rsqrt.
    return 1 / math.sqrt(x) if x >= 0 else math.nan


def _sign(x):
    # TF 1.15's sign: -1, 0 or 1; a NaN compares false both ways, so sign(NaN) == 0.
    return (x > 0) - (x < 0)


# -- binary ------------------------------------------------------------------------------
def _squared_difference(x, y):
    d = x - y
    return d * d


def _floor_div_real(x, y):
    # TF's floor division of floats is floor(x / y), not Python's divmod-based `//`
    # (1 // 0.1 is 9.0 in Python and NumPy, floor(1 / 0.1) is 10.0 in TensorFlow).
    # (np.floor, not math.floor: math.floor returns an int, and inf / nan have none.)
    return np.floor(x / y)


def _floor_mod_real(x, y):
    # TF's FloorMod of floats: C's fmod (the sign of x), moved to the sign of y.
    r = np.fmod(x, y)
    if r != 0 and (y < 0) != (r < 0):
        return r + y
    return r


sigmoid = LazyUfunc(_sigmoid)
rsqrt = LazyUfunc(_rsqrt)
sign = LazyUfunc(_sign)
squared_difference = LazyUfunc(_squared_difference)
floor_div_real = LazyUfunc(_floor_div_real)
floor_mod_real = LazyUfunc(_floor_mod_real)
