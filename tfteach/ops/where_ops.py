"""Choosing elements by a boolean condition: tf.where (TF1), tf.where_v2, tf.boolean_mask.

TF1's 3-argument `tf.where(cond, x, y)` (the Select op) does NOT broadcast: x and y must
have the same shape and cond that shape too, or be a scalar, or a vector along x's first
dimension. `tf.where_v2` (SelectV2) broadcasts all three like NumPy.
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import index_kernels, select_kernels
from tfteach.ops.op_builder import apply_op, broadcast_static_shape, merge_shapes
from tfteach.ops.typed_inputs import convert_same_type, refuse_none

__all__ = ["where", "where_v2", "boolean_mask"]


# -- Where (coordinates) ---------------------------------------------------------------------------
def _where_shape(op):
    rank = op._inputs[0].shape.ndims
    return [(dtypes.int64, tensor_shape.TensorShape([None, rank]))]


register_op("Where", _where_shape, cpu=index_kernels.where_coordinates)


# -- Select, SelectV2 ------------------------------------------------------------------------------
def _select_shape(op):
    cond, x, y = op._inputs
    data = merge_shapes(x.shape, y.shape)
    dtype = x.dtype.base_dtype
    if cond.shape.ndims is None or data.ndims is None or cond.shape.ndims == 0:
        return [(dtype, data)]
    if cond.shape.ndims != 1 or data.ndims == 0:
        return [(dtype, merge_shapes(data, cond.shape))]
    merge_shapes(cond.shape, tensor_shape.TensorShape([data[0].value]))
    return [(dtype, data)]


def _select_v2_shape(op):
    cond, x, y = op._inputs
    shape = broadcast_static_shape(broadcast_static_shape(cond.shape, x.shape), y.shape)
    return [(x.dtype.base_dtype, shape)]


register_op("Select", _select_shape, cpu=select_kernels.select)
register_op("SelectV2", _select_v2_shape, cpu=select_kernels.select_v2)


def _select(op_type, condition, x, y, name):
    with name_scope(name, op_type, [condition, x, y]) as scope:
        refuse_none(condition, "condition")
        cond_t = convert_to_tensor(condition, name="condition", dtype=dtypes.bool)
        # t and e share T; t fixes it, as TF's op_def_library converts them in order.
        x_t, y_t = convert_same_type(op_type, [("t", x), ("e", y)])
        return apply_op(op_type, [cond_t, x_t, y_t], {"T": x_t.dtype.base_dtype}, scope)


def _coordinates(condition, name):
    with name_scope(name, "Where", [condition]) as scope:
        cond_t = convert_to_tensor(condition, name="condition", preferred_dtype=dtypes.bool)
        return apply_op("Where", [cond_t], {"T": cond_t.dtype.base_dtype}, scope)


def where(condition, x=None, y=None, name=None):
    """TF1 `tf.where`: coordinates of true elements ([N, rank] int64), or elementwise
    choice between same-shaped x and y (no broadcasting)."""
    if x is None and y is None:
        return _coordinates(condition, name)
    if x is not None and y is not None:
        return _select("Select", condition, x, y, name)
    raise ValueError("x and y must both be non-None or both be None.")


def where_v2(condition, x=None, y=None, name=None):
    """`tf.where` of TF2: like TF1's, but condition, x and y broadcast together."""
    if x is None and y is None:
        return _coordinates(condition, name)
    if x is not None and y is not None:
        return _select("SelectV2", condition, x, y, name)
    raise ValueError("x and y must both be non-None or both be None.")


# -- boolean_mask ---------------------------------------------------------------------------
def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (or slices along `axis`) of `tensor` where `mask` is True, flattened
    over the masked dimensions."""
    from tfteach.ops.gather_ops import gather
    from tfteach.ops.join_ops import concat
    from tfteach.ops.shape_ops import reshape, shape, size, squeeze
    with name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        axis = 0 if axis is None else axis
        shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        # TF multiplies the masked dims of tensor's shape (tf.reduce_prod); the mask has
        # exactly that many elements, so its size is the same number.
        leading_size = size(mask)
        full_shape = shape(tensor)
        tensor = reshape(tensor, concat([full_shape[:axis], [leading_size],
                                         full_shape[axis + ndims_mask:]], 0))
        first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
        tensor.set_shape(tensor_shape.TensorShape(shape_tensor[:axis]).concatenate(
            [first_dim]).concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)
