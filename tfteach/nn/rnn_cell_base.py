"""The base of every RNN cell: how a cell finds its variable scope, its zero state.

A cell owns its variables the way a TF1 layer does:
  - the first call picks the cell's variable scope: the cell's name (`basic_lstm_cell`,
    made unique: `basic_lstm_cell_1`) under the variable scope current at that call
    (`rnn/basic_lstm_cell`), or the `scope=` given;
  - `build(inputs_shape)` then creates the variables with `tf.get_variable` there;
  - every later call reuses those variables, whatever scope it is made in. Two cell
    objects are two sets of weights.
Also here: LSTMStateTuple, and the zero state (zeros [batch, s] per state part).
"""
import collections
import re

import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import array_ops, math_ops, nest
from tfteach.ops import variable_scope as vs
from tfteach.ops.constant_op import constant
from tfteach.ops.op_builder import constant_value

__all__ = ["RNNCell", "LayerRNNCell", "LSTMStateTuple", "assert_like_rnncell"]


def _snake_case(name):
    """TF's layer naming: BasicLSTMCell -> basic_lstm_cell."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def assert_like_rnncell(cell_name, cell):
    """TF's duck-typing check of a cell argument (TypeError with TF's text)."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required",
              "is not callable"]
    if not all(conditions):
        errors = [e for e, ok in zip(errors, conditions) if not ok]
        raise TypeError("The argument {!r} ({}) is not an RNNCell: {}.".format(
            cell_name, cell, ", ".join(errors)))


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but saw dtype: %s"
                         % dtype)


def _activation(activation):
    """None -> tanh; a string names an activation of tf.nn / tf.math, as Keras allows."""
    if activation is None:
        return math_ops.tanh
    if callable(activation):
        return activation
    from tfteach import nn          # tf.nn is complete once the cells are called
    fn = getattr(nn, activation, None) or getattr(math_ops, activation, None)
    if fn is None:
        raise ValueError("Unknown activation function: %s" % activation)
    return fn


def _bias_add(value, bias):
    """TF's cells call nn.bias_add; the broadcasting add computes the same numbers."""
    from tfteach import nn
    bias_add = getattr(nn, "bias_add", None)
    return bias_add(value, bias) if bias_add is not None else math_ops.add(value, bias)

# -- zero states ---------------------------------------------------------------------------
def _concat(prefix, suffix):
    """[prefix..., suffix...] as a Python list when both are static, else an int32 tensor."""
    p_static = constant_value(prefix) if isinstance(prefix, Tensor) else prefix
    if p_static is not None:
        p_static = [int(d) for d in np.asarray(p_static).reshape(-1)]
    s_static = tensor_shape.as_shape(suffix).as_list()
    if p_static is not None:
        return p_static + s_static
    p = prefix if prefix.shape.ndims == 1 else array_ops.expand_dims(prefix, 0)
    return array_ops.concat([p, constant(s_static, dtype=dtypes.int32)], 0)


def _static_batch(batch_size):
    value = constant_value(batch_size) if isinstance(batch_size, Tensor) else batch_size
    return None if value is None else int(value)


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros [batch_size, s] for every s in the (nested) state_size."""
    def zeros(s):
        result = array_ops.zeros(_concat(batch_size, s), dtype=dtype)
        result.set_shape([_static_batch(batch_size)] + tensor_shape.as_shape(s).as_list())
        return result
    return nest.map_structure(zeros, state_size)


# -- LSTM state -----------------------------------------------------------------------------
_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM's state: `c` (the memory cell) and `h` (the output), in that order."""
    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (str(c.dtype),
                                                                      str(h.dtype)))
        return c.dtype


