"""`tf.keras.Input` / `InputLayer`: a placeholder that starts a functional graph.

`Input(shape=(784,))` makes a float32 placeholder of shape [None, 784] named `input_1`
(the 1 counts per graph), wrapped in an InputLayer so Models can find where they start.
A Sequential model whose first layer got `input_shape=` names it `<layer>_input`.
Eagerly (TF 2's way) it is a Keras tensor instead: a shape and a dtype, no placeholder
(engine/keras_tensor.py).
"""
import tfteach as tf
from tfteach.keras import backend
from tfteach.keras.engine.base_layer import Layer
from tfteach.keras.engine.keras_tensor import KerasTensor

__all__ = ["InputLayer", "Input"]


class InputLayer(Layer):
    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, batch_input_shape=None, **kwargs):
        if not name:
            name = "input_%d" % backend.get_uid("input")
        dtype = dtype or (input_tensor.dtype.base_dtype.name if input_tensor is not None
                          else backend.floatx())
        super().__init__(dtype=dtype, name=name)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        if input_tensor is None and backend.executing_eagerly():
            # Eagerly there are no placeholders: a Keras tensor (a shape and a dtype)
            # starts the functional graph; a Sequential model only needs the shape.
            if batch_input_shape is None:
                raise ValueError("An Input layer should be passed either a "
                                 "`batch_input_shape` or an `input_shape`.")
            self._batch_input_shape = tuple(batch_input_shape)
            self.built, self.sparse = True, sparse
            self._add_node([], [KerasTensor(batch_input_shape, dtype, name=name)])
            return
        if input_tensor is None:
            if batch_input_shape is None:
                raise ValueError("An Input layer should be passed either a "
                                 "`batch_input_shape` or an `input_shape`.")
            input_tensor = tf.placeholder(dtype, shape=batch_input_shape, name=name)
        self._batch_input_shape = (tuple(input_tensor.get_shape().as_list())
                                   if batch_input_shape is None
                                   else tuple(batch_input_shape))
        self.built = True
        self.sparse = sparse
        self._add_node([], [input_tensor])

    def get_config(self):
        return {"batch_input_shape": list(self._batch_input_shape), "dtype": self._dtype,
                "sparse": self.sparse, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          batch_shape=None, **kwargs):  # noqa: N802 - Keras' name
    """A placeholder ("Keras tensor") to build a functional Model from."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `batch_shape` "
                         "argument. Note that `shape` does not include the batch "
                         "dimension.")
    if shape is not None and not isinstance(shape, (list, tuple)):
        shape = (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                       sparse=sparse, input_tensor=tensor, batch_input_shape=batch_shape)
    return layer._inbound_nodes[0].output_tensors[0]
