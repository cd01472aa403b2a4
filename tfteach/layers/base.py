"""`tf.layers.Layer`: the base class of TF 1.15's layers (tensorflow/python/layers/base.py).

A layer is a Python object that, when called on a tensor, (1) the first time only,
creates its variables with `tf.get_variable` inside its own variable scope (`build`),
then (2) adds the ops that compute its output (`call`). Everything it makes is an
ordinary graph node you could have written by hand; the layer only chooses names:

    layer name   'dense', 'dense_1', ...   (per graph, like Keras' unique_object_name)
    variable     <variable scope>/dense/kernel:0   (variable scope made unique on the
                 first call, or the `name=` you gave, which is entered when the layer
                 is *constructed*, exactly as TF1 does)
    ops          dense/MatMul, dense/BiasAdd ... (the scope's original name scope; a
                 second call reuses the same variables and makes dense/MatMul_1)

Reuse follows `tf.variable_scope`: `reuse=True` / `tf.AUTO_REUSE` (given to the layer
function, or inherited from an enclosing scope) makes `get_variable` return the
existing variables instead of creating new ones.
"""
import functools
import re

import numpy as np

import tfteach as tf
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import op_builder
from tfteach.ops import variable_scope as vs
from tfteach.ops.variables import Variable

__all__ = ["Layer", "InputSpec"]

# Keras' keyword arguments a layer accepts besides its own (others are a TypeError).
_ALLOWED_KWARGS = {"input_shape", "batch_input_shape", "batch_size", "weights",
                   "activity_regularizer", "autocast", "dynamic"}


def to_snake_case(name):
    """'BatchNormalization' -> 'batch_normalization', 'Conv2D' -> 'conv2d' (Keras' rule)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def unique_layer_name(base_name):
    """'dense', then 'dense_1', 'dense_2', ... in the default graph (zero based)."""
    graph = graph_lib.get_default_graph()
    uids = getattr(graph, "_layer_name_uids", None)
    if uids is None:
        uids = graph._layer_name_uids = {}
    count = uids.get(base_name, 0)
    uids[base_name] = count + 1
    return base_name if count == 0 else "%s_%d" % (base_name, count)


def static_bool(pred):
    """True/False when `pred` (a Python bool or bool tensor) is known now, else None.

    TF's `smart_cond` rule: a Python bool (or 0/1) or a constant tensor decides while the
    graph is built; anything else (a placeholder) is decided per run by `tf.cond`.
    """
    if isinstance(pred, (bool, np.bool_)) or (isinstance(pred, int) and pred in (0, 1)):
        return bool(pred)
    if isinstance(pred, Variable):
        pred = pred.value()
    if not isinstance(pred, Tensor):
        raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found "
                        "instead: %s" % type(pred))
    if pred.dtype.base_dtype != dtypes.bool:
        raise TypeError("`pred` must be a Tensor of type bool, found %s" % pred.dtype.name)
    value = op_builder.constant_value(pred)
    return None if value is None else bool(value)


def smart_cond(pred, true_fn, false_fn, name=None):
    """`true_fn()` or `false_fn()` now if `pred` is static, else `tf.cond(pred, ...)`."""
    value = static_bool(pred)
    if value is None:
        return tf.cond(pred, true_fn, false_fn, name=name)
    return true_fn() if value else false_fn()


class InputSpec:
    """What inputs a layer accepts: ranks and sizes of axes, checked by every call
    (`assert_input_compatibility`) before the layer builds or adds ops."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


def assert_input_compatibility(spec, inputs, layer_name):
    """TF 1.15's check of a layer's inputs against its InputSpec, with its words (the
    double colon before "expected min_ndim" is TF's)."""
    if spec is None:
        return
    for index, x in enumerate(inputs if isinstance(inputs, (list, tuple)) else [inputs]):
        shape = x.get_shape()
        ndim = shape.ndims
        start = "Input %d of layer %s is incompatible with the layer: " % (index, layer_name)
        if ndim is None:
            if spec.ndim is not None or spec.min_ndim is not None or \
                    spec.max_ndim is not None:
                raise ValueError(start + "its rank is undefined, but the layer requires a "
                                 "defined rank.")
            continue
        if spec.ndim is not None and ndim != spec.ndim:
            raise ValueError(start + "expected ndim=%d, found ndim=%d. Full shape received: "
                             "%s" % (spec.ndim, ndim, shape.as_list()))
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(start + "expected max_ndim=%d, found ndim=%d"
                             % (spec.max_ndim, ndim))
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(start + ": expected min_ndim=%d, found ndim=%d. Full shape "
                             "received: %s" % (spec.min_ndim, ndim, shape.as_list()))
        dims = shape.as_list()
        for axis, value in spec.axes.items():
            if value is not None and dims[int(axis)] not in (value, None):
                raise ValueError("Input %d of layer %s is incompatible with the layer: "
                                 "expected axis %s of input shape to have value %s but "
                                 "received input with shape %s"
                                 % (index, layer_name, axis, value, dims))


