"""CPU kernels that move or copy array memory: concat, stack, split, transpose, tile, pad.

NumPy already does each of these in one C call, so the kernels are NumPy calls plus
TensorFlow's runtime checks and error texts (the static checks ran at build time; these
catch what only the fed values reveal).
"""
import numpy as np

from tfteach.kernels.cpu import row_appends
from tfteach.kernels.cpu.output_limits import check_shape
from tfteach.kernels.cpu.shape_kernels import invalid_argument, list_outputs, shape_text

__all__ = ["concat", "pack", "unpack", "split", "split_v", "transpose", "reverse", "tile",
           "paddings_matrix", "pad", "mirror_pad"]


def concat(ctx, *args):
    values = [np.asarray(v) for v in args[:-1]]
    axis = int(args[-1])
    rank = values[0].ndim
    if not -rank <= axis < rank:
        raise invalid_argument(ctx, "ConcatOp : Expected concatenating dimensions in the range "
                                    "[%d, %d), but got %d" % (-rank, rank, axis))
    axis %= rank
    first = values[0]
    for i, v in enumerate(values[1:], start=1):
        if v.ndim != rank:
            raise invalid_argument(ctx, "ConcatOp : Ranks of all input tensors should match: "
                                        "shape[0] = %s vs. shape[%d] = %s"
                                   % (shape_text(first.shape), i, shape_text(v.shape)))
        for d in range(rank):
            if d != axis and v.shape[d] != first.shape[d]:
                raise invalid_argument(ctx, "ConcatOp : Dimensions of inputs should match: "
                                            "shape[0] = %s vs. shape[%d] = %s"
                                       % (shape_text(first.shape), i, shape_text(v.shape)))
    if axis == 0 and len(values) == 2 and first.dtype == values[1].dtype and _in_loop(ctx):
        return row_appends.append_rows(first, values[1])   # rows appended in a loop
    return np.concatenate(values, axis=axis)


def _in_loop(ctx):
    # Once per op and session: is this concat in a while loop's body (row_appends.py)?
    state = getattr(ctx, "state", None)
    if state is None:
        return False
    found = state.get("in_loop")
    if found is None:
        op = getattr(ctx, "op", None)
        found = state["in_loop"] = op is not None and row_appends.in_loop(op)
    return found


def pack(ctx, *args):
    values = [np.asarray(v) for v in args]
    for i, v in enumerate(values[1:], start=1):
        if v.shape != values[0].shape:
            raise invalid_argument(ctx, "Shapes of all inputs must match: values[0].shape = %s "
                                        "!= values[%d].shape = %s"
                                   % (shape_text(values[0].shape), i, shape_text(v.shape)))
    return np.stack(values, axis=ctx.attrs["axis"])


def unpack(ctx, x):
    x = np.asarray(x)
    num, axis = ctx.attrs["num"], ctx.attrs["axis"]
    if not -x.ndim <= axis < x.ndim:
        raise invalid_argument(ctx, "axis = %d not in [%d, %d)" % (axis, -x.ndim, x.ndim))
    axis %= x.ndim
    if x.shape[axis] != num:
        raise invalid_argument(ctx, "Input shape axis %d must equal %d, got shape %s"
                               % (axis, num, shape_text(x.shape)))
    # Each output a view of x (a basic index, as Slice's and Split's outputs are), not a
    # copy: np.take copied each (~1.3 us apiece, 39 us for the 28 rows of an MNIST image
    # a static RNN unstacks every step); no kernel writes into its inputs.
    lead = (slice(None),) * axis
    return list_outputs(x[lead + (i,)] for i in range(num))


def _split_axis(ctx, x, axis):
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise invalid_argument(ctx, "-input rank(-%d) <= split_dim < input rank (%d), but got %d"
                               % (x.ndim, x.ndim, axis))
    return axis % x.ndim


