"""Elementwise math that NumPy has no single ufunc for.

`sigmoid` is a few NumPy passes (its docstring says why). Every other kernel is written
as a plain function of scalars, exactly the formula TensorFlow's C++ functor uses.
`LazyUfunc` turns it into a NumPy ufunc with `numba.vectorize` the first time it meets a
dtype, with the explicit signature `dtype(dtype, ...)`, so float32 in gives float32 out
(Numba would otherwise widen `1 + x` to float64). Nothing is compiled at import time;
compiled code is cached on disk (`cache=True`).

float16 has no Numba arithmetic: it is computed in float32 and rounded back, as TF's
Eigen does for `half`.
"""
import math

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
        import numba              # here: `import tfteach` does not import Numba (lazy_jit.py)
        numba_type = numba.from_dtype(dtype)
        signature = numba_type(*[numba_type] * self._nargs)
        compiled = numba.vectorize([signature], cache=True)(self._scalar_fn)
        # Numba wraps the ufunc it built in a DUFunc, whose Python-level dispatch costs
        # ~10 us a call (a 32x128 Numba sigmoid: 32 us instead of 22; an LSTM step makes
        # hundreds). The NumPy ufunc inside runs the same compiled loop, and releases
        # the GIL while it does. Its one loop takes this dtype; other dtypes cast to it.
        return getattr(compiled, "ufunc", compiled)

    def __repr__(self):
        return "<LazyUfunc %s, compiled for %s>" % (self.__name__, sorted(
            str(d) for d in self._by_dtype))


def sigmoid(x):
    """1 / (1 + e^-x): TF 1.15's formula (Eigen's scalar_logistic_op), in NumPy's loops.

    Not a Numba ufunc: without Intel's SVML, LLVM calls libm's exp one element at a time,
    while NumPy's float32/float64 exp has AVX-512/AVX2 loops. Four in-place passes over
    one fresh array beat one scalar pass: a 32x128 float32 sigmoid (an LSTM gate) takes
    6 us against 30 for the Numba loop. The formula also rounds as TF does at the ends:
    sigmoid(17.0) is 1.0 in float32, and for x below -88 e^-x overflows to inf and the
    result is 0 (TF flushes those tiny results to zero too). The overflow is silent in a
    session: the executor runs every step with NumPy's warnings off.
    """
    x = np.asarray(x)
    if x.dtype == np.float16:        # computed in float32 and rounded, as Eigen's half
        return sigmoid(x.astype(np.float32)).astype(np.float16)
    out = np.negative(x, out=np.empty(x.shape, x.dtype))   # x itself is never written
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


# -- unary -------------------------------------------------------------------------------
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


rsqrt = LazyUfunc(_rsqrt)
sign = LazyUfunc(_sign)
squared_difference = LazyUfunc(_squared_difference)
floor_div_real = LazyUfunc(_floor_div_real)
floor_mod_real = LazyUfunc(_floor_mod_real)
