"""`tf.io.serialize_tensor` / `tf.io.parse_tensor`: a whole tensor as one string (its
TensorProto), e.g. to store a float array in a BytesList feature of a tf.train.Example.

SerializeTensor writes what TensorFlow's Tensor::AsProtoTensorContent writes: the dtype,
the shape and the raw little-endian bytes (strings as string_val), so the bytes equal
TensorFlow's (tests/test_tensor_serialization_reference.py). ParseTensor reads any
TensorProto TensorFlow writes and checks its dtype against `out_type`.
"""
import numpy as np
from google.protobuf.message import DecodeError

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor_proto import make_ndarray, tensor_content_proto
from tfteach.io.tf_protos import TensorProto
from tfteach.ops.op_builder import apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["serialize_tensor", "parse_tensor"]

_TYPE_WORD = {"float32": "float", "float64": "double", "float16": "half"}


def _word(dtype):
    return _TYPE_WORD.get(dtype.name, dtype.name)


def _serialize_kernel(ctx, x):
    dtype = ctx.attrs["T"]
    array = np.asarray(x, dtype=object if dtype == dtypes.string else dtype.np)
    return np.array(tensor_content_proto(array, dtype).SerializeToString(), dtype=object)


def _parse_kernel(ctx, serialized):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim != 0:
        raise InvalidArgumentError(None, ctx.op, "Expected `serialized` to be a scalar, got "
                                   "shape: [%s]" % ",".join(str(d) for d in serialized.shape))
    raw = bytes(serialized.item())
    try:
        proto = TensorProto.FromString(raw)
        parsed = dtypes.as_dtype(proto.dtype)
    except (DecodeError, ValueError, TypeError, KeyError):
        # TF 1.15's words (TF 2.x shows the bytes in base64 instead).
        raise InvalidArgumentError(None, ctx.op, "Could not parse `serialized` as "
                                   "TensorProto: '%s'" % raw.decode("utf-8", "replace")) \
            from None
    wanted = ctx.attrs["out_type"]
    if parsed != wanted:
        raise InvalidArgumentError(None, ctx.op, "Type mismatch between parsed tensor (%s) "
                                   "and dtype (%s)" % (_word(parsed), _word(wanted)))
    return make_ndarray(proto)


register_op("SerializeTensor", lambda op: [(dtypes.string, tensor_shape.TensorShape([]))],
            cpu=_serialize_kernel)
register_op("ParseTensor",
            lambda op: [(op._attrs["out_type"], tensor_shape.unknown_shape())],
            cpu=_parse_kernel)
for _op_type in ("SerializeTensor", "ParseTensor"):
    not_differentiable(_op_type)
    register_cpu_only(_op_type)


def serialize_tensor(tensor, name=None):
    """`tf.io.serialize_tensor`: a scalar string holding `tensor`'s TensorProto."""
    with name_scope(name, "SerializeTensor", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        return apply_op("SerializeTensor", [tensor], {"T": tensor.dtype.base_dtype}, scope)


def parse_tensor(serialized, out_type, name=None):
    """`tf.io.parse_tensor`: the tensor a serialized TensorProto holds (of `out_type`)."""
    with name_scope(name, "ParseTensor", [serialized]) as scope:
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        return apply_op("ParseTensor", [serialized],
                        {"out_type": dtypes.as_dtype(out_type).base_dtype}, scope)
