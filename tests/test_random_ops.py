"""Random ops: shapes and dtypes, statistics, TensorFlow's seed rules and errors.

The numbers are not TensorFlow's bit for bit; what is checked is what the notes rely
on: the distributions, and when a program repeats its numbers (docs/random.md).
"""
import numpy as np
import pytest

import tfteach as tf
from tfteach.ops import random_ops

N = 10000


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


# -- shapes, dtypes, names -----------------------------------------------------------------
@pytest.mark.parametrize("shape,expected", [
    ([2, 3], [2, 3]), ((4,), [4]), ([], []), (tf.TensorShape([3, 1]), [3, 1]),
    (np.array([2, 2]), [2, 2]), ([tf.Dimension(2)], [2])])
def test_shape_argument_forms(shape, expected):
    outputs = [tf.random_normal(shape), tf.truncated_normal(shape), tf.random_uniform(shape),
               tf.random_uniform(shape, maxval=7, dtype=tf.int64)]
    for out, value in zip(outputs, run(outputs)):
        assert out.shape.as_list() == expected
        assert np.shape(value) == tuple(expected)


def test_shape_as_tensor_known_and_fed():
    known = tf.random_normal(tf.constant([2, 5], dtype=tf.int64))
    assert known.shape.as_list() == [2, 5]
    dims = tf.placeholder(tf.int32, [2])
    fed = tf.random_uniform(dims)
    assert fed.shape.as_list() == [None, None]
    assert tf.random_normal([-1, 3]).shape.as_list() == [None, 3]
    assert run(fed, {dims: [3, 4]}).shape == (3, 4)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_float_dtypes(dtype):
    outputs = [tf.random_normal([3], dtype=dtype), tf.truncated_normal([3], dtype=dtype),
               tf.random_uniform([3], dtype=dtype)]
    for out, value in zip(outputs, run(outputs)):
        assert out.dtype == dtype and value.dtype == dtype.as_numpy_dtype


def test_graph_names_follow_tensorflow():
    a = tf.random_normal([2, 3])
    b = tf.random_uniform([2], maxval=5, dtype=tf.int32)
    c = tf.random_shuffle([1, 2, 3])
    d = tf.multinomial([[0.0, 1.0]], 3)
    e = tf.truncated_normal([2], name="weights")
    assert (a.name, b.name, c.name, d.name, e.name) == (
        "random_normal:0", "random_uniform:0", "RandomShuffle:0", "multinomial/Multinomial:0",
        "weights:0")
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["random_normal/RandomStandardNormal"] == "RandomStandardNormal"
    assert ops["random_uniform"] == "RandomUniformInt"
    assert ops["weights/TruncatedNormal"] == "TruncatedNormal"
    assert {"random_normal/shape", "random_normal/mean", "random_normal/stddev",
            "random_uniform/min", "random_uniform/max"} <= set(ops)
    assert d.shape.as_list() == [1, 3] and d.dtype == tf.int64


# -- statistics ----------------------------------------------------------------------------
def test_random_normal_statistics():
    value = run(tf.random_normal([N], mean=3.0, stddev=2.0, seed=1))
    assert abs(value.mean() - 3.0) < 0.1
    assert abs(value.std() - 2.0) < 0.1


def test_truncated_normal_stays_within_two_stddev():
    value = run(tf.truncated_normal([N], mean=-1.0, stddev=0.5, seed=2))
    assert np.all(np.abs(value + 1.0) <= 1.0)
    assert abs(value.mean() + 1.0) < 0.05
    # A normal cut at 2 sigma has std 0.88 sigma.
    assert abs(value.std() - 0.88 * 0.5) < 0.03


def test_random_uniform_float_and_int_ranges():
    floats, ints = run([tf.random_uniform([N], minval=-2.0, maxval=3.0, seed=3),
                        tf.random_uniform([N], minval=5, maxval=9, dtype=tf.int32, seed=3)])
    assert floats.min() >= -2.0 and floats.max() < 3.0
    assert abs(floats.mean() - 0.5) < 0.1
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {5, 6, 7, 8}


def test_random_uniform_broadcasts_tensor_bounds():
    value = run(tf.random_uniform([2, 3], minval=[0.0, 10.0, 20.0], maxval=[1.0, 11.0, 21.0]))
    lower = np.array([0.0, 10.0, 20.0])
    assert np.all((value >= lower) & (value < lower + 1.0))


def test_random_shuffle_is_a_permutation_of_the_first_dimension():
    rows = np.arange(20).reshape(10, 2)
    shuffled = tf.random_shuffle(tf.constant(rows), seed=4)
    with tf.Session() as sess:
        values = [sess.run(shuffled) for _ in range(5)]
    for value in values:
        assert sorted(map(tuple, value)) == sorted(map(tuple, rows))     # rows kept whole
    assert any(not np.array_equal(v, rows) for v in values)
    assert run(tf.random_shuffle(tf.constant(5.0))) == 5.0


def test_multinomial_follows_softmax_probabilities():
    logits = np.log(np.array([[0.2, 0.8], [0.9, 0.1]]))
    samples = run(tf.multinomial(tf.constant(logits), N, seed=5, output_dtype=tf.int32))
    assert samples.shape == (2, N) and samples.dtype == np.int32
    assert abs(samples[0].mean() - 0.8) < 0.03
    assert abs(samples[1].mean() - 0.1) < 0.03
    never = run(tf.multinomial([[-np.inf, 0.0, -np.inf]], 50))
    assert np.all(never == 1)


