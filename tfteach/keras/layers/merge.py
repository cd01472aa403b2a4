"""Keras' merge layers: Add (element-wise sum) and Concatenate (along an axis)."""
import tfteach as tf
from tfteach.keras.engine.base_layer import Layer

__all__ = ["Add", "Concatenate", "add", "concatenate"]


class _Merge(Layer):
    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 "
                             "inputs. Got %d inputs." % (1 if not isinstance(
                                 input_shape, (list, tuple)) else len(input_shape)))
        self.built = True


class Add(_Merge):
    def call(self, inputs):
        return tf.add_n(list(inputs)) if len(inputs) > 2 else inputs[0] + inputs[1]


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def call(self, inputs):
        return tf.concat(list(inputs), axis=self.axis)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)
