"""`tf.keras.backend`'s tensor functions (TF 1.15's `K.sum`, `K.mean`, `K.sqrt`, ...).

Custom losses and metrics are written with them (`K.sqrt(K.mean(K.square(y_pred -
y_true)))`); each is the TF op TF 1.15's backend calls, with its argument names and
defaults: reductions over `axis=None` (everything) unless given, `keepdims=False`,
`argmax`/`concatenate`/`expand_dims` on the last axis, `mean`/`std`/`var` of a bool
tensor taken in floatx, `sqrt` of a negative number 0 (TF 1.15 clips at 0 first),
`clip` with `max_value < min_value` clipping to `min_value`, `ones`/`zeros` variables.
`backend.py` re-exports them.
"""
import numpy as np

import tfteach as tf

__all__ = ["backend", "constant", "sum", "prod", "max", "min", "mean", "std", "var", "any", "all",
           "argmax", "argmin", "square", "abs", "sqrt", "exp", "log", "round", "sign",
           "pow", "clip", "equal", "not_equal", "greater", "greater_equal", "less",
           "less_equal", "maximum", "minimum", "sin", "cos", "dot", "transpose", "reshape",
           "permute_dimensions", "expand_dims", "squeeze", "concatenate", "stack",
           "flatten", "batch_flatten", "tile", "gather", "shape", "ndim", "dtype", "cast",
           "count_params", "ones", "zeros", "ones_like", "zeros_like", "softmax", "relu",
           "sigmoid", "hard_sigmoid", "tanh", "softplus", "softsign", "elu",
           "l2_normalize", "binary_crossentropy", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "random_uniform", "random_normal"]

_builtin_max = max


def backend():
    return "tensorflow"


def constant(value, dtype=None, shape=None, name=None):
    return tf.constant(value, dtype=dtype or _floatx(), shape=shape, name=name)


def _floatx():
    from tfteach.keras.backend import floatx
    return floatx()


def _as_float(x):
    x = tf.convert_to_tensor(x)
    return tf.cast(x, _floatx()) if x.dtype.base_dtype == tf.bool else x


