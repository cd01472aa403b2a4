"""Differential tests: the math ops on tfteach and on TensorFlow (`tf.compat.v1`).

Each program is built, run and compared on both: values, dtypes, static shapes, error
classes and messages. The reference is TF 2.x's compat.v1, which differs from TF 1.15 in
a few places tfteach follows 1.15 on (noted where a comparison is left out).
Skips cleanly when TensorFlow is not installed.
"""
import numpy as np
import pytest

import tfteach
from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytest.importorskip("tensorflow")

A = np.array([[1.5, -2.0, 3.25], [-0.5, 4.0, -7.75]], np.float32)
B = np.array([2.0, -3.0, 0.5], np.float32)
I = np.array([[7, -7, 9], [-9, 0, 5]], np.int32)
J = np.array([2, -3, 4], np.int32)
POSITIVE = np.array([[0.25, 1.0, 4.0], [9.0, 0.5, 2.0]], np.float64)
UNIT = np.array([-0.9, -0.25, 0.0, 0.5, 0.75], np.float32)
MIXED = np.array([-3.5, -2.5, -0.5, 0.0, 0.5, 1.5, 2.5, 1e3], np.float64)

PROGRAMS = {
    "add": lambda tf: tf.add(A, B),
    "subtract_int": lambda tf: tf.subtract(I, J),
    "multiply_scalar": lambda tf: tf.multiply(tf.constant(I), 3),
    "realdiv": lambda tf: tf.realdiv(A, B),
    "truediv_int": lambda tf: tf.truediv(I, J),
    "truediv_int8": lambda tf: tf.truediv(tf.constant([7, -9], tf.int8),
                                          tf.constant([2, 4], tf.int8)),
    "div_int": lambda tf: tf.div(I, J),
    "div_float": lambda tf: tf.div(A, B),
    "floordiv_int": lambda tf: tf.floordiv(I, J),
    "floordiv_float": lambda tf: tf.floordiv(A, B),
    "floordiv_float_tenth": lambda tf: tf.floordiv(tf.constant(1.0, tf.float64), 0.1),
    "floormod_int": lambda tf: tf.floormod(I, J),
    "floormod_float": lambda tf: tf.floormod(A, B),
    "truncatemod_int": lambda tf: tf.truncatemod(I, J),
    "truncatemod_float": lambda tf: tf.truncatemod(A, B),
    "truncatediv_int": lambda tf: tf.truncatediv(I, J),
    "pow_float": lambda tf: tf.pow(POSITIVE, 1.5),
    "pow_int": lambda tf: tf.pow(I, 3),
    "maximum": lambda tf: tf.maximum(A, B),
    "minimum_int": lambda tf: tf.minimum(I, J),
    "squared_difference": lambda tf: tf.squared_difference(A, B),
    "squared_difference_int": lambda tf: tf.squared_difference(I, J),
    "float_specials": lambda tf: [tf.realdiv([1.0, -1.0, 0.0], 0.0),
                                  tf.floordiv([1.0, -1.0, 0.0], 0.0),
                                  tf.floormod([1.0, -1.0], 0.0),
                                  tf.log([0.0, -1.0]), tf.rsqrt([0.0, 4.0, -1.0])],
    "unary_any": lambda tf: [tf.negative(A), tf.abs(I), tf.square(A), tf.square(I),
                             tf.sign(I), tf.sign(A), tf.reciprocal(A)],
    "unary_positive": lambda tf: [tf.sqrt(POSITIVE), tf.rsqrt(POSITIVE), tf.log(POSITIVE),
                                  tf.log1p(POSITIVE)],
    "unary_unit": lambda tf: [tf.asin(UNIT), tf.acos(UNIT), tf.atan(UNIT), tf.tan(UNIT),
                              tf.sin(UNIT), tf.cos(UNIT), tf.exp(UNIT), tf.expm1(UNIT),
                              tf.tanh(UNIT)],
    "sigmoid": lambda tf: [tf.sigmoid(MIXED), tf.sigmoid(MIXED.astype(np.float32)),
                           tf.sigmoid(tf.constant([0.5, -3.0], tf.float16))],
    # Both ends in float32: 0 far left (TF flushes the tiny results to 0), 1.0 from 17 on.
    "sigmoid_float32_ends": lambda tf: tf.sigmoid(tf.constant(
        [-120.0, -100.0, -90.0, -88.0, -80.0, -17.0, 16.0, 17.0, 20.0, 100.0], tf.float32)),
    "rounding": lambda tf: [tf.round(MIXED), tf.floor(MIXED), tf.ceil(MIXED),
                            tf.round(tf.constant([1, 2]))],
    "is_checks": lambda tf: [f(tf.constant([1.0, np.nan, np.inf, -np.inf]))
                             for f in (tf.is_nan, tf.is_inf, tf.is_finite)],
    "comparisons": lambda tf: [f(I, J) for f in (tf.equal, tf.not_equal, tf.less,
                                                 tf.less_equal, tf.greater,
                                                 tf.greater_equal)],
    "logic": lambda tf: [tf.logical_and([True, False], [[True], [False]]),
                         tf.logical_or([True, False], False),
                         tf.logical_xor([True, False, True], [True, True, False]),
                         tf.logical_not([True, False])],
    "cast": lambda tf: [tf.cast(MIXED, tf.int32), tf.cast(A, tf.bool),
                        tf.cast([True, False], tf.float32), tf.cast(I, tf.float64),
                        tf.cast(1.5, tf.int64), tf.to_float(I), tf.to_int64(A)],
    "saturate_cast": lambda tf: tf.saturate_cast([-1e10, 1e10, 3.7], tf.int32),
    "clip": lambda tf: [tf.clip_by_value(I, -1, 6), tf.clip_by_value(A, [0.0, -1.0, 1.0], 2.0)],
    "add_n": lambda tf: [tf.add_n([A, A, A]), tf.add_n([1, 2, 3]),
                         tf.accumulate_n([I, I])],
    "matmul": lambda tf: [tf.matmul(A, A, transpose_b=True),
                          tf.matmul(A, A, transpose_a=True),
                          tf.matmul(I, np.ones((3, 2), np.int32))],
    "batch_matmul": lambda tf: [tf.matmul(np.ones((4, 1, 2, 3)), np.ones((5, 3, 2))),
                                tf.matmul(np.arange(12.0, dtype=np.float32
                                                    ).reshape(2, 2, 3), A, transpose_b=True),
                                tf.matmul(A, np.arange(12.0, dtype=np.float32
                                                       ).reshape(2, 2, 3), adjoint_a=True)],
    "operators": lambda tf: _operators(tf),
}


