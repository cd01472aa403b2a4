"""Which `weights` tf.losses accepts for a tensor of losses (TF's weights_broadcast_ops).

TF 1.15's rule is stricter than NumPy broadcasting: weights must be a scalar, or have
*the same rank* as the losses with every dimension either 1 or equal to the losses'
one. So weights of shape [batch] fit losses of shape [batch], but weights [batch, 1]
against losses [batch] are an error, not a silent [batch, batch] broadcast.

Checked when the graph is built whenever the static shapes allow it (ValueError
`weights can not be broadcast to values. ...`); otherwise by an `Assert` when the graph
runs. Either way the function returns an op that later ops depend on, as in TF.
"""
import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.graph_functions import control_dependencies, name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops.binary_ops import multiply
from tfteach.ops.comparison_ops import equal
from tfteach.ops.dependency_ops import no_op
from tfteach.ops.fill_ops import ones_like
from tfteach.ops.logging_ops import Assert
from tfteach.ops.op_builder import apply_op, constant_value
from tfteach.ops.shape_ops import rank, shape

__all__ = ["assert_broadcastable", "broadcast_weights"]

_ERROR_PREFIX = "weights can not be broadcast to values."


def _valid_weights_shape(ctx, weights_shape, values_shape):
    """True if weights of shape `weights_shape` may scale values of `values_shape`."""
    w = np.ravel(weights_shape).tolist()
    v = np.ravel(values_shape).tolist()
    if not w:
        return np.array(True)
    return np.array(len(w) == len(v) and all(a in (1, b) for a, b in zip(w, v)))


# The run-time check for shapes not known when the graph is built. (TF composes it from
# a cond and set operations; one small op gives the same answer.)
register_op("ValidWeightsShape",
            lambda op: [(dtypes.bool, tensor_shape.scalar())], cpu=_valid_weights_shape)
not_differentiable("ValidWeightsShape")


def assert_broadcastable(weights, values):
    """An op that checks `weights` against `values`: a NoOp when the static shapes
    already prove it, an Assert otherwise; ValueError if they already disprove it."""
    with name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert.convert_to_tensor(weights, name=weights_scope)
            weights_shape = shape(weights, name="shape")
            weights_rank = rank(weights, name="rank")
        weights_rank_static = constant_value(weights_rank)
        with name_scope(None, "values", (values,)) as values_scope:
            values = convert.convert_to_tensor(values, name=values_scope)
            values_shape = shape(values, name="shape")
            values_rank = rank(values, name="rank")
        values_rank_static = constant_value(values_rank)

        if weights_rank_static is not None and values_rank_static is not None:
            if weights_rank_static == 0:
                return no_op(name="static_scalar_check_success")
            if weights_rank_static != values_rank_static:
                raise ValueError("%s values.rank=%s. weights.rank=%s. values.shape=%s. "
                                 "weights.shape=%s." % (_ERROR_PREFIX, values_rank_static,
                                                        weights_rank_static, values.shape,
                                                        weights.shape))
            weights_shape_static = constant_value(weights_shape)
            values_shape_static = constant_value(values_shape)
            if weights_shape_static is not None and values_shape_static is not None:
                for i in range(len(values_shape_static)):
                    if weights_shape_static[i] not in (1, values_shape_static[i]):
                        raise ValueError("%s Mismatch at dim %s. values.shape=%s "
                                         "weights.shape=%s." % (_ERROR_PREFIX, i,
                                                                values_shape_static,
                                                                weights_shape_static))
                return no_op(name="static_dims_check_success")

        # Shapes only known when the graph runs.
        is_scalar = equal(0, weights_rank, name="is_scalar")
        is_valid_shape = apply_op("ValidWeightsShape", [weights_shape, values_shape], {},
                                  name="is_valid_shape")
        data = (_ERROR_PREFIX, "weights.shape=", weights.name, weights_shape,
                "values.shape=", values.name, values_shape, "is_scalar=", is_scalar)
        return Assert(is_valid_shape, data, name=scope)


def broadcast_weights(weights, values):
    """`weights` broadcast to the shape of `values` (after checking they may be)."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert.convert_to_tensor(values, name="values")
        weights = convert.convert_to_tensor(weights, dtype=values.dtype.base_dtype,
                                            name="weights")
        weights_shape = weights.shape
        values_shape = values.shape
        if (weights_shape.is_fully_defined() and values_shape.is_fully_defined() and
                weights_shape.is_compatible_with(values_shape)):
            return weights
        with control_dependencies((assert_broadcastable(weights, values),)):
            return multiply(weights, ones_like(values), name=scope)
