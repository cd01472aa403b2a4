"""`tf.keras.layers.Layer`, as TF 1.15's Keras builds it in graph mode.

Calling a layer on a tensor (1) the first time builds its weights (`build`), each an
ordinary `tf.Variable` named `<layer name>/<weight>` (`dense/kernel:0`), (2) adds the ops
of `call` under the name scope of the layer, and (3) records a *node*: which layer made
which output from which inputs. Those `_keras_history` links are what a functional
`Model(inputs, outputs)` walks to find its layers, as Keras does.

Layers only call public tfteach ops, so the same code runs eagerly once eager mode exists.
Note: TF 1.15's Keras creates resource variables; tfteach's are TF1 ref variables
(the same values, names and shapes; see docs/keras.md).
"""
import inspect
import re

import numpy as np

import tfteach as tf
from tfteach.framework import tensor_shape
from tfteach.keras import backend, initializers, regularizers
from tfteach.keras.engine import keras_tensor

__all__ = ["Layer", "Node", "InputSpec", "to_snake_case"]

_ALLOWED_KWARGS = {"input_shape", "batch_input_shape", "batch_size", "weights",
                   "activity_regularizer", "autocast", "dynamic"}


def to_snake_case(name):
    """'BatchNormalization' -> 'batch_normalization', 'Conv2D' -> 'conv2d' (Keras' rule)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


class InputSpec:
    """What inputs a layer accepts (ndim / min_ndim checked on call)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Node:
    """One call of a layer: input tensors -> output tensors (Keras' inbound node)."""

    def __init__(self, layer, inbound_tensors, output_tensors):
        self.layer = layer
        self.input_tensors = list(inbound_tensors)
        self.output_tensors = list(output_tensors)
        # (layer, node index, tensor index) of each input, from its _keras_history.
        self.inbound_history = [getattr(t, "_keras_history", None) for t in inbound_tensors]
        self.input_shapes = [_shape_tuple(t) for t in inbound_tensors]
        self.output_shapes = [_shape_tuple(t) for t in output_tensors]


def _shape_tuple(tensor):
    shape = tensor.get_shape()
    return None if shape.ndims is None else tuple(shape.as_list())