# -- reductions -------------------------------------------------------------------------------
def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras' names
    return tf.reduce_sum(x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    return tf.reduce_prod(x, axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return tf.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return tf.reduce_min(x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    return tf.reduce_mean(_as_float(x), axis, keepdims)


def var(x, axis=None, keepdims=False):
    x = _as_float(x)
    centered = x - tf.reduce_mean(x, axis, True)
    return tf.reduce_mean(tf.square(centered), axis, keepdims)


def std(x, axis=None, keepdims=False):
    return tf.sqrt(var(x, axis, keepdims))


def any(x, axis=None, keepdims=False):  # noqa: A001
    return tf.reduce_any(tf.cast(x, tf.bool), axis, keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return tf.reduce_all(tf.cast(x, tf.bool), axis, keepdims)


def argmax(x, axis=-1):
    return tf.argmax(x, axis)


def argmin(x, axis=-1):
    return tf.argmin(x, axis)


# -- element-wise -----------------------------------------------------------------------------
def square(x):
    return tf.square(x)


def abs(x):  # noqa: A001
    return tf.abs(x)


def sqrt(x):
    x = tf.convert_to_tensor(x)
    zero = tf.constant(0., dtype=x.dtype.base_dtype)
    inf = tf.constant(np.inf, dtype=x.dtype.base_dtype)
    return tf.sqrt(tf.clip_by_value(x, zero, inf))


def exp(x):
    return tf.exp(x)


def log(x):
    return tf.log(x)


def round(x):  # noqa: A001
    return tf.round(x)


def sign(x):
    return tf.sign(x)


def pow(x, a):  # noqa: A001
    return tf.pow(x, a)


def clip(x, min_value, max_value):
    if max_value is not None and min_value is not None and max_value < min_value:
        max_value = min_value
    if max_value is None:
        max_value = np.inf
    if min_value is None:
        min_value = -np.inf
    return tf.clip_by_value(x, min_value, max_value)


def equal(x, y):
    return tf.equal(x, y)


def not_equal(x, y):
    return tf.not_equal(x, y)


def greater(x, y):
    return tf.greater(x, y)


def greater_equal(x, y):
    return tf.greater_equal(x, y)


def less(x, y):
    return tf.less(x, y)


def less_equal(x, y):
    return tf.less_equal(x, y)


def maximum(x, y):
    return tf.maximum(x, y)


def minimum(x, y):
    return tf.minimum(x, y)


def sin(x):
    return tf.sin(x)


def cos(x):
    return tf.cos(x)


# -- shapes -----------------------------------------------------------------------------------
def dot(x, y):
    """Matrix product; for more than 2 dimensions, the last axis of `x` with the
    second-to-last of `y` (the last for a vector), as Keras' dot."""
    if ndim(x) is not None and (ndim(x) > 2 or ndim(y) > 2):
        return tf.tensordot(x, y, [[ndim(x) - 1], [_builtin_max(ndim(y) - 2, 0)]])
    return tf.matmul(x, y)


def transpose(x):
    return tf.transpose(x)


def reshape(x, shape):
    return tf.reshape(x, shape)


def permute_dimensions(x, pattern):
    return tf.transpose(x, perm=pattern)


def expand_dims(x, axis=-1):
    return tf.expand_dims(x, axis)


def squeeze(x, axis):
    return tf.squeeze(x, [axis])


def concatenate(tensors, axis=-1):
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    return tf.concat(list(tensors), axis)


def stack(x, axis=0):
    return tf.stack(x, axis=axis)


def flatten(x):
    return tf.reshape(x, [-1])


def batch_flatten(x):
    return tf.reshape(x, tf.stack([-1, tf.reduce_prod(tf.shape(x)[1:])]))


def tile(x, n):
    return tf.tile(x, [n] if isinstance(n, int) else n)


def gather(reference, indices):
    return tf.gather(reference, indices)


def shape(x):
    return tf.shape(x)


def ndim(x):
    return tf.convert_to_tensor(x).get_shape().ndims if not hasattr(x, "get_shape") \
        else x.get_shape().ndims


def dtype(x):
    return x.dtype.base_dtype.name


def cast(x, dtype):  # noqa: F811 - Keras' argument name
    return tf.cast(x, dtype)


def count_params(x):
    return np.prod(x.get_shape().as_list())


def ones(shape, dtype=None, name=None):  # noqa: F811
    """A variable of ones (TF 1.15 makes one when the shape is fully known)."""
    from tfteach.keras.backend import variable
    return variable(np.ones(shape), dtype=dtype or _floatx(), name=name)


def zeros(shape, dtype=None, name=None):  # noqa: F811
    from tfteach.keras.backend import variable
    return variable(np.zeros(shape), dtype=dtype or _floatx(), name=name)


def ones_like(x, dtype=None, name=None):  # noqa: F811
    return tf.ones_like(x, dtype=dtype, name=name)


def zeros_like(x, dtype=None, name=None):  # noqa: F811
    return tf.zeros_like(x, dtype=dtype, name=name)


# -- activations and crossentropies -----------------------------------------------------------
def softmax(x, axis=-1):
    return tf.nn.softmax(x, axis=axis)


def relu(x, alpha=0., max_value=None, threshold=0):
    if alpha == 0 and max_value is None and threshold == 0:
        return tf.nn.relu(x)
    x = tf.convert_to_tensor(x)
    negative_part = tf.nn.relu(-x + threshold) if alpha != 0 else None
    if threshold != 0:
        x = x * tf.cast(tf.greater(x, threshold), x.dtype)
    elif max_value == 6:
        x = tf.nn.relu6(x)
        max_value = None
    else:
        x = tf.nn.relu(x)
    if max_value is not None:
        x = tf.clip_by_value(x, tf.constant(0., x.dtype.base_dtype),
                             tf.constant(max_value, x.dtype.base_dtype))
    if negative_part is not None:
        x = x - alpha * negative_part
    return x


def sigmoid(x):
    return tf.sigmoid(x)


def hard_sigmoid(x):
    return tf.clip_by_value(x * 0.2 + 0.5, 0., 1.)


def tanh(x):
    return tf.tanh(x)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def elu(x, alpha=1.):
    result = tf.nn.elu(x)
    return result if alpha == 1 else tf.where(x > 0, result, alpha * result)


def l2_normalize(x, axis=None):
    return tf.nn.l2_normalize(x, axis=axis)


def binary_crossentropy(target, output, from_logits=False):
    """Element-wise (no mean over the last axis, unlike keras.losses'); probabilities
    clipped to [epsilon, 1 - epsilon] and turned into logits, as TF 1.15."""
    from tfteach.keras.backend import epsilon
    output = tf.convert_to_tensor(output)
    if not from_logits:
        clipped = tf.clip_by_value(output, epsilon(), 1. - epsilon())
        output = tf.log(clipped / (1. - clipped))
    return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(target, output.dtype),
                                                   logits=output)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from tfteach.keras import losses
    if axis != -1:
        raise NotImplementedError("tfteach's K.categorical_crossentropy takes axis=-1")
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from tfteach.keras import losses
    if axis != -1:
        raise NotImplementedError("tfteach's K.sparse_categorical_crossentropy takes "
                                  "axis=-1")
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits)


# -- random -----------------------------------------------------------------------------------
def random_uniform(shape, minval=0., maxval=1., dtype=None, seed=None):
    if seed is None:
        seed = np.random.randint(10e6)     # TF 1.15 draws the op seed from NumPy
    return tf.random_uniform(shape, minval=minval, maxval=maxval,
                             dtype=dtype or _floatx(), seed=seed)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):  # noqa: F811
    if seed is None:
        seed = np.random.randint(10e6)
    return tf.random_normal(shape, mean=mean, stddev=stddev, dtype=dtype or _floatx(),
                            seed=seed)
