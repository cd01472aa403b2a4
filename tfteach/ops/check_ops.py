"""Run-time assertions comparing two tensors: `tf.assert_greater_equal`,
`tf.assert_less_equal`, `tf.assert_less`, `tf.assert_non_negative`, and
`tf.assert_type`, checked when the graph is built (TF 1.15's check_ops: the ones the
metrics and the confusion matrix need).

Each builds `Assert(reduce_all(x >= y), data)` in a name scope `assert_greater_equal`;
the data, printed when the assertion fails, is TF's: the message, the condition, and
the first values of x and y with their tensor names. An assertion only runs when
something depends on it: put it in `tf.control_dependencies`.
"""
from tfteach.framework import convert, eager_mode
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.comparison_ops import greater_equal, less, less_equal
from tfteach.ops.logging_ops import Assert
from tfteach.ops.reduction_ops import reduce_all

__all__ = ["assert_greater_equal", "assert_less_equal", "assert_less", "assert_non_negative",
           "assert_type"]


def _described(tensor):
    """How the default message names a tensor: its name in a graph, its shape and dtype
    when executing eagerly (an eager tensor has no name), as TF 1.15's check_ops."""
    if eager_mode.executing_eagerly():
        return "shape=%s dtype=%s" % (tensor.shape, tensor.dtype.name)
    return tensor.name


def _binary_assert(symbol, compare, default_name, x, y, data, summarize, message, name):
    with name_scope(name, default_name, [x, y, data]):
        x = convert.convert_to_tensor(x, name="x")
        y = convert.convert_to_tensor(y, name="y")
        if data is None:
            data = [message or "",
                    "Condition x %s y did not hold element-wise:" % symbol,
                    "x (%s) = " % _described(x), x, "y (%s) = " % _described(y), y]
        condition = reduce_all(compare(x, y))
        return Assert(condition, data, summarize=summarize)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless x >= y everywhere (broadcast)."""
    return _binary_assert(">=", greater_equal, "assert_greater_equal", x, y, data,
                          summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless x <= y everywhere (broadcast)."""
    return _binary_assert("<=", less_equal, "assert_less_equal", x, y, data,
                          summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless x < y everywhere (broadcast)."""
    return _binary_assert("<", less, "assert_less", x, y, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless x >= 0 everywhere."""
    with name_scope(name, "assert_non_negative", [x, data]):
        x = convert.convert_to_tensor(x, name="x")
        if data is None:
            data = [message or "", "Condition x >= 0 did not hold element-wise:",
                    "x (%s) = " % _described(x), x]
        zero = convert.convert_to_tensor(0, dtype=x.dtype.base_dtype)
        return assert_less_equal(zero, x, data=data, summarize=summarize)


def assert_type(tensor, tf_type, message=None, name=None):
    """Checks `tensor`'s dtype when the graph is built (TypeError if it differs); returns
    TF's `no_op` named `statically_determined_correct_type`."""
    from tfteach.ops.dependency_ops import no_op
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype.base_dtype != tf_type:
            raise TypeError("%s  %s must be of type %s" % (message or "", tensor.name,
                                                            tf_type))
        return no_op("statically_determined_correct_type")