def _operators(tf):
    x, y = tf.constant(A), tf.constant(B)
    i = tf.constant(I)
    return [x + y, x - 1.0, 2.0 * x, x / y, i / 2, i // 2, i % 3, x ** 2.0, -x, abs(i),
            x @ tf.constant(A.T), x < y, 1.0 >= x,
            x * np.array([1.0, 2.0, 3.0])]


def _same_value(expected, actual):
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(actual, expected, rtol=2e-6 if expected.dtype.itemsize > 2
                                   else 1e-3, atol=1e-30)
    else:
        np.testing.assert_array_equal(actual, expected)


def _static_shapes(tf, build):
    with tf.Graph().as_default():
        fetches = build(tf)
        fetches = fetches if isinstance(fetches, list) else [fetches]
        return [(t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None)
                for t in fetches]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_dtypes_and_static_shapes_match_tensorflow(name):
    program = PROGRAMS[name]
    expected, actual = run_both(lambda tf: (program(tf), None))
    if not isinstance(expected, list):
        expected, actual = [expected], [actual]
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        _same_value(e, a)
    assert _static_shapes(tfteach, program) == _static_shapes(tensorflow_v1(), program)


def test_placeholder_static_shapes_match_tensorflow():
    def program(tf):
        a = tf.placeholder(tf.float32, [None, 1, 3])
        b = tf.placeholder(tf.float32, [4, None])
        c = tf.placeholder(tf.float32)
        m = tf.placeholder(tf.float32, [None, 3])
        return [a + b, a * c, tf.maximum(a, 1.0), tf.matmul(m, np.ones((3, 2), np.float32)),
                tf.matmul(c, m), tf.add_n([b, b]), tf.cast(a, tf.int32), tf.sigmoid(m)]
    assert _static_shapes(tfteach, program) == _static_shapes(tensorflow_v1(), program)


# -- errors ------------------------------------------------------------------------------------
def tf_runtime_message(exc):
    """TF 2's runtime error text has the kernel's message after a `Node: 'name'` line."""
    lines = str(exc).splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Node: "):
            return lines[i + 1]
    return first_line(exc)


def _fed(op, x, y, dtype="float32"):
    def build(tf):
        a = tf.placeholder(getattr(tf, dtype))
        b = tf.placeholder(getattr(tf, dtype))
        return op(tf, a, b), {a: x, b: y}
    return build


