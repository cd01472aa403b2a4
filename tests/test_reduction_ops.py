"""Reductions, argmax/argmin and cumsum/cumprod against NumPy: values, dtypes, static
shapes, TF1 argument aliases, empty inputs and TensorFlow's errors.

Only constants, placeholders and Sessions are used besides the ops under test, so these
tests do not depend on the math or array ops.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfteach as tf
from tolerances import assert_close

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 3, 4))

AXES = [None, 0, 1, 2, -1, -3, [0, 2], [-1, 0], [], (1,), [0, 1, 2]]


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def numpy_axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def as_array(value, dtype):
    return np.asarray(value).astype(dtype)


# -- values against NumPy ------------------------------------------------------------------
FLOAT_REDUCTIONS = [
    (tf.reduce_sum, np.sum),
    (tf.reduce_mean, np.mean),
    (tf.reduce_max, np.max),
    (tf.reduce_min, np.min),
    (tf.reduce_prod, np.prod),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tf_fn,np_fn", FLOAT_REDUCTIONS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions_match_numpy(tf_fn, np_fn, dtype, keepdims):
    x = X.astype(dtype)
    outputs = [tf_fn(tf.constant(x), axis, keepdims=keepdims) for axis in AXES]
    for axis, out, value in zip(AXES, outputs, run(outputs)):
        expected = np_fn(x, axis=numpy_axis(axis), keepdims=keepdims)
        assert out.dtype == tf.as_dtype(dtype)
        assert np.asarray(value).dtype == dtype
        assert out.shape.as_list() == list(np.shape(expected)), axis
        # the scale of a sum (or mean) near zero is the sum of its terms' sizes
        assert_close(value, expected, rtol=1e-5 if dtype == np.float32 else 1e-12,
                     scale=np_fn(np.abs(x), axis=numpy_axis(axis), keepdims=keepdims))


INT_REDUCTIONS = [
    (tf.reduce_sum, lambda x, axis, keepdims: np.sum(x, axis, keepdims=keepdims, dtype=x.dtype)),
    (tf.reduce_max, np.max),
    (tf.reduce_min, np.min),
    (tf.reduce_prod,
     lambda x, axis, keepdims: np.prod(x, axis, keepdims=keepdims, dtype=x.dtype)),
]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8])
@pytest.mark.parametrize("tf_fn,np_fn", INT_REDUCTIONS)
def test_integer_reductions_match_numpy_and_keep_the_dtype(tf_fn, np_fn, dtype):
    x = RNG.integers(0, 5, size=(3, 4)).astype(dtype)
    axes = [None, 0, -1, [0, 1], []]
    outputs = [tf_fn(tf.constant(x), axis) for axis in axes]
    for axis, out, value in zip(axes, outputs, run(outputs)):
        expected = np_fn(x, axis=numpy_axis(axis), keepdims=False)
        assert out.dtype == tf.as_dtype(dtype)
        assert np.asarray(value).dtype == dtype     # NumPy alone would widen int32 to int64
        np.testing.assert_array_equal(value, expected)


def test_integer_sum_wraps_around_like_tensorflow():
    big = np.array([2 ** 31 - 1, 1], dtype=np.int32)
    assert run(tf.reduce_sum(tf.constant(big))) == np.int32(-2 ** 31)


def test_integer_mean_truncates_toward_zero():
    values = {
        (1, 2): 1, (-1, -2): -1, (1, 2, 4): 2, (-7, 0): -3, (7, 0): 3, (-4, -4): -4,
    }
    outputs = [tf.reduce_mean(tf.constant(list(k))) for k in values]
    assert [o.dtype for o in outputs] == [tf.int32] * len(values)
    assert run(outputs) == list(values.values())


def test_integer_mean_over_an_axis_and_small_int_types():
    x = np.array([[1, -4], [2, -1]], dtype=np.int32)
    np.testing.assert_array_equal(run(tf.reduce_mean(tf.constant(x), 0)), [1, -2])
    np.testing.assert_array_equal(run(tf.reduce_mean(tf.constant(x), 1)), [-1, 0])
    # The sum of 300 int8 ones does not fit int8; TF still gives the mean 1.
    assert run(tf.reduce_mean(tf.constant(np.ones(300, np.int8)))) == 1


@pytest.mark.parametrize("tf_fn,np_fn", [(tf.reduce_any, np.any), (tf.reduce_all, np.all)])
def test_logical_reductions_match_numpy(tf_fn, np_fn):
    x = RNG.random((3, 4)) > 0.4
    axes = [None, 0, 1, -1, [0, 1], []]
    outputs = [tf_fn(tf.constant(x), axis, keepdims=True) for axis in axes]
    for axis, out, value in zip(axes, outputs, run(outputs)):
        assert out.dtype == tf.bool
        np.testing.assert_array_equal(value, np_fn(x, axis=numpy_axis(axis), keepdims=True))


def test_reduce_logsumexp_is_stable_and_matches_numpy():
    x = np.array([[1000.0, 1000.0], [-1.0, 2.0]], dtype=np.float64)
    expected = np.log(np.sum(np.exp(x - x.max(1, keepdims=True)), 1)) + x.max(1)
    out = tf.reduce_logsumexp(tf.constant(x), 1)
    assert out.name == "ReduceLogSumExp:0" and out.shape.as_list() == [2]
    np.testing.assert_allclose(run(out), expected)
    whole = run(tf.reduce_logsumexp(tf.constant(x[1:])))
    np.testing.assert_allclose(whole, np.log(np.exp(-1.0) + np.exp(2.0)))
    kept = tf.reduce_logsumexp(tf.constant(x.astype(np.float32)), keepdims=True)
    assert kept.dtype == tf.float32 and kept.shape.as_list() == [1, 1]


def test_reduce_logsumexp_of_infinities_and_empty_input():
    values = run([tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])),
                  tf.reduce_logsumexp(tf.constant([np.inf, 1.0])),
                  tf.reduce_logsumexp(tf.constant(np.zeros(0, np.float32)))])
    assert values == [-np.inf, np.inf, -np.inf]


def test_count_nonzero_counts_and_casts():
    x = np.array([[1.0, 0.0, 3.0], [0.0, 0.0, -2.0]], dtype=np.float32)
    total = tf.count_nonzero(tf.constant(x))
    rows = tf.count_nonzero(tf.constant(x), 1, keepdims=True, dtype=tf.int32)
    flags = tf.count_nonzero(tf.constant([True, False, True]))
    assert total.dtype == tf.int64 and total.shape.as_list() == []
    assert rows.dtype == tf.int32 and rows.shape.as_list() == [2, 1]
    assert total.name == "count_nonzero:0"
    t, r, f = run([total, rows, flags])
    assert t == 3 and np.asarray(t).dtype == np.int64
    np.testing.assert_array_equal(r, [[2], [1]])
    assert f == 2
    assert run(tf.count_nonzero(input=tf.constant([0, 5]), reduction_indices=0)) == 1


# -- axes, aliases, names ------------------------------------------------------------------
def test_tf1_aliases_keep_dims_and_reduction_indices():
    x = tf.constant(X)
    out = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)
    assert out.shape.as_list() == [2, 1, 4]
    np.testing.assert_allclose(run(out), X.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.reduce_mean(x, keepdims=True, keep_dims=True)


def test_axis_as_tensor_known_and_fed():
    x = tf.constant(X)
    known = tf.reduce_max(x, tf.constant([0, -1], dtype=tf.int64))
    assert known.shape.as_list() == [3]
    axis = tf.placeholder(tf.int32)
    fed = tf.reduce_sum(x, axis)
    fed_kept = tf.reduce_sum(x, axis, keepdims=True)
    assert fed.shape.ndims is None                  # unknown until the graph runs
    assert fed_kept.shape.as_list() == [None, None, None]
    values = run([known, fed, fed_kept], {axis: [2]})
    np.testing.assert_allclose(values[0], X.max((0, 2)))
    assert_close(values[1], X.sum(2), scale=np.abs(X).sum(2))
    assert_close(values[2], X.sum(2, keepdims=True), scale=np.abs(X).sum(2, keepdims=True))


def test_graph_structure_and_names_follow_tensorflow():
    x = tf.constant(X, name="x")
    a = tf.reduce_sum(x)
    b = tf.reduce_mean(x, [0, 1], name="average")
    c = tf.reduce_sum(x, 1)
    names = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    assert names == [("x", "Const"), ("Const", "Const"), ("Sum", "Sum"),
                     ("average/reduction_indices", "Const"), ("average", "Mean"),
                     ("Sum_1/reduction_indices", "Const"), ("Sum_1", "Sum")]
    assert (a.name, b.name, c.name) == ("Sum:0", "average:0", "Sum_1:0")
    assert c.op.get_attr("keep_dims") is False
    assert c.op.get_attr("Tidx") == tf.int32 and c.op.get_attr("T") == tf.float64


def test_unknown_input_shapes():
    x = tf.placeholder(tf.float32)                      # unknown rank
    rows = tf.placeholder(tf.float32, [None, 3])
    assert tf.reduce_sum(x).shape.as_list() == []       # all axes: always a scalar
    assert tf.reduce_sum(x, 0).shape.ndims is None
    assert tf.reduce_sum(x, keepdims=True).shape.ndims is None
    assert tf.reduce_sum(rows, 1).shape.as_list() == [None]
    assert tf.reduce_sum(rows, 0, keepdims=True).shape.as_list() == [1, 3]
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert run(tf.reduce_sum(x), {x: value}) == 15.0
    assert run(tf.reduce_max(x, keepdims=True), {x: value}).shape == (1, 1)


def test_scalar_input():
    s = tf.constant(3.0)
    assert tf.reduce_sum(s).shape.as_list() == []
    assert run([tf.reduce_sum(s), tf.reduce_sum(s, []), tf.reduce_max(s)]) == [3.0, 3.0, 3.0]


# -- empty inputs --------------------------------------------------------------------------
def test_empty_reductions_give_tensorflow_identities():
    f = tf.constant(np.zeros((0, 2), np.float32))
    i = tf.constant(np.zeros((0, 2), np.int32))
    b = tf.constant(np.zeros((0,), bool))
    values = run([tf.reduce_sum(f), tf.reduce_prod(f), tf.reduce_max(f), tf.reduce_min(f),
                  tf.reduce_max(i, 0), tf.reduce_min(i), tf.reduce_any(b), tf.reduce_all(b),
                  tf.reduce_mean(i), tf.reduce_sum(f, 1), tf.count_nonzero(f)])
    assert values[:4] == [0.0, 1.0, -np.inf, np.inf]
    np.testing.assert_array_equal(values[4], [np.iinfo(np.int32).min] * 2)
    assert values[5] == np.iinfo(np.int32).max
    assert values[6] is np.False_ and values[7] is np.True_
    assert values[8] == 0
    assert values[9].shape == (0,)
    assert values[10] == 0
    with np.errstate(invalid="ignore"):
        assert np.isnan(run(tf.reduce_mean(f)))


# -- errors --------------------------------------------------------------------------------
def test_out_of_range_axis_at_build_time():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError) as info:
        tf.reduce_sum(x, 2)
    assert str(info.value).startswith(
        "Invalid reduction dimension 2 for input with 2 dimensions. for 'Sum' (op: 'Sum') "
        "with input shapes: [2,2], []")
    with pytest.raises(ValueError, match="Invalid reduction dimension -3 for input with 2"):
        tf.reduce_max(x, [0, -3])
    with pytest.raises(ValueError, match="Invalid reduction dimension 0 for input with 0"):
        tf.reduce_sum(tf.constant(1.0), 0)
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.reduce_sum(x, [[0]])


def test_out_of_range_axis_at_run_time():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    axis = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(tf.reduce_sum(x, axis), {axis: 2})
    assert str(info.value).splitlines()[0] == (
        "Invalid reduction dimension (2 for input with 2 dimension(s)")


def test_bad_dtypes_raise_tensorflow_type_errors():
    with pytest.raises(TypeError, match="parameter 'input' has DataType bool not in list"):
        tf.reduce_sum(tf.constant([True]))
    with pytest.raises(TypeError, match="parameter 'input' has DataType bool not in list"):
        tf.reduce_max(tf.constant([True]))
    with pytest.raises(TypeError, match="Input 'input' of 'Any' Op has type float32 that does "
                                        "not match expected type of bool."):
        tf.reduce_any(tf.constant([1.0]))
    with pytest.raises(TypeError, match="parameter 'reduction_indices' has DataType float32"):
        tf.reduce_sum(tf.constant([1.0]), 0.5)
    with pytest.raises(TypeError, match="parameter 'x' has DataType int32"):
        tf.reduce_logsumexp(tf.constant([1, 2]))


# -- argmax / argmin -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
def test_argmax_argmin_match_numpy(dtype):
    x = RNG.integers(0, 100, size=(3, 4, 5)).astype(dtype)
    cases = [(axis, fn, np_fn) for axis in (0, 1, 2, -1, -3)
             for fn, np_fn in ((tf.argmax, np.argmax), (tf.argmin, np.argmin))]
    outputs = [fn(tf.constant(x), axis) for axis, fn, _ in cases]
    for (axis, _, np_fn), out, value in zip(cases, outputs, run(outputs)):
        expected = np_fn(x, axis=axis)
        assert out.dtype == tf.int64 and value.dtype == np.int64
        assert out.shape.as_list() == list(expected.shape)
        np.testing.assert_array_equal(value, expected)


def test_argmax_defaults_aliases_and_output_type():
    x = tf.constant([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]])
    default_axis = tf.argmax(x)
    by_dimension = tf.argmax(x, dimension=1, output_type=tf.int32)
    assert default_axis.shape.as_list() == [3] and default_axis.name == "ArgMax:0"
    assert by_dimension.dtype == tf.int32
    first, ties = run([default_axis, by_dimension])
    np.testing.assert_array_equal(first, [1, 0, 1])
    np.testing.assert_array_equal(ties, [1, 0])                # ties: the first index
    assert run(tf.argmin([3, 1, 2])) == 1
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'"):
        tf.argmax(x, axis=0, dimension=0)
    with pytest.raises(TypeError, match="parameter 'output_type' has DataType float32"):
        tf.argmax(x, 0, output_type=tf.float32)


def test_argmax_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"^Dimension \(2\) must be in the range \[-2, 2\), "
                                         r"where 2 is the number of dimensions in the input\."):
        tf.argmax(x, 2)
    axis = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension in the range \[-2, 2\), but got 2"):
        run(tf.argmax(x, axis), {axis: 2})
    empty = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Reduction axis 0 is empty in shape \[0,3\]"):
        run(tf.argmax(empty, 0), {empty: np.zeros((0, 3))})
    with pytest.raises(TypeError, match="parameter 'input' has DataType bool"):
        tf.argmax(tf.constant([True, False]))


# -- cumsum / cumprod ----------------------------------------------------------------------
def numpy_scan(x, axis, exclusive, reverse, multiply):
    """An independent reference: a Python loop over the axis."""
    moved = np.moveaxis(x, axis, 0)
    order = range(moved.shape[0] - 1, -1, -1) if reverse else range(moved.shape[0])
    out = np.empty_like(moved)
    total = np.ones_like(moved[0]) if multiply else np.zeros_like(moved[0])
    for i in order:
        if exclusive:
            out[i] = total
        total = total * moved[i] if multiply else total + moved[i]
        if not exclusive:
            out[i] = total
    return np.moveaxis(out, 0, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("tf_fn,multiply", [(tf.cumsum, False), (tf.cumprod, True)])
def test_cumsum_cumprod_all_flags_and_axes(tf_fn, multiply, dtype):
    x = RNG.integers(1, 4, size=(2, 3, 4)).astype(dtype)
    cases = [(axis, exclusive, reverse) for axis in (0, 1, 2, -1)
             for exclusive in (False, True) for reverse in (False, True)]
    outputs = [tf_fn(tf.constant(x), axis, exclusive=e, reverse=r) for axis, e, r in cases]
    for (axis, e, r), out, value in zip(cases, outputs, run(outputs)):
        assert out.shape.as_list() == [2, 3, 4] and out.dtype == tf.as_dtype(dtype)
        assert value.dtype == dtype
        np.testing.assert_allclose(value, numpy_scan(x, axis, e, r, multiply), rtol=1e-6)


def test_cumsum_examples_names_and_empty():
    out = tf.cumsum([1, 2, 3], exclusive=True, reverse=True)
    assert out.name == "Cumsum:0"
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "Cumsum/x", "Cumsum/axis", "Cumsum"]
    empty = tf.constant(np.zeros((2, 0), np.float32))
    values = run([out, tf.cumprod([1, 2, 3], exclusive=True),
                  tf.cumsum(empty, 1, exclusive=True), tf.cumsum(tf.constant([[1, 2], [3, 4]]), 1,
                                                                 reverse=True)])
    np.testing.assert_array_equal(values[0], [5, 3, 0])
    np.testing.assert_array_equal(values[1], [1, 1, 2])
    assert values[2].shape == (2, 0)
    np.testing.assert_array_equal(values[3], [[3, 2], [7, 4]])


def test_cumsum_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    axis = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2"):
        run(tf.cumsum(x, axis), {axis: 2})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"ScanOp: axis must be a scalar, not \[1\]"):
        run(tf.cumsum(x, [0]))
    with pytest.raises(TypeError, match="parameter 'axis' has DataType float32"):
        tf.cumsum(x, 0.5)
    with pytest.raises(TypeError, match="parameter 'x' has DataType bool"):
        tf.cumsum(tf.constant([True]))


# -- a property test over random shapes and axes -------------------------------------------
@st.composite
def array_and_axes(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    rank = len(shape)
    axes = draw(st.one_of(
        st.none(),
        st.lists(st.integers(-rank, rank - 1), unique_by=lambda a: a % rank, max_size=rank)
        if rank else st.just([])))
    keepdims = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 16))
    values = np.random.default_rng(seed).normal(size=shape)
    return values, axes, keepdims


@settings(max_examples=40, deadline=None)
@given(array_and_axes())
def test_sum_mean_max_match_numpy_on_random_shapes(case):
    values, axes, keepdims = case
    np_axis = None if axes is None else tuple(axes)
    x = tf.constant(values)
    outputs = [tf.reduce_sum(x, axes, keepdims=keepdims),
               tf.reduce_mean(x, axes, keepdims=keepdims),
               tf.reduce_max(x, axes, keepdims=keepdims)]
    with np.errstate(invalid="ignore", divide="ignore"):
        sums, means, maxes = run(outputs)
        expected_sum = np.sum(values, np_axis, keepdims=keepdims)
        reduced = range(values.ndim) if axes is None else [a % values.ndim for a in axes]
        count = int(np.prod([values.shape[a] for a in reduced]))
        expected_mean = expected_sum / count if count else np.full(expected_sum.shape, np.nan)
        expected_max = np.max(values, np_axis, keepdims=keepdims, initial=-np.inf)
    for out, expected in zip(outputs, (expected_sum, expected_mean, expected_max)):
        assert out.shape.as_list() == list(np.shape(expected))
    np.testing.assert_allclose(sums, expected_sum, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(means, expected_mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(maxes, expected_max)
    tf.reset_default_graph()       # hypothesis runs many examples inside one test


def test_reducing_over_no_axes_is_the_identity():
    # What broadcast gradients do most of the time (BroadcastGradientArgs found nothing to
    # sum): values, dtype and shape unchanged, with and without keep_dims.
    x = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    f = np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32)
    axes = tf.placeholder(tf.int32, [None])
    got = run([tf.reduce_sum(x, axes), tf.reduce_prod(f, axes, keepdims=True),
               tf.reduce_sum(f, axes)], {axes: np.zeros(0, np.int32)})
    for value, expected in zip(got, [x, f, f]):
        np.testing.assert_array_equal(value, expected)
        assert value.dtype == expected.dtype and value.shape == expected.shape
