"""Weight regularizers of `tf.contrib.layers` (TF 1.15): functions of a weight tensor
that return a scalar penalty to add to the loss.

    l1_regularizer(scale)(w)  = scale * sum(|w|)
    l2_regularizer(scale)(w)  = scale * sum(w ** 2) / 2      (tf.nn.l2_loss)
    l1_l2_regularizer(s1, s2) = the sum of both
    sum_regularizer([r1, r2]) = the sum of any regularizers

A regularizer only computes the penalty; `apply_regularization` (or the student, with
`tf.add_to_collection`) puts it where the loss will find it. A scale must be a float:
an int is TF's ValueError (`scale cannot be an integer: 1`), a negative one too, and
0.0 gives a regularizer that returns None (no penalty).
"""
import numbers

from tfteach.framework import convert
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import add_to_collection, get_collection, name_scope
from tfteach.ops.aggregate_ops import add_n
from tfteach.ops.binary_ops import multiply
from tfteach.ops.constant_op import constant
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.unary_ops import abs as abs_op
from tfteach.nn.losses_ops import l2_loss

__all__ = ["l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "sum_regularizer",
           "apply_regularization"]


def _check_scale(scale, name, period):
    """TF's checks on a Python scale; True if the regularizer is disabled (scale 0)."""
    if isinstance(scale, numbers.Integral):
        raise ValueError("%s cannot be an integer: %s" % (name, scale))
    if isinstance(scale, numbers.Real):
        if scale < 0.:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g%s"
                             % (scale, period))
        if scale == 0.:
            return True
    return False


def l1_regularizer(scale, scope=None):
    """A function `l1(weights)` returning scale * sum(|weights|)."""
    if _check_scale(scale, "scale", ""):
        return lambda _: None

    def l1(weights, name=None):
        with name_scope(scope, "l1_regularizer", [weights]) as name:
            my_scale = convert.convert_to_tensor(scale, dtype=weights.dtype.base_dtype,
                                                 name="scale")
            return multiply(my_scale, reduce_sum(abs_op(weights)), name=name)

    return l1


def l2_regularizer(scale, scope=None):
    """A function `l2(weights)` returning scale * sum(weights ** 2) / 2."""
    if _check_scale(scale, "scale", "."):
        return lambda _: None

    def l2(weights):
        with name_scope(scope, "l2_regularizer", [weights]) as name:
            my_scale = convert.convert_to_tensor(scale, dtype=weights.dtype.base_dtype,
                                                 name="scale")
            return multiply(my_scale, l2_loss(weights), name=name)

    return l2


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """A function returning the L1 penalty (scale_l1) plus the L2 penalty (scale_l2)."""
    if isinstance(scale_l1, numbers.Integral):
        raise ValueError("scale_l1 cannot be an integer: %s" % (scale_l1,))
    if isinstance(scale_l2, numbers.Integral):
        raise ValueError("scale_l2 cannot be an integer: %s" % (scale_l2,))
    scope = scope or "l1_l2_regularizer"
    if scale_l1 == 0.:
        return l2_regularizer(scale_l2, scope)
    if scale_l2 == 0.:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list, scope=None):
    """A function returning the sum of the penalties of `regularizer_list` (AddN);
    None if the list holds no regularizer."""
    regularizer_list = [reg for reg in regularizer_list if reg is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            tensors = [t for t in (reg(weights) for reg in regularizer_list) if t is not None]
            return add_n(tensors, name=name) if tensors else None

    return sum_reg


def apply_regularization(regularizer, weights_list=None):
    """Sums `regularizer(w)` over `weights_list` (default: the tf.GraphKeys.WEIGHTS
    collection), adds the sum to tf.GraphKeys.REGULARIZATION_LOSSES and returns it."""
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else constant(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a "
                                 "Tensor with rank %d." % p.shape.ndims)
        summed_penalty = add_n(penalties, name=scope)
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed_penalty)
        return summed_penalty
