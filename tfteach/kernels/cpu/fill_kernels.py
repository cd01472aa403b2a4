"""CPU kernels that create values: Fill, ZerosLike, OnesLike, Range, LinSpace, MatrixDiag."""
import math

import numpy as np

from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text

__all__ = ["fill", "zeros_like", "ones_like", "range_size", "range_kernel", "lin_space",
           "matrix_diag", "matrix_set_diag"]


def fill(ctx, dims, value):
    dims, value = np.asarray(dims), np.asarray(value)
    if dims.ndim != 1:
        raise invalid_argument(ctx, "dims must be a vector, got shape %s" % shape_text(dims.shape))
    if value.ndim != 0:
        raise invalid_argument(ctx, "value must be a scalar, got shape %s"
                               % shape_text(value.shape))
    if np.any(dims < 0):
        raise invalid_argument(ctx, "Fill dimensions must be >= 0")
    return np.full(dims.tolist(), value[()], dtype=value.dtype)


def zeros_like(ctx, x):
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


def ones_like(ctx, x):
    return np.ones_like(np.asarray(x))


def range_size(start, limit, delta, integral):
    """The length of range(start, limit, delta), with TF's checks (ValueError if invalid)."""
    if start > limit and delta > 0:
        raise ValueError("Requires start <= limit when delta > 0: %s/%s" % (start, limit))
    if start < limit and delta < 0:
        raise ValueError("Requires start >= limit when delta < 0: %s/%s" % (start, limit))
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if integral:
        return (abs(limit - start) + abs(delta) - 1) // abs(delta)
    return int(math.ceil(abs((limit - start) / delta)))


def range_kernel(ctx, start, limit, delta):
    dtype = ctx.attrs["Tidx"].np
    start, limit, delta = (np.asarray(v).item() for v in (start, limit, delta))
    try:
        size = range_size(start, limit, delta, np.issubdtype(dtype, np.integer))
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    # value[i] = start + i * delta, computed in the output dtype (TensorFlow's kernel; for
    # float ranges this rounds differently from adding delta step by step).
    return (np.asarray(start, dtype) + np.arange(size).astype(dtype) * np.asarray(delta, dtype)
            ).astype(dtype)


def lin_space(ctx, start, stop, num):
    dtype = np.asarray(start).dtype
    num = int(num)
    if num <= 0:
        raise invalid_argument(ctx, "Requires num > 0: %d" % num)
    start, stop = np.asarray(start, dtype)[()], np.asarray(stop, dtype)[()]
    if num == 1:
        return np.array([start], dtype=dtype)
    step = dtype.type((stop - start) / dtype.type(num - 1))
    return (start + step * np.arange(num).astype(dtype)).astype(dtype)


def matrix_diag(ctx, diagonal):
    diagonal = np.asarray(diagonal)
    n = diagonal.shape[-1]
    out = np.zeros(diagonal.shape + (n,), dtype=diagonal.dtype)
    rows = np.arange(n)
    out[..., rows, rows] = diagonal
    return out


def matrix_set_diag(ctx, x, diagonal):
    out = np.array(x, copy=True)
    n = min(out.shape[-2], out.shape[-1])
    rows = np.arange(n)
    out[..., rows, rows] = diagonal
    return out
