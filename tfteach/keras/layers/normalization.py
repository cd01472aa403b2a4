"""Keras' BatchNormalization (axis -1, momentum 0.99, epsilon 1e-3).

Weights, in Keras' order: gamma, beta (trained), moving_mean, moving_variance (not).
While training the batch's statistics normalize; otherwise the moving ones. The moving
averages are updated by `fit`'s training step (the layer's `updates`):
`moving -= (moving - batch) * (1 - momentum)`. For 4-D inputs Keras uses the fused
kernel, whose batch variance for the moving average is Bessel-corrected (n / (n - 1));
the same rule is kept here so moving statistics match tf.keras.
"""
import tfteach as tf
from tfteach.keras.engine.base_layer import Layer
from tfteach.keras.layers.core import _smart_cond
from tfteach.keras.layers.weight_options import set_weight_options, weight_options_config

__all__ = ["BatchNormalization"]


class BatchNormalization(Layer):
    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        for key in ("renorm", "renorm_clipping", "renorm_momentum", "fused",
                    "virtual_batch_size", "adjustment"):
            kwargs.pop(key, None)
        super().__init__(**kwargs)
        self.axis = axis[0] if isinstance(axis, (list, tuple)) else int(axis)
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        set_weight_options(self, ("beta", "gamma", "moving_mean", "moving_variance"),
                           locals())

    def build(self, input_shape):
        dims = tf.TensorShape(input_shape).as_list()
        self._rank = len(dims)
        self._axis = self.axis % self._rank
        size = dims[self._axis]
        if size is None:
            raise ValueError("Axis %d of input tensor should have a defined dimension but "
                             "the layer received an input with shape %s."
                             % (self.axis, tuple(dims)))
        self.gamma = (self.add_weight("gamma", (size,), initializer=self.gamma_initializer,
                                      regularizer=self.gamma_regularizer)
                      if self.scale else None)
        self.beta = (self.add_weight("beta", (size,), initializer=self.beta_initializer,
                                     regularizer=self.beta_regularizer)
                     if self.center else None)
        self.moving_mean = self.add_weight("moving_mean", (size,), trainable=False,
                                           initializer=self.moving_mean_initializer)
        self.moving_variance = self.add_weight("moving_variance", (size,), trainable=False,
                                               initializer=self.moving_variance_initializer)
        self.built = True

    def call(self, inputs, training=None):
        reduce_axes = [i for i in range(self._rank) if i != self._axis]
        mean, variance = tf.nn.moments(inputs, reduce_axes)
        # Eagerly an update runs when it is made: make it only in a training step.
        if not (isinstance(training, bool) and not training):
            self._add_moving_updates(inputs, mean, variance, reduce_axes)

        def normalize(m, v):
            return tf.nn.batch_normalization(inputs, m, v, self.beta, self.gamma,
                                             self.epsilon)
        return _smart_cond(training, lambda: normalize(mean, variance),
                           lambda: normalize(self.moving_mean, self.moving_variance))

    def _add_moving_updates(self, inputs, mean, variance, reduce_axes):
        if self._rank == 4:
            count = tf.cast(tf.reduce_prod(tf.gather(tf.shape(inputs), reduce_axes)),
                            variance.dtype)
            variance = variance * count / tf.maximum(count - 1., 1.)
        decay = 1. - self.momentum
        with tf.name_scope("AssignMovingAvg"):
            mean_update = tf.assign_sub(self.moving_mean,
                                        (self.moving_mean - mean) * decay)
        with tf.name_scope("AssignMovingAvg_1"):
            variance_update = tf.assign_sub(self.moving_variance,
                                            (self.moving_variance - variance) * decay)
        self.add_update([mean_update, variance_update])

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
            "center": self.center, "scale": self.scale})
        # Keras' BatchNormalization config has no activity_regularizer
        config.update(weight_options_config(self, activity_regularizer=False))
        return config