class Layer:
    """Base class: subclasses define `build(input_shape)` and `call(inputs, ...)`."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        # tfteach's stand-in for a variable scope's custom_getter: slim uses it to name
        # the variables 'weights'/'biases' and put them in MODEL_VARIABLES.
        self._custom_getter = kwargs.pop("_custom_getter", None)
        for key in kwargs:
            if key not in _ALLOWED_KWARGS:
                raise TypeError("('Keyword argument not understood:', %r)" % key)
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []
        self.input_spec = None
        self._graph = graph_lib.get_default_graph()
        self._init_set_name(name)
        # A name given by the caller becomes the variable scope right now (TF1 does
        # this in the constructor, so the name scope is taken at construction time).
        self._scope = None
        if scope:
            with vs.variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        self._current_scope = None

    def _init_set_name(self, name):
        if isinstance(name, vs.VariableScope):
            self._base_name = name.name
            self._name = unique_layer_name(to_snake_case(type(self).__name__))
        elif name:
            self._base_name = self._name = name
        else:
            self._base_name = to_snake_case(type(self).__name__)
            self._name = unique_layer_name(self._base_name)

    # -- what the layer owns ----------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    updates = property(lambda self: list(self._updates))
    losses = property(lambda self: list(self._losses))
    activity_regularizer = property(lambda self: self._activity_regularizer)

    @property
    def scope_name(self):
        if not self._scope:
            raise ValueError('No name available for layer scope because the layer "'
                             + self._name + '" has not been used yet. The scope name is '
                             'determined the first time the layer instance is called. You '
                             'must therefore call the layer before querying `scope_name`.')
        return self._scope.name

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    # -- scopes --------------------------------------------------------------------------
    def _set_scope(self, scope=None):
        """Fix the variable scope on first use: `dense`, `dense_1`, ... unless named."""
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None
                                       else self._base_name) as captured_scope:
                    self._scope = captured_scope
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    def _name_scope(self):
        # 'dense/' (trailing slash) re-enters the scope's own name scope verbatim.
        return self._current_scope.original_name_scope

    # -- building blocks for subclasses -----------------------------------------------------
    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, partitioner=None, use_resource=None,
                   **kwargs):
        """A variable `<layer scope>/name` from `tf.get_variable` (shared when reusing)."""
        if trainable is None:
            trainable = True
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        existing = set(tf.global_variables())
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse,
                               auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(self._name_scope()):
                getter = vs.get_variable
                if self._custom_getter is not None:
                    getter = functools.partial(self._custom_getter, vs.get_variable)
                variable = getter(
                    name, shape=shape, dtype=dtype, initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    collections=kwargs.get("collections"))
                # The penalty is added once, when the variable is created, not when a
                # reusing layer fetches it again (TF's `_should_add_regularizer`).
                if regularizer is not None and variable not in existing:
                    with name_scope(name + "/Regularizer"):
                        loss = regularizer(variable)
                    if loss is not None:
                        self.add_loss(loss)
        if trainable and self.trainable and variable in tf.trainable_variables():
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    add_variable = add_weight

    def add_loss(self, losses, inputs=None):
        """Record losses; TF1 layers also put them in REGULARIZATION_LOSSES."""
        losses = losses if isinstance(losses, (list, tuple)) else [losses]
        for loss in losses:
            self._losses.append(loss)
            _add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates, inputs=None):
        """Record update ops; `__call__` adds them to UPDATE_OPS (e.g. moving averages)."""
        updates = updates if isinstance(updates, (list, tuple)) else [updates]
        self._updates.extend(u for u in updates if u is not None)

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        """Build on the first call (variables), then add the ops computing the output."""
        scope = kwargs.pop("scope", None)
        if not isinstance(inputs, (Tensor, Variable, list, tuple)):
            inputs = tf.convert_to_tensor(inputs)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        updates_before = len(self._updates)
        with vs.variable_scope(self._scope, reuse=reuse,
                               auxiliary_name_scope=False) as current:
            self._current_scope = current
            with name_scope(self._name_scope()):
                assert_input_compatibility(self.input_spec, inputs, self.name)
                if not self.built:
                    first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
                    if self._dtype is None and hasattr(first, "dtype"):
                        self._dtype = first.dtype.base_dtype
                    shapes = ([tensor_shape.as_shape(t.get_shape()) for t in inputs]
                              if isinstance(inputs, (list, tuple)) else inputs.get_shape())
                    self.build(shapes)
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                self._handle_activity_regularization(outputs)
        for update in self._updates[updates_before:]:
            _add_to_collection(GraphKeys.UPDATE_OPS, update)
        return outputs

    def apply(self, inputs, *args, **kwargs):
        """Same as calling the layer (TF1's spelling)."""
        return self.__call__(inputs, *args, **kwargs)

    def _handle_activity_regularization(self, outputs):
        """A penalty on the output, divided by the batch size (Keras' rule)."""
        if self._activity_regularizer is None:
            return
        with name_scope("ActivityRegularizer"):
            for output in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                loss = self._activity_regularizer(output)
                batch_size = tf.cast(tf.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch_size)

    def __repr__(self):
        return "<tf.layers.%s %r>" % (type(self).__name__, self._name)


def _add_to_collection(key, value):
    """Add once (a layer called twice must not run its update twice per step)."""
    collection = tf.get_collection_ref(key)
    if not any(value is v for v in collection):
        collection.append(value)