def split(ctx, axis, x):
    x = np.asarray(x)
    axis = _split_axis(ctx, x, axis)
    num = ctx.attrs["num_split"]
    if x.shape[axis] % num:
        raise invalid_argument(ctx, "Number of ways to split should evenly divide the split "
                                    "dimension, but got split_dim %d (size = %d) and num_split "
                                    "%d" % (axis, x.shape[axis], num))
    return _pieces(x, axis, [x.shape[axis] // num] * num)


def split_v(ctx, x, size_splits, axis):
    x = np.asarray(x)
    axis = _split_axis(ctx, x, axis)
    sizes = [int(s) for s in np.asarray(size_splits).reshape(-1)]
    whole = x.shape[axis]
    if len(sizes) == 1 and sizes[0] == -1:
        sizes = [whole]
    if sizes.count(-1) > 1:
        raise invalid_argument(ctx, "There can only be one -1 in the input.")
    for i, s in enumerate(sizes):
        if s < -1:
            raise invalid_argument(ctx, "Split size at index %d must be >= 0. Got: %d" % (i, s))
    known = sum(s for s in sizes if s != -1)
    if (-1 not in sizes and known != whole) or known > whole:
        raise invalid_argument(ctx, "Determined shape must either match input shape along "
                                    "split_dim exactly if fully specified, or be less than the "
                                    "size of the input along split_dim if not fully specified."
                                    "  Got: %d" % known)
    sizes = [whole - known if s == -1 else s for s in sizes]
    return _pieces(x, axis, sizes)


def _pieces(x, axis, sizes):
    """Views of x cut along `axis` into pieces of these sizes (they add up to its length).

    Plain slicing: np.split does the same through array_split's general machinery, 14 us
    against 3 for an LSTM's four gates (a 32x512 array cut in four, twice a time step)."""
    index = [slice(None)] * x.ndim
    pieces, start = [], 0
    for size in sizes:
        index[axis] = slice(start, start + size)
        pieces.append(x[tuple(index)])
        start += size
    return list_outputs(pieces)


def transpose(ctx, x, perm):
    x = np.asarray(x)
    perm = np.asarray(perm)
    if perm.ndim != 1:
        raise invalid_argument(ctx, "perm must be a vector, not %s" % shape_text(perm.shape))
    if perm.size != x.ndim:
        raise invalid_argument(ctx, "transpose expects a vector of size %d. But input(1) is a "
                                    "vector of size %d" % (x.ndim, perm.size))
    # As Python ints: each test on a NumPy element (`i in perm` compares the whole
    # array) cost ~1 us; dynamic_rnn transposes three times a step (~44 -> ~5 us each
    # there, ~7 -> ~0.7 us in a timeit loop).
    axes = perm.tolist()
    for d in axes:
        if not 0 <= d < x.ndim:
            raise invalid_argument(ctx, "%d is out of range [0 .. %d)" % (d, x.ndim))
    for i in range(x.ndim):
        if i not in axes:
            raise invalid_argument(ctx, "%d is missing from {%s}." % (
                i, ",".join(str(p) for p in axes)))
    return x.transpose(axes)                  # the view np.transpose(x, perm) returns


def reverse(ctx, x, axis):
    x = np.asarray(x)
    seen = set()
    for i, a in enumerate(np.asarray(axis).reshape(-1)):
        canonical = a + x.ndim if a < 0 else a
        if not 0 <= canonical < x.ndim:
            raise invalid_argument(ctx, "'axis'[%d] = %d is out of valid range [0, %d"
                                   % (i, a, x.ndim - 1))
        if canonical in seen:
            raise invalid_argument(ctx, "axis %d specified more than once." % canonical)
        seen.add(int(canonical))
    return np.flip(x, axis=tuple(sorted(seen))) if seen else x


def tile(ctx, x, multiples):
    x = np.asarray(x)
    multiples = np.asarray(multiples).reshape(-1)
    if multiples.size != x.ndim:
        raise invalid_argument(ctx, "Expected multiples argument to be a vector of length %d "
                                    "but got length %d" % (x.ndim, multiples.size))
    for i, m in enumerate(multiples):
        if m < 0:
            raise invalid_argument(ctx, "Expected multiples[%d] >= 0, but got %d" % (i, m))
    check_shape(ctx, [d * int(m) for d, m in zip(x.shape, multiples)], x.dtype)
    return np.tile(x, multiples) if x.ndim else x


def paddings_matrix(ctx, x, paddings):
    """`paddings` as [(before, after), ...], after TF's checks of its shape: a matrix
    with 2 columns and one row per dimension of x (Pad, MirrorPad and MirrorPadGrad)."""
    paddings = np.asarray(paddings)
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise invalid_argument(ctx, "paddings must be a matrix with 2 columns: %s"
                               % shape_text(paddings.shape))
    if paddings.shape[0] != x.ndim:
        raise invalid_argument(ctx, "The first dimension of paddings must be the rank of "
                                    "inputs%s %s" % (shape_text(paddings.shape),
                                                     shape_text(x.shape)))
    return [(int(b), int(a)) for b, a in paddings]


def _check_paddings(ctx, x, paddings):
    widths = paddings_matrix(ctx, x, paddings)
    for before, after in widths:
        if before < 0 or after < 0:
            raise invalid_argument(ctx, "Paddings must be non-negative: %d %d" % (before, after))
    check_shape(ctx, [d + b + a for d, (b, a) in zip(x.shape, widths)], x.dtype)
    return widths


def pad(ctx, x, paddings, constant_values=None):
    x = np.asarray(x)
    widths = _check_paddings(ctx, x, paddings)
    if constant_values is None:
        constant_values = b"" if x.dtype == object else 0
    if x.dtype == object:
        # np.pad cannot fill object arrays with a constant: build the result directly.
        out = np.full([d + b + a for d, (b, a) in zip(x.shape, widths)], constant_values,
                      dtype=object)
        out[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, widths))] = x
        return out
    return np.pad(x, widths, mode="constant", constant_values=np.asarray(constant_values))


def mirror_pad(ctx, x, paddings):
    x = np.asarray(x)
    widths = _check_paddings(ctx, x, paddings)
    mode = ctx.attrs["mode"]
    for d, (before, after) in zip(x.shape, widths):
        if mode == "REFLECT" and (before >= d or after >= d):
            raise invalid_argument(ctx, "paddings must be less than the dimension size: %d, %d "
                                        "not less than %d" % (before, after, d))
        if mode == "SYMMETRIC" and (before > d or after > d):
            raise invalid_argument(ctx, "paddings must be no greater than the dimension size: "
                                        "%d, %d greater than %d" % (before, after, d))
    return np.pad(x, widths, mode="reflect" if mode == "REFLECT" else "symmetric")
