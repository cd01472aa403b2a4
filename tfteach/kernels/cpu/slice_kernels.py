"""CPU kernels of Slice and StridedSlice: a NumPy basic index, after TF's checks."""
import numpy as np

from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text
from tfteach.kernels.cpu.slice_spec import SliceError, as_int_list, resolved_index

__all__ = ["slice_kernel", "strided_slice"]


def slice_kernel(ctx, x, begin, size):
    if type(x) is np.ndarray and type(begin) is np.ndarray and type(size) is np.ndarray \
            and begin.shape == size.shape == (x.ndim,):
        # The common case (a gradient loop slices a concat's gradient apart, 6 times a
        # time step in an LSTM's): every bound in range, checked in one pass over plain
        # ints (~1 us instead of ~2.7). Anything out of range takes the path below,
        # which raises TF's error for it.
        index = []
        for b, s, dim in zip(begin.tolist(), size.tolist(), x.shape):
            if s == -1:
                s = dim - b
            if not (0 <= b <= dim and 0 <= s and b + s <= dim):
                break
            index.append(slice(b, b + s))
        else:
            return x[tuple(index)]
    x = np.asarray(x)
    begin_a, size_a = np.asarray(begin), np.asarray(size)
    if begin_a.ndim != 1 or size_a.ndim != 1 or begin_a.size != x.ndim or size_a.size != x.ndim:
        raise invalid_argument(ctx, "Expected begin and size arguments to be 1-D tensors of size "
                                    "%d, but got shapes %s and %s instead."
                               % (x.ndim, shape_text(begin_a.shape), shape_text(size_a.shape)))
    index = []
    for i, (b, s) in enumerate(zip(as_int_list(begin_a), as_int_list(size_a))):
        dim = x.shape[i]
        if s == -1:
            s = dim - b
        if dim == 0:
            if b != 0 or s != 0:
                raise invalid_argument(ctx, "Expected begin[%d] == 0 (got %d) and size[%d] == 0 "
                                            "(got %d) when input.dim_size(%d) == 0"
                                       % (i, b, i, s, i))
        else:
            if not 0 <= b <= dim:
                raise invalid_argument(ctx, "Expected begin[%d] in [0, %d], but got %d"
                                       % (i, dim, b))
            if not (0 <= s and b + s <= dim):
                raise invalid_argument(ctx, "Expected size[%d] in [0, %d], but got %d"
                                       % (i, dim - b, s))
        index.append(slice(b, b + s))
    return x[tuple(index)]


def strided_slice(ctx, x, begin, end, strides):
    x = np.asarray(x)
    begin, end, strides = np.asarray(begin), np.asarray(end), np.asarray(strides)
    if not (begin.ndim == end.ndim == strides.ndim == 1 and
            begin.size == end.size == strides.size):
        raise invalid_argument(ctx, "Expected begin, end, and strides to be 1D equal size "
                                    "tensors, but got shapes %s, %s, and %s instead."
                               % (shape_text(begin.shape), shape_text(end.shape),
                                  shape_text(strides.shape)))
    a = ctx.attrs
    masks = (a["begin_mask"], a["end_mask"], a["ellipsis_mask"], a["new_axis_mask"],
             a["shrink_axis_mask"])
    try:
        # (1-D index vectors, checked above: .tolist() gives their Python ints)
        index, final_shape = resolved_index(
            x.shape, tuple(begin.tolist()), tuple(end.tolist()), tuple(strides.tolist()),
            masks)
    except SliceError as e:
        raise invalid_argument(ctx, str(e)) from None
    # (an empty index on a 0-d array would give a bare scalar, not an array)
    return (x[index] if index else x).reshape(final_shape)
