"""Ops about a tensor's shape: tf.shape, size, rank, reshape, expand_dims, squeeze.

As in TF 1.x, `tf.shape`/`tf.size`/`tf.rank` of a tensor whose static shape is fully known
become constants, and a reshape to a shape known at build time gets a static shape
(`[-1, 4]` infers the `-1` when it can).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor, holds_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import shape_kernels
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.constant_op import constant
from tfteach.ops.list_inputs import convert_list_input, index_dtype_of
from tfteach.ops.op_builder import (ShapeError, apply_op,
                                     deprecated_argument_lookup)
from tfteach.ops.shape_utils import partial_shape_from_tensor, shape_error
from tfteach.ops.typed_inputs import refuse_none

__all__ = ["shape", "shape_n", "size", "rank", "reshape", "expand_dims", "squeeze"]


def _check_out_type(out_type):
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise TypeError("Value passed to parameter 'out_type' has DataType %s not in list of "
                        "allowed values: int32, int64" % out_type.name)
    return out_type


# -- Shape, ShapeN, Size, Rank -----------------------------------------------------------------
def _shape_shape(op):
    rank = op._inputs[0].shape.ndims
    return [(op._attrs["out_type"], tensor_shape.TensorShape([rank]))]


def _shape_n_shape(op):
    return [(op._attrs["out_type"], tensor_shape.TensorShape([t.shape.ndims]))
            for t in op._inputs]


def _scalar_shape(out_type_key):
    return lambda op: [(op._attrs.get(out_type_key, dtypes.int32), tensor_shape.scalar())]


register_op("Shape", _shape_shape, cpu=shape_kernels.shape)
register_op("ShapeN", _shape_n_shape, cpu=shape_kernels.shape_n)
register_op("Size", _scalar_shape("out_type"), cpu=shape_kernels.size)
register_op("Rank", _scalar_shape(None), cpu=shape_kernels.rank)


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's argument names
    """The shape of `input` as a 1-D tensor; a constant when the static shape is known."""
    out_type = _check_out_type(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant(x.shape.as_list(), out_type, name=scope)
        return apply_op("Shape", [x], {"T": x.dtype.base_dtype, "out_type": out_type}, scope)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of several tensors (one ShapeN op)."""
    out_type = _check_out_type(out_type)
    if not isinstance(input, (list, tuple)):
        raise TypeError("Expected list for 'input' argument to 'shape_n' Op, not %s." % (input,))
    with name_scope(name, "ShapeN", list(input)) as scope:
        # inside the op's scope, as TF's op definitions convert: "ShapeN/input_1"
        values = convert_list_input(list(input), "input", "ShapeN")
        result = apply_op("ShapeN", values, {"N": len(values),
                                             "T": values[0].dtype.base_dtype,
                                             "out_type": out_type}, scope)
    return result if isinstance(result, list) else [result]


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The number of elements of `input`; a constant when the static shape is known."""
    out_type = _check_out_type(out_type)
    with name_scope(name, "Size", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant(x.shape.num_elements(), out_type, name=scope)
        return apply_op("Size", [x], {"T": x.dtype.base_dtype, "out_type": out_type}, scope)


def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input`; a constant when it is known statically."""
    return rank_internal(input, name)


def rank_internal(input, name=None, optimize=True):  # noqa: A002
    """`rank`; with optimize=False always a Rank op, which reads its input when it runs
    (TF's rank_internal: tf.assert_variables_initialized relies on that read)."""
    with name_scope(name, "Rank", [input]) as scope:
        x = convert_to_tensor(input)
        if optimize and x.shape.ndims is not None:
            return constant(x.shape.ndims, dtypes.int32, name=scope)
        return apply_op("Rank", [x], {"T": x.dtype.base_dtype}, scope)


# -- Reshape ----------------------------------------------------------------------------------
def _divide(total, divisor):
    if total % divisor:
        raise ShapeError("Dimension size must be evenly divisible by %d but is %d"
                         % (divisor, total))
    return total // divisor


def _reshape_shape(op):
    x, shape_tensor = op._inputs
    if shape_tensor.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % shape_tensor.shape.ndims)
    out = partial_shape_from_tensor(shape_tensor)
    dtype = x.dtype.base_dtype
    if out.ndims is None or x.shape.ndims is None:
        return [(dtype, out)]
    try:
        return [(dtype, _infer_reshape(x.shape.as_list(), out.as_list()))]
    except ShapeError as e:
        raise shape_error(str(e), op, partial=[1]) from None


