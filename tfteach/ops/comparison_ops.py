"""Comparisons (`tf.equal`, `tf.less`, ...) and logic (`tf.logical_and`, ...).

Comparisons take two tensors of one dtype, broadcast them, and return bool. Logical
ops take bool tensors only: `tf.logical_and(1, True)` is TF's TypeError, and so are the
`&`, `|`, `^`, `~` operators on non-bool tensors in TF 1.x.
"""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu.cwise import ufunc_kernel
from tfteach.ops.binary_ops import binary_op
from tfteach.ops.op_builder import apply_op, broadcast_static_shape, same_shape_fn
from tfteach.ops.typed_inputs import convert_fixed_type

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not"]


def _bool_broadcast_shape(op):
    x, y = op._inputs
    return [(dtypes.bool, broadcast_static_shape(x.shape, y.shape))]


# Comparison ufuncs never warn (NaN compares false), so one kernel serves every dtype.
for _op_type, _ufunc in [("Equal", np.equal), ("NotEqual", np.not_equal),
                         ("Less", np.less), ("LessEqual", np.less_equal),
                         ("Greater", np.greater), ("GreaterEqual", np.greater_equal),
                         ("LogicalAnd", np.logical_and), ("LogicalOr", np.logical_or)]:
    register_op(_op_type, _bool_broadcast_shape, cpu=ufunc_kernel(_ufunc))
    not_differentiable(_op_type)
register_op("LogicalNot", same_shape_fn, cpu=lambda ctx, x: np.logical_not(x))
not_differentiable("LogicalNot")


# -- comparisons ---------------------------------------------------------------------------
def equal(x, y, name=None):
    """x == y elementwise, as bool (`Equal`); `t == u` itself compares identity in TF 1.x."""
    return binary_op("Equal", x, y, name, "equality")


def not_equal(x, y, name=None):
    return binary_op("NotEqual", x, y, name, "equality")


def less(x, y, name=None):
    return binary_op("Less", x, y, name, "real_number")


def less_equal(x, y, name=None):
    return binary_op("LessEqual", x, y, name, "real_number")


def greater(x, y, name=None):
    return binary_op("Greater", x, y, name, "real_number")


def greater_equal(x, y, name=None):
    return binary_op("GreaterEqual", x, y, name, "real_number")


# -- logic ---------------------------------------------------------------------------------
def _logical(op_type, x, y, name):
    with name_scope(name, op_type, [x, y]) as scope:
        x, y = convert_fixed_type(op_type, [("x", x), ("y", y)], dtypes.bool)
        return apply_op(op_type, [x, y], {}, scope)


def logical_and(x, y, name=None):
    return _logical("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    return _logical("LogicalOr", x, y, name)


def logical_not(x, name=None):
    with name_scope(name, "LogicalNot", [x]) as scope:
        x, = convert_fixed_type("LogicalNot", [("x", x)], dtypes.bool)
        return apply_op("LogicalNot", [x], {}, scope)


def logical_xor(x, y, name="LogicalXor"):
    """(x or y) and not (x and y): TF 1.15 builds exactly these three ops."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)
