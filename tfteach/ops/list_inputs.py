"""Converting a list of values into same-dtype tensors (an op's list input, e.g. concat's).

TensorFlow's op-definition library takes the dtype from the first Tensor in the list and
converts the other values (Python numbers, arrays) to it; if that cannot work it says
which types it saw.
"""
from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor, is_tensor
from tfteach.ops.eager_type_errors import is_eager_value, mismatch_error

__all__ = ["convert_list_input", "check_list_length"]


def convert_list_input(values, arg_name, op_type, minimum=1):
    """`values` as a list of tensors of one dtype, or TF's TypeError naming the types
    (TF's ValueError for a list shorter than the op definition's `minimum`)."""
    check_list_length(values, arg_name, op_type, minimum)
    dtype = None
    for v in values:
        if is_tensor(v):
            dtype = convert_to_tensor(v).dtype.base_dtype
            break
    try:
        # TF's convert_n_to_tensor names element i "<arg>_<i>": concat/values_0, values_1
        tensors = [convert_to_tensor(v, dtype=dtype, name="%s_%d" % (arg_name, i))
                   for i, v in enumerate(values)]
    except (TypeError, ValueError):
        tensors = None
    if tensors is not None and len({t.dtype.base_dtype for t in tensors}) <= 1:
        return tensors
    if values and all(is_eager_value(v) for v in values):
        # Eager tensors of several dtypes: the runtime's error (eager_type_errors.py).
        first = values[0].dtype.base_dtype
        position = next(i for i, v in enumerate(values) if v.dtype.base_dtype != first)
        raise mismatch_error(op_type, arg_name, position, first, values[position].dtype)
    names = []
    for v in values:
        try:
            names.append(convert_to_tensor(v).dtype.base_dtype.name)
        except (TypeError, ValueError):
            names.append("<NOT CONVERTIBLE TO TENSOR>")
    raise TypeError("Tensors in list passed to '%s' of '%s' Op have types [%s] that don't all "
                    "match." % (arg_name, op_type, ", ".join(names)))


def index_dtype_of(tensor, arg_name, allowed=(dtypes.int32, dtypes.int64)):
    """Checks that an index-like input has one of the allowed integer dtypes (TF's text)."""
    if tensor.dtype.base_dtype not in allowed:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed "
                        "values: %s" % (arg_name, tensor.dtype.base_dtype.name,
                                        ", ".join(d.name for d in allowed)))
    return tensor.dtype.base_dtype


def check_list_length(values, arg_name, op_type, minimum):
    """TF's op-definition check of a list input's length (`N >= minimum`)."""
    if len(values) < minimum:
        raise ValueError("List argument '%s' to '%s' Op with length %d shorter than minimum "
                         "length %d." % (arg_name, op_type, len(values), minimum))
