"""`tf.confusion_matrix` and `tf.metrics.mean_iou`, the mean intersection-over-union of
a segmentation: per class, IOU = tp / (tp + fp + fn), averaged over the classes that
occur in the labels or the predictions (TF 1.15's confusion_matrix.py and metrics_impl).

The metric's state is one float64 local variable `mean_iou/total_confusion_matrix` of
shape [num_classes, num_classes] (rows: labels, columns: predictions); its update op
is the `AssignAdd` of the batch's confusion matrix (it returns the matrix, not the IOU).
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.metrics.mean_metrics import _add_to
from tfteach.metrics.metric_variables import (metric_variable,
                                              squeeze_labels_or_predictions)
from tfteach.ops import state_ops
from tfteach.ops.array_grad_ops import scatter_nd
from tfteach.ops.binary_ops import divide, maximum
from tfteach.ops.cast_ops import cast
from tfteach.ops.check_ops import assert_less, assert_non_negative
from tfteach.ops.comparison_ops import greater, not_equal
from tfteach.ops.dependency_ops import with_dependencies
from tfteach.ops.diag_ops import diag_part
from tfteach.ops.fill_ops import ones_like
from tfteach.ops.join_ops import stack
from tfteach.ops.reduction_ops import reduce_max, reduce_sum
from tfteach.ops.shape_ops import reshape
from tfteach.ops.variable_scope import variable_scope
from tfteach.ops.where_ops import where

__all__ = ["confusion_matrix", "mean_iou"]


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None):
    """[n, n] counts (or weight sums) of (label, prediction) pairs; n = num_classes, or
    one more than the largest label or prediction. Negative or too-large ids fail the
    run with TF's assertions."""
    with name_scope(name, "confusion_matrix",
                    (predictions, labels, num_classes, weights)):
        labels, predictions = squeeze_labels_or_predictions(
            convert.convert_to_tensor(labels, name="labels"),
            convert.convert_to_tensor(predictions, name="predictions"))
        predictions = cast(predictions, dtypes.int64)
        labels = cast(labels, dtypes.int64)
        labels = with_dependencies([assert_non_negative(
            labels, message="`labels` contains negative values")], labels)
        predictions = with_dependencies([assert_non_negative(
            predictions, message="`predictions` contains negative values")], predictions)
        if num_classes is None:
            num_classes = maximum(reduce_max(predictions), reduce_max(labels)) + 1
        else:
            num_classes_int64 = cast(num_classes, dtypes.int64)
            labels = with_dependencies([assert_less(
                labels, num_classes_int64, message="`labels` out of bound")], labels)
            predictions = with_dependencies([assert_less(
                predictions, num_classes_int64, message="`predictions` out of bound")],
                predictions)
        if weights is not None:
            weights = convert.convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = cast(weights, dtype)
        shape = stack([num_classes, num_classes])
        indices = stack([labels, predictions], axis=1)
        values = ones_like(predictions, dtype) if weights is None else weights
        return scatter_nd(indices=indices, updates=values, shape=cast(shape, dtypes.int64))


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    total_cm = metric_variable([num_classes, num_classes], dtypes.float64,
                               name="total_confusion_matrix")
    predictions = cast(predictions, dtypes.int64)
    labels = cast(labels, dtypes.int64)
    num_classes = cast(num_classes, dtypes.int64)
    if predictions.shape.ndims > 1:
        predictions = reshape(predictions, [-1])
    if labels.shape.ndims > 1:
        labels = reshape(labels, [-1])
    if weights is not None and weights.shape.ndims > 1:
        weights = reshape(weights, [-1])
    current_cm = confusion_matrix(labels, predictions, num_classes, weights=weights,
                                  dtype=dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current_cm)


def _compute_mean_iou(total_cm):
    sum_over_row = cast(reduce_sum(total_cm, 0), dtypes.float32)
    sum_over_col = cast(reduce_sum(total_cm, 1), dtypes.float32)
    cm_diag = cast(diag_part(total_cm), dtypes.float32)
    denominator = sum_over_row + sum_over_col - cm_diag
    # Only classes that occur in the labels or the predictions count.
    num_valid_entries = reduce_sum(cast(not_equal(denominator, 0), dtype=dtypes.float32))
    denominator = where(greater(denominator, 0), denominator, ones_like(denominator))
    iou = divide(cm_diag, denominator)
    # No class at all: 0.
    return where(greater(num_valid_entries, 0),
                 reduce_sum(iou, name="mean_iou") / num_valid_entries, 0)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """(mean_iou, update_op); the update op returns the confusion matrix so far."""
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        # (No conversion first: like TF's, Python lists fail here with AttributeError.)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes,
                                                          weights)
        mean_iou_v = _compute_mean_iou(total_cm)
        _add_to(metrics_collections, mean_iou_v)
        _add_to(updates_collections, update_op)
        return mean_iou_v, update_op
