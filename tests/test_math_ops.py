"""The math ops against NumPy: values, dtypes, static shapes, broadcasting and errors.

Expected values are computed independently with NumPy (for TensorFlow's own answers
see test_math_reference.py).
"""
import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tfteach as tf
from tolerances import assert_close

FLOATS = [np.float32, np.float64]
INTS = [np.int32, np.int64]


@contextlib.contextmanager
def no_warnings():
    """Any warning (NumPy's "divide by zero encountered") fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def sample(dtype, shape, low=-5, high=5, nonzero=False, seed=0):
    rng = np.random.RandomState(seed)
    if np.dtype(dtype).kind == "f":
        values = rng.uniform(low, high, size=shape)
    else:
        values = rng.randint(low, high + 1, size=shape)
    if nonzero:
        values[values == 0] = 1
    return np.asarray(values, dtype=dtype)


# -- binary ops, every dtype, with broadcasting -----------------------------------------
def _floor_mod(x, y):
    return x - np.floor(x / y) * y if x.dtype.kind == "f" else np.remainder(x, y)


BINARY = [
    # name, tf function, NumPy reference, dtypes, divisor must be nonzero
    ("add", tf.add, np.add, FLOATS + INTS, False),
    ("subtract", tf.subtract, np.subtract, FLOATS + INTS, False),
    ("multiply", tf.multiply, np.multiply, FLOATS + INTS, False),
    ("maximum", tf.maximum, np.maximum, FLOATS + INTS, False),
    ("minimum", tf.minimum, np.minimum, FLOATS + INTS, False),
    ("squared_difference", tf.squared_difference, lambda x, y: (x - y) ** 2, FLOATS + INTS,
     False),
    ("realdiv", tf.realdiv, lambda x, y: x / y, FLOATS, True),
    ("floordiv", tf.floordiv, lambda x, y: np.floor(x / y).astype(x.dtype), FLOATS + INTS,
     True),
    ("floormod", tf.floormod, _floor_mod, FLOATS + INTS, True),
    ("mod", tf.mod, _floor_mod, FLOATS + INTS, True),
    ("truncatediv", tf.truncatediv, lambda x, y: np.trunc(x / y).astype(x.dtype), INTS, True),
    ("truncatemod", tf.truncatemod, lambda x, y: x - np.trunc(x / y).astype(x.dtype) * y,
     FLOATS + INTS, True),
    ("pow", tf.pow, lambda x, y: np.power(x, y), FLOATS, False),
]
BINARY_CASES = [(name, fn, ref, dtype, nonzero) for name, fn, ref, dtypes_, nonzero in BINARY
                for dtype in dtypes_]


@pytest.mark.parametrize("name, fn, ref, dtype, nonzero", BINARY_CASES,
                         ids=["%s-%s" % (c[0], np.dtype(c[3]).name) for c in BINARY_CASES])
def test_binary_op_broadcasts_like_numpy(name, fn, ref, dtype, nonzero):
    x = sample(dtype, (2, 3), seed=1)
    y = sample(dtype, (3,), nonzero=nonzero, seed=2)
    if name == "pow":
        x = np.abs(x) + 0.5
    out = fn(tf.constant(x), tf.constant(y))
    assert out.dtype == tf.as_dtype(dtype)
    assert out.shape.as_list() == [2, 3]
    value = run(out)
    assert value.dtype == dtype
    np.testing.assert_allclose(value, ref(x, y), rtol=1e-5, atol=1e-5)


def test_binary_ops_with_scalars_empty_and_fed_shapes():
    assert run(tf.add(2, 3)) == 5
    empty = tf.multiply(tf.constant(np.zeros((0, 3), np.float32)), 2.0)
    assert empty.shape.as_list() == [0, 3]
    assert run(empty).shape == (0, 3)
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [4, 1])
    z = tf.subtract(x, y)
    assert z.shape.as_list() == [4, 3]
    value = run(z, {x: np.ones((1, 3)), y: np.arange(4).reshape(4, 1)})
    np.testing.assert_array_equal(value, 1 - np.arange(4).reshape(4, 1) * np.ones((1, 3)))
    unknown = tf.add(tf.placeholder(tf.float32), x)
    assert unknown.shape.ndims is None


def test_static_shape_broadcasting_with_unknown_dims():
    a = tf.placeholder(tf.float32, [None, 1, 5])
    b = tf.placeholder(tf.float32, [3, None])
    assert tf.add(a, b).shape.as_list() == [None, 3, 5]
    assert tf.maximum(a, 1.0).shape.as_list() == [None, 1, 5]


@settings(max_examples=30, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       op=st.sampled_from([(tf.add, np.add), (tf.subtract, np.subtract),
                           (tf.multiply, np.multiply), (tf.maximum, np.maximum),
                           (tf.minimum, np.minimum)]),
       data=st.data())
def test_property_broadcasting_matches_numpy(shapes, op, data):
    tf.reset_default_graph()
    x_shape, y_shape = shapes.input_shapes
    elements = st.floats(-100, 100, width=64)
    x = data.draw(hnp.arrays(np.float64, x_shape, elements=elements))
    y = data.draw(hnp.arrays(np.float64, y_shape, elements=elements))
    fn, ref = op
    out = fn(tf.constant(x), tf.constant(y))
    assert tuple(out.shape.as_list()) == shapes.result_shape
    np.testing.assert_array_equal(run(out), ref(x, y))


# -- TF's division rules ----------------------------------------------------------------
@pytest.mark.parametrize("dtype, expected", [
    (tf.int8, tf.float32), (tf.uint8, tf.float32), (tf.int16, tf.float32),
    (tf.int32, tf.float64), (tf.int64, tf.float64), (tf.float32, tf.float32),
    (tf.float64, tf.float64)])
def test_truediv_casts_integers_to_floats(dtype, expected):
    out = tf.truediv(tf.constant([3, 7], dtype), tf.constant([2, 2], dtype))
    assert out.dtype == expected
    assert out.op.type == "RealDiv" and out.op.name == "truediv"
    np.testing.assert_allclose(run(out), [1.5, 3.5])


def test_truediv_and_div_reject_mixed_dtypes():
    with pytest.raises(TypeError, match=r"x and y must have the same dtype, got tf.int32 != "
                                        r"tf.float32"):
        tf.truediv(tf.constant(3), tf.constant(2.0))
    # TF 1.15's div converts y to x's dtype first: a float tensor for an int x fails there.
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor "
                                         "with dtype float32"):
        tf.div(tf.constant(3), tf.constant(2.0))


def test_div_floors_integers_and_divides_floats():
    ints = tf.div(tf.constant([-7, 7]), tf.constant([2, 2]))
    floats = tf.div(tf.constant([-7.0, 7.0]), 2.0)
    assert ints.op.type == "FloorDiv" and floats.op.type == "RealDiv"
    np.testing.assert_array_equal(run(ints), [-4, 3])
    np.testing.assert_allclose(run(floats), [-3.5, 3.5])


def test_divide_follows_the_slash_operator():
    assert run(tf.divide(tf.constant(6), tf.constant(4))) == 1.5
    named = tf.divide(tf.constant(6.0), 4.0, name="ratio")
    assert named.name == "ratio:0" and run(named) == 1.5
    assert run(tf.divide(6, 4)) == 1.5


def test_float_floor_division_is_floor_of_quotient():
    # TF computes floor(x / y): 1 // 0.1 is 10 in TF (9 in Python / NumPy).
    assert run(tf.floordiv(tf.constant(1.0, tf.float64), 0.1)) == 10.0
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.floor(np.array([1.0, -1.0, 0.0]) / 0.0)
    np.testing.assert_array_equal(
        run(tf.floordiv(tf.constant([1.0, -1.0, 0.0]), 0.0)), expected)


def test_mod_signs_follow_tensorflow():
    np.testing.assert_array_equal(run(tf.floormod(tf.constant([-7, 7, -7]),
                                                  tf.constant([2, -2, -2]))), [1, -1, -1])
    np.testing.assert_array_equal(run(tf.truncatemod(tf.constant([-7, 7]), 2)), [-1, 1])
    np.testing.assert_allclose(run(tf.floormod(tf.constant([-7.5, 7.5]), 2.0)), [0.5, 1.5])
    np.testing.assert_array_equal(run(tf.truncatediv(tf.constant([-7, 7, -1]), 2)),
                                  [-3, 3, 0])


@pytest.mark.parametrize("fn", [tf.floordiv, tf.floormod, tf.truncatediv, tf.truncatemod,
                                tf.div])
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_integer_division_by_zero_is_invalid_argument(fn, dtype):
    x = tf.placeholder(dtype, [None])
    y = tf.placeholder(dtype, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        run(fn(x, y), {x: [7, 1], y: [2, 0]})


def test_integer_overflow_in_division_wraps_quietly():
    low = np.iinfo(np.int32).min
    assert run(tf.floordiv(tf.constant(low), -1)) == low
    assert run(tf.floormod(tf.constant(low), -1)) == 0


def test_float_division_by_zero_is_silent():
    with no_warnings():
        value = run(tf.realdiv(tf.constant([1.0, 0.0]), 0.0))
    assert np.isinf(value[0]) and np.isnan(value[1])


def test_integer_pow_and_negative_exponent():
    np.testing.assert_array_equal(run(tf.pow(tf.constant([2, -3, 0]), [3, 3, 0])),
                                  [8, -27, 1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^Integers to negative integer powers are not allowed\n"):
        run(tf.pow(tf.constant(2), -1))


def test_realdiv_of_integers_has_no_kernel():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="No OpKernel was registered to support Op 'RealDiv'"):
        run(tf.realdiv(tf.constant(1), tf.constant(2)))


def test_scalar_mul():
    np.testing.assert_allclose(run(tf.scalar_mul(2, tf.constant([1.0, 2.0]))), [2.0, 4.0])
    with pytest.raises(ValueError, match=r"Only scalar multiply works, got shape \(2,\)"):
        tf.scalar_mul(tf.constant([2.0, 3.0]), tf.constant([1.0, 2.0]))


# -- errors of binary ops ---------------------------------------------------------------------
def test_mixed_dtypes_are_type_errors():
    with pytest.raises(TypeError) as info:
        tf.add(tf.constant(1), tf.constant(2.0))
    assert str(info.value) == ("Input 'y' of 'Add' Op has type float32 that does not match "
                               "type int32 of argument 'x'.")
    with pytest.raises(TypeError) as info:
        tf.multiply(tf.constant(1), 2.5)
    assert str(info.value) == (
        "Expected int32 passed to parameter 'y' of op 'Mul', got 2.5 of type 'float' "
        "instead. Error: Expected int32, got 2.5 of type 'float' instead.")
    with pytest.raises(TypeError, match="Input 'y' of 'Maximum' Op has type int32 that does "
                                        "not match type float32 of argument 'x'."):
        tf.maximum(2.5, tf.constant(1))


def test_disallowed_dtypes_are_type_errors():
    with pytest.raises(TypeError) as info:
        tf.add(True, False)
    assert str(info.value).startswith(
        "Value passed to parameter 'x' has DataType bool not in list of allowed values: "
        "bfloat16, float16, float32, float64, uint8")
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: "
                                        "bfloat16, float16, float32, float64, complex64"):
        tf.sqrt(4)


def test_static_shape_mismatch():
    with pytest.raises(ValueError) as info:
        tf.add(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    assert str(info.value) == ("Dimensions must be equal, but are 2 and 3 for 'Add' (op: "
                               "'Add') with input shapes: [2], [3].")


def test_runtime_shape_mismatch():
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(tf.add(x, y), {x: np.ones((2, 3)), y: np.ones((3, 2))})
    assert str(info.value).splitlines()[0] == "Incompatible shapes: [2,3] vs. [3,2]"
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Incompatible shapes: \[2\] vs. \[3\]"):
        run(tf.floordiv(x, y), {x: [1, 2], y: [1, 2, 3]})


def test_op_names_and_converted_inputs():
    out = tf.add(tf.constant(1), 2)
    assert out.op.name == "Add"
    assert [t.op.name for t in out.op.inputs] == ["Const", "Add/y"]
    assert tf.floordiv(1, 2).op.name == "floordiv"
    assert tf.pow(2.0, 3.0, name="cube").op.name == "cube"


# -- unary ops ---------------------------------------------------------------------------------
UNARY = [
    ("negative", tf.negative, np.negative, FLOATS + INTS, (-5, 5)),
    ("abs", tf.abs, np.abs, FLOATS + INTS, (-5, 5)),
    ("square", tf.square, lambda x: x * x, FLOATS + INTS, (-5, 5)),
    ("sign", tf.sign, np.sign, FLOATS + INTS, (-5, 5)),
    ("sqrt", tf.sqrt, np.sqrt, FLOATS, (0, 9)),
    ("rsqrt", tf.rsqrt, lambda x: 1 / np.sqrt(x), FLOATS, (0.1, 9)),
    ("exp", tf.exp, np.exp, FLOATS, (-3, 3)),
    ("expm1", tf.expm1, np.expm1, FLOATS, (-3, 3)),
    ("log", tf.log, np.log, FLOATS, (0.1, 9)),
    ("log1p", tf.log1p, np.log1p, FLOATS, (-0.5, 9)),
    ("sin", tf.sin, np.sin, FLOATS, (-3, 3)),
    ("cos", tf.cos, np.cos, FLOATS, (-3, 3)),
    ("tan", tf.tan, np.tan, FLOATS, (-1, 1)),
    ("asin", tf.asin, np.arcsin, FLOATS, (-1, 1)),
    ("acos", tf.acos, np.arccos, FLOATS, (-1, 1)),
    ("atan", tf.atan, np.arctan, FLOATS, (-3, 3)),
    ("tanh", tf.tanh, np.tanh, FLOATS, (-3, 3)),
    ("sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), FLOATS, (-8, 8)),
    ("floor", tf.floor, np.floor, FLOATS, (-3, 3)),
    ("ceil", tf.ceil, np.ceil, FLOATS, (-3, 3)),
    ("reciprocal", tf.reciprocal, lambda x: 1 / x, FLOATS, (0.5, 3)),
]
UNARY_CASES = [(n, fn, ref, d, r) for n, fn, ref, ds, r in UNARY for d in ds]


@pytest.mark.parametrize("name, fn, ref, dtype, domain", UNARY_CASES,
                         ids=["%s-%s" % (c[0], np.dtype(c[3]).name) for c in UNARY_CASES])
def test_unary_op_matches_numpy(name, fn, ref, dtype, domain):
    x = sample(dtype, (2, 3), *domain, seed=3)
    out = fn(tf.constant(x))
    assert out.dtype == tf.as_dtype(dtype) and out.shape.as_list() == [2, 3]
    value = run(out)
    assert value.dtype == dtype
    np.testing.assert_allclose(value, ref(x), rtol=2e-6, atol=1e-6)


def test_unary_ops_on_scalars_empty_and_float16():
    assert run(tf.exp(0.0)) == 1.0
    assert run(tf.sqrt(tf.constant(np.zeros((0, 2))))).shape == (0, 2)
    half = run(tf.sigmoid(tf.constant([0.0, 2.0], tf.float16)))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, [0.5, 0.8808], rtol=1e-3)


def test_special_values_are_quiet_and_tensorflow_like():
    with no_warnings():
        values = run([tf.log(tf.constant([0.0, -1.0])), tf.rsqrt(tf.constant([0.0, -1.0])),
                      tf.sign(tf.constant([np.nan, -0.0, 3.0])),
                      tf.sigmoid(tf.constant([-1000.0, 1000.0], tf.float64))])
    np.testing.assert_array_equal(values[0], [-np.inf, np.nan])
    np.testing.assert_array_equal(values[1], [np.inf, np.nan])
    np.testing.assert_array_equal(values[2], [0.0, 0.0, 1.0])   # TF 1.15: sign(NaN) == 0
    np.testing.assert_array_equal(values[3], [0.0, 1.0])


def test_round_is_bankers_rounding_and_integers_pass_through():
    np.testing.assert_array_equal(run(tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.5]))),
                                  [0.0, 2.0, 2.0, -0.0, -2.0])
    ints = tf.constant([1, 2])
    assert tf.round(ints) is ints


def test_is_nan_is_inf_is_finite():
    x = tf.constant([1.0, np.nan, np.inf, -np.inf])
    nan, inf, finite = run([tf.is_nan(x), tf.is_inf(x), tf.is_finite(x)])
    assert tf.is_nan(x).dtype == tf.bool
    np.testing.assert_array_equal(nan, [False, True, False, False])
    np.testing.assert_array_equal(inf, [False, False, True, True])
    np.testing.assert_array_equal(finite, [True, False, False, False])


def test_unary_errors():
    with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType uint8 "
                                        "not in list of allowed values"):
        tf.negative(tf.constant([1], tf.uint8))
    with pytest.raises(TypeError, match="DataType int32 not in list"):
        tf.floor(tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Reciprocal"):
        run(tf.reciprocal(tf.constant([2])))


# -- comparisons and logic ---------------------------------------------------------------------
COMPARISONS = [(tf.equal, np.equal), (tf.not_equal, np.not_equal), (tf.less, np.less),
               (tf.less_equal, np.less_equal), (tf.greater, np.greater),
               (tf.greater_equal, np.greater_equal)]


@pytest.mark.parametrize("fn, ref", COMPARISONS)
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_comparisons_broadcast_and_return_bool(fn, ref, dtype):
    x = sample(dtype, (3, 1), -2, 2, seed=4)
    y = sample(dtype, (4,), -2, 2, seed=5)
    out = fn(x, tf.constant(y))
    assert out.dtype == tf.bool and out.shape.as_list() == [3, 4]
    np.testing.assert_array_equal(run(out), ref(x, y))


def test_equal_on_strings_and_bools():
    assert run(tf.equal(tf.constant("a"), "a"))
    np.testing.assert_array_equal(run(tf.not_equal([True, False], True)), [False, True])
    with pytest.raises(TypeError, match="DataType bool not in list"):
        tf.less(True, False)


def test_logical_ops():
    a = tf.constant([True, True, False, False])
    b = tf.constant([True, False, True, False])
    xor = tf.logical_xor(a, b)
    values = run([tf.logical_and(a, b), tf.logical_or(a, b), xor, tf.logical_not(a)])
    np.testing.assert_array_equal(values[0], [True, False, False, False])
    np.testing.assert_array_equal(values[1], [True, True, True, False])
    np.testing.assert_array_equal(values[2], [False, True, True, False])
    np.testing.assert_array_equal(values[3], [False, False, True, True])
    assert xor.op.name == "LogicalXor" and xor.op.type == "LogicalAnd"
    with pytest.raises(TypeError) as info:
        tf.logical_and(tf.constant(1), True)
    assert str(info.value) == ("Input 'x' of 'LogicalAnd' Op has type int32 that does not "
                               "match expected type of bool.")


# -- add_n, accumulate_n ------------------------------------------------------------------------
def test_add_n_sums_same_shape_tensors():
    parts = [sample(np.float32, (2, 2), seed=s) for s in range(3)]
    out = tf.add_n([tf.constant(p) for p in parts])
    assert out.op.type == "AddN" and out.shape.as_list() == [2, 2]
    np.testing.assert_allclose(run(out), parts[0] + parts[1] + parts[2], rtol=1e-6)
    assert run(tf.add_n([1, 2, 3])) == 6
    single = tf.constant(1.0)
    assert tf.add_n([single]) is single
    assert tf.add_n([single], name="total").op.type == "Identity"
    acc = tf.accumulate_n([tf.constant([1, 2]), tf.constant([3, 4])])
    assert acc.op.type == "AccumulateNV2"
    np.testing.assert_array_equal(run(acc), [4, 6])


def test_add_n_of_two_is_np_add_bit_for_bit_and_silent():
    # Two inputs take a shorter path (aggregate_ops._sum_kernel): the same bits as np.add,
    # -0.0, inf and NaN included, no warning on overflow, no broadcasting.
    import warnings
    rng = np.random.RandomState(0)
    a = rng.randn(32, 128).astype(np.float32)
    b = rng.randn(32, 128).astype(np.float32)
    a.flat[:4] = [-0.0, np.inf, np.nan, 3e38]
    b.flat[:4] = [-0.0, -np.inf, 1.0, 3e38]
    x, y = tf.placeholder(tf.float32, [None, 128]), tf.placeholder(tf.float32, [None, 128])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run(tf.add_n([x, y]), {x: a, y: b})
    want = np.add(a, b)
    assert got.dtype == np.float32 and np.array_equal(got.view(np.int32), want.view(np.int32))
    p, q = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(tf.add_n([p, q], name="AddN_two"), {p: [1, 2], q: [5]})
    assert str(info.value).splitlines()[0] == (
        "Inputs to operation AddN_two of type AddN must have the same size and shape.  "
        "Input 0: [2] != input 1: [1]")


def test_add_n_errors():
    with pytest.raises(ValueError, match="inputs must be a list of at least one"):
        tf.add_n([])
    with pytest.raises(TypeError) as info:
        tf.add_n([tf.constant(1), tf.constant(2.0)])
    assert str(info.value) == ("Tensors in list passed to 'inputs' of 'AddN' Op have types "
                               "[int32, float32] that don't all match.")
    tf.reset_default_graph()
    with pytest.raises(ValueError) as info:
        tf.add_n([tf.constant([1, 2]), tf.constant([1, 2, 3])])
    assert str(info.value) == (
        "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3]."
        "\n\tFrom merging shape 0 with other shapes. for 'AddN' (op: 'AddN') with input shapes: "
        "[2], [3].")
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(tf.add_n([x, y]), {x: [1, 2], y: [1, 2, 3]})
    assert str(info.value).splitlines()[0] == (
        "Inputs to operation AddN of type AddN must have the same size and shape.  "
        "Input 0: [2] != input 1: [3]")


# -- cast, saturate_cast, clip_by_value ----------------------------------------------------------
def test_cast_truncates_toward_zero_and_casts_bools():
    x = tf.constant([-1.7, -0.5, 0.5, 2.9])
    out = tf.cast(x, tf.int32)
    assert out.op.type == "Cast" and out.dtype == tf.int32
    np.testing.assert_array_equal(run(out), [-1, 0, 0, 2])
    np.testing.assert_array_equal(run(tf.cast(tf.constant([0.0, -0.5, np.nan]), tf.bool)),
                                  [False, True, True])
    np.testing.assert_array_equal(run(tf.cast(tf.constant([True, False]), tf.float32)),
                                  [1.0, 0.0])
    assert tf.cast(x, tf.float32) is x
    assert run(tf.cast(1.5, tf.int64)) == 1


@pytest.mark.parametrize("source", [tf.bool, tf.int8, tf.int32, tf.int64, tf.uint8,
                                    tf.uint16])
def test_casts_from_integers_never_warn_and_give_numpys_values(source):
    # The Cast kernel skips NumPy's errstate for integer and bool sources, except into
    # float16, the one target NumPy warns of (an overflow to inf): run here with
    # warnings as errors and no errstate around the kernel.
    import warnings
    if source == tf.bool:
        values = np.array([True, False])
    else:
        info = np.iinfo(source.np)
        values = np.array([info.min, info.max, 0, 1, 70000 % (int(info.max) + 1)], source.np)
    x = tf.placeholder(source, [None])
    for target in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8,
                   tf.bool, tf.complex64):
        if target == source:
            continue
        cast = tf.cast(x, target)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = cast.op._attrs["_impl"](None, values)
        with np.errstate(all="ignore"):
            expected = values.astype(target.np)
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == target.np
        np.testing.assert_array_equal(run(cast, {x: values}), expected)


def test_cast_shortcuts_and_saturate_cast():
    x = tf.constant([1, 2])
    as_float = tf.to_float(x)
    assert as_float.dtype == tf.float32 and as_float.op.name == "ToFloat"
    assert tf.to_double(x).dtype == tf.float64
    assert tf.to_int64(x).dtype == tf.int64
    assert tf.to_int32(tf.constant(2.5)).dtype == tf.int32
    big = run(tf.saturate_cast(tf.constant([-1e10, 1e10, 3.7]), tf.int32))
    assert big[0] == np.iinfo(np.int32).min and big[1] > 2 ** 30 and big[2] == 3
    np.testing.assert_array_equal(run(tf.saturate_cast(tf.constant([-5, 300]), tf.uint8)),
                                  [0, 255])


def test_clip_by_value():
    out = tf.clip_by_value(tf.constant([1, 5, 9]), 2, 8)
    assert out.op.name == "clip_by_value" and out.op.type == "Maximum"
    np.testing.assert_array_equal(run(out), [2, 5, 8])
    rows = tf.clip_by_value(tf.constant([[1.0, 5.0], [3.0, 4.0]]), [2.0, 3.0], 4.5)
    np.testing.assert_allclose(run(rows), [[2.0, 4.5], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(2, 2\) are not compatible"):
        tf.clip_by_value(tf.constant([1, 5]), tf.constant([[2], [3]]), 8)
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op "
                                        "'Minimum', got 8.5"):
        tf.clip_by_value(tf.constant([1, 5]), 0, 8.5)


# -- matmul, tensordot --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_matmul_of_matrices(dtype):
    a = sample(dtype, (2, 3), seed=6)
    b = sample(dtype, (3, 4), seed=7)
    out = tf.matmul(a, b)
    assert out.op.type == "MatMul" and out.dtype == tf.as_dtype(dtype)
    assert out.shape.as_list() == [2, 4]
    assert_close(run(out), a @ b, rtol=1e-5)


def test_matmul_transposes_and_adjoints():
    a = sample(np.float64, (3, 2), seed=8)
    b = sample(np.float64, (4, 3), seed=9)
    out = tf.matmul(a, b, transpose_a=True, adjoint_b=True)
    assert out.shape.as_list() == [2, 4]
    assert out.op.get_attr("transpose_a") and out.op.get_attr("transpose_b")
    assert_close(run(out), a.T @ b.T)
    sparse_hint = tf.matmul(a.T, b.T, a_is_sparse=True, b_is_sparse=True)
    assert_close(run(sparse_hint), a.T @ b.T)
    with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a can be True."):
        tf.matmul(a, b, transpose_a=True, adjoint_a=True)


def test_matmul_batches_with_broadcasting():
    a = sample(np.float32, (4, 1, 2, 3), seed=10)
    b = sample(np.float32, (5, 3, 2), seed=11)
    out = tf.matmul(a, b)
    assert out.op.type == "BatchMatMulV2" and out.shape.as_list() == [4, 5, 2, 2]
    assert_close(run(out), np.matmul(a, b), rtol=1e-5)
    flipped = tf.matmul(b, a, transpose_a=True, transpose_b=True)
    assert flipped.shape.as_list() == [4, 5, 2, 2]
    assert_close(run(flipped), np.matmul(np.swapaxes(b, -1, -2),
                                         np.swapaxes(a, -1, -2)), rtol=1e-5)
    unknown = tf.matmul(tf.placeholder(tf.float32), b)
    assert unknown.op.type == "BatchMatMulV2" and unknown.shape.ndims is None
    rows = tf.matmul(tf.placeholder(tf.float32, [None, 3]), b[0])
    assert rows.op.type == "MatMul" and rows.shape.as_list() == [None, 2]


def test_matmul_static_errors():
    with pytest.raises(ValueError) as info:
        tf.matmul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert str(info.value) == ("Dimensions must be equal, but are 3 and 2 for 'MatMul' (op: "
                               "'MatMul') with input shapes: [2,3], [2,3].")
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 5 for "
                                         "'MatMul_1' \\(op: 'BatchMatMulV2'\\)"):
        tf.matmul(np.ones((4, 2, 3)), np.ones((5, 3, 5)))
    with pytest.raises(TypeError, match="Input 'b' of 'MatMul' Op has type float32 that does "
                                        "not match type int32 of argument 'a'."):
        tf.matmul(tf.constant([[1]]), tf.constant([[1.0]]))
    with pytest.raises(TypeError, match="Value passed to parameter 'a' has DataType int8"):
        tf.matmul(tf.constant([[1]], tf.int8), tf.constant([[1]], tf.int8))


def test_matmul_static_rank_error():
    with pytest.raises(ValueError) as info:
        tf.matmul(tf.placeholder(tf.float32, [3]), tf.placeholder(tf.float32, [3, 2]))
    assert str(info.value) == ("Shape must be rank 2 but is rank 1 for 'MatMul' (op: "
                               "'MatMul') with input shapes: [3], [3,2].")


@pytest.mark.parametrize("a_shape, b_shape, batched, message", [
    ((2, 3), (2, 3), False, "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]"),
    ((2, 2, 3), (2, 2, 3), True, "In[0] mismatch In[1] shape: 3 vs. 2: [2,2,3] [2,2,3] 0 0"),
    ((2, 2, 3), (3, 3, 2), True,
     "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,2]"),
    ((3,), (3, 3, 2), True, "In[0] ndims must be >= 2: 1"),
])
def test_matmul_runtime_errors(a_shape, b_shape, batched, message):
    shape = None if batched else [None, None]
    a = tf.placeholder(tf.float32, shape)
    b = tf.placeholder(tf.float32, shape)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(tf.matmul(a, b), {a: np.ones(a_shape), b: np.ones(b_shape)})
    assert str(info.value).splitlines()[0] == message


def _has_reshape_and_transpose():
    from tfteach.ops import array_ops
    return hasattr(array_ops, "reshape") and hasattr(array_ops, "transpose")


@pytest.mark.skipif(not _has_reshape_and_transpose(), reason="array_ops not written yet")
def test_tensordot():
    a = sample(np.float64, (2, 3, 4), seed=12)
    b = sample(np.float64, (4, 3, 5), seed=13)
    out = tf.tensordot(a, b, [[1, 2], [1, 0]])
    assert out.shape.as_list() == [2, 5]
    assert_close(run(out), np.tensordot(a, b, [[1, 2], [1, 0]]))
    assert_close(run(tf.tensordot(a, b.transpose(1, 0, 2)[0], 1)),
                 np.tensordot(a, b.transpose(1, 0, 2)[0], 1))
    with pytest.raises(ValueError, match="'axes' must be at least 0."):
        tf.tensordot(a, b, -1)
    with pytest.raises(ValueError, match="Different number of contraction axes 'a' and 'b', "
                                         "2 != 1."):
        tf.tensordot(a, b, [[1, 2], [1]])


def test_numba_activations_are_plain_numpy_ufuncs_with_the_scalar_formula():
    """LazyUfunc hands back the NumPy ufunc Numba built (no DUFunc dispatch per call):
    same values as the scalar formula, the input's float type kept."""
    import math
    from tfteach.kernels.cpu.nn_kernels import softplus
    for dtype in (np.float32, np.float64):
        x = np.array([-800.0, -3.5, -0.0, 0.25, 40.0, np.nan], dtype)
        got = softplus(x)
        assert isinstance(softplus._by_dtype[np.dtype(dtype)], np.ufunc)
        assert got.dtype == dtype
        want = [v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v))
                for v in x[:-1].astype(np.float64)]
        np.testing.assert_allclose(got[:-1], want, rtol=1e-6)
        assert np.isnan(got[-1])


