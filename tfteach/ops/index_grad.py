"""Gradients of the ops that pick elements by position: slices, gathers, segment sums.

The idea of all of them (TF 1.15's formulas): an element that was picked gets the
gradient of the place it went to; an element that was not picked gets zero; an element
picked several times gets the sum. So the gradient of a slice is a zero-padded tensor,
of a gather a scatter-add (unsorted_segment_sum), of a scatter a gather.

TensorFlow returns the gradient of a gather along axis 0 as IndexedSlices (only the
gathered rows); tfteach has no IndexedSlices and returns the dense tensor TF would make
of it (`_IndexedSlicesToTensor`: the same unsorted_segment_sum).
"""
from tfteach.framework import dtypes
from tfteach.framework.registry import gradient
from tfteach.ops import array_grad_ops as grad_ops
from tfteach.ops import binary_ops, comparison_ops
from tfteach.ops.fill_ops import ones_like, range as range_op, zeros_like
from tfteach.ops.gather_ops import gather, gather_nd, unsorted_segment_sum
from tfteach.ops.join_ops import concat, stack
from tfteach.ops.layout_ops import pad, transpose
from tfteach.ops.op_builder import constant_value
from tfteach.ops.shape_ops import expand_dims, rank, reshape, shape, size
from tfteach.ops.slicing import strided_slice
from tfteach.ops.where_ops import where

__all__ = []

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


# -- Slice, StridedSlice ---------------------------------------------------------------------
@gradient("Slice")
def _slice_grad(op, grad):
    """Pad `grad` with zeros: `begin` before it, the rest of the input after it."""
    x, begin = op.inputs[0], op.inputs[1]
    index_type = begin.dtype.base_dtype
    input_rank = rank(x)
    slice_size = shape(op.outputs[0], out_type=index_type)
    pad_shape = stack([input_rank, 1])
    before_pad = reshape(begin, pad_shape)
    after_pad = reshape(shape(x, out_type=index_type) - slice_size - begin, pad_shape)
    paddings = concat([before_pad, after_pad], 1)
    return [pad(grad, paddings), None, None]


@gradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """Zeros of the input's shape, with `grad` written where the slice read (all masks)."""
    begin, end, strides = op.inputs[1:]
    input_shape = shape(op.inputs[0], out_type=begin.dtype.base_dtype)
    masks = {m: op.get_attr(m) for m in _MASKS}
    return [grad_ops.strided_slice_grad(input_shape, begin, end, strides, grad, **masks),
            None, None, None]


@gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    begin, end, strides = op.inputs[1:4]
    masks = {m: op.get_attr(m) for m in _MASKS}
    return [None, None, None, None, strided_slice(grad, begin, end, strides, **masks)]


# -- GatherV2, GatherNd, ScatterNd ----------------------------------------------------------------
@gradient("GatherV2")
def _gather_v2_grad(op, grad):
    """Add each gathered slice's gradient into the row it came from."""
    params, indices, axis = op.inputs
    params_shape = shape(params)
    indices_size = expand_dims(size(indices), 0)
    axis_static = constant_value(axis)
    flat_indices = reshape(indices, indices_size)
    if axis_static is not None and int(axis_static) == 0:
        # TF: IndexedSlices(values, indices, params_shape); here densified as TF does.
        values = reshape(grad, concat([indices_size, params_shape[1:]], 0))
        return [unsorted_segment_sum(values, flat_indices, params_shape[0]), None, None]

    outer_shape = params_shape[:axis]
    outer_dims = size(outer_shape)
    inner_shape = params_shape[axis:][1:]
    inner_dims = size(inner_shape)
    outer_axes_indices = range_op(outer_dims)
    inner_axes_indices = range_op(outer_dims + 1, outer_dims + 1 + inner_dims)
    values = reshape(grad, concat([outer_shape, indices_size, inner_shape], 0))
    # unsorted_segment_sum works on axis 0: move the gathered axis there and back.
    transpose_dims = concat([[outer_dims], outer_axes_indices, inner_axes_indices], 0)
    params_grad = unsorted_segment_sum(transpose(values, transpose_dims), flat_indices,
                                       params_shape[axis])
    invert_transpose_dims = concat([outer_axes_indices + 1, [0], inner_axes_indices], 0)
    return [transpose(params_grad, invert_transpose_dims), None, None]


@gradient("GatherNd")
def _gather_nd_grad(op, grad):
    params, indices = op.inputs
    params_shape = shape(params, out_type=indices.dtype.base_dtype)
    return [grad_ops.scatter_nd(indices, grad, params_shape), None]


@gradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    return [None, gather_nd(grad, op.inputs[0]), None]


# -- UnsortedSegmentSum ---------------------------------------------------------------------------
def _gather_drop_negatives(params, ids):
    """params[ids], with zeros where an id is negative (those rows were dropped)."""
    zero_clipped_indices = binary_ops.maximum(ids, zeros_like(ids))
    gathered = gather(params, zero_clipped_indices)
    is_positive = comparison_ops.greater_equal(ids, 0)
    # Select needs the condition in the gathered values' shape: add trailing axes.
    if gathered.shape.ndims is not None and is_positive.shape.ndims is not None:
        for _ in range(gathered.shape.ndims - is_positive.shape.ndims):
            is_positive = expand_dims(is_positive, -1)
    else:
        trailing = ones_like(shape(gathered)[rank(ids):])
        is_positive = reshape(is_positive, concat([shape(ids), trailing], 0))
    is_positive = comparison_ops.logical_and(is_positive,
                                             ones_like(gathered, dtype=dtypes.bool))
    return where(is_positive, gathered, zeros_like(gathered))


@gradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    """Each data row gets the gradient of the segment it was added to."""
    return [_gather_drop_negatives(grad, op.inputs[1]), None, None]
