"""`tf.keras.losses`: per-sample losses `fn(y_true, y_pred)` -> [batch] (mean over the
last axis), which `fit` averages over the batch.

Cross-entropies on probabilities follow TF 1.15's backend: the predictions are clipped
to [epsilon, 1 - epsilon] (epsilon = 1e-7) before the log, except that when `y_pred` is
the output of a Softmax op, its logits are used directly (`softmax_cross_entropy_with_
logits_v2`), which is exact and cannot overflow. Executing eagerly, Keras' own steps
(`fit`, `evaluate`) find those logits too, as TF's traced steps do
(eager/producers.py).
"""
import tfteach as tf
from tfteach.eager import producers
from tfteach.keras import backend
from tfteach.keras.serialization import deserialize

__all__ = ["mean_squared_error", "mean_absolute_error", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "binary_crossentropy", "hinge",
           "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
           "squared_hinge", "categorical_hinge", "logcosh", "kullback_leibler_divergence",
           "poisson", "cosine_proximity", "cosine", "cosine_similarity", "mape", "MAPE",
           "msle", "MSLE", "kld", "KLD",
           "Loss", "MeanSquaredError", "MeanAbsoluteError", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "BinaryCrossentropy", "get", "serialize",
           "mse", "mae", "MSE", "MAE"]


def _prepared(y_true, y_pred):
    """(y_true, y_pred) as TF 1.15's losses begin: `y_pred` made a tensor (lists and
    arrays are fine) and `y_true` cast to its dtype."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_true = tf.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), backend.epsilon()))
    return 100. * tf.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    first_log = tf.log(tf.maximum(y_pred, backend.epsilon()) + 1.)
    second_log = tf.log(tf.maximum(y_true, backend.epsilon()) + 1.)
    return tf.reduce_mean(tf.squared_difference(first_log, second_log), axis=-1)


def _maybe_convert_labels(y_true):
    """Labels that are all 0 or 1 become -1 or 1 (TF 1.15's hinge losses); others stay.
    As arithmetic, not a cond: y * (1 + b) - b is 2 y - 1 when b = 1, y when b = 0."""
    binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0.), tf.equal(y_true, 1.)))
    binary = tf.cast(binary, y_true.dtype)
    return y_true * (1. + binary) - binary


def hinge(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return tf.reduce_mean(tf.maximum(1. - y_true * y_pred, 0.), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return tf.reduce_mean(tf.square(tf.maximum(1. - y_true * y_pred, 0.)), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1. - y_true) * y_pred, axis=-1)
    return tf.maximum(0., neg - pos + 1.)


def logcosh(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    x = y_pred - y_true
    return tf.reduce_mean(x + tf.nn.softplus(-2. * x) - tf.log(2.), axis=-1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    y_true = tf.clip_by_value(y_true, backend.epsilon(), 1)
    y_pred = tf.clip_by_value(y_pred, backend.epsilon(), 1)
    return tf.reduce_sum(y_true * tf.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _prepared(y_true, y_pred)
    return tf.reduce_mean(y_pred - y_true * tf.log(y_pred + backend.epsilon()), axis=-1)


def cosine_proximity(y_true, y_pred, axis=-1):
    """TF 1.15's name (also `cosine`, `cosine_similarity`): minus the cosine."""
    y_true, y_pred = _prepared(y_true, y_pred)
    y_true = tf.nn.l2_normalize(y_true, axis=axis)
    y_pred = tf.nn.l2_normalize(y_pred, axis=axis)
    return -tf.reduce_sum(y_true * y_pred, axis=axis)


def _softmax_logits(output):
    made_by = producers.made_by(output)     # eagerly, in fit/evaluate (producers.py)
    if made_by is not None:
        return made_by[1] if made_by[0] == "Softmax" else None
    op = getattr(output, "op", None)
    return op.inputs[0] if op is not None and op.type == "Softmax" else None


def categorical_crossentropy(y_true, y_pred, from_logits=False):
    target, y_pred = _prepared(y_true, y_pred)
    logits = y_pred if from_logits else _softmax_logits(y_pred)
    if logits is not None:
        return tf.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=logits)
    output = y_pred / tf.reduce_sum(y_pred, axis=-1, keepdims=True)
    eps = backend.epsilon()
    output = tf.clip_by_value(output, eps, 1. - eps)
    return -tf.reduce_sum(target * tf.log(output), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    y_pred = tf.convert_to_tensor(y_pred)
    logits = y_pred if from_logits else _softmax_logits(y_pred)
    if logits is None:
        eps = backend.epsilon()
        logits = tf.log(tf.clip_by_value(y_pred, eps, 1. - eps))
    classes = tf.shape(logits)[-1]
    labels = tf.cast(tf.reshape(y_true, [-1]), tf.int64)
    flat_logits = tf.reshape(logits, tf.stack([-1, classes]))
    per_sample = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                logits=flat_logits)
    return tf.reshape(per_sample, tf.shape(logits)[:-1])


