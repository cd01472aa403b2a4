"""Keras' recurrent layers: SimpleRNN, LSTM, GRU (TF 1.15's tf.keras.layers versions).

Each layer owns a cell (`simple_rnn_cell`, `lstm_cell`, `gru_cell`) whose weights are
`kernel` [input, k*units], `recurrent_kernel` [units, k*units] and `bias`, in Keras'
gate order (LSTM: i, f, c, o; GRU: z, r, h), so weights and HDF5 files move to and
from tf.keras unchanged. The sequence is unrolled over its (known) number of time
steps: one group of ops per step, all visible in %%tfgraph.

TF 1.15's defaults (the v1 layers): LSTM and GRU use recurrent_activation=
'hard_sigmoid' (TF 2 changed it to 'sigmoid'), GRU reset_after=False (TF 2: True);
LSTM adds 1 to the forget gate's bias (unit_forget_bias=True). Dropout inside the
recurrence is not built (dropout / recurrent_dropout must be 0).
"""
import tfteach as tf
from tfteach.keras import activations
from tfteach.keras.engine.base_layer import InputSpec, Layer
from tfteach.keras.layers.weight_options import set_weight_options, weight_options_config

__all__ = ["SimpleRNN", "LSTM", "GRU", "hard_sigmoid"]


def hard_sigmoid(x):
    """TF 1.15 Keras' piecewise-linear sigmoid: clip(0.2 * x + 0.5, 0, 1)."""
    return tf.clip_by_value(0.2 * x + 0.5, 0., 1.)


def _activation(identifier):
    if identifier == "hard_sigmoid":
        return hard_sigmoid
    return activations.get(identifier)


class _Cell:
    """The weights of one recurrent cell and its step function."""
    gates = 1

    def __init__(self, layer):
        self.layer = layer

    def build(self, input_dim):
        layer, units = self.layer, self.layer.units
        self.kernel = layer.add_weight("kernel", (input_dim, self.gates * units),
                                       initializer=layer.kernel_initializer,
                                       regularizer=layer.kernel_regularizer)
        self.recurrent_kernel = layer.add_weight(
            "recurrent_kernel", (units, self.gates * units),
            initializer=layer.recurrent_initializer,
            regularizer=layer.recurrent_regularizer)
        self.bias = (layer.add_weight("bias", self.bias_shape(),
                                      initializer=self.bias_initializer(),
                                      regularizer=layer.bias_regularizer)
                     if layer.use_bias else None)

    def bias_shape(self):
        return (self.gates * self.layer.units,)

    def bias_initializer(self):
        return self.layer.bias_initializer

    def initial_state(self, batch):
        zeros = tf.zeros(tf.stack([batch, self.layer.units]))
        return [zeros]


class _SimpleRNNCell(_Cell):
    def step(self, x, states):
        h = tf.matmul(x, self.kernel)
        if self.bias is not None:
            h = tf.nn.bias_add(h, self.bias)
        h = self.layer.activation(h + tf.matmul(states[0], self.recurrent_kernel))
        return h, [h]


class _LSTMCell(_Cell):
    gates = 4

    def bias_initializer(self):
        layer = self.layer
        if not layer.unit_forget_bias:
            return layer.bias_initializer
        units, base = layer.units, layer.bias_initializer

        def initializer(shape, dtype=None, **kwargs):
            return tf.concat([base((units,), dtype=dtype), tf.ones((units,), dtype=dtype),
                              base((units * 2,), dtype=dtype)], 0)
        return initializer

    def initial_state(self, batch):
        return _Cell.initial_state(self, batch) * 2

    def step(self, x, states):
        h_prev, c_prev = states
        z = tf.matmul(x, self.kernel) + tf.matmul(h_prev, self.recurrent_kernel)
        if self.bias is not None:
            z = tf.nn.bias_add(z, self.bias)
        z0, z1, z2, z3 = tf.split(z, 4, axis=1)
        act, rec = self.layer.activation, self.layer.recurrent_activation
        c = rec(z1) * c_prev + rec(z0) * act(z2)
        h = rec(z3) * act(c)
        return h, [h, c]


