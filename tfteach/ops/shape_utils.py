"""Helpers the array ops' shape functions share: TF's shape-inference vocabulary.

TensorFlow's C++ shape functions read some inputs' *values* when they are known at build
time (the `shape` of a reshape, the `axis` of a concat). When such a function fails, TF
adds what it read to the message: `... and with computed input tensors: input[1] = <0 1 3>.`
or `... and with input tensors computed as partial shapes: input[1] = [?,4].`.
`shape_error` builds that error; `partial_shape_from_tensor` is TF's
`MakeShapeFromShapeTensor` (a shape given as a tensor, possibly partly known).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.tensor_shape import ShapeTensorError
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError

__all__ = ["shape_error", "summarize_value", "input_value", "partial_shape_from_tensor",
           "ShapeTensorError",
           "check_axis", "merge_dims"]


def summarize_value(value):
    """TF's Tensor::SummarizeValue: `3`, `1 2 4`, `[1 1][-1 0]`."""
    value = np.asarray(value)
    if value.ndim == 0:
        return _scalar_text(value[()])
    if value.ndim == 1:
        return " ".join(_scalar_text(v) for v in value)
    return "".join("[%s]" % summarize_value(row) for row in value)


def _scalar_text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    return str(v)


def shape_error(message, op, computed=(), partial=()):
    """A ShapeError whose text ends, like TF's, with the input values the function used.

    `computed`: input indices whose constant values were read;
    `partial`: input indices read as (partial) shapes.
    """
    error = ShapeError(message)
    values = []
    for i in computed:
        v = inferred_value(op._inputs[i])
        if v is not None:
            values.append("input[%d] = <%s>" % (i, summarize_value(v)))
    shapes = []
    for i in partial:
        s = partial_shape_from_tensor(op._inputs[i])
        if s.ndims is not None:
            shapes.append("input[%d] = %s" % (i, s.debug_string()))
    note = ""
    if values:
        note += " and with computed input tensors: " + ", ".join(values)
    if shapes:
        # (TF really joins these with a bare comma.)
        note += " and with input tensors computed as partial shapes: " + ",".join(shapes)
    error.input_tensors_note = note
    return error


def input_value(op, index):
    """The build-time value of input `index` of `op` (a NumPy array), or None: what
    TensorFlow's shape inference computes (build_time_values.py)."""
    return inferred_value(op._inputs[index])


def partial_shape_from_tensor(tensor):
    """The TensorShape a 1-D shape tensor describes, as far as it is known at build time:
    TensorFlow's ConstantPartialShape, case by case in its order. `tf.shape(x)` (and a
    ShapeN's output) gives x's static shape, a slice of it the slice (`tf.shape(x)[1:]`),
    a Cast to an integer type its input's, a Pack of scalars (`[batch, 10]`) the known
    elements (a negative one unknown), a concat joins its parts; any other tensor gives
    its build-time value (build_time_values.py), -1 meaning an unknown dimension.
    """
    length = tensor.shape[0].value if tensor.shape.ndims == 1 else None
    op = getattr(tensor, "op", None)
    if tensor.shape.ndims == 0 or op is None:
        value = inferred_value(tensor)
        if tensor.shape.ndims == 0 or value is None:
            return tensor_shape.unknown_shape()
        return _shape_from_value(value)
    kind = op.type
    if length == 0:
        return tensor_shape.TensorShape([])
    if kind == "Cast":
        return _cast_partial_shape(tensor, length)
    if kind == "Shape":
        return op._inputs[0].shape
    if kind == "ShapeN":
        return op._inputs[tensor.value_index].shape
    if kind == "Pack" and tensor.shape.ndims == 1:
        dims = []
        for part in op._inputs:
            v = inferred_value(part)
            dims.append(None if v is None or np.size(v) != 1 or int(np.ravel(v)[0]) < 0
                        else int(np.ravel(v)[0]))
        return tensor_shape.TensorShape(dims)
    if kind in ("ConcatV2", "Concat"):
        parts = op._inputs[:-1] if kind == "ConcatV2" else op._inputs[1:]
        result = tensor_shape.TensorShape([])
        for part in parts:
            piece = partial_shape_from_tensor(part)
            if piece.ndims is None:
                return tensor_shape.unknown_shape()
            result = result.concatenate(piece)
        return result
    if kind == "StridedSlice":
        return _strided_slice_partial_shape(op)
    value = inferred_value(tensor)
    if value is None:
        return tensor_shape.unknown_shape(rank=length)
    return _shape_from_value(value)


