"""`tf.layers.max_pooling2d`, `average_pooling2d` and their classes (TF 1.15).

Pooling layers have no variables: each is one tf.nn op (MaxPool / AvgPool) in the
layer's name scope (`max_pooling2d/MaxPool`). Unlike tf.nn.max_pool, `pool_size` and
`strides` are (height, width) pairs or one int, and `padding` defaults to 'valid'.
"""
import tfteach as tf
from tfteach.framework import tensor_shape
from tfteach.layers import base, utils

__all__ = ["MaxPooling2D", "max_pooling2d", "AveragePooling2D", "average_pooling2d",
           "MaxPool2D", "AvgPool2D"]


class _Pooling2D(base.Layer):
    """Shared by max and average pooling: only the tf.nn function differs."""

    def __init__(self, pool_function, pool_size, strides, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_function = pool_function
        self.pool_size = utils.normalize_tuple(pool_size, 2, "pool_size")
        self.strides = utils.normalize_tuple(strides, 2, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = base.InputSpec(ndim=4)

    def call(self, inputs):
        if self.data_format == "channels_last":
            pool_shape = [1] + list(self.pool_size) + [1]
            strides = [1] + list(self.strides) + [1]
        else:
            pool_shape = [1, 1] + list(self.pool_size)
            strides = [1, 1] + list(self.strides)
        return self.pool_function(inputs, ksize=pool_shape, strides=strides,
                                  padding=self.padding.upper(),
                                  data_format=utils.convert_data_format(self.data_format))

    def compute_output_shape(self, input_shape):
        shape = tensor_shape.as_shape(input_shape).as_list()
        first = self.data_format == "channels_first"
        space = shape[2:] if first else shape[1:3]
        new = [utils.conv_output_length(space[i], self.pool_size[i], self.padding,
                                        self.strides[i]) for i in range(2)]
        return tensor_shape.TensorShape([shape[0], shape[1]] + new if first
                                        else [shape[0]] + new + [shape[3]])


class MaxPooling2D(_Pooling2D):
    """The largest value of each pool_size window."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(lambda *a, **k: tf.nn.max_pool(*a, **k), pool_size, strides,
                         padding=padding, data_format=data_format, name=name, **kwargs)


class AveragePooling2D(_Pooling2D):
    """The mean of each pool_size window ('same' padding averages only real values)."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(lambda *a, **k: tf.nn.avg_pool(*a, **k), pool_size, strides,
                         padding=padding, data_format=data_format, name=name, **kwargs)


def max_pooling2d(inputs, pool_size, strides, padding="valid",
                  data_format="channels_last", name=None):
    """Max pooling; `strides` has no default (TF 1.15's signature)."""
    layer = MaxPooling2D(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name)
    return layer.apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """Average pooling; `strides` has no default (TF 1.15's signature)."""
    layer = AveragePooling2D(pool_size=pool_size, strides=strides, padding=padding,
                             data_format=data_format, name=name)
    return layer.apply(inputs)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
