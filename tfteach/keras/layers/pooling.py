"""Keras' pooling layers: MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D."""
import tfteach as tf
from tfteach.keras import backend
from tfteach.keras.engine.base_layer import InputSpec, Layer
from tfteach.keras.layers.convolutional import _pair, conv_output_length

__all__ = ["MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D", "MaxPool2D",
           "AvgPool2D", "GlobalAvgPool2D"]


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size)
        self.strides = _pair(strides) if strides is not None else self.pool_size
        self.padding = padding.lower()
        self.data_format = data_format or backend.image_data_format()
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return type(self)._pool(inputs, ksize=(1,) + self.pool_size + (1,),
                                strides=(1,) + self.strides + (1,),
                                padding=self.padding.upper())

    def compute_output_shape(self, input_shape):
        n, h, w, c = tf.TensorShape(input_shape).as_list()
        return (n, conv_output_length(h, self.pool_size[0], self.padding, self.strides[0]),
                conv_output_length(w, self.pool_size[1], self.padding, self.strides[1]), c)

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": tuple(self.pool_size), "padding": self.padding,
                       "strides": tuple(self.strides), "data_format": self.data_format})
        return config


class MaxPooling2D(_Pooling2D):
    _pool = staticmethod(tf.nn.max_pool)


class AveragePooling2D(_Pooling2D):
    _pool = staticmethod(tf.nn.avg_pool)


class GlobalAveragePooling2D(Layer):
    """[batch, h, w, c] -> [batch, c]: the mean over height and width."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or backend.image_data_format()
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return tf.reduce_mean(inputs, axis=[1, 2])

    def compute_output_shape(self, input_shape):
        dims = tf.TensorShape(input_shape).as_list()
        return (dims[0], dims[3])

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


MaxPool2D, AvgPool2D, GlobalAvgPool2D = MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D
