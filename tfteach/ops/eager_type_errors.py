"""TF's eager errors for inputs an op cannot take: a tensor of the wrong dtype, a dtype
the op has no kernel for.

Building a graph, TF 1.15's `op_def_library` refuses `int_tensor + float_tensor` with a
TypeError ("Input 'y' of 'AddV2' Op has type float32 that does not match ..."). Executing
eagerly there is no op_def_library: the first tensor fixes the type attribute, the op is
sent to the runtime, and the runtime's input check refuses it with an
InvalidArgumentError in its own words:

    cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but
    is a float tensor [Op:AddV2]

Only values that already are eager tensors get this error: a Python number or NumPy
array that cannot be converted is still a TypeError, in eager mode as in graph mode.

Likewise a dtype the op has no kernel for (`tf.sqrt(tf.constant(4))`): op_def_library's
TypeError ("Value passed to parameter 'x' has DataType int32 not in list of allowed
values: ...") building a graph; executing eagerly, TF 1.15's runtime finds no device
with a kernel for it: `NotFoundError: Could not find valid device for node.`, followed
by the op's node and the kernels registered for it.
"""
from tfteach.framework import errors
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["is_eager_value", "mismatch_error", "no_kernel_error"]

# TF's DataTypeString: the C++ type names, which differ from the Python ones for floats.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def is_eager_value(value):
    """True for an EagerTensor or an eager Variable while ops execute eagerly."""
    return executing_eagerly() and (hasattr(value, "_value") or hasattr(value, "_eager_tensor"))


def cpp_type_name(dtype):
    """TF's C++ DataTypeString of `dtype` (float, double, int32, string ...)."""
    name = dtype.base_dtype.name
    return _TF_TYPE_NAMES.get(name, name)


def _input_number(op_type, input_name, position):
    """The op's input number of `input_name` (a list input counts its tensors one by
    one: `position` is the tensor's place in it), from TF's OpDef; `position` alone if
    TF's OpDef is not at hand. (A list input is always the op's first where this is
    asked: ConcatV2's values, AddN's inputs.)"""
    from tfteach.framework.op_defs import op_def
    found = op_def(op_type)
    args = {arg.name: (number, arg) for number, arg in enumerate(found.input_arg)} \
        if found is not None else {}
    if input_name not in args:
        return position
    number, arg = args[input_name]
    is_list = bool(arg.number_attr or arg.type_list_attr)
    return number + position if is_list else number


def mismatch_error(op_type, input_name, position, expected, got):
    """InvalidArgumentError for input `input_name` (its `position`-th tensor, for a list
    input; else its place among the inputs given) of dtype `got` where `expected` was
    fixed by an earlier input."""
    number = _input_number(op_type, input_name, position)
    return errors.InvalidArgumentError(
        None, None, "cannot compute %s as input #%d(zero-based) was expected to be a %s "
        "tensor but is a %s tensor [Op:%s]" % (op_type, number, cpp_type_name(expected),
                                               cpp_type_name(got), op_type))


def _enum_name(type_name):
    """'float32' -> 'DT_FLOAT': TF's DataType enum names, as its kernel lists print."""
    return "DT_" + _TF_TYPE_NAMES.get(type_name, type_name).upper()


def no_kernel_error(op_type, allowed_names):
    """NotFoundError for an op executed eagerly with a dtype it has no kernel for;
    `allowed_names` the op's dtypes, as typed_inputs.ALLOWED lists them."""
    kernels = "".join("  device='CPU'; T in [%s]\n" % _enum_name(name)
                      for name in reversed(allowed_names.split(", ")))
    return errors.NotFoundError(
        None, None, "Could not find valid device for node.\nNode:{{node %s}}\nAll kernels "
        "registered for op %s :\n%s [Op:%s]" % (op_type, op_type, kernels, op_type))
