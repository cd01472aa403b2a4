"""NumPy arrays <-> TensorFlow's `TensorProto` (the `value` of a Const, a checkpoint-free
way to carry numbers inside a GraphDef), as `tf.make_tensor_proto` / `tf.make_ndarray`.

Writing, as TensorFlow's Python `make_tensor_proto` (what a Const's `value` holds): a
tensor of more than one number goes into `tensor_content` (raw little-endian bytes), a
scalar or one-element tensor into its typed field (`float_val: 0.1`), bools and complex
numbers always into theirs, strings into `string_val`. A kernel's output (a summary's
tensor, `serialize_tensor`) is TF's `Tensor::AsProtoTensorContent` instead:
`tensor_content_proto`, bytes for every number. Reading accepts every
form TensorFlow writes: `tensor_content`, or the typed `*_val` fields, where fewer values
than the shape holds means "repeat the last one" (how TF stores `tf.zeros([1000])` in
one number).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_util
from tfteach.io.tf_protos import TensorProto, TensorShapeProto

__all__ = ["make_tensor_proto", "tensor_content_proto", "make_ndarray", "shape_proto",
           "shape_from_proto"]

# The typed field TensorFlow uses for each dtype when tensor_content is empty.
_VAL_FIELD = {
    "float16": "half_val", "float32": "float_val", "float64": "double_val",
    "int8": "int_val", "int16": "int_val", "int32": "int_val", "uint8": "int_val",
    "uint16": "int_val", "int64": "int64_val", "bool": "bool_val",
    "complex64": "scomplex_val", "complex128": "dcomplex_val", "string": "string_val",
}


# The dtypes whose tensors of more than one element TF's make_tensor_proto writes as
# tensor_content (its _TENSOR_CONTENT_TYPES); the others use the typed field.
_TENSOR_CONTENT_TYPES = frozenset({
    "float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64", "uint32",
    "uint64"})


def shape_proto(shape):
    """A `TensorShapeProto` for a TensorShape/list (None -> -1, unknown rank flagged)."""
    from tfteach.framework.tensor_shape import as_shape
    shape = as_shape(shape)
    proto = TensorShapeProto()
    if shape.ndims is None:
        proto.unknown_rank = True
        return proto
    for d in shape.as_list():
        proto.dim.add(size=-1 if d is None else int(d))
    return proto


def shape_from_proto(proto):
    from tfteach.framework.tensor_shape import TensorShape
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False):
    """`tf.make_tensor_proto`: a TensorProto holding `values` (TF1's conversion rules)."""
    if isinstance(values, TensorProto):
        return values
    array, dtype = _as_array(values, dtype, shape, verify_shape)
    name = dtype.base_dtype.name
    field = _VAL_FIELD.get(name)
    if name == "string" or field is None or (
            name in _TENSOR_CONTENT_TYPES and array.size > 1):
        return tensor_content_proto(array, dtype)
    proto = TensorProto(dtype=dtype.base_dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(list(array.shape)))
    values = np.asarray(array, dtype=dtype.base_dtype.np).ravel()
    if name == "float16":                  # half_val holds the 16 bits as ints
        values = values.view(np.uint16)
    elif dtype.base_dtype.is_complex:      # real and imaginary parts interleaved
        values = np.stack([values.real, values.imag], axis=-1).ravel()
    getattr(proto, field).extend(values.tolist())
    return proto


def _as_array(values, dtype, shape=None, verify_shape=False):
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    array = tensor_util.make_ndarray(values, dtype=dtype, shape=shape,
                                     verify_shape=verify_shape)
    if dtype is None:
        dtype = dtypes.string if array.dtype == object else dtypes.as_dtype(array.dtype)
    return array, dtype


def tensor_content_proto(values, dtype=None):
    """TF's `Tensor::AsProtoTensorContent` (a kernel's TensorProto): the numbers' bytes in
    `tensor_content`, whatever the size; strings in `string_val`."""
    array, dtype = _as_array(values, dtype)
    proto = TensorProto(dtype=dtype.base_dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(list(array.shape)))
    if dtype.base_dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode("utf-8")
                                for v in array.ravel())
    else:
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=dtype.np.newbyteorder("<")).tobytes()
    return proto


def make_ndarray(tensor):
    """`tf.make_ndarray`: the NumPy array a TensorProto holds."""
    dtype = dtypes.as_dtype(tensor.dtype)
    shape = [d.size for d in tensor.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes.string:
        values = np.empty(len(tensor.string_val), dtype=object)
        values[:] = list(tensor.string_val)
    elif tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=dtype.np.newbyteorder("<")).astype(
            dtype.np).reshape(shape)
    else:
        raw = list(getattr(tensor, _VAL_FIELD[dtype.name]))
        if dtype == dtypes.float16:      # half_val holds the 16 bits as ints
            values = np.array(raw, dtype=np.uint16).view(np.float16)
        elif dtype.is_complex:
            values = np.array(raw[0::2], dtype=dtype.np) + 1j * np.array(raw[1::2])
        else:
            values = np.array(raw, dtype=dtype.np)
    if values.size == count:
        return values.astype(dtype.np).reshape(shape)
    if values.size == 0:
        return np.zeros(shape, dtype=dtype.np) if dtype != dtypes.string else \
            np.full(shape, b"", dtype=object)
    # Fewer values than elements: TensorFlow repeats the last one.
    out = np.empty(count, dtype=dtype.np)
    out[:values.size] = values[:count]
    out[values.size:] = values[-1]
    return out.reshape(shape)
