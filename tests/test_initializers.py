"""Initializers: deterministic values, and the statistics of the random ones (TF 1.15)."""
import math

import numpy as np
import pytest

import tfteach as tf
from tfteach.ops import init_ops

TRUNCATION_STD = 0.87962566103423978      # std of N(0, 1) truncated to [-2, 2]


def initial_value(initializer, shape, dtype=tf.float32):
    v = tf.get_variable("v", shape, dtype=dtype, initializer=initializer)
    with tf.Session() as sess:
        sess.run(v.initializer)
        return sess.run(v)


def test_truncation_constant_is_the_truncated_normal_std():
    # Var of N(0,1) truncated to [-a, a] is 1 - 2a*pdf(a) / (2*cdf(a) - 1).
    a = 2.0
    pdf = math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    mass = math.erf(a / math.sqrt(2))
    assert math.sqrt(1 - 2 * a * pdf / mass) == pytest.approx(TRUNCATION_STD, rel=1e-12)
    assert init_ops.TRUNCATED_NORMAL_STDDEV == TRUNCATION_STD


@pytest.mark.parametrize("initializer, dtype, expected", [
    (tf.zeros_initializer(), tf.float32, np.zeros((2, 3), np.float32)),
    (tf.ones_initializer(), tf.int32, np.ones((2, 3), np.int32)),
    (tf.constant_initializer(2.5), tf.float32, np.full((2, 3), 2.5, np.float32)),
    (tf.constant_initializer([1, 2, 3, 4, 5, 6]), tf.float32,
     np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
    (tf.constant_initializer([1, 2]), tf.float32, np.array([[1, 2, 2], [2, 2, 2]], np.float32)),
])
def test_deterministic_initializers(initializer, dtype, expected):
    got = initial_value(initializer, [2, 3], dtype)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_initializer_call_builds_ops_with_dtype():
    t = tf.zeros_initializer()([2], dtype=tf.float64)
    assert t.dtype == tf.float64 and t.shape.as_list() == [2]
    c = tf.constant_initializer(3)([2, 2])
    assert c.op.type == "Const" and c.dtype == tf.float32
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer({"a": 1})


def test_compute_fans():
    assert init_ops._compute_fans([]) == (1, 1)
    assert init_ops._compute_fans([7]) == (7, 7)
    assert init_ops._compute_fans([3, 5]) == (3, 5)
    assert init_ops._compute_fans([3, 3, 4, 8]) == (36, 72)     # conv: 3x3 receptive field


def test_glorot_uniform_limits_and_spread():
    fan_in, fan_out = 200, 300
    got = initial_value(tf.glorot_uniform_initializer(seed=1), [fan_in, fan_out])
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    assert got.dtype == np.float32
    assert np.abs(got).max() <= limit
    assert np.abs(got).max() > 0.99 * limit
    assert got.std() == pytest.approx(limit / math.sqrt(3), rel=0.02)
    assert abs(got.mean()) < 0.01 * limit


def test_glorot_normal_std():
    got = initial_value(tf.glorot_normal_initializer(seed=2), [200, 300])
    std = math.sqrt(2.0 / 500)
    assert got.std() == pytest.approx(std, rel=0.03)
    assert np.abs(got).max() <= 2 * std / TRUNCATION_STD * (1 + 1e-5)


@pytest.mark.parametrize("scale, mode, fan", [
    (1.0, "fan_in", 400), (2.0, "fan_out", 250), (3.0, "fan_avg", 325)])
def test_variance_scaling_truncated_normal_has_requested_variance(scale, mode, fan):
    init = tf.variance_scaling_initializer(scale=scale, mode=mode, seed=3)
    got = initial_value(init, [400, 250])
    expected_std = math.sqrt(scale / fan)
    assert got.std() == pytest.approx(expected_std, rel=0.03)
    # Values are cut at two standard deviations of the *untruncated* normal.
    assert np.abs(got).max() <= 2 * expected_std / TRUNCATION_STD * (1 + 1e-5)


def test_variance_scaling_uniform_and_untruncated():
    uniform = initial_value(tf.variance_scaling_initializer(2.0, "fan_in", "uniform", seed=4),
                            [500, 200])
    limit = math.sqrt(3.0 * 2.0 / 500)
    assert np.abs(uniform).max() <= limit
    assert uniform.std() == pytest.approx(math.sqrt(2.0 / 500), rel=0.02)
    tf.reset_default_graph()
    normal = initial_value(tf.variance_scaling_initializer(
        1.0, "fan_in", "untruncated_normal", seed=5), [500, 200])
    assert normal.std() == pytest.approx(math.sqrt(1.0 / 500), rel=0.03)
    assert np.abs(normal).max() > 2 * math.sqrt(1.0 / 500)     # not truncated


def test_random_normal_uniform_and_truncated_initializers():
    got = initial_value(tf.random_normal_initializer(mean=1.0, stddev=0.5, seed=6), [300, 300])
    assert got.mean() == pytest.approx(1.0, abs=0.01)
    assert got.std() == pytest.approx(0.5, rel=0.02)
    tf.reset_default_graph()
    got = initial_value(tf.truncated_normal_initializer(stddev=0.5, seed=7), [300, 300])
    assert np.abs(got).max() <= 1.0 + 1e-6
    assert got.std() == pytest.approx(0.5 * TRUNCATION_STD, rel=0.02)
    tf.reset_default_graph()
    got = initial_value(tf.random_uniform_initializer(-2.0, 3.0, seed=8), [300, 300])
    assert got.min() >= -2.0 and got.max() < 3.0
    assert got.mean() == pytest.approx(0.5, abs=0.03)


def test_seeded_initializer_repeats_in_a_new_session():
    v = tf.get_variable("v", [4], initializer=tf.random_normal_initializer(seed=9))
    with tf.Session() as s1:
        s1.run(v.initializer)
        first = s1.run(v)
    with tf.Session() as s2:
        s2.run(v.initializer)
        np.testing.assert_array_equal(s2.run(v), first)


def test_argument_validation():
    with pytest.raises(ValueError, match="`scale` must be positive float."):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="Invalid `mode` argument:"):
        tf.variance_scaling_initializer(mode="fan_sideways")
    with pytest.raises(ValueError, match="Invalid `distribution` argument:"):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="Expected floating point type, got <dtype: 'int32'>."):
        tf.random_normal_initializer(dtype=tf.int32)


def test_initializers_namespace_and_he_lecun():
    assert tf.initializers.zeros is tf.zeros_initializer
    assert tf.initializers.glorot_uniform is tf.glorot_uniform_initializer
    he = tf.initializers.he_normal()
    assert (he.scale, he.mode, he.distribution) == (2.0, "fan_in", "truncated_normal")
    lecun = tf.initializers.lecun_uniform()
    assert (lecun.scale, lecun.mode, lecun.distribution) == (1.0, "fan_in", "uniform")
    v = tf.Variable(1.0)
    init = tf.initializers.global_variables()
    assert init.type == "NoOp" and init.control_inputs == [v.initializer]
    assert tf.glorot_uniform_initializer().get_config() == {"seed": None, "dtype": "float32"}
