"""CPU kernels of the ops that array gradients build: they put a gradient back where the
forward op took its values from (the reverse of a slice, a pad, a gather, a concat).

ConcatOffset, InvertPermutation, StridedSliceGrad, MirrorPadGrad, ScatterNd and
MatrixDiagPart, with TensorFlow's checks. Each returns a new array.
"""
import numpy as np

from tfteach.kernels.cpu.array_kernels import paddings_matrix
from tfteach.kernels.cpu.shape_kernels import invalid_argument, list_outputs, shape_text
from tfteach.kernels.cpu.slice_spec import SliceError, as_int_list, resolved_index

__all__ = ["concat_offset", "invert_permutation", "strided_slice_grad", "mirror_pad_grad",
           "scatter_nd", "matrix_diag_part"]


def concat_offset(ctx, concat_dim, *shapes):
    """Where each input of a concat starts in its result: 0 except along `concat_dim`."""
    shapes = [np.asarray(s) for s in shapes]
    rank = shapes[0].size
    cdim = int(concat_dim)
    axis = cdim + rank if cdim < 0 else cdim      # (a negative axis counts from the end)
    if not 0 <= axis < rank:
        raise invalid_argument(ctx, "Concat dim is out of range: %d vs. %d" % (cdim, rank))
    offsets, start = [], 0
    for i, s in enumerate(shapes):
        if s.size != rank:
            raise invalid_argument(ctx, "input %d should contain %d elements, but got %d"
                                   % (i, rank, s.size))
        for d in range(rank):
            if d != axis and s[d] != shapes[0][d]:
                raise invalid_argument(
                    ctx, "All dimensions except %d must match. Input %d has shape [%s] and "
                         "doesn't match input 0 with shape [%s]."
                    % (axis, i, " ".join(map(str, s.tolist())),
                       " ".join(map(str, shapes[0].tolist()))))
        offset = np.zeros(rank, dtype=s.dtype)
        offset[axis] = start
        start += int(s[axis])
        offsets.append(offset)
    return list_outputs(offsets)


def invert_permutation(ctx, x):
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument(ctx, "invert_permutation expects a 1D vector.")
    n = x.size
    inverse = np.full(n, -1, dtype=x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise invalid_argument(ctx, "%d is not between 0 and %d" % (d, n))
        if inverse[d] != -1:
            raise invalid_argument(ctx, "%d is duplicated in the input." % d)
        inverse[d] = i
    return inverse


def strided_slice_grad(ctx, shape, begin, end, strides, dy):
    """Zeros of the forward input's `shape`, with `dy` written where the slice read."""
    a = ctx.attrs
    masks = (a["begin_mask"], a["end_mask"], a["ellipsis_mask"], a["new_axis_mask"],
             a["shrink_axis_mask"])
    dims = tuple(as_int_list(shape))
    try:
        index, final_shape = resolved_index(
            dims, tuple(as_int_list(begin)), tuple(as_int_list(end)),
            tuple(as_int_list(strides)), masks)
    except SliceError as e:
        raise invalid_argument(ctx, str(e)) from None
    dy = np.asarray(dy)
    if dy.shape != final_shape:
        raise invalid_argument(ctx, "shape of dy was %s instead of %s"
                               % (shape_text(dy.shape), shape_text(final_shape)))
    out = np.zeros(dims, dtype=dy.dtype)
    if not index:                     # a 0-d input: the slice is the whole value
        return dy.reshape(dims).copy()
    region = out[index]               # a view (basic index): writing it writes `out`
    region[...] = dy.reshape(region.shape)
    return out


def mirror_pad_grad(ctx, grad, paddings):
    """Adds the mirrored border of `grad` back onto the values it was copied from.

    The paddings are checked against the size they leave (the forward's input), with
    TF's texts: a gradient fetched without the forward op never meets MirrorPad's own
    checks, and a padding larger than that size would fold onto indices that wrap."""
    offset = 1 if ctx.attrs["mode"] == "REFLECT" else 0   # REFLECT skips the edge value
    out = np.asarray(grad)
    for axis, (before, after) in enumerate(paddings_matrix(ctx, out, paddings)):
        if before < 0 or after < 0:
            raise invalid_argument(ctx, "Paddings must be non-negative: %d, %d"
                                   % (before, after))
        n = out.shape[axis] - before - after
        if offset and (before >= n or after >= n):
            raise invalid_argument(ctx, "paddings must be less than the output dimension "
                                        "size: %d, %d not less than %d" % (before, after, n))
        if not offset and (before > n or after > n):
            raise invalid_argument(ctx, "paddings must be no greater than the output "
                                        "dimension size: %d, %d greater than %d"
                                   % (before, after, n))
        moved = np.moveaxis(out, axis, 0)
        core = moved[before:before + n].copy()
        # padded position j < before was copied from core index before - 1 - j + offset,
        # padded position before + n + k from core index n - 1 - k - offset.
        left = before - 1 - np.arange(before) + offset
        right = n - 1 - np.arange(after) - offset
        np.add.at(core, left, moved[:before])
        np.add.at(core, right, moved[before + n:])
        out = np.moveaxis(core, 0, axis)
    return np.ascontiguousarray(out)


def scatter_nd(ctx, indices, updates, shape):
    """Zeros of `shape` plus `updates` added at the index vectors in `indices`' last axis."""
    indices, updates = np.asarray(indices), np.asarray(updates)
    dims = as_int_list(shape)
    depth = indices.shape[-1] if indices.ndim else 0
    flat_indices = indices.reshape(-1, depth)
    slice_dims = dims[depth:]
    out = np.zeros(dims, dtype=updates.dtype)
    expected = list(indices.shape[:-1]) + slice_dims
    if list(updates.shape) != expected:
        raise invalid_argument(ctx, "Must have updates.shape = indices.shape[:batch_dim] + "
                                    "params_shape[slice_dim:], got updates.shape: %s, "
                                    "indices.shape: %s, params_shape: %s"
                               % (shape_text(updates.shape), shape_text(indices.shape),
                                  shape_text(dims)))
    limits = np.array(dims[:depth], dtype=np.int64)
    bad = np.nonzero(np.any((flat_indices < 0) | (flat_indices >= limits), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(ctx, "indices[%d] = [%s] does not index into shape %s"
                               % (i, ", ".join(str(int(v)) for v in flat_indices[i]),
                                  shape_text(dims)))
    # np.add.at, not `out[idx] += u`: an index listed twice must add twice.
    np.add.at(out, tuple(flat_indices.T), updates.reshape((-1,) + tuple(slice_dims)))
    return out


def matrix_diag_part(ctx, x):
    x = np.asarray(x)
    if x.ndim < 2:
        raise invalid_argument(ctx, "input must be at least 2-dim, received shape: %s"
                               % shape_text(x.shape))
    return np.diagonal(x, axis1=-2, axis2=-1).copy()
