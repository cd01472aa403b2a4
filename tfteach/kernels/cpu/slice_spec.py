"""What a strided slice selects: TensorFlow's ValidateStridedSliceOp, in Python.

`x[1:, ..., tf.newaxis, -1]` becomes begin/end/strides vectors plus five bit masks. This
module turns them, for a given input shape, into one (begin, end, stride) per input
dimension (the "dense spec") and the output shape. It runs twice: at build time on the
static shape (unknown dims are None, begin/end may be unknown) for the static output
shape, and in the kernel on the real shape to slice the array. Errors are TF's texts.
"""
import functools

import numpy as np

__all__ = ["SliceError", "resolve_strided_slice", "dense_index", "resolved_index"]

NEW_AXIS = -1
SHRINK_AXIS = -2


class SliceError(ValueError):
    """A strided slice that cannot work; the message is TensorFlow's."""


def _bit(mask, i):
    return bool(mask & (1 << i))


def _dense_spec(rank, begin, end, strides, masks):
    """Expands the sparse spec (with `...` and new axes) to one entry per input dim."""
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    if ellipsis_mask & (ellipsis_mask - 1):
        raise SliceError("Multiple ellipses in slice spec not allowed")
    sparse_dims = len(strides)
    new_axes_after_ellipsis = 0
    seen_ellipsis = False
    for i in range(sparse_dims):
        if seen_ellipsis and _bit(new_axis_mask, i):
            new_axes_after_ellipsis += 1
        if _bit(ellipsis_mask, i):
            seen_ellipsis = True
    if not seen_ellipsis:            # an implicit `...` at the end
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1
    dense = [None] * rank            # per input dim: [begin, end, stride, bmask, emask, shrink]
    gather = []                      # per output dim: an input dim, NEW_AXIS or SHRINK_AXIS
    full = 0
    for i in range(sparse_dims):
        if _bit(ellipsis_mask, i):
            stop = min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank)
            while full < stop:
                dense[full] = [0, 0, 1, True, True, False]
                gather.append(full)
                full += 1
        elif _bit(new_axis_mask, i):
            gather.append(NEW_AXIS)
        else:
            if full == rank:
                raise SliceError("Index out of range using input dim %d; input has only %d dims"
                                 % (full, rank))
            dense[full] = [None if begin is None else int(begin[i]),
                           None if end is None else int(end[i]), int(strides[i]),
                           _bit(begin_mask, i), _bit(end_mask, i), _bit(shrink_mask, i)]
            gather.append(SHRINK_AXIS if _bit(shrink_mask, i) else full)
            full += 1
    return dense, gather


def resolve_strided_slice(shape, begin, end, strides, masks):
    """(dense, final_shape): per input dim [begin, end, stride] (None where unknown) and
    the output shape (None for unknown dims).

    `shape`: the input dims (None = unknown); `begin`/`end`: int sequences or None when
    unknown; `strides`: ints; `masks`: (begin, end, ellipsis, new_axis, shrink_axis).
    """
    dense, gather = _dense_spec(len(shape), begin, end, strides, masks)
    processing = []
    for i, (b, e, stride, b_masked, e_masked, shrink) in enumerate(dense):
        dim = shape[i]
        if stride == 0:
            raise SliceError("strides[%d] must be non-zero" % i)
        if dim is None:
            processing.append(1 if shrink else None)
            continue
        if shrink and stride <= 0:
            raise SliceError("only stride 1 allowed on non-range indexing.")
        known = b is not None and e is not None
        if known and shrink:
            b = b + dim if b < 0 else b
            e = b + 1
            if not 0 <= b < dim:
                raise SliceError("slice index %d of dimension %d out of bounds." % (b, i))
        elif known or b_masked and e_masked:
            b = _canonical(b, 0, stride, dim, b_masked)
            e = _canonical(e, 1, stride, dim, e_masked)
        dense[i][:2] = [b, e]
        if b is not None and e is not None:
            length = e - b
        elif shrink:
            length = 1
        else:
            processing.append(None)
            continue
        if length == 0 or (length < 0) != (stride < 0):
            processing.append(0)
        else:
            processing.append(_ceil_div(length, stride))
    final = [1 if g == NEW_AXIS else processing[g] for g in gather if g != SHRINK_AXIS]
    return [d[:3] for d in dense], final


def _ceil_div(length, stride):
    """How many steps of `stride` fit in an interval of `length` (same signs)."""
    q, r = divmod(abs(length), abs(stride))
    return q + (1 if r else 0)


def _canonical(x, which, stride, dim, masked):
    """TF's canonical(): a masked bound is the full range; others are clamped into it."""
    valid = (0, dim) if stride > 0 else (-1, dim - 1)
    if masked:
        return valid[which] if stride > 0 else valid[(which + 1) & 1]
    if x is None:
        return None
    x = x + dim if x < 0 else x
    return min(max(x, valid[0]), valid[1])


def dense_index(dense):
    """The NumPy basic index for resolved (begin, end, stride) triples."""
    index = []
    for b, e, stride in dense:
        if stride < 0 and b < 0:
            index.append(slice(0, 0))     # starts "before 0" going backwards: nothing
        else:
            # A reverse slice ending "before 0" is -1 in TF; Python needs None for that.
            index.append(slice(b, None if e < 0 else e, stride))
    return tuple(index)


@functools.lru_cache(maxsize=1024)
def resolved_index(shape, begin, end, strides, masks):
    """(NumPy index, output shape) of a strided slice of an array of `shape`, all
    arguments tuples of ints: what the kernels of StridedSlice and its gradient compute
    every run, kept per distinct slice. A program slices the same shapes the same way
    run after run, and resolving the spec in Python (~7 us) cost eight times the
    slicing itself. A slice that cannot work raises its SliceError each time (an error
    is not kept)."""
    dense, final_shape = resolve_strided_slice(list(shape), begin, end, strides, masks)
    return dense_index(dense), tuple(final_shape)


def as_int_list(value):
    # Through .tolist(): int() of each NumPy element cost ~0.3 us (a strided slice
    # converts three or four of these vectors a run).
    return [int(v) for v in np.asarray(value).reshape(-1).tolist()]
