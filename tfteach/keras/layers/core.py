"""Keras' core layers: Dense, Activation, Flatten, Reshape, Dropout."""
import numpy as np

import tfteach as tf
from tfteach.keras import activations
from tfteach.keras.engine.base_layer import InputSpec, Layer
from tfteach.keras.layers.weight_options import set_weight_options, weight_options_config

__all__ = ["Dense", "Activation", "Flatten", "Reshape", "Dropout"]


def _dims(shape):
    return tf.TensorShape(shape).as_list()


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`; kernel [in, units] glorot_uniform, bias zeros."""

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        if "input_shape" not in kwargs and "input_dim" in kwargs:
            # Keras' older spelling, still TF 1.15's: Dense(64, input_dim=100)
            kwargs["input_shape"] = (kwargs.pop("input_dim"),)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, ("kernel", "bias"), locals())
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = _dims(input_shape)[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be "
                             "defined. Found `None`.")
        self.kernel = self.add_weight("kernel", [last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = (self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint)
                     if self.use_bias else None)
        self.built = True

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        if rank is not None and rank > 2:
            # Every position of a [batch, time, features] input gets the same kernel:
            # fold the leading axes into rows, one MatMul, unfold (Keras' tensordot).
            rows = tf.reshape(inputs, [-1, self.kernel.get_shape().as_list()[0]])
            outputs = tf.reshape(tf.matmul(rows, self.kernel), tf.concat(
                [tf.shape(inputs)[:-1], [self.units]], 0))
            outputs.set_shape(inputs.get_shape().as_list()[:-1] + [self.units])
        else:
            outputs = tf.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias)
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return tuple(_dims(input_shape)[:-1]) + (self.units,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias})
        config.update(weight_options_config(self))
        return config


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


class Flatten(Layer):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...] (a Reshape op)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.get_shape().ndims > 2:
            rank = inputs.get_shape().ndims
            inputs = tf.transpose(inputs, [0] + list(range(2, rank)) + [1])
        dims = inputs.get_shape().as_list()
        if None not in dims[1:]:
            flat = int(np.prod(dims[1:], dtype=np.int64))
            return tf.reshape(inputs, (-1, flat))
        return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]))

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        rest = None if None in dims[1:] else int(np.prod(dims[1:], dtype=np.int64))
        return (dims[0], rest)

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class Reshape(Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        outputs = tf.reshape(inputs, tf.concat([tf.shape(inputs)[:1],
                                                list(self.target_shape)], 0))
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return outputs

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        target = list(self.target_shape)
        if -1 in target:
            known = int(np.prod([d for d in target if d != -1]))
            total = None if None in dims[1:] else int(np.prod(dims[1:]))
            if total is not None and total % known:
                raise ValueError("total size of new array must be unchanged")
            target[target.index(-1)] = None if total is None else total // known
        elif None not in dims[1:] and int(np.prod(dims[1:])) != int(np.prod(target)):
            raise ValueError("total size of new array must be unchanged")
        return (dims[0],) + tuple(target)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = tuple(self.target_shape)
        return config


class Dropout(Layer):
    """While training (the learning phase), zero inputs with probability `rate`."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=None):
        if self.rate == 0:
            return tf.identity(inputs)
        return _smart_cond(
            training,
            lambda: tf.nn.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed,
                                  rate=self.rate),
            lambda: tf.identity(inputs))

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape,
                       "seed": self.seed})
        return config


def _smart_cond(training, true_fn, false_fn):
    """A Python bool/int decides now; the learning-phase tensor decides per run."""
    if isinstance(training, (bool, int, np.bool_)):
        return true_fn() if training else false_fn()
    return tf.cond(training, true_fn, false_fn)
