"""Helpers the array ops' shape functions share: TF's shape-inference vocabulary.

TensorFlow's C++ shape functions read some inputs' *values* when they are known at build
time (the `shape` of a reshape, the `axis` of a concat). When such a function fails, TF
adds what it read to the message: `... and with computed input tensors: input[1] = <0 1 3>.`
or `... and with input tensors computed as partial shapes: input[1] = [?,4].`.
`shape_error` builds that error; `partial_shape_from_tensor` is TF's
`MakeShapeFromShapeTensor` (a shape given as a tensor, possibly partly known).
"""
import numpy as np

from tfteach.framework import tensor_shape
from tfteach.ops.op_builder import ShapeError, constant_value

__all__ = ["shape_error", "summarize_value", "input_value", "partial_shape_from_tensor",
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
        v = constant_value(op._inputs[i])
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
    """The build-time value of input `index` of `op` (a NumPy array), or None."""
    return constant_value(op._inputs[index])


def partial_shape_from_tensor(tensor):
    """The TensorShape a 1-D shape tensor describes, as far as it is known at build time.

    A constant gives its values (-1 meaning unknown); `tf.shape(x)` gives x's static shape;
    a Pack of scalars (`[batch, 10]`) gives the known elements; a concat joins its parts.
    """
    value = constant_value(tensor)
    if value is not None:
        value = np.asarray(value)
        if value.ndim == 0:
            return tensor_shape.unknown_shape()
        if np.any(value < -1):
            raise ValueError("Invalid value in tensor used for shape: %d" % value[value < -1][0])
        return tensor_shape.TensorShape([None if d == -1 else int(d) for d in value])
    op = tensor.op
    if op.type == "Shape":
        return op._inputs[0].shape
    if op.type == "Pack" and tensor.shape.ndims == 1:
        dims = []
        for part in op._inputs:
            v = constant_value(part)
            dims.append(None if v is None or int(v) == -1 else int(v))
        return tensor_shape.TensorShape(dims)
    if op.type == "ConcatV2":
        result = tensor_shape.TensorShape([])
        for part in op._inputs[:-1]:
            result = result.concatenate(partial_shape_from_tensor(part))
        return result
    length = tensor.shape[0].value if tensor.shape.ndims == 1 else None
    return tensor_shape.unknown_shape(rank=length)


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