class _GRUCell(_Cell):
    gates = 3

    def bias_shape(self):
        units = self.layer.units
        return (2, 3 * units) if self.layer.reset_after else (3 * units,)

    def step(self, x, states):
        h_prev = states[0]
        units = self.layer.units
        act, rec = self.layer.activation, self.layer.recurrent_activation
        x_part = tf.matmul(x, self.kernel)
        if self.bias is not None:
            input_bias = self.bias[0] if self.layer.reset_after else self.bias
            x_part = tf.nn.bias_add(x_part, input_bias)
        x_z, x_r, x_h = tf.split(x_part, 3, axis=1)
        u_zr = self.recurrent_kernel[:, :2 * units]
        u_h = self.recurrent_kernel[:, 2 * units:]
        if self.layer.reset_after:
            h_part = tf.matmul(h_prev, self.recurrent_kernel)
            if self.bias is not None:
                h_part = tf.nn.bias_add(h_part, self.bias[1])
            h_z, h_r, h_h = tf.split(h_part, 3, axis=1)
            z, r = rec(x_z + h_z), rec(x_r + h_r)
            candidate = act(x_h + r * h_h)
        else:
            h_z, h_r = tf.split(tf.matmul(h_prev, u_zr), 2, axis=1)
            z, r = rec(x_z + h_z), rec(x_r + h_r)
            candidate = act(x_h + tf.matmul(r * h_prev, u_h))
        h = z * h_prev + (1. - z) * candidate
        return h, [h]


class _RNN(Layer):
    cell_class = None
    cell_name = None

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.,
                 recurrent_dropout=0., return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, **kwargs):
        if dropout or recurrent_dropout:
            raise NotImplementedError("dropout inside recurrent layers is not built in "
                                      "tfteach's Keras; add a Dropout layer after it")
        if stateful:
            raise NotImplementedError("stateful recurrent layers are not built in tfteach")
        if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
            # TF 1.15's RNN layers take Keras' older spelling: LSTM(32, input_dim=8)
            kwargs["input_shape"] = (kwargs.pop("input_length", None),
                                     kwargs.pop("input_dim", None))
        self._cell_options = {}
        for key in ("recurrent_activation", "unit_forget_bias", "reset_after",
                    "implementation", "time_major"):
            if key in kwargs:
                self._cell_options[key] = kwargs.pop(key)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, ("kernel", "recurrent", "bias"), locals())
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.unroll = go_backwards, unroll
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        dims = tf.TensorShape(input_shape).as_list()
        self.cell = self.cell_class(self)
        with tf.name_scope(self.cell_name):
            self.cell.build(dims[-1])
        self.built = True

    def call(self, inputs, initial_state=None):
        steps = inputs.get_shape().as_list()[1]
        if steps is None:
            raise ValueError("tfteach's Keras recurrent layers unroll the sequence: its "
                             "length (axis 1) must be known, e.g. input_shape=(steps, "
                             "features)")
        states = initial_state or self.cell.initial_state(tf.shape(inputs)[0])
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        for t in order:
            output, states = self.cell.step(inputs[:, t, :], states)
            outputs.append(output)
        result = tf.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return [result] + list(states) if self.return_state else result

    def compute_output_shape(self, input_shape):
        dims = tf.TensorShape(input_shape).as_list()
        if self.return_sequences:
            return (dims[0], dims[1], self.units)
        return (dims[0], self.units)

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias})
        config.update(weight_options_config(self))
        config.update({
            "dropout": 0., "recurrent_dropout": 0.,
            "return_sequences": self.return_sequences, "return_state": self.return_state,
            "go_backwards": self.go_backwards, "stateful": False, "unroll": self.unroll})
        return config


class SimpleRNN(_RNN):
    cell_class, cell_name = _SimpleRNNCell, "simple_rnn_cell"


class LSTM(_RNN):
    cell_class, cell_name = _LSTMCell, "lstm_cell"

    def __init__(self, units, recurrent_activation="hard_sigmoid", unit_forget_bias=True,
                 implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self._recurrent_activation_name = recurrent_activation
        self.recurrent_activation = _activation(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation

    def get_config(self):
        config = super().get_config()
        config.update({"recurrent_activation": _name(self.recurrent_activation),
                       "unit_forget_bias": self.unit_forget_bias,
                       "implementation": self.implementation})
        return config


class GRU(_RNN):
    cell_class, cell_name = _GRUCell, "gru_cell"

    def __init__(self, units, recurrent_activation="hard_sigmoid", reset_after=False,
                 implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = _activation(recurrent_activation)
        self.reset_after = reset_after
        self.implementation = implementation

    def get_config(self):
        config = super().get_config()
        config.update({"recurrent_activation": _name(self.recurrent_activation),
                       "reset_after": self.reset_after,
                       "implementation": self.implementation})
        return config


def _name(function):
    return "hard_sigmoid" if function is hard_sigmoid else activations.serialize(function)