RUNTIME_ERRORS = {
    "incompatible_shapes": _fed(lambda tf, a, b: a + b, np.ones(2), np.ones(3)),
    "incompatible_shapes_2d": _fed(lambda tf, a, b: tf.maximum(a, b), np.ones((2, 3)),
                                   np.ones((3, 2))),
    "floordiv_by_zero": _fed(lambda tf, a, b: tf.floordiv(a, b), [7, 1], [2, 0], "int32"),
    "floormod_by_zero": _fed(lambda tf, a, b: tf.floormod(a, b), [7, 1], [2, 0], "int64"),
    "int_negative_power": _fed(lambda tf, a, b: tf.pow(a, b), [2], [-1], "int32"),
    "add_n_shapes": _fed(lambda tf, a, b: tf.add_n([a, b]), np.ones(2), np.ones(3)),
    "batch_dims": _fed(lambda tf, a, b: tf.matmul(a, b), np.ones((2, 2, 3)),
                       np.ones((3, 3, 2))),
    "batch_rank": _fed(lambda tf, a, b: tf.matmul(a, b), np.ones(3), np.ones((3, 3, 2))),
}


@pytest.mark.parametrize("name", sorted(RUNTIME_ERRORS))
def test_runtime_errors_match_tensorflow(name):
    expected, actual = errors_of_both(RUNTIME_ERRORS[name])
    assert expected is not None and actual is not None
    assert type(actual).__name__ == type(expected).__name__
    assert first_line(actual) == tf_runtime_message(expected)


def test_matmul_runtime_error_matches_tensorflow():
    # TF 2 appends its adjoint flags (" 0 0"), TF 1.15's MatMul did not.
    def matrices(tf):
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None, None])
        return tf.matmul(a, b), {a: np.ones((2, 3)), b: np.ones((2, 3))}
    expected, actual = errors_of_both(matrices)
    assert type(actual).__name__ == type(expected).__name__ == "InvalidArgumentError"
    assert tf_runtime_message(expected).startswith(first_line(actual))


BUILD_ERRORS = {
    "sub_mixed": lambda tf: tf.subtract(tf.constant(1), tf.constant(2.0)),
    "mul_python_float": lambda tf: tf.multiply(tf.constant(1), 2.5),
    "maximum_left_float": lambda tf: tf.maximum(2.5, tf.constant(1)),
    "less_operator": lambda tf: tf.constant(1) < 1.5,
    "equal_mixed": lambda tf: tf.equal(tf.constant(1), tf.constant(1.0)),
    "logical_and_int": lambda tf: tf.logical_and(tf.constant(1), True),
    "logical_or_int_y": lambda tf: tf.logical_or(True, tf.constant(1)),
    "add_n_types": lambda tf: tf.add_n([tf.constant(1), tf.constant(2.0)]),
    "matmul_mixed": lambda tf: tf.matmul(tf.constant([[1]]), tf.constant([[1.0]])),
    "sub_shapes": lambda tf: tf.subtract([1, 2], [1, 2, 3]),
    "matmul_shapes": lambda tf: tf.matmul(np.ones((2, 3), np.float32),
                                          np.ones((2, 3), np.float32)),
    "matmul_rank": lambda tf: tf.matmul(tf.placeholder(tf.float32, [3]),
                                        tf.placeholder(tf.float32, [3, 2])),
    "batch_matmul_shapes": lambda tf: tf.matmul(np.ones((4, 2, 3)), np.ones((5, 3, 5))),
    "add_n_shapes": lambda tf: tf.add_n([tf.constant([1, 2]), tf.constant([1, 2, 3])]),
    "clip_bigger": lambda tf: tf.clip_by_value(tf.constant([1, 5]), [[2], [3]], 8),
    "sqrt_int": lambda tf: tf.sqrt(4),
    "less_bool": lambda tf: tf.less(True, False),
}


def _comparable(exc):
    """The part of a build-time message TF 1.15 and TF 2 share.

    TF 2 writes the node (`for '{{node add}} = AddV2[...]'`) where TF 1.15 wrote
    `for 'add' (op: 'AddV2')`, lists more allowed dtypes, says "incompatible" where
    TF 1.15's TensorShape said "not compatible", and words the inner error of a Python
    value that does not fit differently ("Expected int32, but got 1.5 ...").
    """
    text = str(exc).split(" for '")[0].split(" allowed values:")[0].split(" Error: ")[0]
    return text.replace("are not compatible", "are incompatible")


@pytest.mark.parametrize("name", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(name):
    program = BUILD_ERRORS[name]
    expected, actual = errors_of_both(lambda tf: (program(tf), None))
    assert expected is not None and actual is not None
    assert type(actual) is type(expected)
    assert _comparable(actual) == _comparable(expected)
