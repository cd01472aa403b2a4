"""`tf.keras.metrics`: per-sample metric functions `fn(y_true, y_pred)` -> [batch].

`fit`/`evaluate` report each metric's mean over the samples seen in the epoch (what TF
1.15's stateful Mean metrics report). 'accuracy' (or 'acc') picks the accuracy that fits
the loss and the output: categorical, sparse categorical or binary; 'crossentropy' ('ce')
likewise. Reported as 'acc' in TF 1 programs, as 'accuracy' with TF 2 behaviour (`resolve`).
"""
import tfteach as tf
from tfteach.framework import eager_mode
from tfteach.keras import backend, losses
from tfteach.keras.serialization import deserialize

# TF 1.15 exports these losses as metric functions too (keras.metrics.mae, ...)
from tfteach.keras.losses import (  # re-exported: TF 1.15 has them here too
    KLD, MAE, MAPE, MSE, MSLE, binary_crossentropy, categorical_crossentropy, cosine,
    cosine_proximity, hinge, kld, kullback_leibler_divergence, mae, mape,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, mse, msle, poisson, sparse_categorical_crossentropy,
    squared_hinge)

__all__ = ["binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "get",
           "resolve", "KLD", "MAE", "MAPE", "MSE", "MSLE", "binary_crossentropy",
           "categorical_crossentropy", "cosine", "cosine_proximity", "hinge", "kld",
           "kullback_leibler_divergence", "mae", "mape", "mean_absolute_error",
           "mean_absolute_percentage_error", "mean_squared_error",
           "mean_squared_logarithmic_error", "mse", "msle", "poisson",
           "sparse_categorical_crossentropy", "squared_hinge"]


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


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    labels = tf.cast(tf.reshape(y_true, [-1]), tf.int32)
    return tf.cast(tf.nn.in_top_k(y_pred, labels, k), backend.floatx())


_OBJECTS = {f.__name__: f for f in (binary_accuracy, categorical_accuracy,
                                     sparse_categorical_accuracy,
                                     top_k_categorical_accuracy,
                                     sparse_top_k_categorical_accuracy)}
_OBJECTS.update(losses._OBJECTS)


def get(identifier):
    if callable(identifier):
        return identifier
    return deserialize(identifier, _OBJECTS, "metric function")


def resolve(metric, loss_fn, output_shape=None):
    """(reported name, per-sample function) of one entry of compile(metrics=[...]), as TF
    1.15's training_utils: 'accuracy'/'acc' and 'crossentropy'/'ce' pick the binary
    version for an output of one unit or a binary crossentropy loss, the sparse one
    for a sparse categorical crossentropy loss, else the categorical one.

    The name, as TF 1.15's get_metric_name: with TF 2 behaviour (`import tfteach.v2`,
    `enable_v2_behavior()`) the string compile was given ('accuracy', 'mae'), else a
    function's name; in TF 1 programs 'acc' and 'ce', and other metrics by their
    function's name ('mae' as 'mean_absolute_error')."""
    name, fn = _resolve(metric, loss_fn, output_shape)
    if eager_mode.STATE.v2:
        return (metric if isinstance(metric, str) else
                getattr(fn, "name", None) or fn.__name__), fn
    return name, fn


def _resolve(metric, loss_fn, output_shape):
    if metric in ("accuracy", "acc", "crossentropy", "ce"):
        accuracy = metric in ("accuracy", "acc")
        loss_name = getattr(loss_fn, "__name__", "")
        one_unit = output_shape is not None and \
            tf.TensorShape(output_shape).as_list()[-1:] == [1]
        if one_unit or loss_name == "binary_crossentropy":
            fn = binary_accuracy if accuracy else losses.binary_crossentropy
        elif loss_name == "sparse_categorical_crossentropy":
            fn = (sparse_categorical_accuracy if accuracy
                  else losses.sparse_categorical_crossentropy)
        else:
            fn = categorical_accuracy if accuracy else losses.categorical_crossentropy
        return ("acc" if accuracy else "ce"), fn
    fn = get(metric)
    return getattr(fn, "name", None) or fn.__name__, fn
