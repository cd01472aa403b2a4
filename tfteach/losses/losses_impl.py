"""The loss functions of `tf.losses` (TF 1.15): each computes one loss per element, then
`compute_weighted_loss` weights, reduces (default: mean over non-zero weights) and adds
the result to tf.GraphKeys.LOSSES.

    mean_squared_error      (predictions - labels) ** 2
    absolute_difference     |predictions - labels|
    huber_loss              0.5 * e**2 if |e| <= delta, else 0.5 * delta**2 + delta * (|e| - delta)
    log_loss                -labels * log(p + eps) - (1 - labels) * log(1 - p + eps)
    hinge_loss              max(0, 1 - (2 * labels - 1) * logits)
    cosine_distance         1 - sum(labels * predictions, axis)
    sigmoid_cross_entropy   tf.nn.sigmoid_cross_entropy_with_logits (+ label smoothing)
    softmax_cross_entropy   tf.nn.softmax_cross_entropy_with_logits_v2 (+ label smoothing)
    sparse_softmax_cross_entropy  tf.nn.sparse_softmax_cross_entropy_with_logits

Graphs are built as TF builds them, so the result is e.g. `mean_squared_error/value:0`.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.binary_ops import add, minimum, multiply, squared_difference, subtract
from tfteach.ops.cast_ops import cast
from tfteach.ops.fill_ops import ones_like
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import shape, squeeze
from tfteach.ops.stop_gradient_op import stop_gradient
from tfteach.ops.unary_ops import abs as abs_op, log
from tfteach.nn.activations import relu
from tfteach.nn.losses_ops import sigmoid_cross_entropy_with_logits
from tfteach.nn.xent_ops import (softmax_cross_entropy_with_logits_v2,
                                 sparse_softmax_cross_entropy_with_logits)
from tfteach.losses.weighted_loss import Reduction, compute_weighted_loss

__all__ = ["absolute_difference", "cosine_distance", "hinge_loss", "huber_loss", "log_loss",
           "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
           "sparse_softmax_cross_entropy"]

_LOSSES = GraphKeys.LOSSES
_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


def _require(value, what):
    if value is None:
        raise ValueError("%s must not be None." % what)


def _as_float32_pair(predictions, labels):
    """Both cast to float32; their static shapes must be compatible (TF's ValueError)."""
    predictions = cast(predictions, dtype=dtypes.float32)
    labels = cast(labels, dtype=dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return predictions, labels


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=_LOSSES, reduction=_DEFAULT):
    """The weighted mean of |predictions - labels| (L1 loss)."""
    _require(labels, "labels")
    _require(predictions, "predictions")
    with name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        losses = abs_op(subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=_LOSSES, reduction=_DEFAULT, dim=None):
    """1 - sum(labels * predictions, axis): the inputs must already be unit vectors."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _require(labels, "labels")
    _require(predictions, "predictions")
    with name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        radial_diffs = multiply(predictions, labels)
        losses = 1 - reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=_LOSSES,
               reduction=_DEFAULT):
    """max(0, 1 - y * logits) with labels in {0, 1} mapped to y in {-1, 1}."""
    _require(labels, "labels")
    _require(logits, "logits")
    with name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits, labels = _as_float32_pair(logits, labels)
        all_ones = ones_like(labels)
        labels = subtract(2 * labels, all_ones)
        losses = relu(subtract(all_ones, multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=_LOSSES, reduction=_DEFAULT):
    """Quadratic for errors up to `delta`, linear beyond: robust to outliers."""
    _require(labels, "labels")
    _require(predictions, "predictions")
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        error = subtract(predictions, labels)
        abs_error = abs_op(error)
        quadratic = minimum(abs_error, delta)
        # abs_error - quadratic equals max(abs_error - delta, 0), but its gradient at
        # abs_error == delta is 0, not 1 (the quadratic term already counts there).
        linear = subtract(abs_error, quadratic)
        losses = add(multiply(convert.convert_to_tensor(0.5, dtype=quadratic.dtype),
                              multiply(quadratic, quadratic)),
                     multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=_LOSSES, reduction=_DEFAULT):
    """Binary cross entropy of probabilities `predictions`; epsilon keeps log finite."""
    _require(labels, "labels")
    _require(predictions, "predictions")
    with name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        losses = (-multiply(labels, log(predictions + epsilon))
                  - multiply((1 - labels), log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=_LOSSES, reduction=_DEFAULT):
    """The weighted mean of (predictions - labels) ** 2."""
    _require(labels, "labels")
    _require(predictions, "predictions")
    with name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        losses = squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=_LOSSES, reduction=_DEFAULT):
    """Logistic loss of each logit; label_smoothing moves labels towards 1/2."""
    _require(multi_class_labels, "multi_class_labels")
    _require(logits, "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss",
                    (logits, multi_class_labels, weights)) as scope:
        logits = convert.convert_to_tensor(logits)
        multi_class_labels = cast(multi_class_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(multi_class_labels.shape)
        if label_smoothing > 0:
            multi_class_labels = (multi_class_labels * (1 - label_smoothing) +
                                  0.5 * label_smoothing)
        losses = sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits,
                                                   name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=_LOSSES, reduction=_DEFAULT):
    """Softmax cross entropy per example; label_smoothing moves one-hot labels towards
    1/num_classes. No gradient flows into the labels."""
    _require(onehot_labels, "onehot_labels")
    _require(logits, "logits")
    with name_scope(scope, "softmax_cross_entropy_loss",
                    (logits, onehot_labels, weights)) as scope:
        logits = convert.convert_to_tensor(logits)
        onehot_labels = cast(onehot_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(onehot_labels.shape)
        if label_smoothing > 0:
            num_classes = cast(shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits,
                                                      name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights, expected_rank_diff):
    """Squeezes a trailing size-1 axis off labels / predictions / weights whose rank is
    one more than expected (labels [batch, 1] for logits [batch, classes]).

    Only static ranks are used; TF also decides at run time when a rank is unknown.
    """
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert.convert_to_tensor(predictions)
        labels = convert.convert_to_tensor(labels)
        p_rank = predictions.shape.ndims
        l_rank = labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            rank_diff = p_rank - l_rank
            if (rank_diff == expected_rank_diff + 1 and
                    predictions.shape.dims[-1].is_compatible_with(1)):
                predictions = squeeze(predictions, [-1])
            elif (rank_diff == expected_rank_diff - 1 and
                  labels.shape.dims[-1].is_compatible_with(1)):
                labels = squeeze(labels, [-1])
    if weights is not None:
        weights = convert.convert_to_tensor(weights)
        l_rank = labels.shape.ndims
        w_rank = weights.shape.ndims
        if l_rank is not None and w_rank is not None and w_rank - l_rank == 1:
            weights = squeeze(weights, [-1])
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=_LOSSES, reduction=_DEFAULT):
    """Softmax cross entropy with integer class labels (shape of logits minus its last
    axis; a trailing axis of size 1 is squeezed off)."""
    _require(labels, "labels")
    _require(logits, "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights, 1)
        losses = sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)
