"""Reading the features the parse ops ask for out of serialized tf.train.Example bytes.

The parse kernels (parsing_ops.py) call these; the rules and the words of the errors are
TensorFlow's fast Example parser (core/util/example_proto_fast_parsing.cc):
  - a feature whose `kind` is unset counts as missing;
  - a value list of another type is "Data types don't match";
  - a fixed-length feature needs exactly its number of values;
  - a required feature (no default) that is missing is "... is required but could not be
    found.".
The kernels' shared helpers (dims, strides, type names in TF's messages) live here
too. Each function works on NumPy arrays and messages; none builds graph ops.
"""
import numpy as np
from google.protobuf.message import DecodeError

from tfteach.framework import dtypes
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.tensor_shape import ShapeError
from tfteach.io.example_protos import Example, SequenceExample

__all__ = ["parse_serialized", "values_of", "kind_dtype", "shape_debug_string", "error",
           "empty", "TYPE_NAME", "LIST_NAME", "text_of", "dims_of", "is_variable",
           "stride_of", "feature_of", "check_rank", "sparse_rows"]

_KIND_DTYPE = {"bytes_list": dtypes.string, "float_list": dtypes.float32,
               "int64_list": dtypes.int64}


def error(message):
    return InvalidArgumentError(None, None, message)


def _printable(serialized):
    return serialized.decode("utf-8", errors="backslashreplace")


def parse_serialized(serialized, sequence=False, example_name=None):
    """The Example (or SequenceExample) message in `serialized` bytes; TF's error if the
    bytes are not one."""
    message_class = SequenceExample if sequence else Example
    try:
        return message_class.FromString(bytes(serialized))
    except (DecodeError, ValueError, TypeError):
        if sequence:
            raise error("Invalid protocol message input, example id: %s"
                         % (example_name or "<unknown>")) from None
        raise error("Could not parse example input, value: '%s'"
                     % _printable(bytes(serialized))) from None


def kind_dtype(feature):
    """The dtype of a Feature's value list, or None when its kind is unset."""
    kind = feature.WhichOneof("kind")
    return _KIND_DTYPE[kind] if kind else None


def values_of(feature, dtype):
    """A Feature's values as a 1-D array of `dtype` (bytes in an object array)."""
    if dtype == dtypes.string:
        out = np.empty(len(feature.bytes_list.value), dtype=object)
        out[:] = list(feature.bytes_list.value)
        return out
    if dtype == dtypes.float32:
        return np.array(feature.float_list.value, dtype=np.float32)
    return np.array(feature.int64_list.value, dtype=np.int64)


def shape_debug_string(dims):
    """A shape as TF's TensorShape::DebugString / PartialTensorShape prints it: [?,2]."""
    return "[%s]" % ",".join("?" if d is None or d < 0 else str(int(d)) for d in dims)


def empty(dtype, shape):
    """Zeros (or b"" for strings) of `shape`: a missing feature, the padding."""
    if dtype == dtypes.string:
        out = np.empty(shape, dtype=object)
        out.fill(b"")
        return out
    return np.zeros(shape, dtype=dtype.np)


def sparse_rows(rows, values, dtype):
    """(indices, values, dense_shape) of a SparseTensor whose row i holds `rows[i]`
    values, `values` being the non-empty rows' value arrays in order."""
    indices = np.array([(i, j) for i, n in enumerate(rows) for j in range(n)],
                       dtype=np.int64).reshape(-1, 2)
    values = np.concatenate(values) if values else empty(dtype, (0,))
    return indices, values, np.array([len(rows), max(rows, default=0)], np.int64)


TYPE_NAME = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}
LIST_NAME = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "bytes"}


def text_of(value):
    """A string input's value (bytes or a 0-d array of bytes) as str."""
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def dims_of(shape):
    """A TensorShape attr as a list with -1 for an unknown dimension."""
    return [-1 if d.value is None else d.value for d in shape.dims]


def is_variable(shape):
    return shape.ndims and shape.dims[0].value is None


def stride_of(shape):
    dims = dims_of(shape)
    return int(np.prod(dims[1:] if is_variable(shape) else dims, dtype=np.int64))


def feature_of(message_features, key):
    """The Feature under `key`, or None when absent or when its kind is unset (TF's fast
    parser treats both as missing)."""
    if key not in message_features.feature:
        return None
    feature = message_features.feature[key]
    return feature if feature.WhichOneof("kind") else None


def check_rank(op, index, rank):
    """A shape function's check that input `index` has `rank` (TF's words)."""
    shape = op._inputs[index].shape
    if shape.ndims is not None and shape.ndims != rank:
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank, shape.ndims))
    return shape
