"""Python operators on tensors: the ops they build, dtypes, conversions and errors."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.ops import tensor_operators


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


@pytest.mark.parametrize("build, op_type, name, expected", [
    (lambda x, y: x + y, "AddV2", "add", 7.0),
    (lambda x, y: x - y, "Sub", "sub", 3.0),
    (lambda x, y: x * y, "Mul", "mul", 10.0),
    (lambda x, y: x / y, "RealDiv", "truediv", 2.5),
    (lambda x, y: x // y, "FloorDiv", "floordiv", 2.0),
    (lambda x, y: x % y, "FloorMod", "mod", 1.0),
    (lambda x, y: x ** y, "Pow", "pow", 25.0),
    (lambda x, y: x < y, "Less", "Less", False),
    (lambda x, y: x <= y, "LessEqual", "LessEqual", False),
    (lambda x, y: x > y, "Greater", "Greater", True),
    (lambda x, y: x >= y, "GreaterEqual", "GreaterEqual", True),
])
def test_binary_operators_build_tensorflow_ops(build, op_type, name, expected):
    out = build(tf.constant(5.0), tf.constant(2.0))
    assert out.op.type == op_type and out.op.name == name
    assert out.dtype == (tf.bool if isinstance(expected, bool) else tf.float32)
    assert run(out) == expected


def test_reflected_operators_convert_the_left_operand():
    x = tf.constant(4.0)
    cases = [(1 + x, 5.0), (1 - x, -3.0), (2 * x, 8.0), (1 / x, 0.25), (9 // x, 2.0),
             (9 % x, 1.0), (2 ** x, 16.0)]
    for out, expected in cases:
        assert out.dtype == tf.float32
        assert run(out) == expected
    out = 10 - x
    assert [t.op.name for t in out.op.inputs] == ["sub_1/x", "Const"]
    assert run(3 < x) and not run(3 > x)     # Python reflects these to x > 3, x < 3


def test_unary_operators():
    x = tf.constant([-2, 3])
    neg, absolute = -x, abs(x)
    assert neg.op.type == "Neg" and absolute.op.type == "Abs"
    np.testing.assert_array_equal(run(neg), [2, -3])
    np.testing.assert_array_equal(run(absolute), [2, 3])


def test_python_numbers_take_the_tensor_dtype():
    ints = tf.constant([1, 2])
    out = ints + 1
    assert out.dtype == tf.int32 and out.op.inputs[1].op.name == "add/y"
    doubles = tf.constant(1.0, tf.float64) * 3
    assert doubles.dtype == tf.float64 and run(doubles) == 3.0
    with pytest.raises(TypeError) as info:
        tf.constant(1) + 1.5
    assert str(info.value) == "Expected int32, got 1.5 of type 'float' instead."
    with pytest.raises(TypeError, match="Expected int32, got 1.5 of type 'float' instead."):
        1.5 + tf.constant(1)


def test_numpy_arrays_are_cast_to_the_tensor_dtype():
    x = tf.constant([1.0, 2.0])
    for out in (x * np.array([2.0, 3.0]), np.array([2.0, 3.0]) * x):
        assert out.dtype == tf.float32 and out.op.type == "Mul"
        np.testing.assert_array_equal(run(out), [2.0, 6.0])


def test_two_tensors_of_different_dtypes_are_a_type_error():
    with pytest.raises(TypeError) as info:
        tf.constant(1) + tf.constant(1.0)
    assert str(info.value) == ("Input 'y' of 'AddV2' Op has type float32 that does not "
                               "match type int32 of argument 'x'.")
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op "
                                        "'Less', got 1.5 of type 'float' instead."):
        tf.constant(1) < 1.5


def test_true_division_of_integers_gives_floats():
    assert (tf.constant(3) / 2).dtype == tf.float64
    assert (tf.constant(3, tf.int16) / tf.constant(2, tf.int16)).dtype == tf.float32
    assert run(tf.constant(7) / 2) == 3.5
    assert run(tf.constant(7) // 2) == 3 and run(tf.constant(-7) % 3) == 2


def test_division_operator_names_its_casts():
    out = tf.constant(3) / tf.constant(2)
    assert [t.op.name for t in out.op.inputs] == ["truediv/Cast", "truediv/Cast_1"]


def test_broadcasting_through_operators():
    a = tf.placeholder(tf.float32, [None, 3])
    out = a * tf.constant([1.0, 2.0, 3.0]) + 1
    assert out.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(run(out, {a: np.ones((2, 3))}),
                                  np.ones((2, 3)) * [1, 2, 3] + 1)


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0]])
    b = tf.constant([[3.0], [4.0]])
    out = a @ b
    assert out.op.type == "MatMul" and out.op.name == "matmul"
    assert run(out) == [[11.0]]
    np.testing.assert_array_equal(run(np.array([[1.0], [1.0]]) @ a), [[1.0, 2.0], [1.0, 2.0]])


def test_equality_stays_identity():
    a = tf.constant(1)
    b = tf.constant(1)
    assert (a == b) is False and (a == a) is True
    assert a != b
    assert {a: 1}[a] == 1


def test_logical_operators_on_bool_tensors():
    a = tf.constant([True, True, False])
    b = tf.constant([True, False, False])
    both, either, one, inverted = a & b, a | b, a ^ b, ~a
    assert both.op.type == "LogicalAnd" and both.op.name == "and"
    assert either.op.type == "LogicalOr" and one.op.name == "xor"
    assert inverted.op.type == "LogicalNot"
    values = run([both, either, one, inverted])
    np.testing.assert_array_equal(values[0], [True, False, False])
    np.testing.assert_array_equal(values[1], [True, True, False])
    np.testing.assert_array_equal(values[2], [False, True, False])
    np.testing.assert_array_equal(values[3], [False, False, True])
    np.testing.assert_array_equal(run(True & b), [True, False, False])


def test_logical_operators_reject_integers():
    with pytest.raises(TypeError) as info:
        tf.constant(1) & tf.constant(1)
    assert str(info.value) == ("Input 'x' of 'LogicalAnd' Op has type int32 that does not "
                               "match expected type of bool.")
    with pytest.raises(TypeError, match="Input 'x' of 'LogicalNot' Op has type int32"):
        ~tf.constant(1)


def test_runtime_errors_through_operators():
    x = tf.placeholder(tf.int32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        run(x // tf.constant([0, 1]), {x: [1, 2]})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Incompatible shapes: \[2\] vs. \[3\]"):
        run(x + tf.constant([1, 2, 3]), {x: [1, 2]})


class _Wrapped:
    """A stand-in for tf.Variable: not a Tensor, but convertible to one."""

    def __init__(self, value):
        self.tensor = tf.constant(value)

    @property
    def dtype(self):
        return self.tensor.dtype


tf.register_tensor_conversion_function(_Wrapped, lambda v, dtype=None, name=None,
                                       as_ref=False: v.tensor)
tensor_operators.install_operators(_Wrapped)


def test_operators_serve_objects_that_convert_to_tensors():
    w = _Wrapped(3.0)
    assert run(w + 1.0) == 4.0
    assert run(2.0 * w) == 6.0
    assert run(w / tf.constant(2.0)) == 1.5
    assert run(tf.constant(1.0) - w) == -2.0
    assert run(-w) == -3.0 and run(w > 1.0)
