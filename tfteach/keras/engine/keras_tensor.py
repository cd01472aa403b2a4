"""Keras tensors: what `keras.Input` returns when ops execute eagerly (TF 2's way).

Eagerly there are no placeholders, yet a functional model is written by calling layers
on an Input. As TF 2 does, `Input(shape=(8,))` then returns a *Keras tensor*: only a
shape, a dtype and the `_keras_history` link to the layer call that made it. Calling a
layer on Keras tensors builds the layer's (eager) weights from the shapes, finds the
output's shape and dtype by tracing the layer's `call` once into a scratch FuncGraph
(the graph a tf.function traces: it captures the eager weights; nothing runs) and
records the node. `Model(inputs, outputs)` walks those nodes as in graph mode and,
called on eager values, replays them layer by layer (engine/network.py).
"""
import contextlib

import tfteach as tf

__all__ = ["KerasTensor", "is_keras_tensor", "any_keras_tensor", "infer_outputs",
           "recording_nodes"]

_NOT_RECORDING = [False]


@contextlib.contextmanager
def _no_node_recording():
    """While a call is traced only for its shapes, the layers it calls record no nodes
    (those graph tensors would be no part of any model)."""
    previous = _NOT_RECORDING[0]
    _NOT_RECORDING[0] = True
    try:
        yield
    finally:
        _NOT_RECORDING[0] = previous


def recording_nodes():
    return not _NOT_RECORDING[0]


class KerasTensor:
    """A symbolic value: shape and dtype, no data (TF 2's KerasTensor)."""

    def __init__(self, shape, dtype, name=None):
        self._shape = tf.TensorShape(shape)
        self.dtype = tf.as_dtype(dtype).base_dtype
        self.name = name

    shape = property(lambda self: self._shape)

    def get_shape(self):
        return self._shape

    def __repr__(self):
        layer = getattr(self, "_keras_history", (None,))[0]
        shape = tuple(self._shape.as_list()) if self._shape.ndims is not None else None
        created = "" if layer is None else " (created by layer '%s')" % layer.name
        return "<KerasTensor: shape=%s dtype=%s%s>" % (shape, self.dtype.name, created)

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "A Keras tensor (eager functional models) takes Keras layers only: use a "
            "layer (Add, Concatenate, Activation, Reshape, ...) instead of a TensorFlow "
            "op or operator, or build the model in graph mode (`import tfteach as tf`)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __matmul__ = __neg__ = __getitem__ = _refuse

    def numpy(self):
        raise TypeError("A Keras tensor is symbolic (an Input of a functional model): it "
                        "has no value. Call the model on data instead.")


def is_keras_tensor(value):
    return isinstance(value, KerasTensor)


def any_keras_tensor(inputs):
    flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    return any(isinstance(x, KerasTensor) for x in flat)


def infer_outputs(call, inputs):
    """Keras tensors shaped like what `call(graph inputs)` returns, found by tracing it
    into a FuncGraph fed placeholders of the inputs' shapes and dtypes."""
    from tfteach.eager.concrete_function import FuncGraph
    from tfteach.keras import backend
    graph = FuncGraph("keras_output_spec")
    with graph.as_default(), _no_node_recording():
        # the layers a nested model calls run as in inference: no moving-average updates
        # (ops of this scratch graph) are added to eager layers
        backend._graph_state("fixed_learning_phase", lambda: [None])[0] = False
        if isinstance(inputs, (list, tuple)):
            placeholders = type(inputs)(tf.placeholder(x.dtype, x.shape) for x in inputs)
        else:
            placeholders = tf.placeholder(inputs.dtype, inputs.shape)
        outputs = call(placeholders)
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(KerasTensor(o.get_shape(), o.dtype) for o in outputs)
    return KerasTensor(outputs.get_shape(), outputs.dtype)
