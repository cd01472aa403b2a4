"""The losses of `tf.contrib.legacy_seq2seq`, where a sequence is a Python *list* of
per-step tensors (the old RNN API): logits[t] is [batch, classes], targets[t] [batch],
weights[t] [batch].

    sequence_loss_by_example  the weighted cross entropy of each example, summed over
                              steps (divided by the summed weights by default): [batch]
    sequence_loss             its sum over the batch, divided by the batch size: a scalar
"""
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.aggregate_ops import add_n
from tfteach.ops.cast_ops import cast
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import reshape, shape
from tfteach.nn.xent_ops import sparse_softmax_cross_entropy_with_logits

__all__ = ["sequence_loss_by_example", "sequence_loss"]


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """The weighted log-perplexity of each example: a [batch] tensor."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same "
                         "%d, %d, %d." % (len(logits), len(weights), len(targets)))
    with name_scope(name, "sequence_loss_by_example", logits + targets + weights):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                # (reshape: the targets of a step may come as scalars or [batch, 1])
                target = reshape(target, [-1])
                crossent = sparse_softmax_cross_entropy_with_logits(labels=target,
                                                                    logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = add_n(log_perp_list)
        if average_across_timesteps:
            total_size = add_n(weights)
            total_size += 1e-12         # avoids 0 / 0 for all-zero weights
            log_perps /= total_size
    return log_perps


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, softmax_loss_function=None, name=None):
    """sum(sequence_loss_by_example(...)), divided by the batch size by default."""
    with name_scope(name, "sequence_loss", logits + targets + weights):
        cost = reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = shape(targets[0])[0]
            return cost / cast(batch_size, cost.dtype)
        return cost
