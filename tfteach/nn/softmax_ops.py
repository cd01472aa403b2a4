"""`tf.nn.softmax` and `tf.nn.log_softmax`.

softmax(x)_i = exp(x_i) / sum_j exp(x_j) along one axis (the last by default). The ops
`Softmax` and `LogSoftmax` work on the last axis only; for another axis TensorFlow
swaps it with the last one (`Transpose`), applies the op and swaps back, and so does
tfteach (same ops, same names). TF1's old argument name `dim` still works.

The kernels subtract each row's maximum first (softmax(x) = softmax(x - max x)), so a
logit of 1000 gives 1.0, not inf / inf = nan: see docs/losses.md.
"""
from tfteach.framework import convert, errors
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import nn_kernels
from tfteach.ops import op_builder
from tfteach.ops.fill_ops import range as range_op
from tfteach.ops.join_ops import concat
from tfteach.ops.layout_ops import transpose
from tfteach.ops.op_builder import ShapeError, apply_op, deprecated_argument_lookup
from tfteach.ops.shape_ops import rank
from tfteach.ops.binary_ops import subtract
from tfteach.nn.nn_dtypes import FLOATS, check_dtype

__all__ = ["softmax", "log_softmax"]


def _softmax_shape(op):
    x = op._inputs[0]
    if x.shape.ndims is not None and x.shape.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank %d" % x.shape.ndims)
    return [(x.dtype.base_dtype, x.shape)]


register_op("Softmax", _softmax_shape, cpu=nn_kernels.softmax)
register_op("LogSoftmax", _softmax_shape, cpu=nn_kernels.log_softmax)


def _compute(op_type, logits, name):
    check_dtype(logits.dtype, FLOATS, "logits")
    return apply_op(op_type, [logits], {"T": logits.dtype.base_dtype}, name or op_type)


def _swap_axis(x, dim_index, last_index, name=None):
    """`x` with axes dim_index and last_index exchanged (TF's `_swap_axis`)."""
    perm = concat([range_op(dim_index), [last_index], range_op(dim_index + 1, last_index),
                   [dim_index]], 0)
    return transpose(x, perm, name=name)


def _wrap_2d_function(logits, op_type, dim, name):
    """Applies the last-axis op `op_type` along axis `dim` (TF 1.15's `_softmax`)."""
    logits = convert.convert_to_tensor(logits)
    shape = logits.shape
    ndims = shape.ndims
    is_last_dim = (isinstance(dim, int) and dim == -1) or (
        ndims is not None and not isinstance(dim, Tensor) and dim == ndims - 1)
    if is_last_dim:
        return _compute(op_type, logits, name)
    if ndims is None:
        raise ValueError("softmax along axis %s needs an input of known rank" % (dim,))
    dim_val = op_builder.constant_value(dim) if isinstance(dim, Tensor) else dim
    if dim_val is not None and not -ndims <= int(dim_val) < ndims:
        raise errors.InvalidArgumentError(
            None, None, "Dimension (%d) must be in the range [%d, %d) where %d is the number "
            "of dimensions in the input." % (dim_val, -ndims, ndims, ndims))
    # As TF: a negative axis becomes axis + rank; then swap it with the last axis.
    input_ndims = rank(logits)
    if not isinstance(dim, Tensor):
        if dim < 0:
            dim += input_ndims
    else:
        from tfteach.ops.comparison_ops import less
        from tfteach.ops.where_ops import where
        dim = where(less(dim, 0), dim + input_ndims, dim)
    input_rank = rank(logits)
    dim_axis = dim % ndims
    swapped = _swap_axis(logits, dim_axis, subtract(input_rank, 1))
    output = _compute(op_type, swapped, None)
    output = _swap_axis(output, dim_axis, subtract(input_rank, 1), name=name)
    output.set_shape(shape)
    return output


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / reduce_sum(exp(logits), axis) (`Softmax`), computed stably."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        axis = -1
    return _wrap_2d_function(logits, "Softmax", axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(reduce_sum(exp(logits), axis)) (`LogSoftmax`), computed stably."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        axis = -1
    return _wrap_2d_function(logits, "LogSoftmax", axis, name)
