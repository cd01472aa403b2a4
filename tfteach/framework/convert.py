"""`tf.convert_to_tensor`: turning Python values, NumPy arrays and Variables into Tensors.

Conversion functions are registered per Python type (as TensorFlow's
`register_tensor_conversion_function`): the constant op registers the one for plain
values, `tf.Variable` its own. Checks and messages follow TensorFlow 1.x.
"""
from tfteach.framework import dtypes as dtypes_lib
from tfteach.framework.operation import Operation
from tfteach.framework.tensor import Tensor

__all__ = ["convert_to_tensor", "register_tensor_conversion_function", "convert_n_to_tensor",
           "as_op", "is_tensor", "holds_tensor"]

_CONVERSION_FUNCTIONS = []   # (base_type, function, priority), lowest priority first


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    _CONVERSION_FUNCTIONS.append((base_type, conversion_func, priority))
    _CONVERSION_FUNCTIONS.sort(key=lambda entry: entry[2])


def is_tensor(x):
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element") and not isinstance(
        x, Operation)


def holds_tensor(value):
    """True if `value`, or anything in a (nested) list or tuple of it, is a tensor."""
    if isinstance(value, (list, tuple)):
        return any(holds_tensor(v) for v in value)
    return is_tensor(value)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None,
                      as_ref=False):
    """Returns `value` as a Tensor of `dtype` (checked, never silently re-typed)."""
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
    preferred_dtype = preferred_dtype or dtype_hint
    if value is None:       # TF's make_tensor_proto: a ValueError with this text
        raise ValueError("None values not supported.")
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dtype.name, value.dtype.name, value))
        return value
    if preferred_dtype is not None and dtype is None:
        try:
            return convert_to_tensor(value, preferred_dtype, name, as_ref=as_ref)
        except (TypeError, ValueError):
            pass
    for base_type, func, _ in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            result = func(value, dtype=dtype, name=name, as_ref=as_ref)
            if result is NotImplemented:
                continue
            if dtype is not None and not dtype.is_compatible_with(result.dtype):
                raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype "
                                 "%s: %r" % (dtype.name, result.dtype.name, result))
            return result
    raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. Consider "
                    "casting elements to a supported type." % (type(value), value))


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype, None if name is None else "%s_%d" % (name, i),
                              preferred_dtype) for i, v in enumerate(values)]


def as_op(value):
    """An Operation from an Operation, Tensor or Variable (for targets and control deps)."""
    if isinstance(value, Operation):
        return value
    if isinstance(value, Tensor):
        return value.op
    element = getattr(value, "_as_graph_element", None)
    if element is not None:
        return as_op(element())
    raise TypeError("Can not convert a %s into a Operation." % type(value).__name__)
