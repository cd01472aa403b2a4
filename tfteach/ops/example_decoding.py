"""Reading the features the parse ops ask for out of serialized tf.train.Example bytes.

The parse kernels (parsing_ops.py) call these; the rules and the words of the errors are
TensorFlow's fast Example parser (core/util/example_proto_fast_parsing.cc):
  - a feature whose `kind` is unset counts as missing;
  - a value list of another type is "Data types don't match";
  - a fixed-length feature needs exactly its number of values;
  - a required feature (no default) that is missing is "... is required but could not be
    found.".
Each function returns NumPy arrays; none builds graph ops.
"""
import numpy as np
from google.protobuf.message import DecodeError

from tfteach.framework import dtypes
from tfteach.framework.errors import InvalidArgumentError
from tfteach.io.example_protos import Example, SequenceExample

__all__ = ["parse_serialized", "values_of", "kind_dtype", "shape_debug_string"]

_KIND_DTYPE = {"bytes_list": dtypes.string, "float_list": dtypes.float32,
               "int64_list": dtypes.int64}


def _error(message):
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
            raise _error("Invalid protocol message input, example id: %s"
                         % (example_name or "<unknown>")) from None
        raise _error("Could not parse example input, value: '%s'"
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
    if dtype == dtypes.string:
        out = np.empty(shape, dtype=object)
        out.fill(b"")
        return out
    return np.zeros(shape, dtype=dtype.np)
