"""Per-channel bias add and bias gradient as Numba row loops (`conv + b` and its gradient).

`x + b` with `b` a [C] vector and `x` [..., C] is the bias add after every convolution
and dense layer; its gradient for `b` is a Sum of the incoming gradient over all axes
but the last. NumPy runs both through its general broadcasting / reduction iterator,
which works on one row of C elements at a time; for a row of 32 or 64 floats its
per-row overhead costs more than the arithmetic. Seen as rows of the 2-D [rows, C] array,
the job is two plain loops. Measured on this VM (one thread, float32, min of 25 rounds,
A/B in one process; docs/conv.md):

    [50,28,28,32] + [32]:        np.add 0.89 ms, loop 0.41 ms
    sum over axes 0-2 of it:      np.sum 0.96 ms, loop 0.20 ms
    [50,14,14,64]:                add 0.40 -> 0.19 ms, sum 0.24 -> 0.09 ms

The sum adds the rows in order into a [C] accumulator of the array's dtype: the same
order, and so the same bits, as NumPy's reduction over these axes (and TF's float32
sums accumulate in float32 too).

One thread, even inside a BLAS window (a step with convolutions), where NumPy's add and
sum ran in two halves: waking the idle worker costs ~0.1-0.2 ms on this VM, about what a
whole loop takes (conv2's bias gradient: 0.09 ms). Measured in a window, whole vs halves:
add 0.36 vs 0.34-0.41 ms, sum 0.18 vs 0.24-0.35 ms (conv1's shape; conv2's: halves
always slower).

Only the plain case takes these loops: float32/float64 arrays of one dtype, `x`
C-contiguous, last axis at least MIN_CHANNELS wide, at least MIN_ELEMENTS elements.
Anything else (scalars, other broadcasts, other dtypes, strided views, small arrays where
calling a Numba function costs more than it saves) keeps the NumPy call.
"""
import numpy as np
from tfteach.kernels.cpu.lazy_jit import njit

__all__ = ["is_channel_rows", "is_channel_bias", "bias_operands", "add_channel_bias",
           "sums_all_but_last", "sum_all_but_last"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Below ~4K elements np.add's call (~1-2 us) is as fast as the Numba dispatch; with
# rows of 1-4 channels the inner loop is too short to beat NumPy (and for one channel
# NumPy's sum is pairwise, more precise than a running total).
MIN_ELEMENTS = 1 << 12
MIN_CHANNELS = 8


# nogil: a step running in another Python thread (a notebook's) is not held up.
@njit(cache=True, nogil=True)
def _add_rows(x, b, out):
    for r in range(x.shape[0]):
        for c in range(x.shape[1]):          # contiguous: SIMD
            out[r, c] = x[r, c] + b[c]


@njit(cache=True, nogil=True)
def _sum_rows(x, acc):
    for r in range(x.shape[0]):
        for c in range(x.shape[1]):
            acc[c] += x[r, c]


def _rows_ok(x):
    # The cheap tests first: every float add of the graph comes through here.
    return (type(x) is np.ndarray and x.ndim >= 2 and x.size >= MIN_ELEMENTS
            and x.shape[-1] >= MIN_CHANNELS and x.dtype in _FLOATS
            and x.flags.c_contiguous)


def is_channel_rows(x):
    """True when x's rows ([..., C] seen as [rows, C]) are what the loops take."""
    return _rows_ok(x)


def is_channel_bias(x, b):
    """True when x + b is a per-channel bias add the row loop computes: b is 1-D, of x's
    dtype, as long as x's last axis (then NumPy's result has x's shape and dtype)."""
    return (type(b) is np.ndarray and b.ndim == 1 and _rows_ok(x)
            and b.shape[0] == x.shape[-1] and b.dtype == x.dtype)


def bias_operands(x, y):
    """(x, b) when x + y is such a bias add, in either order (b + x too), else None.
    Scalars and equal ranks, most of a graph's adds, are turned away by the first tests."""
    if type(x) is np.ndarray and type(y) is np.ndarray and x.ndim != y.ndim:
        if y.ndim == 1 and is_channel_bias(x, y):
            return x, y
        if x.ndim == 1 and is_channel_bias(y, x):
            return y, x
    return None


def add_channel_bias(x, b):
    """x + b for is_channel_bias(x, b); a new array (the inputs are never written)."""
    out = np.empty_like(x)
    channels = b.shape[0]
    _add_rows(x.reshape(-1, channels), np.ascontiguousarray(b), out.reshape(-1, channels))
    return out


def sums_all_but_last(x, axes):
    """True when np.sum(x, axes) is the bias gradient the row loop computes."""
    return _rows_ok(x) and axes == tuple(range(x.ndim - 1))


def sum_all_but_last(x, keep_dims):
    """np.sum(x, axis=all but the last, dtype=x.dtype) for sums_all_but_last(x, axes)."""
    total = np.zeros(x.shape[-1], x.dtype)
    _sum_rows(x.reshape(-1, x.shape[-1]), total)
    return total.reshape((1,) * (x.ndim - 1) + total.shape) if keep_dims else total
