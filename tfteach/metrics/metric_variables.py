"""What every metric shares: its local variables, squeezing its inputs' trailing axes,
and reading a variable as a metric's value.

A metric's state lives in *local* variables, zeros of float32 (float64 for mean_iou's
confusion matrix) in the collections LOCAL_VARIABLES and METRIC_VARIABLES, never
trainable and never in GLOBAL_VARIABLES. So `tf.global_variables_initializer()` leaves
them uninitialized: a program must also run `tf.local_variables_initializer()`, or the
first update fails with TF's FailedPreconditionError "Attempting to use uninitialized
value auc/true_positives" (the notes' classic error). Running it again resets a metric.
"""
from tfteach.framework import convert
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.constant_op import identity
from tfteach.ops.fill_ops import zeros
from tfteach.ops.shape_ops import expand_dims, squeeze
from tfteach.ops.variables import Variable

__all__ = ["metric_variable", "remove_squeezable_dimensions", "squeeze_labels_or_predictions",
           "read_variable"]


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A non-trainable local variable of zeros, in LOCAL_ and METRIC_VARIABLES."""
    return Variable(lambda: zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def squeeze_labels_or_predictions(labels, predictions):
    """TF's confusion_matrix.remove_squeezable_dimensions (static ranks): a trailing
    size-1 axis comes off whichever of the two has one axis more."""
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert.convert_to_tensor(predictions)
        labels = convert.convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            rank_diff = p_rank - l_rank
            if rank_diff == 1 and predictions.shape.dims[-1].is_compatible_with(1):
                predictions = squeeze(predictions, [-1])
            elif rank_diff == -1 and labels.shape.dims[-1].is_compatible_with(1):
                labels = squeeze(labels, [-1])
        return labels, predictions


def remove_squeezable_dimensions(predictions, labels, weights):
    """(predictions, labels, weights) with ranks made equal as TF's metrics do: a
    trailing size-1 axis squeezed off predictions or labels, and weights squeezed or
    expanded by one axis to the rank of predictions (a scalar weight stays a scalar).

    tfteach decides from static ranks only; TF 1.15 also builds `cond`s for unknown
    ranks (a placeholder of unknown rank keeps its axes here).
    """
    predictions = convert.convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = squeeze_labels_or_predictions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert.convert_to_tensor(weights)
    w_rank, p_rank = weights.shape.ndims, predictions.shape.ndims
    if w_rank == 0 or w_rank is None or p_rank is None:
        return predictions, labels, weights
    if w_rank - p_rank == 1:
        weights = squeeze(weights, [-1])
    elif p_rank - w_rank == 1:
        weights = expand_dims(weights, [-1])
    return predictions, labels, weights


def read_variable(variable):
    """A metric's value read from its variable: TF's default distribution strategy
    reads it through an Identity (`precision/true_positives/Identity`)."""
    return identity(variable)
