"""Losses of `tf.nn` that are not softmax based: `l2_loss` and the logistic losses.

- `l2_loss(t)` = sum(t ** 2) / 2, one op (`L2Loss`); the 1/2 makes its gradient just `t`.
- `sigmoid_cross_entropy_with_logits(labels=z, logits=x)`: the logistic loss
  -z*log(sigmoid(x)) - (1-z)*log(1-sigmoid(x)), written as TF writes it so that it never
  overflows: max(x, 0) - x*z + log(1 + exp(-|x|)). Built from the same elementwise ops
  as TF 1.15 (Select on `x >= 0`), so its gradient at x = 0 is sigmoid(0) - z, exactly.
- `weighted_cross_entropy_with_logits(labels, logits, pos_weight)`: the same with the
  positive term weighted (TF1 also accepts the old argument name `targets`).
"""
from tfteach.framework import convert
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.framework import tensor_shape
from tfteach.kernels.cpu import nn_kernels
from tfteach.ops.binary_ops import add
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.op_builder import apply_op
from tfteach.ops.unary_ops import abs as abs_op, exp, log1p
from tfteach.ops.where_ops import where
from tfteach.nn.activations import relu
from tfteach.nn.nn_dtypes import FLOATS, convert_checked
from tfteach.nn.xent_ops import _ensure_xent_args

__all__ = ["l2_loss", "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits"]


register_op("L2Loss", lambda op: [(op._inputs[0].dtype.base_dtype, tensor_shape.scalar())],
            cpu=nn_kernels.l2_loss)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar (`L2Loss`): the usual weight-decay penalty."""
    with name_scope(name, "L2Loss", [t]) as scope:
        t = convert_checked(t, "t", FLOATS)
        return apply_op("L2Loss", [t], {"T": t.dtype.base_dtype}, scope)


def _same_shape(logits, labels, labels_name):
    try:
        labels.shape.merge_with(logits.shape)
    except ValueError:
        raise ValueError("logits and %s must have the same shape (%s vs %s)"
                         % (labels_name, logits.shape, labels.shape)) from None


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """The logistic loss of each element: max(x, 0) - x * z + log(1 + exp(-|x|))."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert.convert_to_tensor(logits, name="logits")
        labels = convert.convert_to_tensor(labels, name="labels")
        _same_shape(logits, labels, "labels")
        zeros = zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = where(cond, logits, zeros)
        neg_abs_logits = where(cond, -logits, logits)
        return add(relu_logits - logits * labels, log1p(exp(neg_abs_logits)), name=name)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Like sigmoid_cross_entropy_with_logits, with the positive examples' term
    multiplied by `pos_weight`: (1 - z) * x + (1 + (q - 1) * z) * log(1 + exp(-x)),
    computed as (1 - z) * x + l * (log(1 + exp(-|x|)) + max(-x, 0)), l = 1 + (q - 1) * z.
    """
    if targets is not None:
        if labels is not None:
            raise ValueError("Cannot specify both 'targets' and 'labels'.")
        labels = targets
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert.convert_to_tensor(logits, name="logits")
        labels = convert.convert_to_tensor(labels, name="labels")
        _same_shape(logits, labels, "labels")
        log_weight = 1 + (pos_weight - 1) * labels
        return add((1 - labels) * logits,
                   log_weight * (log1p(exp(-abs_op(logits))) + relu(-logits)), name=name)