@settings(max_examples=60, deadline=None)
@given(x=hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=5),
                    elements=st.floats(-200, 200, width=32)))
def test_sigmoid_kernel_is_within_a_few_ulp_of_float64_math(x):
    """Any float32 input: within 4 units in the last place of the float64 value (TF's
    Eigen exp is itself a few ulp off), and 0 / tiny where the float64 value is below
    float32's normal range."""
    from tfteach.kernels.cpu.elementwise import sigmoid
    with np.errstate(over="ignore"):
        got = sigmoid(x)
    want = 1 / (1 + np.exp(-x.astype(np.float64)))
    assert got.dtype == np.float32 and got.shape == x.shape
    normal = want >= np.finfo(np.float32).tiny
    np.testing.assert_array_max_ulp(got[normal], want[normal].astype(np.float32), maxulp=4)
    assert np.all(np.abs(got[~normal]) <= np.finfo(np.float32).tiny)


def test_sigmoid_kernel_is_tensorflows_formula_and_leaves_its_input_alone():
    """The Sigmoid kernel computes 1 / (1 + e^-x) in NumPy passes: values against float64
    math, TF's rounding at both ends (TF 2.21 prints 0 and 1.0 for these float32 inputs),
    NaN kept, 0-d and float16 inputs, and the input array never written."""
    import math
    from tfteach.kernels.cpu.elementwise import sigmoid
    x = np.array([-30.0, -3.5, -0.0, 0.25, 5.0, 15.0], np.float32)
    for dtype in (np.float32, np.float64):
        value = x.astype(dtype)
        before = value.copy()
        got = sigmoid(value)
        assert got.dtype == dtype and got.shape == value.shape
        want = [1 / (1 + math.exp(-v)) for v in before.astype(np.float64)]
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-15)
        np.testing.assert_array_equal(value, before)
    ends = np.array([-120.0, -100.0, -90.0, 17.0, 20.0, 100.0], np.float32)
    with np.errstate(over="ignore"):      # e^120 is inf (a session runs with warnings off)
        np.testing.assert_array_equal(sigmoid(ends), [0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    assert np.isnan(sigmoid(np.array([np.nan, 1.0]))[0])
    scalar = sigmoid(np.array(2.0, np.float32))
    assert scalar.shape == () and scalar.dtype == np.float32
    assert abs(float(scalar) - 1 / (1 + math.exp(-2.0))) < 1e-7
    half = sigmoid(np.array([0.5, -3.0], np.float16))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, [0.6225, 0.04743], rtol=1e-3)
    strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2] - 5
    np.testing.assert_allclose(sigmoid(strided), 1 / (1 + np.exp(-strided.astype(np.float64))),
                               rtol=1e-6)