# -- seed rules ----------------------------------------------------------------------------
def test_get_seed_follows_tensorflow_rules():
    graph = tf.get_default_graph()
    assert random_ops.get_seed(None) == (None, None)
    assert random_ops.get_seed(7) == (random_ops.DEFAULT_GRAPH_SEED, 7)
    tf.set_random_seed(42)
    assert graph.seed == 42
    assert random_ops.get_seed(7) == (42, 7)
    tf.constant(1.0)
    tf.constant(2.0)
    assert random_ops.get_seed(None) == (42, graph._last_id) == (42, 2)
    tf.set_random_seed(0)
    assert random_ops.get_seed(0) == (0, 2 ** 31 - 1)       # (0, 0) would mean "unseeded"
    assert tf.get_seed is random_ops.get_seed


def test_op_seed_repeats_across_sessions_and_advances_within_one():
    x = tf.random_normal([4], seed=1)
    with tf.Session() as sess:
        first, second = sess.run(x), sess.run(x)
    with tf.Session() as sess:
        again_first, again_second = sess.run(x), sess.run(x)
    assert not np.array_equal(first, second)          # each run draws the next numbers
    np.testing.assert_array_equal(first, again_first)  # a new session replays them
    np.testing.assert_array_equal(second, again_second)


def test_same_seeds_give_same_numbers_different_seeds_differ():
    a = tf.random_uniform([5], seed=3)
    b = tf.random_uniform([5], seed=3)
    c = tf.random_uniform([5], seed=4)
    va, vb, vc = run([a, b, c])
    np.testing.assert_array_equal(va, vb)
    assert not np.array_equal(va, vc)


def test_graph_seed_makes_whole_programs_repeatable():
    def program():
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(1234)
            a = tf.random_normal([3])
            b = tf.random_normal([3])
            with tf.Session() as sess:
                return sess.run([a, b]), (a.op.inputs[0].op.get_attr("seed"),
                                          b.op.inputs[0].op.get_attr("seed2"))

    (a1, b1), seeds = program()
    (a2, b2), _ = program()
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert not np.array_equal(a1, b1)    # op seeds come from the op count: they differ
    assert seeds[0] == 1234


def test_graph_seed_op_seed_depends_on_ops_created_before():
    def first_draw(extra_ops):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(1)
            for _ in range(extra_ops):
                tf.constant(0.0)
            x = tf.random_uniform([3])
            with tf.Session() as sess:
                return sess.run(x)

    np.testing.assert_array_equal(first_draw(0), first_draw(0))
    assert not np.array_equal(first_draw(0), first_draw(1))


def test_unseeded_ops_differ_between_sessions():
    x = tf.random_normal([8])
    assert x.op.inputs[0].op.get_attr("seed") == 0
    assert x.op.inputs[0].op.get_attr("seed2") == 0
    assert not np.array_equal(run(x), run(x))


# -- errors --------------------------------------------------------------------------------
def test_argument_errors():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype tf.int32"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid dtype tf.bool"):
        tf.random_uniform([2], dtype=tf.bool)
    with pytest.raises(TypeError, match="Expected int32"):
        tf.random_normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="parameter 'shape' has DataType float32"):
        tf.random_normal([2, 3.0])
    with pytest.raises(ValueError, match="Cannot convert a partially known TensorShape"):
        tf.random_normal(tf.TensorShape([2, None]))
    with pytest.raises(ValueError, match="Invalid value in tensor used for shape: -2"):
        tf.random_normal([-2])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.random_normal(tf.constant([[1]]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.multinomial([1.0, 2.0], 2)
    with pytest.raises(ValueError, match="minval must be a scalar"):
        tf.random_uniform([2], [0, 1], 3, dtype=tf.int32)


def test_runtime_errors():
    dims = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        run(tf.random_normal(dims), {dims: [-1]})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"shape must be a vector of \{int32,int64\}, got shape \[1,1\]"):
        run(tf.random_normal(dims), {dims: [[1]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 3 >= 3"):
        run(tf.random_uniform([2], 3, 3, dtype=tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes should be positive"):
        run(tf.multinomial(tf.constant(np.zeros((1, 0), np.float32)), 2))


def test_uniform_range_of_the_default_range_is_the_arithmetic_bit_for_bit():
    # The kernel skips rnd * (1 - 0) + 0 for the default range (every dropout's), which
    # must be exactly what the arithmetic gives; other ranges, and bounds that are
    # vectors (broadcast), go through the arithmetic.
    from tfteach.kernels.cpu.random_kernels import uniform_range_kernel
    rng = np.random.RandomState(7)
    for dtype in (np.float16, np.float32, np.float64):
        values = rng.rand(64, 33).astype(dtype)
        values[0, :3] = [0.0, np.nextafter(dtype(1), dtype(0)), np.finfo(dtype).tiny]
        for lo, hi in [(0.0, 1.0), (dtype(0), dtype(1)), (-2.0, 3.0),
                       (np.zeros(33, dtype), np.ones(33, dtype))]:
            got = uniform_range_kernel(None, values, lo, hi)
            want = np.asarray(values * (hi - lo) + lo).astype(dtype, copy=False)
            assert got is not values and got.dtype == dtype
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
