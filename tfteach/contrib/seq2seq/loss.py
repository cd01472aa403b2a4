"""`tf.contrib.seq2seq.sequence_loss`: the softmax cross entropy of a batch of sequences.

logits [batch, steps, classes], targets [batch, steps] (class indices) and weights
[batch, steps] (1 for real steps, 0 for padding). Each step's loss is
sparse_softmax_cross_entropy_with_logits times its weight; then the losses are averaged
(divided by the summed weights) or summed (divided by the count of non-zero weights,
with sum_over_*) across time steps and/or the batch. 1e-12 is added to each divisor so
that all-zero weights give 0, not nan (TF 1.15's code, kept exactly).
"""
from tfteach.framework import dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.cast_ops import cast
from tfteach.ops.reduction_ops import count_nonzero, reduce_sum
from tfteach.ops.shape_ops import reshape, shape
from tfteach.nn.xent_ops import sparse_softmax_cross_entropy_with_logits

__all__ = ["sequence_loss"]


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Weighted cross entropy of sequences: a scalar by default; [steps], [batch] or
    [batch, steps] when averaging (or summing) is turned off across batch / time."""
    if len(logits.shape) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if len(targets.shape) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.shape) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = shape(logits)[2]
        logits_flat = reshape(logits, [-1, num_classes])
        targets = reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = sparse_softmax_cross_entropy_with_logits(labels=targets,
                                                                logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            crossent = reduce_sum(crossent)
            total_size = reduce_sum(weights)
            total_size += 1e-12         # avoids 0 / 0 for all-zero weights
            crossent /= total_size
        elif sum_over_timesteps and sum_over_batch:
            crossent = reduce_sum(crossent)
            total_count = cast(count_nonzero(weights), dtypes.float32)
            total_count += 1e-12
            crossent /= total_count
        else:
            crossent = reshape(crossent, shape(logits)[0:2])
            if average_across_timesteps or average_across_batch:
                reduce_axis = [0] if average_across_batch else [1]
                crossent = reduce_sum(crossent, axis=reduce_axis)
                total_size = reduce_sum(weights, axis=reduce_axis)
                total_size += 1e-12
                crossent /= total_size
            elif sum_over_timesteps or sum_over_batch:
                reduce_axis = [0] if sum_over_batch else [1]
                crossent = reduce_sum(crossent, axis=reduce_axis)
                total_count = cast(count_nonzero(weights, axis=reduce_axis),
                                   dtype=dtypes.float32)
                total_count += 1e-12
                crossent /= total_count
        return crossent
