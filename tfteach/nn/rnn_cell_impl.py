"""`tf.nn.rnn_cell`: one step of a recurrent network, as TF 1.15 defines it.

A cell is `output, new_state = cell(inputs, state)` for ONE time step of a batch:
inputs [batch, input_size], state [batch, state_size] (or a tuple of such tensors, e.g.
`LSTMStateTuple(c, h)`). `tf.nn.dynamic_rnn` / `static_rnn` (nn/rnn.py) call it once per
step. On its first call a cell creates its variables (rnn_cell_base.py says where):
`kernel` [input_size + num_units, k * num_units] and `bias` (zeros).
The cells compute all gates with ONE matmul on concat([inputs, h]) as TF does; the
gates are then split off the columns (LSTM order: i, j, f, o).
The wrappers (MultiRNNCell, DropoutWrapper, ...) are in rnn_cell_wrappers.py.
"""
from tfteach.framework import dtypes
from tfteach.ops import array_ops, init_ops, math_ops
from tfteach.ops.constant_op import constant
from tfteach.nn.rnn_cell_base import (LayerRNNCell, LSTMStateTuple, RNNCell,  # noqa: F401
                                      _activation, _bias_add, _check_rnn_cell_input_dtypes,
                                      _check_supported_dtypes, assert_like_rnncell)
from tfteach.nn.rnn_cell_wrappers import (DeviceWrapper, DropoutWrapper,  # noqa: F401
                                          MultiRNNCell, ResidualWrapper)

__all__ = ["RNNCell", "LayerRNNCell", "LSTMStateTuple", "BasicRNNCell", "GRUCell",
           "BasicLSTMCell", "LSTMCell", "MultiRNNCell", "DropoutWrapper",
           "ResidualWrapper", "DeviceWrapper"]

_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"


# -- the cells ------------------------------------------------------------------------------------
class BasicRNNCell(LayerRNNCell):
    """output = new_state = tanh(concat([inputs, state]) @ kernel + bias)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None,
                 **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(_bias_add(gate_inputs, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """Gated recurrent unit: gates r, u = sigmoid(...) (bias 1.0), candidate tanh(...)."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        n = self._num_units
        self._gate_kernel = self.add_variable("gates/" + _WEIGHTS_VARIABLE_NAME,
                                              shape=[depth + n, 2 * n],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/" + _BIAS_VARIABLE_NAME, shape=[2 * n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.constant_initializer(1.0))
        self._candidate_kernel = self.add_variable("candidate/" + _WEIGHTS_VARIABLE_NAME,
                                                   shape=[depth + n, n],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/" + _BIAS_VARIABLE_NAME, shape=[n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.zeros_initializer())

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1),
                                      self._gate_kernel)
        value = math_ops.sigmoid(_bias_add(gate_inputs, self._gate_bias))
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        candidate = math_ops.matmul(array_ops.concat([inputs, r * state], 1),
                                    self._candidate_kernel)
        c = self._activation(_bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h

class BasicLSTMCell(LayerRNNCell):
    """LSTM without peepholes or projection; forget_bias is added to the forget gate.

    i, j, f, o = split(concat([x, h]) @ kernel + bias, 4 columns)
    new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j);  new_h = tanh(new_c) * sigmoid(o)
    """

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return (LSTMStateTuple(self._num_units, self._num_units) if self._state_is_tuple
                else 2 * self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        sigmoid = math_ops.sigmoid
        one = constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = _bias_add(gate_inputs, self._bias)
        # i = input gate, j = new input, f = forget gate, o = output gate
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant(self._forget_bias, dtype=f.dtype)
        add, multiply = math_ops.add, math_ops.multiply
        new_c = add(multiply(c, sigmoid(add(f, forget_bias_tensor))),
                    multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        new_state = (LSTMStateTuple(new_c, new_h) if self._state_is_tuple
                     else array_ops.concat([new_c, new_h], 1))
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """LSTM with optional peepholes, cell clipping and an output projection (num_proj)."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("tfteach has no partitioned variables: "
                                      "num_unit_shards / num_proj_shards are not supported.")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        h_size = num_proj if num_proj else num_units
        self._state_size = (LSTMStateTuple(num_units, h_size) if state_is_tuple
                            else num_units + h_size)
        self._output_size = h_size

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * n],
                                         initializer=self._initializer)
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * n],
                                       initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[n],
                                               initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[n],
                                               initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[n],
                                               initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/" + _WEIGHTS_VARIABLE_NAME,
                                                  shape=[n, self._num_proj],
                                                  initializer=self._initializer)

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if inputs.shape.with_rank(2)[1].value is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = _bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:     # the gates also look at the cell: diagonal weights
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = (LSTMStateTuple(c, m) if self._state_is_tuple
                     else array_ops.concat([c, m], 1))
        return m, new_state
