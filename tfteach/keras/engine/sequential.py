"""`tf.keras.Sequential`: a stack of layers, each fed the previous one's output.

With `input_shape=` on the first layer (or an Input/InputLayer first), the model is
built at once: an InputLayer named `<first layer>_input` and each layer called in turn,
so `summary()` works before training. Without it, the model is built by the first
`fit`/`predict`/call from the data's shape, as Keras does.

Eagerly the same code builds it: the InputLayer's output is then a Keras tensor, not a
placeholder (engine/keras_tensor.py), so the model is a graph network of Keras tensors as
in TF (TF 1.15's eager Sequential is one too): `input_shape`, `output_shape`, `input`,
`output` and each layer's shapes are known before any data runs.
"""
import tfteach as tf
from tfteach.keras import backend
from tfteach.keras.engine.base_layer import Layer
from tfteach.keras.engine.input_layer import InputLayer
from tfteach.keras.engine.training import Model

__all__ = ["Sequential"]


class Sequential(Model):
    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    def add(self, layer):
        history = getattr(layer, "_keras_history", None)
        if history is not None and isinstance(history[0], InputLayer):
            layer = history[0]                        # an Input(...) tensor, as TF 1.15
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Found: "
                            + str(layer))
        if not self._stack and isinstance(layer, InputLayer):
            self._stack.append(layer)
            self._start(layer._inbound_nodes[0].output_tensors[0])
            return
        self._stack.append(layer)
        if self.outputs:
            self._extend(layer)
        elif len(self._stack) == 1:
            batch_input_shape, dtype = _input_shape_and_dtype(layer)
            if batch_input_shape is not None:
                first = InputLayer(batch_input_shape=batch_input_shape, dtype=dtype,
                                   name=layer.name + "_input")
                self._start(first._inbound_nodes[0].output_tensors[0])
                self._extend(layer)

    def _build_eager_from_data(self, inputs):
        self._build_from_data(inputs)

    def _start(self, input_tensor):
        self.inputs, self.outputs = [input_tensor], [input_tensor]

    def _extend(self, layer):
        output = layer(self.outputs[0])
        if isinstance(output, (list, tuple)):
            raise TypeError("All layers in a Sequential model should have a single "
                            "output tensor. For multi-output layers, use the functional "
                            "API.")
        self._init_graph_network(self.inputs, [output])

    def pop(self):
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        if self.inputs and self._stack and not isinstance(self._stack[-1], InputLayer):
            self._init_graph_network(self.inputs, [self._stack[-1]._inbound_nodes[-1]
                                                   .output_tensors[0]])

    def build(self, input_shape=None):
        if self.outputs:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        first = self._stack[0]
        layer = InputLayer(batch_input_shape=tuple(tf.TensorShape(input_shape).as_list()),
                           name=first.name + "_input")
        self._start(layer._inbound_nodes[0].output_tensors[0])
        for layer in self._stack:
            self._extend(layer)

    def _build_from_data(self, x):
        if self.outputs:
            return
        if not self._stack:
            raise ValueError("The model has no layers: add some before fitting.")
        from tfteach.keras.engine import arrays
        first = arrays.as_list(x)[0]
        dtype = backend.floatx() if first.dtype.kind == "f" else tf.as_dtype(first.dtype)
        layer = InputLayer(batch_input_shape=(None,) + first.shape[1:], dtype=dtype,
                           name=self._stack[0].name + "_input")
        self._start(layer._inbound_nodes[0].output_tensors[0])
        for layer in self._stack:
            self._extend(layer)

    def call(self, inputs, training=None, mask=None):
        if self._is_graph_network:
            return super().call(inputs)
        outputs = inputs
        for layer in self.layers:
            outputs = layer(outputs)
        return outputs

    def get_config(self):
        configs = []
        for index, layer in enumerate(self.layers):
            config = layer.get_config()
            if index == 0 and self.inputs and "batch_input_shape" not in config:
                config["batch_input_shape"] = self.inputs[0].get_shape().as_list()
            configs.append({"class_name": type(layer).__name__, "config": config})
        return {"name": self.name, "layers": configs}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tfteach.keras.layers import deserialize
        entries = config["layers"] if isinstance(config, dict) else config
        model = cls(name=config.get("name") if isinstance(config, dict) else None)
        for entry in entries:
            model.add(deserialize(entry, custom_objects))
        return model


def _input_shape_and_dtype(layer):
    """The batch input shape and dtype `layer` was given, if any. A Sequential or
    functional model (`Sequential([base_model, Dense(1)])`) has those of its first layer,
    of the deepest model's first layer when models nest (TF 1.15's
    training_utils.get_input_shape_and_dtype)."""
    while isinstance(layer, Sequential) or getattr(layer, "_is_graph_network", False):
        if not layer.layers:
            raise ValueError("An empty Model cannot be used as a Layer.")
        layer = layer.layers[0]
    return layer._batch_input_shape, layer.dtype