def _shape_from_value(value):
    """TF's MakeShapeFromTensor: -1 is an unknown dimension, below that an error."""
    value = np.asarray(value)
    if value.ndim == 0:
        return tensor_shape.unknown_shape()
    if np.any(value < -1):
        raise ShapeTensorError("Invalid value in tensor used for shape: %d" % value[value < -1][0])
    return tensor_shape.TensorShape([None if d == -1 else int(d) for d in value])


def _cast_partial_shape(tensor, length):
    """A Cast of a shape: its own value if known, else its input's partial shape (for a
    cast to int32 or int64; to another type, only the rank)."""
    value = inferred_value(tensor)
    if value is not None:
        try:
            return _shape_from_value(value)
        except ValueError:
            pass                         # as TF, then try the input (a float shape, say)
    op = tensor.op
    try:
        before = partial_shape_from_tensor(op._inputs[0])
    except ValueError:
        return tensor_shape.unknown_shape(rank=length)
    if before.ndims is None:
        return before
    if op._attrs["DstT"].base_dtype not in (dtypes.int32, dtypes.int64):
        return tensor_shape.unknown_shape(rank=before.ndims)
    return before


def _strided_slice_partial_shape(op):
    """TF's PartialStridedSliceShape: `shape_tensor[begin:end:stride]` with one known
    begin, end and stride (begin_mask and end_mask may stand for them), applied to the
    partial shape the sliced tensor describes."""
    attrs = op._attrs
    if any(t.shape.ndims != 1 or t.shape[0].value != 1 for t in op._inputs[1:4]):
        return tensor_shape.unknown_shape()
    if attrs.get("begin_mask", 0) not in (0, 1) or attrs.get("end_mask", 0) not in (0, 1) \
            or attrs.get("ellipsis_mask", 0) or attrs.get("new_axis_mask", 0) or \
            attrs.get("shrink_axis_mask", 0):
        return tensor_shape.unknown_shape()
    bounds = []
    for index, mask, masked in ((1, "begin_mask", 0), (2, "end_mask", _INT64_MAX),
                                (3, None, None)):
        if mask is not None and attrs.get(mask, 0) == 1:
            bounds.append(masked)
            continue
        v = inferred_value(op._inputs[index])
        if v is None:
            return tensor_shape.unknown_shape()
        bounds.append(int(np.ravel(v)[0]))
    if bounds[2] == 0:
        return tensor_shape.unknown_shape()     # (the slice's own shape function refuses)
    return _subshape(partial_shape_from_tensor(op._inputs[0]), *bounds)


_INT64_MAX = (1 << 63) - 1


def _subshape(shape, start, end, stride):
    """TF's InferenceContext::Subshape, with its error texts."""
    start_in, end_in = start, end
    rank = shape.ndims
    if start == 0 and stride == 1 and ((rank is not None and end >= rank) or
                                       end == _INT64_MAX):
        return shape
    if rank is None:
        return tensor_shape.unknown_shape()
    start, end = min(start, rank), min(end, rank)
    if stride < 0 and start == rank:
        start -= 1
    if start < 0:
        start += rank
        if start < 0:
            raise ShapeTensorError("Subshape start out of bounds: %d, for shape with rank %d"
                             % (start_in, rank))
    if end < 0:
        end += rank
        if end < 0:
            raise ShapeTensorError("Subshape end out of bounds: %d, for shape with rank %d"
                             % (end_in, rank))
    if stride > 0 and start > end:
        raise ShapeTensorError("Subshape must have computed start <= end, but is %d and %d "
                         "(computed from start %d and end %d over shape with rank %d)"
                         % (start, end, start_in, end_in, rank))
    if stride < 0 and start < end:
        raise ShapeTensorError("Subshape must have computed start >= end since stride is "
                         "negative, but is %d and %d (computed from start %d and end %d "
                         "over shape with rank %d and stride%d)"
                         % (start, end, start_in, end_in, rank, stride))
    dims = shape.as_list()
    return tensor_shape.TensorShape(dims[start:end:stride] if stride > 0 else
                                    [dims[i] for i in range(start, end, stride)])


def check_axis(axis, rank, op, computed=()):
    """`axis` made non-negative, or TF's error for a scalar axis input outside [-rank, rank)."""
    if not -rank <= axis < rank:
        raise shape_error("Dimension size, given by scalar input %d must be in range "
                          "[-%d, %d)" % (axis, rank, rank), op, computed)
    return axis % rank if rank else axis


def merge_dims(a, b, index, shape_a, shape_b):
    """Two static dims that must agree (TF's Merge); TF's error text otherwise."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ShapeError("Dimension %d in both shapes must be equal, but are %d and %d. "
                     "Shapes are %s and %s." % (index, a, b, shape_a.debug_string(),
                                                 shape_b.debug_string()))

