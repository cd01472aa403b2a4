"""Counting metrics: `tf.metrics.true_positives`, `false_positives`, `false_negatives`,
`true_negatives`, and `precision` / `recall` built from them (TF 1.15's metrics_impl).

Labels and predictions are cast to bool. Each count is one local float32 variable
`count` in its own scope, so precision keeps `precision/true_positives/count` and
`precision/false_positives/count`. precision = tp / (tp + fp), recall = tp / (tp + fn),
both 0 while their denominator is 0 (a `Select`, as TF's `tf.where(..., 0)`).
"""
from tfteach.framework import dtypes
from tfteach.metrics.mean_metrics import _add_to
from tfteach.metrics.metric_variables import (metric_variable, read_variable,
                                              remove_squeezable_dimensions)
from tfteach.ops import state_ops
from tfteach.ops.binary_ops import multiply, truediv
from tfteach.ops.cast_ops import cast
from tfteach.ops.check_ops import assert_type
from tfteach.ops.comparison_ops import equal, greater, logical_and
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.variable_scope import variable_scope
from tfteach.ops.where_ops import where

__all__ = ["true_positives", "false_positives", "false_negatives", "true_negatives",
           "precision", "recall"]


def _count_condition(values, weights=None, metrics_collections=None,
                     updates_collections=None):
    """Sums the weights where the bool tensor `values` is True: (value, update_op)."""
    assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = cast(values, dtypes.float32)
    if weights is not None:
        weights = cast(weights, dtypes.float32)
        w_rank, v_rank = weights.shape.ndims, values.shape.ndims
        if w_rank is not None and v_rank is not None and w_rank not in (0, v_rank):
            # TF's assert_rank_in, decided statically.
            raise ValueError("weights rank must be 0 or %d, got %d" % (v_rank, w_rank))
        values = multiply(values, weights)
    value_tensor = read_variable(count)
    _add_to(metrics_collections, value_tensor)
    update_op = state_ops.assign_add(count, reduce_sum(values))
    _add_to(updates_collections, update_op)
    return value_tensor, update_op


def _counter(default_name, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = remove_squeezable_dimensions(
                cast(predictions, dtypes.bool), cast(labels, dtypes.bool), weights)
            is_counted = logical_and(equal(labels, label_value),
                                     equal(predictions, prediction_value))
            return _count_condition(is_counted, weights, metrics_collections,
                                    updates_collections)
    metric.__name__ = metric.__qualname__ = default_name
    metric.__doc__ = ("The (weighted) number of elements with label %s and prediction %s: "
                      "(value, update_op)." % (label_value, prediction_value))
    return metric


true_positives = _counter("true_positives", True, True)
false_positives = _counter("false_positives", False, True)
false_negatives = _counter("false_negatives", True, False)
true_negatives = _counter("true_negatives", False, False)


def _ratio(tp, other, name):
    """tp / (tp + other), or 0 while the denominator is 0."""
    return where(greater(tp + other, 0), truediv(tp, tp + other), 0, name)


def _ratio_metric(default_name, other_counter, labels, predictions, weights,
                  metrics_collections, updates_collections, name):
    with variable_scope(name, default_name, (predictions, labels, weights)):
        predictions, labels, weights = remove_squeezable_dimensions(
            cast(predictions, dtypes.bool), cast(labels, dtypes.bool), weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        other, other_update = other_counter(labels, predictions, weights)
        value = _ratio(true_p, other, "value")
        _add_to(metrics_collections, value)
        update_op = _ratio(true_p_update, other_update, "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """tp / (tp + fp) over every batch seen: (precision, update_op)."""
    return _ratio_metric("precision", false_positives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """tp / (tp + fn) over every batch seen: (recall, update_op)."""
    return _ratio_metric("recall", false_negatives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)
