"""`tf.layers.batch_normalization` and `BatchNormalization` (TF 1.15).

Variables (per normalized channel):
    gamma, beta                     trainable scale and offset (if scale / center)
    moving_mean, moving_variance    NOT trainable; what inference normalizes with

While training (`training=True`, or a bool tensor that is True in this run) the layer
normalizes with the batch's own mean and variance and *builds* two update ops

    moving_mean -= (moving_mean - batch_mean) * (1 - momentum)      'AssignMovingAvg'

which it puts in the UPDATE_OPS collection. Nothing runs them for you: unless the
train op depends on them, the moving averages never change and inference uses the
initial 0 / 1. The pattern:

    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)

4-D inputs normalized over the channel axis (1 or 3) use tf.nn.fused_batch_norm as TF
does (fused=None means "when possible"); the fused op's batch variance is Bessel
corrected (n / (n - 1)), so the moving variance then tracks the unbiased variance.
Other inputs use tf.nn.moments and the biased variance.
"""
import tfteach as tf
from tfteach.framework import tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.layers import base

__all__ = ["BatchNormalization", "batch_normalization", "BatchNorm", "batch_norm"]


class BatchNormalization(base.Layer):
    """Normalize each channel to mean 0 / variance 1, then scale by gamma, add beta."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None,
                 moving_mean_initializer=None, moving_variance_initializer=None,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("tfteach's batch normalization has no renorm, "
                                      "virtual_batch_size or adjustment")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer or tf.zeros_initializer()
        self.gamma_initializer = gamma_initializer or tf.ones_initializer()
        self.moving_mean_initializer = moving_mean_initializer or tf.zeros_initializer()
        self.moving_variance_initializer = (moving_variance_initializer
                                            or tf.ones_initializer())
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = True if fused is None else fused

    def build(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError("Input has undefined rank:", input_shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = [a + ndims if a < 0 else a for a in axes]
        for a in axes:
            if a < 0 or a >= ndims:
                raise ValueError("Invalid axis: %d" % a)
        if len(axes) != len(set(axes)):
            raise ValueError("Duplicate axis: %s" % self.axis)
        self.axis = axes
        # The fused kernel handles exactly NHWC / NCHW with one channel axis.
        self.fused = bool(self.fused) and ndims == 4 and axes in ([1], [3])
        self._data_format = "NCHW" if axes == [1] else "NHWC"
        dims = [input_shape[a].value for a in axes]
        if any(d is None for d in dims):
            raise ValueError("Input has undefined `axis` dimension. Input shape: ",
                             input_shape)
        param_shape = dims if len(axes) == 1 else [
            input_shape[i].value if i in axes else 1 for i in range(ndims)]
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape,
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape,
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        self._param_shape = param_shape
        self.built = True

    @staticmethod
    def _assign_moving_average(variable, value, momentum):
        """variable -= (variable - value) * (1 - momentum): an AssignSub op."""
        with name_scope("AssignMovingAvg") as scope:
            decay = tf.convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype != variable.dtype.base_dtype:
                decay = tf.cast(decay, variable.dtype.base_dtype)
            update_delta = (variable - tf.cast(value, variable.dtype.base_dtype)) * decay
            return tf.assign_sub(variable, update_delta, name=scope)

    def _add_moving_updates(self, training, mean, variance, momentum):
        """Record the two updates; with a tensor `training` each is a tf.cond."""
        def update(variable, value):
            return base.smart_cond(
                training, lambda: self._assign_moving_average(variable, value, momentum),
                lambda: variable)
        for variable, value in ((self.moving_mean, mean),
                                (self.moving_variance, variance)):
            result = update(variable, value)
            self.add_update(result.op if hasattr(result, "op") else result)

    def _fused_batch_norm(self, inputs, training):
        dtype = inputs.dtype.base_dtype
        gamma = self.gamma if self.scale else tf.constant(1.0, dtype, self._param_shape)
        beta = self.beta if self.center else tf.constant(0.0, dtype, self._param_shape)

        def fused_training():
            return tf.nn.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                          data_format=self._data_format)

        def fused_inference():
            return tf.nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                          variance=self.moving_variance,
                                          epsilon=self.epsilon, is_training=False,
                                          data_format=self._data_format)

        output, mean, variance = base.smart_cond(training, fused_training, fused_inference)
        training_value = base.static_bool(training)
        if training_value is None:
            # Not training this run: a momentum of 1 leaves the averages as they are.
            momentum = base.smart_cond(training, lambda: tf.constant(self.momentum),
                                       lambda: tf.constant(1.0))
        else:
            momentum = tf.convert_to_tensor(self.momentum)
        if training_value or training_value is None:
            self._add_moving_updates(training, mean, variance, momentum)
        return output

    def call(self, inputs, training=False):
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        input_shape = inputs.get_shape()
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape[self.axis[0]].value

        def _broadcast(v):
            # A [C] vector broadcasts by itself only when C is the last axis.
            if (v is not None and v.get_shape().ndims != ndims
                    and reduction_axes != list(range(ndims - 1))):
                return tf.reshape(v, broadcast_shape)
            return v

        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        if base.static_bool(training) is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = tf.nn.moments(inputs, reduction_axes,
                                                       keep_dims=len(self.axis) > 1)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = base.smart_cond(training, lambda: batch_mean,
                                   lambda: tf.convert_to_tensor(moving_mean))
            variance = base.smart_cond(training, lambda: batch_variance,
                                       lambda: tf.convert_to_tensor(moving_variance))
            self._add_moving_updates(training, mean, variance, self.momentum)
        outputs = tf.nn.batch_normalization(inputs, _broadcast(mean), _broadcast(variance),
                                            offset, scale, self.epsilon)
        outputs.set_shape(input_shape)
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True,
                        scale=True, beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None,
                        adjustment=None):
    """Batch normalization; `training` defaults to False (inference statistics!).

    Remember: the moving averages change only when the ops in
    tf.get_collection(tf.GraphKeys.UPDATE_OPS) run."""
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
        renorm=renorm, renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum,
        fused=fused, trainable=trainable, virtual_batch_size=virtual_batch_size,
        adjustment=adjustment, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)


BatchNorm = BatchNormalization
batch_norm = batch_normalization
