"""TF 1.15's TensorArray ops, for GraphDefs TensorFlow wrote (graphs only, no Python
`tf.TensorArray` class): TensorArrayV3, ...ScatterV3, ...ReadV3, ...WriteV3,
...GatherV3, ...SizeV3, ...GradV3, ...CloseV3.

TensorFlow's `dynamic_rnn` keeps its input steps and its outputs in TensorArrays: a
list of tensors a while loop reads and writes one step at a time. Its handle is a
`resource` in TF; here the handle TensorArrayV3 makes is a Python object (`string`
dtype, so kept on the host, like a stack's: stack_ops.py), new in every run. The `flow`
tensor carries no data: it only orders the ops that use one array.

The gradient of an array is another array (`TensorArrayGradV3`, one per array and
`source`), found again by every op that asks for it in the same run; writes to a
gradient array add up, and reading a step nobody wrote gives zeros (when the element
shape is known), as in TF.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.registry import not_differentiable, register_op

__all__ = []

_FLOW = np.float32(0.0)


class _TensorArray:
    """One run's array: its values by index (None: not written yet)."""

    def __init__(self, name, size, dtype, element_shape, dynamic_size, is_gradient=False):
        self.name = name
        self.values = [None] * int(size)
        self.dtype = dtype
        self.element_shape = element_shape
        self.dynamic_size = dynamic_size
        self.is_gradient = is_gradient
        self.gradients = {}               # source -> gradient _TensorArray

    def _check_index(self, ctx, index):
        if index < 0 or (index >= len(self.values) and not self.dynamic_size):
            raise InvalidArgumentError(
                None, ctx.op, "TensorArray %s: Tried to write to index %d but array is not "
                "resizeable and size is: %d" % (self.name, index, len(self.values)))
        if index >= len(self.values):
            self.values.extend([None] * (index + 1 - len(self.values)))

    def write(self, ctx, index, value):
        self._check_index(ctx, index)
        value = np.asarray(value, dtype=self.dtype.as_numpy_dtype)
        old = self.values[index]
        if old is not None:
            if not self.is_gradient:
                raise InvalidArgumentError(
                    None, ctx.op, "TensorArray %s: Could not write to TensorArray index %d "
                    "because it has already been written to." % (self.name, index))
            value = old + value           # gradient arrays add up their writes
        self.values[index] = value

    def read(self, ctx, index):
        if index < 0 or index >= len(self.values):
            raise InvalidArgumentError(
                None, ctx.op, "Tried to read from index %d but array size is: %d"
                % (index, len(self.values)))
        value = self.values[index]
        if value is None:
            # Zeros of the element shape (a gradient nobody wrote), as TF does when the
            # shape is known.
            return np.zeros(self._zero_shape(ctx, index), self.dtype.as_numpy_dtype)
        return value

    def _zero_shape(self, ctx, index):
        if self.element_shape.is_fully_defined():
            return tuple(self.element_shape.as_list())
        written = [v for v in self.values if v is not None]
        if written and self.is_gradient:
            return written[0].shape
        raise InvalidArgumentError(
            None, ctx.op, "TensorArray %s: Could not read from TensorArray index %d.  "
            "Furthermore, the element shape is not fully defined: %s.  It is possible you "
            "are working with a resizeable TensorArray and stop_gradients is not allowing "
            "the gradients to be written.  If you set the full element_shape property on "
            "the forward TensorArray, the proper all-zeros tensor will be returned instead "
            "of incurring this error." % (self.name, index, _shape_text(self.element_shape)))


def _shape_text(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def _handle_and_flow(op):
    return [(dtypes.string, tensor_shape.scalar()), (dtypes.float32, tensor_shape.scalar())]


def _flow_only(op):
    return [(dtypes.float32, tensor_shape.scalar())]


def _element_shape_of(handle):
    """The element shape the array's creating op declares (unknown if none)."""
    op = handle.op
    while op.type == "TensorArrayGradV3":
        op = op._inputs[0].op
    shape = op._attrs.get("element_shape") if op.type == "TensorArrayV3" else None
    return shape if shape is not None else tensor_shape.unknown_shape()


def _create(ctx, size):
    attrs = ctx.attrs
    shape = attrs.get("element_shape") or tensor_shape.unknown_shape()
    name = attrs.get("tensor_array_name") or ctx.op.name
    return _TensorArray(name, size, attrs["dtype"], shape,
                        attrs.get("dynamic_size", False)), _FLOW


def _grad(ctx, array, flow):
    source = ctx.attrs.get("source", "")
    gradient = array.gradients.get(source)
    if gradient is None:
        gradient = array.gradients[source] = _TensorArray(
            "%s@%s" % (array.name, source), len(array.values), array.dtype,
            array.element_shape, array.dynamic_size, is_gradient=True)
    return gradient, _FLOW


def _scatter(ctx, array, indices, value, flow):
    for i, index in enumerate(np.asarray(indices).ravel()):
        array.write(ctx, int(index), value[i])
    return _FLOW


def _write(ctx, array, index, value, flow):
    array.write(ctx, int(index), value)
    return _FLOW


def _gather(ctx, array, indices, flow):
    indices = np.asarray(indices).ravel()
    if not len(indices):
        return np.zeros((0,) + tuple(array._zero_shape(ctx, 0)), array.dtype.as_numpy_dtype)
    return np.stack([array.read(ctx, int(i)) for i in indices])


register_op("TensorArrayV3", _handle_and_flow, cpu=_create, stateful=True)
register_op("TensorArrayGradV3", _handle_and_flow, cpu=_grad, stateful=True)
register_op("TensorArrayScatterV3", _flow_only, cpu=_scatter, stateful=True)
register_op("TensorArrayWriteV3", _flow_only, cpu=_write, stateful=True)
register_op("TensorArrayReadV3",
            lambda op: [(op._attrs["dtype"], _element_shape_of(op._inputs[0]))],
            cpu=lambda ctx, array, index, flow: array.read(ctx, int(index)), stateful=True)
register_op("TensorArrayGatherV3",
            lambda op: [(op._attrs["dtype"], tensor_shape.TensorShape([None]).concatenate(
                op._attrs.get("element_shape") or tensor_shape.unknown_shape()))],
            cpu=_gather, stateful=True)
register_op("TensorArraySizeV3", lambda op: [(dtypes.int32, tensor_shape.scalar())],
            cpu=lambda ctx, array, flow: np.int32(len(array.values)), stateful=True)
register_op("TensorArrayCloseV3", lambda op: [], cpu=lambda ctx, array: None, stateful=True)

# As in TF (tensor_array_grad.py). Read, Write, Scatter and Gather have gradients:
# tensor_array_grad.py.
for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3",
                 "TensorArrayCloseV3"):
    not_differentiable(_op_type)
