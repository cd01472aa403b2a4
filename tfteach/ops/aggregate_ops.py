"""Summing a list of tensors: `tf.add_n` and `tf.accumulate_n`.

Unlike `+`, these do not broadcast: every input must have the same dtype and the same
shape. The static check reproduces TF's C++ shape merging and its messages.
"""
import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu.cwise import shape_string
from tfteach.ops.constant_op import identity
from tfteach.ops.op_builder import ShapeError, apply_op, merge_shapes
from tfteach.ops.typed_inputs import check_same_type_list

__all__ = ["add_n", "accumulate_n"]

_INPUTS_ERROR = ("inputs must be a list of at least one Tensor/IndexedSlices with the same "
                 "dtype and shape")


def _sum_shape(op):
    """AddN's shape function: merge every input's shape, from the last one back."""
    shapes = [t.shape for t in op._inputs]
    merged = op._attrs.get("shape", tensor_shape.unknown_shape())
    for shape in reversed(shapes):
        if shape.ndims is not None:
            merged = merge_shapes(merged, shape)
            break
    for i in range(len(shapes) - 1, -1, -1):
        try:
            merged = merge_shapes(shapes[i], merged)
        except ShapeError as e:
            # TF appends context to a C++ error on a new, tab-indented line.
            raise ShapeError("%s\n\tFrom merging shape %d with other shapes." % (e, i)) from None
    return [(op._inputs[0].dtype.base_dtype, merged)]


def _sum_kernel(ctx, *inputs):
    if len(inputs) == 2:
        # The common case (a gradient summed from two readers: four times a time step in
        # an LSTM's gradient loop): np.add itself, ~1.7 us instead of ~4.8. Every run
        # path (executor, eager, loop runner) already has NumPy's warnings off, as for
        # every float kernel (cwise.quiet_ufunc_kernel); the same ufunc, the same bits.
        x, y = inputs
        if type(x) is np.ndarray and type(y) is np.ndarray and x.shape == y.shape:
            return np.add(x, y)
    elif len(inputs) > 2 and _arrays_alike(inputs):
        # More inputs (a GRU's gradient loop sums three, three times a time step): the
        # same additions in the same order, each next one into the first sum's array
        # rather than into a new one, and without the errstate below (as above).
        total = np.add(inputs[0], inputs[1])
        for value in inputs[2:]:
            np.add(total, value, out=total)
        return total
    if len(inputs) == 1:
        # N = 1 (TF allows it; add_n itself returns its one tensor, but an imported
        # GraphDef may hold such a node): TF forwards the input as the output.
        return np.asarray(inputs[0])
    first = np.shape(inputs[0])
    for i, value in enumerate(inputs[1:], 1):
        if np.shape(value) != first:
            raise InvalidArgumentError(
                None, ctx.op, "Inputs to operation %s of type %s must have the same size and "
                "shape.  Input 0: %s != input %d: %s" % (ctx.op.name, ctx.op.type,
                                                         shape_string(inputs[0]), i,
                                                         shape_string(value)))
    with np.errstate(all="ignore"):
        total = inputs[0] + inputs[1]
        for value in inputs[2:]:
            total = total + value
    return total


def _arrays_alike(inputs):
    """True when the inputs are arrays (not 0-d: their sum is a NumPy scalar) of one
    shape and dtype, so that the sum can be added into in place."""
    first = inputs[0]
    if type(first) is not np.ndarray or first.ndim == 0:
        return False
    shape, dtype = first.shape, first.dtype
    for value in inputs[1:]:
        if type(value) is not np.ndarray or value.shape != shape or value.dtype != dtype:
            return False
    return True


register_op("AddN", _sum_shape, cpu=_sum_kernel)
register_op("AccumulateNV2", _sum_shape, cpu=_sum_kernel)


def _tensors_of(inputs):
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(_INPUTS_ERROR)
    return [convert.convert_to_tensor(v) for v in inputs]


def add_n(inputs, name=None):
    """The elementwise sum of a list of same-shape, same-dtype tensors (`AddN`)."""
    tensors = _tensors_of(inputs)
    if len(tensors) == 1:
        return identity(tensors[0], name=name) if name else tensors[0]
    with name_scope(name, "AddN", tensors) as scope:
        dtype = check_same_type_list("AddN", "inputs", tensors, "number")
        return apply_op("AddN", tensors, {"N": len(tensors), "T": dtype}, scope)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Like `add_n` (TF may add the inputs as they arrive; the sum is the same)."""
    tensors = _tensors_of(inputs)
    if not all(t.dtype == tensors[0].dtype for t in tensors):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    for t in tensors:
        shape = shape.merge_with(t.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != tensors[0].dtype:
        raise TypeError("tensor_dtype is {}, but input is of type {}".format(
            tensor_dtype, tensors[0].dtype))
    if len(tensors) == 1:
        return identity(tensors[0], name=name) if name is not None else tensors[0]
    with name_scope(name, "AccumulateNV2", tensors) as scope:
        dtype = check_same_type_list("AccumulateNV2", "inputs", tensors, "number")
        return apply_op("AccumulateNV2", tensors, {"N": len(tensors), "T": dtype,
                                                   "shape": shape}, scope)