def binary_crossentropy(y_true, y_pred, from_logits=False):
    target, y_pred = _prepared(y_true, y_pred)
    if not from_logits:
        eps = backend.epsilon()
        output = tf.clip_by_value(y_pred, eps, 1. - eps)
        y_pred = tf.log(output / (1. - output))
    per_element = tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=y_pred)
    return tf.reduce_mean(per_element, axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine = cosine_similarity = cosine_proximity


class Loss:
    """A loss object: `loss(y_true, y_pred)` is the batch mean of `call`'s per-sample
    values (Keras' SUM_OVER_BATCH_SIZE reduction)."""
    fn = None

    def __init__(self, name=None, **options):
        self.name = name or type(self).__name__
        self._options = options

    def call(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred, **self._options)

    def __call__(self, y_true, y_pred, sample_weight=None):
        return tf.reduce_mean(self.call(y_true, y_pred))

    def get_config(self):
        return dict(self._options, name=self.name)


def _loss_class(name, function, takes_logits):
    def __init__(self, from_logits=False, name=None, reduction=None):  # noqa: N807
        Loss.__init__(self, name=name or _snake(name_), **(
            {"from_logits": from_logits} if takes_logits else {}))
    name_ = name
    return type(name, (Loss,), {"fn": staticmethod(function), "__init__": __init__})


def _snake(name):
    from tfteach.keras.engine.base_layer import to_snake_case
    return to_snake_case(name)


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error, False)
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error, False)
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy,
                                      True)
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy",
                                            sparse_categorical_crossentropy, True)
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy, True)

_OBJECTS = {f.__name__: f for f in (mean_squared_error, mean_absolute_error, hinge,
                                     categorical_crossentropy,
                                     sparse_categorical_crossentropy, binary_crossentropy,
                                     mean_absolute_percentage_error,
                                     mean_squared_logarithmic_error, squared_hinge,
                                     categorical_hinge, logcosh, kullback_leibler_divergence,
                                     poisson, cosine_proximity)}
_OBJECTS.update(mse=mse, mae=mae, MSE=mse, MAE=mae, mape=mape, MAPE=mape, msle=msle,
                MSLE=msle, kld=kld, KLD=kld, cosine=cosine,
                cosine_similarity=cosine_similarity)
for _cls in (MeanSquaredError, MeanAbsoluteError, CategoricalCrossentropy,
             SparseCategoricalCrossentropy, BinaryCrossentropy):
    _OBJECTS[_cls.__name__] = _cls


def get(identifier):
    """A per-sample loss function from a name, a function or a Loss object."""
    if identifier is None:
        return None
    if isinstance(identifier, Loss):
        return _per_sample(identifier)
    if callable(identifier) and not isinstance(identifier, type):
        return identifier
    found = deserialize(identifier, _OBJECTS, "loss function")
    return _per_sample(found) if isinstance(found, Loss) else found


def _per_sample(loss):
    """A Loss object's per-sample function, named after the function it wraps (compile
    recognises 'sparse_categorical_crossentropy' by name: integer targets)."""
    def per_sample(y_true, y_pred):
        return loss.call(y_true, y_pred)
    per_sample.__name__ = type(loss).fn.__name__
    return per_sample


def serialize(loss):
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return getattr(loss, "__name__", loss)
