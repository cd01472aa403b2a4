"""Metrics that are means: `tf.metrics.mean`, `accuracy`, `mean_squared_error`,
`mean_absolute_error` (TF 1.15's metrics_impl.py, built from the same ops).

`mean` keeps two local variables, `total` and `count`. Its `update_op` adds the batch's
(weighted) sum to `total` and its (weighted) size to `count` and returns the new mean;
the value tensor `mean/value` only reads total / count (0 while count is 0). The others
turn labels and predictions into per-element values, then call `mean` in their own
variable scope: `accuracy/total`, `accuracy/count`, `accuracy/value`, `accuracy/update_op`.
"""
from tfteach.framework import dtypes
from tfteach.framework.graph_functions import add_to_collections, control_dependencies
from tfteach.losses.safe_div import div_no_nan
from tfteach.losses.weights_broadcast import broadcast_weights
from tfteach.metrics.metric_variables import metric_variable, remove_squeezable_dimensions
from tfteach.ops import state_ops
from tfteach.ops.binary_ops import maximum, multiply, squared_difference
from tfteach.ops.cast_ops import cast
from tfteach.ops.comparison_ops import equal
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import size
from tfteach.ops.unary_ops import abs as abs_op
from tfteach.ops.variable_scope import variable_scope

__all__ = ["mean", "accuracy", "mean_squared_error", "mean_absolute_error"]


def _add_to(collections, value):
    if collections:
        add_to_collections(collections, value)


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """The (weighted) mean of `values` over every batch seen: (mean, update_op)."""
    with variable_scope(name, "mean", (values, weights)):
        values = cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = cast(size(values), dtypes.float32)
        else:
            values, _, weights = remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(cast(weights, dtypes.float32), values)
            values = multiply(values, weights)
            num_values = reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = div_no_nan(total, maximum(count, 0), name="value")
        _add_to(metrics_collections, mean_t)
        update_op = div_no_nan(update_total_op, maximum(update_count_op, 0), name="update_op")
        _add_to(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often predictions == labels (predictions cast to the labels' dtype)."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = cast(predictions, labels.dtype.base_dtype)
    is_correct = cast(equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of (labels - predictions)^2."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    squared_error = squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of |predictions - labels|."""
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights)
    absolute_errors = abs_op(predictions - labels)     # the operator: TF's op is `sub`
    return mean(absolute_errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")
