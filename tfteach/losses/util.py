"""The loss collections: `tf.losses.add_loss`, `get_losses`, `get_total_loss`, ...

Losses are found by collection, not passed around: every tf.losses function adds its
result to tf.GraphKeys.LOSSES ("losses"), regularizers add theirs to
tf.GraphKeys.REGULARIZATION_LOSSES ("regularization_losses"), and
`get_total_loss()` adds both up (`total_loss`, an AddN).
"""
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import add_to_collection, get_collection
from tfteach.ops.aggregate_ops import add_n
from tfteach.ops.constant_op import constant

__all__ = ["add_loss", "get_losses", "get_regularization_losses", "get_regularization_loss",
           "get_total_loss"]


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds `loss` to the collection `loss_collection` (nothing if it is None or '')."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in `loss_collection` (those whose name matches `scope`, if given)."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in tf.GraphKeys.REGULARIZATION_LOSSES (matching `scope`, if given)."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses; a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return add_n(losses, name=name)
    return constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses in tf.GraphKeys.LOSSES, plus the regularization losses.

    With no losses at all, TF's `add_n([])` error: ValueError.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return add_n(losses, name=name)