# -- the base class ---------------------------------------------------------------------------
class RNNCell:
    """Abstract cell: subclasses define state_size, output_size and call(inputs, state).

    A subclass may create variables in `call` with tf.get_variable (TF1's old style):
    they live in the cell's scope, and calls after the first reuse them.
    """

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, **kwargs):
        self.trainable = trainable
        self._base_name = name or _snake_case(type(self).__name__)
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._reuse = _reuse
        self._scope = None              # the cell's VariableScope, fixed by the first call
        self._rnncell_scope = None      # the variable scope current at the first call
        self.built = False
        self._trainable_weights = []
        self._non_trainable_weights = []

    # -- the TF1 interface ------------------------------------------------------------------
    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def name(self):
        return self._base_name

    @property
    def dtype(self):
        return self._dtype

    @property
    def scope_name(self):
        return self._scope.name if self._scope is not None else None

    def build(self, inputs_shape):
        pass

    def call(self, inputs, state):
        raise NotImplementedError("Abstract method")

    def zero_state(self, batch_size, dtype):
        """Zeros shaped like the state: [batch_size, s] for each s in state_size."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            batch_size = inputs.shape[0].value
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing "
                             "initial state: batch_size={}, dtype={}".format(batch_size,
                                                                             dtype))
        return self.zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        return list(self._non_trainable_weights)

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights
    trainable_variables = trainable_weights

    # -- calling: the scopes ----------------------------------------------------------------
    def __call__(self, inputs, state, scope=None):
        """(output, new_state) for one step. `scope`: where the variables go."""
        if scope is not None:
            with vs.variable_scope(scope) as scope:
                return self._call_in_own_scope(inputs, state, scope)
        # TF1 remembers the variable scope of the first call and re-enters it each time.
        if self._rnncell_scope is None:
            self._rnncell_scope = vs.get_variable_scope()
        with vs.variable_scope(self._rnncell_scope):
            return self._call_in_own_scope(inputs, state, None)

    def _set_scope(self, scope):
        if self._scope is not None:
            return
        if self._reuse:
            with vs.variable_scope(scope if scope is not None else self._base_name) as s:
                self._scope = s
        else:
            with vs.variable_scope(scope, default_name=self._base_name) as s:
                self._scope = s

    def _call_in_own_scope(self, inputs, state, scope):
        """TF1 Layer.__call__: build once in the cell's scope, then run `call` there."""
        self._set_scope(scope)
        inputs = nest.map_structure(convert_to_tensor, inputs)
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False), \
                name_scope(self._scope.original_name_scope):
            if not self.built:
                first = nest.flatten(inputs)[0]
                if self._dtype is None:
                    self._dtype = first.dtype.base_dtype
                self._check_input_rank(inputs)
                self.build(nest.map_structure(lambda t: tuple(t.shape.as_list())
                                              if t.shape.ndims is not None else None,
                                              inputs))
                self.built = True
            return self.call(inputs, state)

    def _check_input_rank(self, inputs):
        pass

    def add_variable(self, name, shape, initializer=None, dtype=None, trainable=True):
        """A variable of the cell: tf.get_variable in the cell's scope (build only)."""
        trainable = trainable and self.trainable
        variable = vs.get_variable(name, shape=shape, dtype=dtype or self._dtype,
                                   initializer=initializer, trainable=trainable)
        target = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in target):
            target.append(variable)
        return variable

    add_weight = add_variable


class LayerRNNCell(RNNCell):
    """A cell whose variables are made in `build` (all of TF's own cells)."""

    def __call__(self, inputs, state, scope=None):
        # TF's LayerRNNCell skips RNNCell's scope capture: the scope is chosen under the
        # variable scope current at the first call.
        return self._call_in_own_scope(inputs, state, scope)

    def _check_input_rank(self, inputs):
        for i, t in enumerate(nest.flatten(inputs)):
            if t.shape.ndims is not None and t.shape.ndims != 2:
                raise ValueError(
                    "Input %d of layer %s is incompatible with the layer: expected ndim=2, "
                    "found ndim=%d. Full shape received: %s"
                    % (i, self._base_name, t.shape.ndims, t.shape.as_list()))

    def _input_depth(self, inputs_shape):
        if inputs_shape is None or inputs_shape[-1] is None:
            raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s"
                             % str(inputs_shape))
        _check_supported_dtypes(self._dtype)
        return inputs_shape[-1]


def _check_rnn_cell_input_dtypes(inputs):
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)
