"""CPU kernels of the reductions (Sum, Mean, Max, ...), ArgMax/ArgMin and Cumsum/Cumprod.

Every kernel is `fn(ctx, x, axis)`: `x` is the input value, `axis` the value of the
op's second input (`reduction_indices`, `dimension`, `axis`). The axis checks and their
messages are TensorFlow's runtime ones; the static ones live in the shape functions
(`ops/reduction_ops.py`).

A reduction is one NumPy call. The exclusive / reverse scans are a Numba loop, because
that is what a scan is: walk along the axis, carrying a running total.
"""
import numpy as np
from tfteach.kernels.cpu.lazy_jit import njit

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.channel_loops import sum_all_but_last, sums_all_but_last
from tfteach.kernels.cpu.two_workers import split_rows, worth_splitting

__all__ = ["reduction_axes", "reduction_kernel", "logical_kernel", "mean_kernel", "max_kernel",
           "min_kernel", "logsumexp_kernel", "count_nonzero_kernel", "argmax_kernel",
           "argmin_kernel", "cumsum_kernel", "cumprod_kernel"]


def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


# -- reductions ----------------------------------------------------------------------------
def reduction_axes(ctx, axis, ndim):
    """The axes to reduce, as a tuple of non-negative ints (TF's runtime checks).

    TF 1.15 reads the axis tensor flat (a fed [[0]] works) and ignores repeated axes.
    A constant axis (a read-only array of its own, as the plan holds constants) is
    checked once per op and rank: the answer is kept in the op's kernel state.
    """
    if type(axis) is np.ndarray and not axis.flags.writeable and axis.base is None:
        known = ctx.state.get("axes")       # (axis, ndim, axes), replaced whole
        if known is not None and known[0] is axis and known[1] == ndim:
            return known[2]
        axes = _checked_axes(ctx, axis, ndim)
        ctx.state["axes"] = (axis, ndim, axes)
        return axes
    return _checked_axes(ctx, axis, ndim)


def _checked_axes(ctx, axis, ndim):
    axes = set()
    # An ndarray (the usual constant axes): its own ravel, without np.ravel's dispatch.
    flat = axis.ravel() if isinstance(axis, np.ndarray) else np.ravel(axis)
    for a in flat.tolist():
        if not -ndim <= a < ndim:
            raise InvalidArgumentError(None, ctx.op, "Invalid reduction dimension (%d for input "
                                       "with %d dimension(s)" % (a, ndim))
        axes.add(a % ndim)
    return tuple(sorted(axes))


def reduction_kernel(numpy_reduction):
    """A kernel that applies `numpy_reduction(x, axis=, keepdims=, dtype=)` (Sum, Prod)."""
    def kernel(ctx, x, axis):
        x = np.asarray(x)
        axes = reduction_axes(ctx, axis, x.ndim)
        keep = ctx.attrs["keep_dims"]
        if not axes:        # nothing to reduce (most broadcast gradients): TF forwards x
            return x
        if numpy_reduction is np.sum and sums_all_but_last(x, axes):
            return sum_all_but_last(x, keep)    # a bias gradient: a row loop, ~4x faster
        if (numpy_reduction is np.sum and axes[:1] == (0,) and x.dtype.kind == "f"
                and worth_splitting(x.size)):
            return _sum_over_batch(x, axes, keep)
        # dtype=x.dtype: NumPy would sum int32 into int64; TF stays in the input type.
        return reduce(x, axis=axes, keepdims=keep, dtype=x.dtype)
    # np.sum of an ndarray is np.add.reduce behind a Python dispatch: call it directly.
    reduce = np.add.reduce if numpy_reduction is np.sum else numpy_reduction
    return kernel


def _sum_over_batch(x, axes, keep):
    """A float sum that includes axis 0 (a bias gradient): in a step with convolutions a
    large one is two partial sums over the two halves of the batch, then added."""
    def part(lo, hi):
        return np.sum(x[lo:hi], axis=axes, keepdims=keep, dtype=x.dtype)
    parts = split_rows(part, x.shape[0], x.size)
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]


def logical_kernel(numpy_reduction):
    """A kernel for Any / All (boolean input, boolean output)."""
    def kernel(ctx, x, axis):
        x = np.asarray(x)
        axes = reduction_axes(ctx, axis, x.ndim)
        return numpy_reduction(x, axis=axes, keepdims=ctx.attrs["keep_dims"])
    return kernel


# float32/float64 divided by a count >= 1 raise no warning (a float16 count may
# overflow, a complex inf divides into nan): Mean needs no errstate context for them.
_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def mean_kernel(ctx, x, axis):
    x = np.asarray(x)
    axes = reduction_axes(ctx, axis, x.ndim)
    keep = ctx.attrs["keep_dims"]
    count = 1
    for a in axes:
        count *= x.shape[a]
    if x.dtype.kind in "fc":        # floats and complex numbers: sum / count
        # np.add.reduce is what np.sum calls for an ndarray, without its dispatch.
        total = np.add.reduce(x, axis=axes, keepdims=keep, dtype=x.dtype)
        if count and x.dtype in _WIDE_FLOATS:   # divided by a count >= 1: no warning
            return np.asarray(total / count).astype(x.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):   # empty input: 0/0 = nan
            return np.asarray(total / count).astype(x.dtype)
    # Integers: TF sums in a wide type and truncates the quotient toward zero (C++ `/`),
    # so the mean of [-1, -2] is -1, not -2 as Python's `//` would give.
    total = np.sum(x, axis=axes, keepdims=keep, dtype=np.int64)
    if count == 0:
        return np.zeros_like(total, dtype=x.dtype)
    quotient = total // count
    quotient += (total % count != 0) & (total < 0)
    return np.asarray(quotient).astype(x.dtype)


