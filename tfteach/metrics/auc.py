"""`tf.metrics.auc`: the area under the ROC or precision-recall curve, as TF 1.15
computes it, from counts at fixed thresholds.

Four local float32 variables of shape [num_thresholds] (`auc/true_positives`,
`false_negatives`, `true_negatives`, `false_positives`) count, for every threshold t,
the predictions above t (positive) or not, by label. The thresholds are TF's:
num_thresholds - 2 evenly spaced inside (0, 1), plus -1e-7 and 1 + 1e-7 at the ends so
that predictions of exactly 0 or 1 fall inside. Predictions must lie in [0, 1]: two
assertions check it when the update runs.

The area is a Riemann sum over the thresholds with TF's epsilon of 1e-6 in the rates:
recall = (tp + eps) / (tp + fn + eps), fp_rate = fp / (fp + tn + eps), precision =
(tp + eps) / (tp + fp + eps); summation_method 'trapezoidal' (default), 'minoring',
'majoring', or 'careful_interpolation' (for PR, TF's interpolation of Davis & Goadrich).
"""
from tfteach.framework import dtypes
from tfteach.framework.graph_functions import control_dependencies
from tfteach.losses.safe_div import div_no_nan
from tfteach.losses.weights_broadcast import broadcast_weights
from tfteach.metrics.mean_metrics import _add_to
from tfteach.metrics.metric_variables import metric_variable, remove_squeezable_dimensions
from tfteach.ops import state_ops
from tfteach.ops.binary_ops import divide, maximum, minimum, multiply
from tfteach.ops.cast_ops import cast
from tfteach.ops.check_ops import assert_greater_equal, assert_less_equal
from tfteach.ops.comparison_ops import greater, logical_and, logical_not
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import ones_like
from tfteach.ops.join_ops import stack
from tfteach.ops.layout_ops import tile, transpose
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import expand_dims, reshape, shape
from tfteach.ops.unary_ops import log
from tfteach.ops.variable_scope import variable_scope
from tfteach.ops.where_ops import where

__all__ = ["auc"]

_KEPSILON = 1e-7        # puts predictions of exactly 0 and 1 inside the end thresholds
_EPSILON = 1.0e-6       # keeps the rates' denominators away from 0
_SUMMATION_METHODS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None):
    """Counts tp, fn, tn, fp at each threshold: ({key: variable}, {key: update_op})."""
    with control_dependencies([
            assert_greater_equal(predictions, cast(0.0, predictions.dtype),
                                 message="predictions must be in [0, 1]"),
            assert_less_equal(predictions, cast(1.0, predictions.dtype),
                              message="predictions must be in [0, 1]")]):
        predictions, labels, weights = remove_squeezable_dimensions(
            cast(predictions, dtypes.float32), cast(labels, dtypes.bool), weights)
    num_thresholds = len(thresholds)
    predictions_2d = reshape(predictions, [-1, 1])
    labels_2d = reshape(cast(labels, dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = shape(predictions_2d)[0]
    thresh_tiled = tile(expand_dims(constant(thresholds), [1]), stack([1, num_predictions]))
    # One row per threshold: is each prediction above it?
    pred_is_pos = greater(tile(transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled)
    pred_is_neg = logical_not(pred_is_pos)
    label_is_pos = tile(labels_2d, [num_thresholds, 1])
    label_is_neg = logical_not(label_is_pos)
    weights_tiled = None
    if weights is not None:
        weights = broadcast_weights(cast(weights, dtypes.float32), predictions)
        weights_tiled = tile(reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    values, update_ops = {}, {}
    for key, name, label_side, prediction_side in [
            ("tp", "true_positives", label_is_pos, pred_is_pos),
            ("fn", "false_negatives", label_is_pos, pred_is_neg),
            ("tn", "true_negatives", label_is_neg, pred_is_neg),
            ("fp", "false_positives", label_is_neg, pred_is_pos)]:
        variable = metric_variable([num_thresholds], dtypes.float32, name=name)
        is_counted = cast(logical_and(label_side, prediction_side), dtypes.float32)
        if weights_tiled is not None:
            is_counted *= weights_tiled
        update_ops[key] = state_ops.assign_add(variable, reduce_sum(is_counted, 1))
        values[key] = variable
    return values, update_ops


def _interpolate_pr_auc(tp, fp, fn, num_thresholds):
    """TF's 'careful_interpolation' of the PR curve: precision interpolated through the
    positives' counts, integrated exactly over each bucket."""
    dtp = tp[:num_thresholds - 1] - tp[1:]
    p = tp + fp
    prec_slope = div_no_nan(dtp, maximum(p[:num_thresholds - 1] - p[1:], 0),
                            name="prec_slope")
    intercept = tp[1:] - multiply(prec_slope, p[1:])
    safe_p_ratio = where(
        logical_and(p[:num_thresholds - 1] > 0, p[1:] > 0),
        div_no_nan(p[:num_thresholds - 1], maximum(p[1:], 0), name="recall_relative_ratio"),
        ones_like(p[1:]))
    return reduce_sum(div_no_nan(prec_slope * (dtp + intercept * log(safe_p_ratio)),
                                 maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
                      name="interpolate_pr_auc")


def _area(tp, fn, tn, fp, curve, summation_method, num_thresholds, name):
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, num_thresholds)
    rec = divide(tp + _EPSILON, tp + fn + _EPSILON)
    if curve == "ROC":
        x, y = divide(fp, fp + tn + _EPSILON), rec
    else:
        x, y = rec, divide(tp + _EPSILON, tp + fp + _EPSILON)
    widths = x[:num_thresholds - 1] - x[1:]
    if summation_method in ("trapezoidal", "careful_interpolation"):
        heights = (y[:num_thresholds - 1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        heights = minimum(y[:num_thresholds - 1], y[1:])
    else:
        heights = maximum(y[:num_thresholds - 1], y[1:])
    return reduce_sum(multiply(widths, heights), name=name)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC (or PR) curve over every batch seen: (auc, update_op)."""
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if curve != "ROC" and curve != "PR":
            raise ValueError("curve must be either ROC or PR, %s unknown" % (curve))
        if summation_method not in _SUMMATION_METHODS:
            raise ValueError("Invalid summation_method: %s" % summation_method)
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
        thresholds = [0.0 - _KEPSILON] + thresholds + [1.0 + _KEPSILON]
        values, update_ops = confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                            weights)
        auc_value = _area(values["tp"], values["fn"], values["tn"], values["fp"], curve,
                          summation_method, num_thresholds, "value")
        _add_to(metrics_collections, auc_value)
        update_op = _area(update_ops["tp"], update_ops["fn"], update_ops["tn"],
                          update_ops["fp"], curve, summation_method, num_thresholds,
                          "update_op")
        _add_to(updates_collections, update_op)
        return auc_value, update_op
