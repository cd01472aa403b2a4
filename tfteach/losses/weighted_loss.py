"""`tf.losses.compute_weighted_loss` and `tf.losses.Reduction`: from per-example losses
to the one number a loss function returns.

Every tf.losses function computes a tensor of losses (one per element), multiplies it by
`weights` and reduces it as `reduction` says. TF 1.15's default,
SUM_BY_NONZERO_WEIGHTS, divides the weighted sum by the number of non-zero weights
(broadcast to the losses' shape): with the default weights=1.0 that is the plain mean;
with 0/1 weights used as a mask it is the mean over the examples that count. A
division by zero count gives 0 (`div_no_nan`), not nan.

The result is added to the collection `loss_collection` (tf.GraphKeys.LOSSES), where
`tf.losses.get_total_loss()` finds it.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import control_dependencies, name_scope
from tfteach.ops.binary_ops import multiply
from tfteach.ops.cast_ops import cast
from tfteach.ops.comparison_ops import equal
from tfteach.ops.fill_ops import ones_like, zeros_like
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import size
from tfteach.ops.where_ops import where
from tfteach.losses import util
from tfteach.losses.safe_div import div_no_nan
from tfteach.losses.weights_broadcast import assert_broadcastable, broadcast_weights

__all__ = ["Reduction", "compute_weighted_loss"]


class Reduction:
    """Types of loss reduction (`tf.losses.Reduction`).

    NONE: the weighted losses, unreduced. SUM: their sum. MEAN: the sum divided by the
    sum of the weights. SUM_OVER_BATCH_SIZE: the sum divided by the number of losses.
    SUM_BY_NONZERO_WEIGHTS (= SUM_OVER_NONZERO_WEIGHTS, the default): the sum divided by
    the number of non-zero weights.
    """
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


def _safe_mean(losses, num_present):
    """sum(losses) / num_present, and 0 when num_present is 0."""
    total_loss = reduce_sum(losses)
    return div_no_nan(total_loss, num_present, name="value")


def _num_elements(losses):
    """The number of elements of `losses`, as a float of the losses' dtype."""
    with name_scope(None, "num_elements", values=[losses]) as scope:
        return cast(size(losses, name=scope), dtype=losses.dtype)


def num_present(losses, weights):
    """How many elements of `losses` have a non-zero weight, once weights are broadcast."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = cast(weights, dtype=dtypes.float32)
        present = where(equal(weights, 0.0), zeros_like(weights), ones_like(weights))
        present = broadcast_weights(present, losses)
        return reduce_sum(present, name=scope)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """losses * weights, reduced by `reduction`, added to `loss_collection`.

    weights: a scalar, or a tensor of the losses' rank whose dimensions are each 1 or the
    losses' size. The result has the losses' dtype (computed in float32, as TF does).
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        with control_dependencies((assert_broadcastable(weights, losses),)):
            losses = convert.convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = cast(losses, dtype=dtypes.float32)
            weights = cast(weights, dtype=dtypes.float32)
            weighted_losses = multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, reduce_sum(ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            # Back to the input's dtype (a float64 loss stays float64).
            loss = cast(loss, input_dtype)
            util.add_loss(loss, loss_collection)
            return loss