def _extreme_kernel(numpy_reduction, empty_value):
    """Max / Min; an empty reduction gives -inf / +inf (dtype min / max for integers)."""
    def kernel(ctx, x, axis):
        x = np.asarray(x)
        axes = reduction_axes(ctx, axis, x.ndim)
        return numpy_reduction(x, axis=axes, keepdims=ctx.attrs["keep_dims"],
                               initial=empty_value(x.dtype))
    return kernel


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


max_kernel = _extreme_kernel(np.max, _lowest)
min_kernel = _extreme_kernel(np.min, _highest)


def logsumexp_kernel(ctx, x, axis):
    """log(sum(exp(x))) computed as TF does: shift by the (finite) max to avoid overflow."""
    x = np.asarray(x)
    axes = reduction_axes(ctx, axis, x.ndim)
    keep = ctx.attrs["keep_dims"]
    shift = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(shift), shift, 0).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = np.sum(np.exp(x - shift), axis=axes, keepdims=keep, dtype=x.dtype)
        result = np.log(total) + (shift if keep else np.reshape(shift, np.shape(total)))
    return np.asarray(result).astype(x.dtype)


def count_nonzero_kernel(ctx, x, axis):
    x = np.asarray(x)
    axes = reduction_axes(ctx, axis, x.ndim)
    counts = np.count_nonzero(x, axis=axes, keepdims=ctx.attrs["keep_dims"])
    return np.asarray(counts).astype(ctx.attrs["dtype"].np)


# -- ArgMax / ArgMin -----------------------------------------------------------------------
def _without_nan(x, numpy_arg):
    """TF's reducer keeps a value only if it beats the best so far (starting from the
    type's lowest / highest), so a NaN is never chosen: NumPy picks the first NaN. A NaN
    read as -inf (argmax) or +inf (argmin) gives TF's answers, all-NaN rows included."""
    if x.dtype.kind != "f" or not np.isnan(x).any():
        return x
    return np.where(np.isnan(x), -np.inf if numpy_arg is np.argmax else np.inf, x)


def _arg_kernel(numpy_arg):
    def kernel(ctx, x, dimension):
        x = np.asarray(x)
        dimension = np.asarray(dimension)
        if dimension.ndim != 0:
            raise InvalidArgumentError(None, ctx.op, "dim must be a scalar, but received tensor "
                                       "of shape: %s" % _shape_text(dimension.shape))
        axis = int(dimension)
        if not -x.ndim <= axis < x.ndim:
            raise InvalidArgumentError(None, ctx.op, "Expected dimension in the range [%d, %d), "
                                       "but got %d" % (-x.ndim, x.ndim, axis))
        axis %= x.ndim
        if x.shape[axis] == 0:
            raise InvalidArgumentError(None, ctx.op, "Reduction axis %d is empty in shape %s"
                                       % (axis, _shape_text(x.shape)))
        return np.asarray(numpy_arg(_without_nan(x, numpy_arg), axis=axis)).astype(
            ctx.attrs["output_type"].np)
    return kernel


argmax_kernel = _arg_kernel(np.argmax)
argmin_kernel = _arg_kernel(np.argmin)


# -- Cumsum / Cumprod ----------------------------------------------------------------------
@njit(cache=True)
def _scan_rows(rows, out, identity, multiply, exclusive, reverse):
    """Running sum (or product) along each row of the 2-D array `rows`, into `out`.

    identity: a 1-element array holding 0 (sum) or 1 (product) in the rows' dtype.
    exclusive: element j gets the total of the elements *before* it (the first gets the
    identity); reverse: the scan runs from the end of the row to its start.
    """
    n = rows.shape[1]
    for r in range(rows.shape[0]):
        total = identity[0]
        for k in range(n):
            j = n - 1 - k if reverse else k
            if exclusive:
                out[r, j] = total
            if multiply:
                total = total * rows[r, j]
            else:
                total = total + rows[r, j]
            if not exclusive:
                out[r, j] = total


def _scan_kernel(numpy_scan, multiply):
    def kernel(ctx, x, axis):
        x = np.asarray(x)
        axis = np.asarray(axis)
        if axis.ndim != 0:
            raise InvalidArgumentError(None, ctx.op, "ScanOp: axis must be a scalar, not %s"
                                       % _shape_text(axis.shape))
        axis = int(axis)
        if not -x.ndim <= axis < x.ndim:
            raise InvalidArgumentError(None, ctx.op, "ScanOp: Expected scan axis in the range "
                                       "[%d, %d), but got %d" % (-x.ndim, x.ndim, axis))
        exclusive, reverse = ctx.attrs["exclusive"], ctx.attrs["reverse"]
        if not (exclusive or reverse):
            return numpy_scan(x, axis=axis, dtype=x.dtype)      # the plain scan: one C loop
        if x.size == 0:
            return np.zeros_like(x)
        # Move the scanned axis last and flatten the others: the scan walks 2-D rows.
        moved = np.moveaxis(x, axis, -1)
        work_dtype = np.float32 if x.dtype == np.float16 else x.dtype   # Numba has no half
        rows = np.ascontiguousarray(moved, dtype=work_dtype).reshape(-1, moved.shape[-1])
        out = np.empty_like(rows)
        identity = np.ones(1, rows.dtype) if multiply else np.zeros(1, rows.dtype)
        _scan_rows(rows, out, identity, multiply, exclusive, reverse)
        out = out.reshape(moved.shape).astype(x.dtype, copy=False)
        return np.ascontiguousarray(np.moveaxis(out, -1, axis))
    return kernel


cumsum_kernel = _scan_kernel(np.cumsum, multiply=False)
cumprod_kernel = _scan_kernel(np.cumprod, multiply=True)