def _infer_reshape(in_dims, out_dims):
    """TF's SetOutputShapeForReshape: fills the one unknown output dim when it can."""
    def known_product(dims):
        unknown = [i for i, d in enumerate(dims) if d is None]
        product = 1
        for d in dims:
            product *= d if d is not None else 1
        return product, unknown

    in_known, in_unknown = known_product(in_dims)
    out_known, out_unknown = known_product(out_dims)
    out = list(out_dims)
    if len(in_unknown) > 1 or len(out_unknown) > 1:
        return tensor_shape.TensorShape(out)
    if not in_unknown and not out_unknown:
        if in_known != out_known:
            raise ShapeError("Cannot reshape a tensor with %d elements to shape %s (%d elements)"
                             % (in_known, tensor_shape.TensorShape(out).debug_string(),
                                out_known))
    elif not in_unknown and out_known > 0:
        out[out_unknown[0]] = _divide(in_known, out_known)
    elif not out_unknown and in_known != 0:
        _divide(out_known, in_known)
    elif in_unknown and out_unknown and in_known == out_known:
        out[out_unknown[0]] = in_dims[in_unknown[0]]
    return tensor_shape.TensorShape(out)


register_op("Reshape", _reshape_shape, cpu=shape_kernels.reshape)


def _shape_argument(shape, scope_name="shape"):
    """A shape argument as an int32/int64 tensor (a list may hold tensors: auto-packing)."""
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    return convert_to_tensor(shape, name=scope_name, preferred_dtype=dtypes.int32)


def reshape(tensor, shape, name=None):
    """`tensor`'s values in a new shape; one entry of `shape` may be -1 (inferred)."""
    with name_scope(name, "Reshape", [tensor, shape]) as scope:
        refuse_none(tensor, "tensor")
        x = convert_to_tensor(tensor, name="tensor")
        shape_t = _shape_argument(shape)
        index_dtype_of(shape_t, "shape")
        return apply_op("Reshape", [x, shape_t], {"T": x.dtype.base_dtype,
                                                  "Tshape": shape_t.dtype}, scope)


# -- ExpandDims, Squeeze ----------------------------------------------------------------------
def _expand_dims_shape(op):
    x, dim = op._inputs
    dtype = x.dtype.base_dtype
    value = inferred_value(dim)
    if value is None or x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    if np.size(value) != 1:
        raise ShapeError("'dim' input must be a tensor with a single value")
    axis = int(np.asarray(value).reshape(-1)[0])
    rank = x.shape.ndims
    if not -rank - 1 <= axis <= rank:
        raise shape_error("dim %d not in the interval [%d, %d]." % (axis, -rank - 1, rank),
                          op, computed=[1])
    if axis < 0:
        axis += rank + 1
    dims = x.shape.as_list()
    return [(dtype, tensor_shape.TensorShape(dims[:axis] + [1] + dims[axis:]))]


register_op("ExpandDims", _expand_dims_shape, cpu=shape_kernels.expand_dims)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Inserts a dimension of size 1 at `axis` (TF1 also accepts the old name `dim`)."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with name_scope(name, "ExpandDims", [input]) as scope:
        refuse_none(input, "input")
        x = convert_to_tensor(input, name="input")
        dim_t = convert_to_tensor(axis, name="dim", preferred_dtype=dtypes.int32)
        index_dtype_of(dim_t, "dim")
        return apply_op("ExpandDims", [x, dim_t], {"T": x.dtype.base_dtype,
                                                   "Tdim": dim_t.dtype}, scope)


def _squeeze_shape(op):
    x = op._inputs[0]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    rank = x.shape.ndims
    wanted = set()
    for i, axis in enumerate(op._attrs["squeeze_dims"]):
        if not -rank <= axis < rank:
            raise ShapeError("squeeze_dims[%d] not in [%d,%d)." % (i, -rank, rank))
        wanted.add(axis % rank)
    out = []
    for i, d in enumerate(x.shape.as_list()):
        if wanted:
            if i in wanted:
                if d not in (None, 1):
                    raise ShapeError("Can not squeeze dim[%d], expected a dimension of 1, got %d"
                                     % (i, d))
                continue
        elif d is None:
            # Without explicit axes an unknown dim may or may not be squeezed.
            return [(dtype, tensor_shape.unknown_shape())]
        elif d == 1:
            continue
        out.append(d)
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("Squeeze", _squeeze_shape, cpu=shape_kernels.squeeze)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those in `axis`)."""
    axis = deprecated_argument_lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if np.isscalar(axis):
        axis = [axis]
    if holds_tensor(axis):
        # squeeze_dims is an attribute: it cannot come from a tensor (tf.nn.moments with
        # fed axes gets here). TF's op-definition check.
        raise TypeError("Expected list for 'axis' argument to 'squeeze' Op, not %s." % (axis,))
    axis = [int(a) for a in (axis or [])]
    x = convert_to_tensor(input, name="input")
    return apply_op("Squeeze", [x], {"T": x.dtype.base_dtype, "squeeze_dims": axis},
                    name or "Squeeze")
