"""`tf.keras.activations`: element-wise functions a layer applies to its output.

Each is built from tfteach ops (so a layer's graph shows Relu, Softmax, Sigmoid ...).
A layer stores the function and saves its name ('relu'); `get` maps names back.
"""
import tfteach as tf
from tfteach.keras.serialization import deserialize

__all__ = ["linear", "relu", "softmax", "sigmoid", "tanh", "elu", "selu", "softplus",
           "softsign", "exponential", "hard_sigmoid", "get", "serialize"]


def linear(x):
    return x


def relu(x, alpha=0., max_value=None, threshold=0):
    if alpha == 0 and max_value is None and threshold == 0:
        return tf.nn.relu(x)
    if alpha != 0 or threshold != 0:
        negative = tf.nn.relu(-x + threshold)
        x = tf.where(x > threshold, x, tf.zeros_like(x))
        x = x - alpha * negative if alpha != 0 else x
    else:
        x = tf.nn.relu(x)
    if max_value is not None:
        x = tf.minimum(x, tf.cast(max_value, x.dtype))
    return x


def softmax(x, axis=-1):
    """TF 1.15's rule: a rank-1 input is an error, rank 2 uses tf.nn.softmax."""
    ndim = x.get_shape().ndims
    if ndim == 1:
        raise ValueError("Cannot apply softmax to a tensor that is 1D. Received input: %s"
                         % (x,))
    return tf.nn.softmax(x, axis=axis)


def sigmoid(x):
    return tf.sigmoid(x)


def tanh(x):
    return tf.tanh(x)


def elu(x, alpha=1.0):
    result = tf.nn.elu(x)
    return result if alpha == 1 else tf.where(x > 0, result, alpha * result)


def selu(x):
    return tf.nn.selu(x)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def exponential(x):
    return tf.exp(x)


def hard_sigmoid(x):
    return tf.clip_by_value(0.2 * x + 0.5, 0., 1.)


_OBJECTS = {f.__name__: f for f in (linear, relu, softmax, sigmoid, tanh, elu, selu,
                                     softplus, softsign, exponential, hard_sigmoid)}


def get(identifier):
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    return deserialize(identifier, _OBJECTS, "activation function")


def serialize(activation):
    return getattr(activation, "__name__", "linear")
