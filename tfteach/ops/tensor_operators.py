"""Python operators on tensors: `x + y`, `x @ w`, `-x`, `x < y`, `a & b`, ...

TF 1.15's rules (its `math_ops._OverrideBinaryOperatorHelper`):
- `x + y` with a non-tensor `y` converts `y` to x's dtype first: a Python number must
  fit (`tf.constant(1) + 1.5` is a TypeError), a NumPy array is cast silently.
  `1.5 + x` does the same to the left operand. Two tensors of different dtypes are a
  TypeError from the op, never a silent promotion.
- The op is named after the operator (`add`, `truediv`, `matmul`), and the converted
  operand lives in that scope (`add/y`).
- `/` is Python 3's true division (`truediv`), `//` floors, `%` is `floormod`.
- `==` and `!=` are identity comparisons (a tensor is a dict key); use `tf.equal`. With
  TF 2 behaviour (`import tfteach.v2`, `enable_tensor_equality()`) they are `tf.equal` /
  `tf.not_equal` for eager tensors and a tf.function's tensors (TF 1.15's
  `tensor_equals`: shapes that do not broadcast compare as a scalar False / True), and
  `x == None` is False.
- `&`, `|`, `^`, `~` are logical ops, for bool tensors only.

Every function converts its operands with `convert_to_tensor`, so the same functions
serve `tf.Variable` (see `install_operators`).
"""
from tfteach.framework import convert
from tfteach.framework.eager_mode import STATE as _EAGER, elementwise_equality
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import binary_ops, comparison_ops, linalg_ops, unary_ops

__all__ = ["OPERATORS", "install_operators"]


def _binary_operator(func, op_name):
    """`__op__` and `__rop__` for `func(x, y, name)`, as TF's binary_op_wrapper."""
    def binary_op_wrapper(x, y):
        with name_scope(None, op_name, [x, y]) as name:
            x = convert.convert_to_tensor(x)
            if not isinstance(y, Tensor):
                y = convert.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return func(x, y, name=name)

    def r_binary_op_wrapper(y, x):
        with name_scope(None, op_name, [x, y]) as name:
            y = convert.convert_to_tensor(y)
            x = convert.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=name)

    binary_op_wrapper.__name__ = "__%s__" % op_name
    r_binary_op_wrapper.__name__ = "__r%s__" % op_name
    return binary_op_wrapper, r_binary_op_wrapper


def _comparison_operator(func):
    # TF 1.15 installs the comparison ops themselves: no conversion to x's dtype first.
    def operator(x, y):
        return func(x, y)
    return operator


def _shapes_broadcast(x, y):
    """False when the static shapes of x and y surely do not broadcast."""
    if x.shape.ndims is None or y.shape.ndims is None:
        return True
    for a, b in zip(reversed(x.shape.as_list()), reversed(y.shape.as_list())):
        if a is not None and b is not None and a != b and a != 1 and b != 1:
            return False
    return True


def _elementwise_equality_operator(func, mismatch):
    """`__eq__` / `__ne__`: identity, or with tensor equality on `func(x, y)` (TF's
    Equal with incompatible_shape_error=False: shapes that do not broadcast give the
    scalar `mismatch`)."""
    def operator(x, y):
        if y is None:
            return mismatch
        # (the flag first: graph building compares tensors often, `t in list`)
        if not (_EAGER.tensor_equality and elementwise_equality(x.graph)):
            return (x is y) is not mismatch
        x = convert.convert_to_tensor(x)
        if not isinstance(y, Tensor):
            y = convert.convert_to_tensor(y, dtype=x.dtype.base_dtype)
        if not _shapes_broadcast(x, y):
            from tfteach.ops.constant_op import constant
            return constant(mismatch)
        return func(x, y)
    return operator


_BINARY = [
    (binary_ops.add_v2, "add"),
    (binary_ops.subtract, "sub"),
    (binary_ops.multiply, "mul"),
    (binary_ops.truediv, "truediv"),
    (binary_ops.floordiv, "floordiv"),
    (binary_ops.floormod, "mod"),
    (binary_ops.pow, "pow"),
    (linalg_ops.matmul, "matmul"),
    (comparison_ops.logical_and, "and"),
    (comparison_ops.logical_or, "or"),
    (comparison_ops.logical_xor, "xor"),
]

OPERATORS = {}
for _func, _op_name in _BINARY:
    OPERATORS["__%s__" % _op_name], OPERATORS["__r%s__" % _op_name] = _binary_operator(
        _func, _op_name)
OPERATORS.update({
    "__lt__": _comparison_operator(comparison_ops.less),
    "__le__": _comparison_operator(comparison_ops.less_equal),
    "__gt__": _comparison_operator(comparison_ops.greater),
    "__ge__": _comparison_operator(comparison_ops.greater_equal),
    "__neg__": lambda x: unary_ops.negative(x),
    "__abs__": lambda x: unary_ops.abs(x),
    "__invert__": lambda x: comparison_ops.logical_not(x),
    "__eq__": _elementwise_equality_operator(comparison_ops.equal, False),
    "__ne__": _elementwise_equality_operator(comparison_ops.not_equal, True),
})


def install_operators(cls):
    """Gives `cls` (Tensor, Variable) TF's arithmetic and comparison operators."""
    for operator, func in OPERATORS.items():
        if cls is Tensor:
            Tensor._override_operator(operator, func)
        else:
            setattr(cls, operator, func)


install_operators(Tensor)
