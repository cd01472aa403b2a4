"""Constants, placeholders and identity: the ops every program starts with."""
import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape, tensor_util
from tfteach.framework import graph as graph_lib
from tfteach.framework.eager_mode import STATE as _EAGER
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.hints import with_hint
from tfteach.framework.registry import register_op
from tfteach.ops.op_builder import apply_op, same_shape_fn

__all__ = ["constant", "placeholder", "placeholder_with_default", "identity"]


# -- Const ---------------------------------------------------------------------------
def _const_shape(op):
    value = op._attrs["value"]
    return [(op._attrs["dtype"], tensor_shape.TensorShape(value.shape))]


def _const_kernel(ctx):
    return ctx.attrs["value"]


register_op("Const", _const_shape, cpu=_const_kernel)


# Eagerly, the arrays of Python scalars converted again and again (`x * 0.5` in a loop):
# (type, repr, dtype) -> (array, DType). repr tells -0.0 from 0.0 and 1 from True.
_EAGER_SCALARS = {}
_SCALAR_TYPES = (int, float, bool)


def _eager_scalar(value, dtype):
    try:
        key = (type(value), repr(value), dtype)
        entry = _EAGER_SCALARS.get(key)
    except TypeError:                       # an unhashable dtype argument
        return None
    if entry is None:
        array = tensor_util.make_ndarray(value, dtype, None, False)
        array.flags.writeable = False
        if len(_EAGER_SCALARS) > 4096:
            _EAGER_SCALARS.clear()
        entry = _EAGER_SCALARS[key] = (array, dtypes.as_dtype(array.dtype))
    return entry


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A constant tensor, as `tf.constant` in TF 1.x (incl. its fill-by-last-element rule)."""
    if shape is None and type(value) in _SCALAR_TYPES and _EAGER.enabled and \
            not graph_lib._default_graph_stack.graphs:
        entry = _eager_scalar(value, dtype)
        if entry is not None:
            return apply_op("Const", [], {"value": entry[0], "dtype": entry[1]}, name)
    if shape is not None and not verify_shape and _EAGER.enabled and \
            not graph_lib._default_graph_stack.graphs:
        _check_eager_shape(tensor_util.make_ndarray(value, dtype, None, False), shape)
    array = tensor_util.make_ndarray(value, dtype, shape, verify_shape)
    array.flags.writeable = False   # shared by every run: nobody may change it in place
    return apply_op("Const", [], {"value": array, "dtype": dtypes.as_dtype(array.dtype)
                                  if array.dtype != object else dtypes.string}, name)


def _check_eager_shape(array, shape):
    """Executing eagerly, TF 1.15's tf.constant reshapes a value of as many elements or
    fills with a one-element one, and refuses any other: the graph rules' padding with
    the last element (or "Too many elements") apply to graphs only."""
    shape = tensor_shape.as_shape(shape)
    wanted = shape.num_elements()
    if wanted is not None and array.size != wanted and array.size != 1:
        raise TypeError("Eager execution of tf.constant with unsupported shape (value has "
                        "%d elements, shape is %s with %d elements)."
                        % (array.size, shape, wanted))


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")


convert.register_tensor_conversion_function(
    (list, tuple, int, float, complex, bool, str, bytes, np.ndarray, np.generic), _constant_conversion,
    priority=100)


def _shape_dtype(dtype, dims):
    """int32 unless a dimension needs int64 (TF's rule for a shape made a tensor)."""
    big = next((d for d in dims if d >= 2 ** 31), 0)
    if dtype is None:
        return dtypes.int64 if big else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError("Cannot convert a TensorShape to dtype: %s" % dtype)
    if dtype == dtypes.int32 and big:
        raise ValueError("Cannot convert a TensorShape to dtype int32; a dimension is too "
                         "large (%s)" % big)
    return dtype


def _tensor_shape_conversion(shape, dtype=None, name=None, as_ref=False):
    """A fully known TensorShape is the int vector of its dimensions (`tf.fill(x.shape,
    1.0)`, a tf.function returning `x.shape`), as in TF 1.15."""
    if not shape.is_fully_defined():
        raise ValueError("Cannot convert a partially known TensorShape to a Tensor: %s"
                         % shape)
    dims = shape.as_list()
    return constant(dims, dtype=_shape_dtype(dtype, dims), name=name or "shape_as_tensor")


def _dimension_conversion(dim, dtype=None, name=None, as_ref=False):
    if dim.value is None:
        raise ValueError("Cannot convert an unknown Dimension to a Tensor: %s" % dim)
    return constant(dim.value, dtype=_shape_dtype(dtype, [dim.value]),
                    name=name or "shape_as_tensor")


convert.register_tensor_conversion_function(tensor_shape.TensorShape, _tensor_shape_conversion,
                                            priority=100)
convert.register_tensor_conversion_function(tensor_shape.Dimension, _dimension_conversion,
                                            priority=100)


# -- Placeholder ---------------------------------------------------------------------------
def _placeholder_shape(op):
    return [(op._attrs["dtype"], op._attrs["shape"])]


def _placeholder_kernel(ctx):
    # Runs only when nothing fed the placeholder: that is the student's mistake.
    dtype = ctx.attrs["dtype"]
    shape = ctx.attrs["shape"]
    message = "You must feed a value for placeholder tensor '%s' with dtype %s" % (
        ctx.op.name, dtype.c_name)
    if shape.ndims is not None:
        message += " and shape %s" % shape.debug_string()
    raise with_hint(InvalidArgumentError(None, ctx.op, message), "placeholder")


register_op("Placeholder", _placeholder_shape, cpu=_placeholder_kernel)


def placeholder(dtype, shape=None, name=None):
    """A value the program must feed, as `tf.placeholder`."""
    try:
        dtype = dtypes.as_dtype(dtype)
    except TypeError:      # TF's op-definition library converts the attr: its words
        raise TypeError("Expected DataType for argument 'dtype' not %r." % (dtype,)) from None
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    return apply_op("Placeholder", [], {"dtype": dtype, "shape": shape},
                    name or "Placeholder")


def _placeholder_with_default_shape(op):
    return [(op._inputs[0].dtype.base_dtype, op._attrs["shape"])]


register_op("PlaceholderWithDefault", _placeholder_with_default_shape,
            cpu=lambda ctx, x: x)


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """`input` unless a value is fed, as `tf.placeholder_with_default`."""
    value = convert.convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    if not value.shape.is_compatible_with(shape):
        raise ValueError("Shapes %s and %s are incompatible" % (value.shape, shape))
    return apply_op("PlaceholderWithDefault", [value], {"dtype": value.dtype, "shape": shape},
                    name or "PlaceholderWithDefault")


# -- Identity --------------------------------------------------------------------------------
register_op("Identity", same_shape_fn, cpu=lambda ctx, x: x)


def identity(input, name=None):  # noqa: A002
    """The same value under a new name, as `tf.identity`."""
    from tfteach.ops.typed_inputs import refuse_none    # (typed_inputs needs this module)
    refuse_none(input, "input")
    value = convert.convert_to_tensor(input)
    return apply_op("Identity", [value], {"T": value.dtype.base_dtype}, name or "Identity")
