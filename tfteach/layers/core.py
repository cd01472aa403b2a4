"""`tf.layers.dense`, `flatten`, `dropout` and their classes (TF 1.15's core layers).

    dense(x, units)     kernel [in, units] and bias [units] variables;
                        ops MatMul (Tensordot for rank > 2 inputs), BiasAdd, activation
    flatten(x)          Reshape to [batch, -1]; no variables
    dropout(x, rate, training=False)
                        tf.nn.dropout only while training: a Python bool decides now,
                        a bool tensor decides per run through tf.cond
"""
import numpy as np

import tfteach as tf
from tfteach.framework import tensor_shape
from tfteach.layers import base, utils

__all__ = ["Dense", "dense", "Flatten", "flatten", "Dropout", "dropout"]


class Dense(base.Layer):
    """`outputs = activation(inputs @ kernel + bias)`."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        # TF1's default bias initializer is zeros (not get_variable's glorot).
        self.bias_initializer = bias_initializer or tf.zeros_initializer()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = base.InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        last_dim = input_shape[-1].value if input_shape.ndims else None
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be "
                             "defined. Found `None`.")
        self.kernel = self.add_weight("kernel", shape=[last_dim, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype)
        # a later call must bring inputs of the same width (TF's words if not)
        self.input_spec = base.InputSpec(min_ndim=2, axes={-1: last_dim})
        self.built = True

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        if rank is not None and rank > 2:
            # Every position of a [batch, time, features] input gets the same kernel.
            outputs = _last_axis_matmul(inputs, self.kernel)
            outputs.set_shape(inputs.get_shape().as_list()[:-1] + [self.units])
        else:
            outputs = tf.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        return tensor_shape.as_shape(input_shape)[:-1].concatenate([self.units])


def _last_axis_matmul(inputs, kernel):
    """tf.tensordot(inputs, kernel, [[rank - 1], [0]]) for a batch of unknown size:
    fold every leading axis into rows, one MatMul, unfold (TF's ops, its names)."""
    with tf.name_scope("Tensordot") as scope:
        rows = tf.reshape(inputs, [-1, kernel.get_shape()[0].value])
        product = tf.matmul(rows, kernel)
        leading = tf.shape(inputs)[:-1]
        out_shape = tf.concat([leading, [kernel.get_shape()[1].value]], 0)
        return tf.reshape(product, out_shape, name=scope)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """A fully connected layer: `activation(inputs @ kernel + bias)`."""
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer or tf.zeros_initializer(),
                  kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


def _channels_first_to_last(inputs):
    rank = inputs.get_shape().ndims
    if rank is None or rank <= 1:
        return inputs
    return tf.transpose(inputs, perm=[0] + list(range(2, rank)) + [1])


class Flatten(base.Layer):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...]."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = utils.normalize_data_format(data_format)

    def call(self, inputs):
        if self.data_format == "channels_first":
            # Flatten in the order channels_last would: results match either layout.
            inputs = _channels_first_to_last(inputs)
        shape = inputs.get_shape()
        if shape.ndims is not None and shape[1:].is_fully_defined():
            flat = int(np.prod(shape[1:].as_list(), dtype=np.int64))
            outputs = tf.reshape(inputs, (-1, flat))
        else:
            batch = shape[0].value if shape.ndims else None
            outputs = tf.reshape(inputs, (batch or tf.shape(inputs)[0], -1))
        if shape.ndims is not None:
            outputs.set_shape(self.compute_output_shape(shape))
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        dims = input_shape[1:]
        flat = dims.num_elements() if dims.is_fully_defined() else None
        return tensor_shape.TensorShape([input_shape[0], flat])


def flatten(inputs, name=None, data_format="channels_last"):
    """Keep the batch dimension, flatten the rest: [N, H, W, C] -> [N, H*W*C]."""
    return Flatten(name=name, data_format=data_format).apply(inputs)


class Dropout(base.Layer):
    """While training, zero each input with probability `rate` and scale the rest."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        def dropped_inputs():
            return tf.nn.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed,
                                 rate=self.rate)
        return base.smart_cond(training, dropped_inputs, lambda: tf.identity(inputs))

    def compute_output_shape(self, input_shape):
        return input_shape


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Note `rate` is the fraction DROPPED (tf.nn.dropout's old keep_prob is 1 - rate),
    and nothing is dropped unless `training` is True (the default is False)."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)

