"""Converting an op's inputs the way TensorFlow 1.x's `op_def_library` does.

Most math ops declare one type attribute shared by their inputs (`x: T, y: T`). TF
converts the inputs in order: the first one fixes `T` (and must be one of the op's
allowed dtypes), every later one must convert to `T`. The texts of the TypeErrors below
are TF 1.15's, because students meet them constantly (`tf.add(1, 2.5)`).

The allowed-dtype lists are TF 1.15's op definitions (`math_ops.cc`), in TF's order,
since the error message prints them.
"""
from tfteach.framework import convert
from tfteach.ops.eager_type_errors import is_eager_value, mismatch_error, no_kernel_error

__all__ = ["convert_same_type", "convert_fixed_type", "check_same_type_list",
           "check_allowed", "refuse_none", "ALLOWED"]

_COMPLEX = "complex64, complex128"
ALLOWED = {
    # Add is the only arithmetic op that also concatenates strings.
    "add": "bfloat16, float16, float32, float64, uint8, int8, int16, int32, int64, "
           + _COMPLEX + ", string",
    "add_v2": "bfloat16, float16, float32, float64, uint8, int8, int16, int32, int64, "
              + _COMPLEX,
    # Sub, Mul, RealDiv, FloorDiv, TruncateDiv (TF's BINARY_MORE)
    "binary_more": "bfloat16, float16, float32, float64, uint8, int8, uint16, int16, int32, "
                   "int64, " + _COMPLEX,
    "mod": "int32, int64, bfloat16, float16, float32, float64",
    "pow": "bfloat16, float32, float16, float64, int32, int64, " + _COMPLEX,
    "max_min": "bfloat16, float16, float32, float64, int32, int64",
    "squared_difference": "bfloat16, float16, float32, float64, int32, int64, " + _COMPLEX,
    # Neg, Square, Sign, Reciprocal, Round (TF's UNARY)
    "unary": "bfloat16, float16, float32, float64, int32, int64, " + _COMPLEX,
    "abs": "bfloat16, float16, float32, float64, int8, int16, int32, int64",
    # Sqrt, Exp, Log, Sin, Tanh, Sigmoid, ... (TF's UNARY_COMPLEX)
    "float_or_complex": "bfloat16, float16, float32, float64, " + _COMPLEX,
    "float": "bfloat16, float16, float32, float64",
    # Less, Greater, ... (TF's realnumbertypes)
    "real_number": "float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                   "float16, uint32, uint64",
    "equality": "bfloat16, float16, float32, float64, uint8, int8, int16, int32, int64, "
                "complex64, quint8, qint8, qint32, string, bool, complex128",
    # AddN, AccumulateNV2 (TF's numbertypes)
    "number": "float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
              "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64",
    "matmul": "bfloat16, float16, float32, float64, int32, int64, " + _COMPLEX,
    # index inputs: TopKV2's k; ReverseSequence's / SparseToDense's Tlen, Tindices
    "int32": "int32",
    "index": "int32, int64",
}
_ALLOWED_SETS = {key: frozenset(names.split(", ")) for key, names in ALLOWED.items()}


def check_allowed(dtype, allowed, input_name):
    """TF's `_SatisfiesTypeConstraint`: `allowed` is a key of ALLOWED (or None: any)."""
    if allowed is not None and dtype.name not in _ALLOWED_SETS[allowed]:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: %s" % (input_name, dtype.name, ALLOWED[allowed]))


def refuse_none(value, input_name):
    """TF's op_def_library converts an op's input itself and wraps make_tensor_proto's
    ValueError for None, naming the input (`tf.equal(None, y)`: 'x')."""
    if value is None:
        raise ValueError("Tried to convert '%s' to a tensor and failed. Error: None values "
                         "not supported." % input_name)


def _observed_dtype_name(value, input_name):
    """The dtype `value` converts to on its own (for TF's mismatch message)."""
    return convert.convert_to_tensor(value, name=input_name).dtype.base_dtype.name


def _convert_to(op_type, input_name, value, dtype, mismatch, position=0):
    """`value` converted to `dtype`, or TF's TypeError naming the op and the input (an
    eager tensor of another dtype: TF's eager InvalidArgumentError, eager_type_errors.py).
    `position`: the input's place among those given, used where TF's OpDef is not at hand."""
    refuse_none(value, input_name)
    try:
        return convert.convert_to_tensor(value, dtype=dtype, name=input_name)
    except TypeError as err:
        # A Python value that does not fit (1.5 for an int32 input).
        raise TypeError("Expected %s passed to parameter '%s' of op '%s', got %r of type "
                        "'%s' instead. Error: %s" % (dtype.name, input_name, op_type, value,
                                                     type(value).__name__, err)) from None
    except ValueError:
        # A tensor of another dtype: TF never casts a tensor silently.
        if is_eager_value(value):
            raise mismatch_error(op_type, input_name, position, dtype, value.dtype) from None
        observed = _observed_dtype_name(value, input_name)
        raise TypeError("Input '%s' of '%s' Op has type %s that does not match %s."
                        % (input_name, op_type, observed, mismatch)) from None


def convert_same_type(op_type, named_values, allowed=None):
    """Tensors for `[(input_name, value), ...]` that share one type attribute `T`.

    The first input fixes `T` (checked against `allowed`); the others convert to it.
    """
    first_name, first_value = named_values[0]
    refuse_none(first_value, first_name)
    first = convert.convert_to_tensor(first_value, name=first_name)
    dtype = first.dtype.base_dtype
    if allowed is not None and dtype.name not in _ALLOWED_SETS[allowed]:
        if is_eager_value(first):
            raise no_kernel_error(op_type, ALLOWED[allowed])    # the eager runtime's error
        check_allowed(dtype, allowed, first_name)               # op_def_library's
    tensors = [first]
    for position, (input_name, value) in enumerate(named_values[1:], 1):
        tensors.append(_convert_to(op_type, input_name, value, dtype,
                                   "type %s of argument '%s'" % (dtype.name, first_name),
                                   position))
    return tensors


def convert_fixed_type(op_type, named_values, dtype):
    """Tensors for inputs whose dtype the op fixes (LogicalAnd's `x: bool, y: bool`)."""
    return [_convert_to(op_type, input_name, value, dtype, "expected type of %s" % dtype.name,
                        position)
            for position, (input_name, value) in enumerate(named_values)]


def check_same_type_list(op_type, input_name, tensors, allowed=None):
    """A list input `inputs: N * T` (AddN): every tensor must have the same dtype."""
    types = [t.dtype.base_dtype for t in tensors]
    for position, (t, kind) in enumerate(zip(tensors, types)):
        if kind != types[0] and is_eager_value(t):
            raise mismatch_error(op_type, input_name, position, types[0], kind)
    if any(t != types[0] for t in types):
        raise TypeError("Tensors in list passed to '%s' of '%s' Op have types [%s] that "
                        "don't all match." % (input_name, op_type,
                                              ", ".join(t.name for t in types)))
    check_allowed(types[0], allowed, input_name)
    return types[0]