def _flatten(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Layer:
    """Base class: subclasses define `build(input_shape)` and `call(inputs, ...)`."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        for key in kwargs:
            if key not in _ALLOWED_KWARGS:
                raise TypeError("('Keyword argument not understood:', %r)" % key)
        self._trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else tf.as_dtype(dtype).base_dtype.name
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []
        self._layers = []           # sublayers assigned as attributes (subclassing)
        self._eager_penalties = []  # (regularizer, variable) recomputed eagerly
        self._inbound_nodes = []
        self._outbound_nodes = []
        self.input_spec = None
        self.supports_masking = False
        self._name = name or backend.unique_object_name(to_snake_case(type(self).__name__))
        self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
        self._initial_weights = kwargs.get("weights")
        batch_input_shape = kwargs.get("batch_input_shape")
        if batch_input_shape is None and kwargs.get("input_shape") is not None:
            batch_input_shape = ((kwargs.get("batch_size"),)
                                 + tuple(kwargs["input_shape"]))
        self._batch_input_shape = (None if batch_input_shape is None
                                   else tuple(batch_input_shape))
        self._call_takes_training = "training" in inspect.signature(self.call).parameters

    # -- attributes ---------------------------------------------------------------------
    def __setattr__(self, name, value):
        # Layers kept as attributes are tracked, so a subclassed Model finds its weights.
        # (also layers in a list, tuple or dict attribute, as Keras tracks them)
        if "_layers" in self.__dict__ and not name.startswith("_"):
            found = [value] if isinstance(value, Layer) or _is_rnn_cell(value) else \
                list(value.values()) if isinstance(value, dict) else \
                list(value) if isinstance(value, (list, tuple)) else []
            for item in found:
                if isinstance(item, Layer) and not any(item is l for l in self._layers):
                    self._layers.append(item)
                elif _is_rnn_cell(item) and not any(getattr(l, "cell", None) is item
                                                    for l in self._layers):
                    # a tf.nn cell is a layer in TF 1.15: its variables are ours
                    from tfteach.keras.engine.tracked_cell import TrackedCell
                    self._layers.append(TrackedCell(item))
        object.__setattr__(self, name, value)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = value
        for layer in self._layers:
            layer.trainable = value

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        weights = list(self._trainable_weights)
        for layer in self._layers:
            weights += [w for w in layer.trainable_weights if w not in weights]
        return weights

    @property
    def non_trainable_weights(self):
        weights = list(self._non_trainable_weights)
        if not self._trainable:
            weights = list(self._trainable_weights) + weights
        for layer in self._layers:
            weights += [w for w in layer.non_trainable_weights if w not in weights]
        return weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        updates = list(self._updates)
        for layer in self._layers:
            updates += layer.updates
        return updates

    @property
    def losses(self):
        losses = list(self._losses) + [r(v) for r, v in self._eager_penalties]
        for layer in self._layers:
            losses += layer.losses
        return losses

    # -- building blocks for subclasses ------------------------------------------------------
    def add_weight(self, name, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, **kwargs):
        """A `tf.Variable` named `<layer>/<name>`, initialized by `initializer`."""
        dtype = tf.as_dtype(dtype or self._dtype or backend.floatx()).base_dtype
        initializer = initializers.get(initializer or "glorot_uniform")
        shape = tuple(int(d) for d in (shape or ()))
        variable = tf.Variable(lambda: initializer(shape, dtype=dtype), name=name,
                               dtype=dtype, trainable=trainable, constraint=constraint)
        if regularizer is not None:
            regularizer = regularizers.get(regularizer)
            if backend.executing_eagerly():
                # a penalty tensor would be a fixed number: recompute it at each step
                self._eager_penalties.append((regularizer, variable))
            else:
                with tf.name_scope(name + "/Regularizer"):
                    self._losses.append(regularizer(variable))
        if trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    def add_update(self, updates, inputs=None):
        self._updates.extend(u for u in _flatten(updates) if u is not None)

    def add_loss(self, losses, inputs=None):
        self._losses.extend(_flatten(losses))

    def build(self, input_shape):
        self.built = True

    def _build_on_call(self, input_shape):
        self.build(input_shape)
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        """Keras infers it by building the layer on placeholders; subclasses override."""
        return input_shape

    # -- calling -------------------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        """Build on the first call, add the ops of `call`, record the node."""
        if keras_tensor.any_keras_tensor(inputs):
            return self._call_on_keras_tensors(inputs, args, kwargs)
        inputs = _convert_inputs(inputs)
        flat_inputs = _flatten(inputs)
        self._assert_input_compatibility(flat_inputs)
        if self._call_takes_training and kwargs.get("training") is None:
            kwargs["training"] = backend.learning_phase()
        with tf.name_scope(self._name):
            if not self.built:
                if self._dtype is None:
                    self._dtype = flat_inputs[0].dtype.base_dtype.name
                shapes = [t.get_shape() for t in flat_inputs]
                self._build_on_call(shapes if isinstance(inputs, (list, tuple))
                                    else shapes[0])
                if self._initial_weights is not None:
                    self.set_weights(self._initial_weights)
                    self._initial_weights = None
            outputs = self.call(inputs, *args, **kwargs)
            if self.activity_regularizer is not None:
                with tf.name_scope("ActivityRegularizer"):
                    for output in _flatten(outputs):
                        penalty = self.activity_regularizer(output)
                        batch = tf.cast(tf.shape(output)[0], penalty.dtype)
                        self._losses.append(penalty / batch)
        self._add_node(flat_inputs, outputs)
        return outputs

    def _call_on_keras_tensors(self, inputs, args, kwargs):
        """Eagerly, on an Input's Keras tensors (TF 2's functional API): build the
        weights from the shapes, find the outputs' shapes by tracing `call` (nothing
        runs), record the node a functional Model will replay on eager values."""
        flat_inputs = _flatten(inputs)
        if not all(keras_tensor.is_keras_tensor(x) for x in flat_inputs):
            raise TypeError("Layer %s was called on Keras tensors mixed with other values "
                            "(%s): give it only the outputs of Input or of other layers"
                            % (self.name, flat_inputs))
        self._assert_input_compatibility(flat_inputs)
        if not self.built:
            if self._dtype is None:
                self._dtype = flat_inputs[0].dtype.base_dtype.name
            shapes = [t.get_shape() for t in flat_inputs]
            with tf.name_scope(self._name):
                self._build_on_call(shapes if isinstance(inputs, (list, tuple))
                                    else shapes[0])
            if self._initial_weights is not None:
                self.set_weights(self._initial_weights)
                self._initial_weights = None
        if self._call_takes_training and kwargs.get("training") is None:
            kwargs["training"] = False       # the shapes do not depend on it

        def trace(graph_inputs):
            with tf.name_scope(self._name):
                return self.call(graph_inputs, *args, **kwargs)
        outputs = keras_tensor.infer_outputs(trace, inputs)
        self._add_node(flat_inputs, outputs)
        return outputs

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)

    def _add_node(self, flat_inputs, outputs):
        flat_outputs = _flatten(outputs)
        if not keras_tensor.recording_nodes():
            return      # a call traced only for its output shapes
        if backend.executing_eagerly() and not all(
                keras_tensor.is_keras_tensor(t) for t in flat_outputs):
            return      # eager values are not symbolic: there is no graph of layers
        node = Node(self, flat_inputs, flat_outputs)
        node_index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for history in node.inbound_history:
            if history is not None:
                history[0]._outbound_nodes.append(node)
        for i, tensor in enumerate(flat_outputs):
            tensor._keras_history = (self, node_index, i)

    def _assert_input_compatibility(self, flat_inputs):
        spec = self.input_spec
        if spec is None:
            return
        for tensor in flat_inputs:
            ndim = tensor.get_shape().ndims
            if ndim is None:
                continue
            if spec.ndim is not None and ndim != spec.ndim:
                raise ValueError("Input 0 of layer %s is incompatible with the layer: "
                                 "expected ndim=%d, found ndim=%d. Full shape received: %s"
                                 % (self.name, spec.ndim, ndim,
                                    tensor.get_shape().as_list()))
            if spec.min_ndim is not None and ndim < spec.min_ndim:
                raise ValueError("Input 0 of layer %s is incompatible with the layer: : "
                                 "expected min_ndim=%d, found ndim=%d. Full shape "
                                 "received: %s" % (self.name, spec.min_ndim, ndim,
                                                   tensor.get_shape().as_list()))

    # -- what a call made -------------------------------------------------------------------
    def _node_attr(self, attr, what):
        if not self._inbound_nodes:
            if attr.endswith("_shapes"):          # TF 1.15's words for the shapes
                raise AttributeError("The layer has never been called and thus has no "
                                     "defined %s shape." % what)
            raise AttributeError("Layer %s is not connected, no input to return."
                                 % self.name if what == "input" else
                                 "Layer %s has no inbound nodes." % self.name)
        values = getattr(self._inbound_nodes[0], attr)
        return values[0] if len(values) == 1 else values

    input = property(lambda self: self._node_attr("input_tensors", "input"))
    output = property(lambda self: self._node_attr("output_tensors", "output"))

    @property
    def input_shape(self):
        if not self._inbound_nodes and self._batch_input_shape is not None:
            return self._batch_input_shape
        return self._node_attr("input_shapes", "input")

    @property
    def output_shape(self):
        return self._node_attr("output_shapes", "output")

    # -- weights as NumPy ------------------------------------------------------------------
    def get_weights(self):
        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError('You called `set_weights(weights)` on layer "%s" with a weight '
                             "list of length %d, but the layer was expecting %d weights. "
                             "Provided weights: %s..." % (self.name, len(weights),
                                                          len(params), str(weights)[:50]))
        pairs = []
        for variable, value in zip(params, weights):
            value = np.asarray(value)
            expected = tuple(variable.get_shape().as_list())
            if expected != value.shape:
                raise ValueError("Layer weight shape %s not compatible with provided "
                                 "weight shape %s" % (expected, value.shape))
            pairs.append((variable, value))
        backend.batch_set_value(pairs)

    def count_params(self):
        if not self.built:
            raise ValueError("You tried to call `count_params` on " + self.name +
                             ", but the layer isn't built. You can build it manually "
                             "via: `" + self.name + ".build(batch_input_shape)`.")
        return int(sum(np.prod(w.get_shape().as_list(), dtype=np.int64)
                       for w in self.weights))

    # -- object-based checkpoints (tf.train.Checkpoint) -----------------------------------------
    def _checkpoint_dependencies(self):
        """The children tf.train.Checkpoint saves under this layer: its own weights by
        the attribute that holds them ('kernel', 'bias'), then its sublayers."""
        own = self._trainable_weights + self._non_trainable_weights
        named, seen = [], set()
        for attribute, value in vars(self).items():
            if any(value is w for w in own) and id(value) not in seen:
                named.append((attribute, value))
                seen.add(id(value))
        for weight in own:
            if id(weight) not in seen:
                named.append((weight.name.split("/")[-1].split(":")[0], weight))
        return named + self._sublayer_dependencies()

    def _sublayer_dependencies(self):
        return [(attribute, value) for attribute, value in vars(self).items()
                if not attribute.startswith("_") and (
                    isinstance(value, Layer) or (isinstance(value, (list, tuple)) and value
                                                 and all(isinstance(v, Layer)
                                                         for v in value)))]

    # -- configuration (saved in HDF5 files) ---------------------------------------------------
    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self._dtype or backend.floatx()}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = list(self._batch_input_shape)
        return config

    @classmethod
    def from_config(cls, config):
        """A layer from its config; keys this Keras does not know (a newer Keras'
        'module', 'registered_name' ...) are dropped rather than refused."""
        known = set(_ALLOWED_KWARGS) | {"name", "trainable", "dtype"}
        for klass in cls.__mro__:
            if "__init__" in vars(klass):
                known |= set(inspect.signature(klass.__init__).parameters)
        config = {k: v for k, v in dict(config).items() if k in known
                  and k not in ("self", "kwargs")}
        return cls(**config)

    def __repr__(self):
        return "<tf.keras.layers.%s %r>" % (type(self).__name__, self._name)


def _is_rnn_cell(value):
    from tfteach.keras.engine.tracked_cell import is_rnn_cell
    return is_rnn_cell(value)


def _convert_inputs(inputs):
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_convert_inputs(x) for x in inputs)
    if isinstance(inputs, tf.Variable):
        return inputs.value()
    if not isinstance(inputs, tf.Tensor):
        return tf.convert_to_tensor(inputs, dtype=backend.floatx()
                                    if np.asarray(inputs).dtype.kind == "f" else None)
    return inputs


def shape_list(shape):
    """A TensorShape, tuple or list -> list of ints/None."""
    return tensor_shape.as_shape(shape).as_list()
