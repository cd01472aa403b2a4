"""`tf.keras.metrics`: per-sample metric functions `fn(y_true, y_pred)` -> [batch].

`fit`/`evaluate` report each metric's mean over the samples seen in the epoch (what TF
1.15's stateful Mean metrics report). 'accuracy' (or 'acc') picks the accuracy that fits
the loss: categorical, sparse categorical or binary, and is reported as 'acc' as in
TF 1.15 (TF 2 says 'accuracy').
"""
import tfteach as tf
from tfteach.keras import backend, losses
from tfteach.keras.serialization import deserialize

__all__ = ["binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "get", "resolve"]


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = tf.convert_to_tensor(y_pred)
    predicted = tf.cast(y_pred > threshold, y_pred.dtype)
    return tf.reduce_mean(tf.cast(tf.equal(tf.cast(y_true, y_pred.dtype), predicted),
                                  backend.floatx()), axis=-1)


def categorical_accuracy(y_true, y_pred):
    return tf.cast(tf.equal(tf.argmax(y_true, axis=-1), tf.argmax(y_pred, axis=-1)),
                   backend.floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    labels = tf.cast(tf.reshape(y_true, tf.shape(y_pred)[:-1]), tf.int64)
    return tf.cast(tf.equal(labels, tf.argmax(y_pred, axis=-1)), backend.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return tf.cast(tf.nn.in_top_k(y_pred, tf.cast(tf.argmax(y_true, axis=-1), tf.int32), k),
                   backend.floatx())


_OBJECTS = {f.__name__: f for f in (binary_accuracy, categorical_accuracy,
                                     sparse_categorical_accuracy,
                                     top_k_categorical_accuracy)}
_OBJECTS.update(losses._OBJECTS)


def get(identifier):
    if callable(identifier):
        return identifier
    return deserialize(identifier, _OBJECTS, "metric function")


def resolve(metric, loss_fn):
    """(reported name, per-sample function) of one entry of compile(metrics=[...])."""
    if metric in ("accuracy", "acc"):
        name = getattr(loss_fn, "__name__", "")
        if name == "sparse_categorical_crossentropy":
            return "acc", sparse_categorical_accuracy
        if name == "binary_crossentropy":
            return "acc", binary_accuracy
        return "acc", categorical_accuracy
    fn = get(metric)
    return (metric if isinstance(metric, str) else fn.__name__), fn
