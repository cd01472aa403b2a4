"""CPU kernels that create values: Fill, ZerosLike, OnesLike, Range, LinSpace, MatrixDiag."""
import numpy as np

from tfteach.kernels.cpu.output_limits import INT64_MAX, check_shape
from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text

__all__ = ["fill", "zeros_like", "ones_like", "range_size", "range_kernel", "number_text",
           "lin_space",
           "matrix_diag", "matrix_set_diag"]


# Below this many bytes an output needs no check against the machine's memory (the
# process itself holds more): Mean's gradient fills [batch, 1] every training step.
_SMALL_OUTPUT_BYTES = 1 << 20


def fill(ctx, dims, value):
    if type(dims) is not np.ndarray:
        dims = np.asarray(dims)
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if dims.ndim != 1:
        raise invalid_argument(ctx, "dims must be a vector, got shape %s" % shape_text(dims.shape))
    if value.ndim != 0:
        raise invalid_argument(ctx, "value must be a scalar, got shape %s"
                               % shape_text(value.shape))
    shape = dims.tolist()
    count = 1
    for d in shape:                          # TensorShapeUtils::MakeShape's check
        if d < 0:
            raise invalid_argument(ctx, "Dimension %d must be >= 0" % d)
        count *= d
    dtype = value.dtype
    if dtype.kind == "O" or count * dtype.itemsize >= _SMALL_OUTPUT_BYTES:
        check_shape(ctx, shape, dtype)
        return np.full(shape, value[()], dtype=dtype)
    out = np.empty(shape, dtype)             # np.full's own steps, without its dispatch
    out.fill(value[()])
    return out


def zeros_like(ctx, x):
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


def ones_like(ctx, x):
    return np.ones_like(np.asarray(x))


def number_text(value, dtype):
    """A number as TF's StrCat prints it: the shortest of 6 (float) or 15 (double)
    significant digits that reads back the same, else 9 or 17; ints in full."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return str(int(value))
    value = dtype.type(value)
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    short, full = (6, 9) if dtype.itemsize == 4 else (15, 17)
    text = "%.*g" % (short, value)
    return text if dtype.type(text) == value else "%.*g" % (full, value)


def _count(start, limit, delta, dtype):
    """ceil(|limit - start| / |delta|), computed in the range's type as TF does."""
    if np.issubdtype(dtype, np.integer):                   # Python ints: no overflow
        return (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    with np.errstate(all="ignore"):
        steps = np.abs((dtype.type(limit) - dtype.type(start)) / dtype.type(delta))
    if not steps <= INT64_MAX:                             # also NaN (inf - inf)
        raise ValueError("Requires ((limit - start) / delta) <= %d" % INT64_MAX)
    return int(np.ceil(steps))


def range_size(start, limit, delta, integral, dtype=None):
    """The length of range(start, limit, delta) with the checks of TF's shape function
    (ValueError if invalid), for constant inputs at graph build."""
    dtype = np.dtype(dtype or (np.int64 if integral else np.float64))
    show = lambda v: number_text(v, dtype)                 # noqa: E731
    if start > limit and delta > 0:
        raise ValueError("Requires start <= limit when delta > 0: %s/%s"
                         % (show(start), show(limit)))
    if start < limit and delta < 0:
        raise ValueError("Requires start >= limit when delta < 0: %s/%s"
                         % (show(start), show(limit)))
    if delta == 0:
        raise ValueError("Requires delta != 0")
    return _count(start, limit, delta, dtype)


def _kernel_range_size(start, limit, delta, dtype):
    """The kernel's checks, in its order (a NaN fails them: TF compares, never tests)."""
    show = lambda v: number_text(v, dtype)                 # noqa: E731
    if delta == 0:
        raise ValueError("Requires delta != 0: %s" % show(delta))
    if delta > 0:
        if not start <= limit:
            raise ValueError("Requires start <= limit when delta > 0: %s/%s"
                             % (show(start), show(limit)))
    elif not start >= limit:
        raise ValueError("Requires start >= limit when delta < 0: %s/%s"
                         % (show(start), show(limit)))
    return _count(start, limit, delta, dtype)


def range_kernel(ctx, start, limit, delta):
    dtype = np.dtype(ctx.attrs["Tidx"].np)
    start, limit, delta = (np.asarray(v).item() for v in (start, limit, delta))
    try:
        size = _kernel_range_size(start, limit, delta, dtype)
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    check_shape(ctx, [size], dtype)
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
