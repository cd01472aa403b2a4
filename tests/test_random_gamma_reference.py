"""`tf.random_gamma` against TensorFlow: shapes, dtypes and names as TF's; the samples'
moments those of Gamma(alpha, beta) (a fixed seed, so the check is deterministic; the
numbers themselves are NumPy's Philox, not TF's, as for every random op); the gradient
with respect to alpha equal to TF's RandomGammaGrad kernel on the same samples, and to
finite differences of the sampling itself."""
import numpy as np
import pytest

import tfteach as tf
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")


def _built(lib, **kwargs):
    if "dtype" in kwargs:                        # a dtype by name: each library's own
        kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    with lib.Graph().as_default():
        s = lib.random_gamma(**kwargs)
        return str(s), s.dtype.name, s.shape.as_list()


@pytest.mark.parametrize("kwargs", [
    dict(shape=[10], alpha=[0.5, 1.5]),
    dict(shape=[2, 3], alpha=2.0, dtype="float64"),
    dict(shape=[4], alpha=[[1.0], [2.0]], beta=[1.0, 2.0, 3.0]),
    dict(shape=[], alpha=3.0, beta=2.0, name="draws"),
], ids=["vector_alpha", "float64", "broadcast_beta", "named"])
def test_shapes_dtypes_and_names_are_tensorflows(kwargs):
    assert _built(tf, **kwargs) == _built(tensorflow_v1(), **kwargs)


def test_samples_have_the_gamma_distributions_moments():
    alpha = np.array([0.3, 1.0, 4.0, 25.0], np.float32)
    beta = np.array([2.0, 1.0, 0.5, 5.0], np.float32)
    n = 20000
    with tf.Graph().as_default():
        s = tf.random_gamma([n], alpha, beta, seed=7)
        with tf.Session() as sess:
            x = sess.run(s).astype(np.float64)
    assert x.shape == (n, 4) and (x > 0).all()
    mean, var = alpha / beta, alpha / beta ** 2
    # Deterministic (seeded): the sample mean lies within 5 standard errors of the mean.
    assert np.all(np.abs(x.mean(0) - mean) < 5 * np.sqrt(var / n))
    assert np.all(np.abs(x.var(0) / var - 1) < 0.1)


def test_seeds_follow_tensorflows_rules():
    with tf.Graph().as_default():
        a = tf.random_gamma([3], 2.0, seed=1)
        b = tf.random_gamma([3], 2.0, seed=1)
        with tf.Session() as sess:
            first, same, second = sess.run([a, b]) + [sess.run(a)]
        with tf.Session() as sess:
            again = sess.run(a)
    np.testing.assert_array_equal(first, same)          # the same two seeds
    assert not np.array_equal(first, second)             # the next numbers of the stream
    np.testing.assert_array_equal(first, again)          # a new Session starts it again


def test_the_alpha_gradient_kernel_is_tensorflows():
    rng = np.random.RandomState(0)
    alpha = np.array([0.2, 0.7, 1.0, 3.0, 12.0, 60.0])[:, None] * np.ones((1, 5))
    sample = np.stack([rng.gamma(a, size=5) for a in alpha[:, 0]]) + 1e-3
    tf1 = tensorflow_v1()
    for dtype in (np.float32, np.float64):
        with tf1.Graph().as_default():
            want = tf1.Session().run(tf1.raw_ops.RandomGammaGrad(
                alpha=alpha.astype(dtype), sample=sample.astype(dtype)))
        from tfteach.ops import random_gamma_ops
        got = random_gamma_ops.sample_derivative(alpha.astype(dtype), sample.astype(dtype))
        np.testing.assert_allclose(got.astype(dtype), want, rtol=2e-4 if dtype == np.float32
                                   else 1e-6)


def test_the_gradient_of_the_samples_mean_is_one_over_beta():
    # d E[x] / d alpha = 1 / beta for x ~ Gamma(alpha, beta): the mean of 5,000 seeded
    # samples' implicit derivatives lies within 5% of it.
    alpha = np.array([0.5, 2.0, 8.0], np.float32)
    with tf.Graph().as_default():
        a = tf.constant(alpha)
        s = tf.random_gamma([5000], a, beta=2.0, seed=3)
        (grad,) = tf.gradients(tf.reduce_mean(s, 0), [a])
        with tf.Session() as sess:
            g = sess.run(grad)
    np.testing.assert_allclose(g, 1 / 2.0, rtol=0.05)


def test_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="not inexact"):
            tf.random_gamma([2], [1, 2], dtype=tf.int32)      # as TF 1.15's np.finfo
        shape = tf.placeholder(tf.int32, [None])
        s = tf.random_gamma(shape, 1.0)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -2 must be"):
                sess.run(s, {shape: [3, -2]})
            assert sess.run(s, {shape: [0, 4]}).shape == (0, 4)
            odd = sess.run(tf.random_gamma([3], [-1.0, 0.0, 2.0], seed=1))
    tf1 = tensorflow_v1()
    with tf1.Graph().as_default():
        theirs = tf1.Session().run(tf1.random_gamma([3], [-1.0, 0.0, 2.0], seed=1))
    # alpha < 0: NaN; alpha == 0: a sample of 0, kept at the smallest float: as TF.
    np.testing.assert_array_equal(odd[:, :2], theirs[:, :2])
    assert (odd[:, 2] > 0).all() and odd[0, 1] == np.finfo(np.float32).tiny


def test_the_gradient_is_what_moving_alpha_does_to_each_sample():
    # A new Session replays a seeded op's stream, so the same uniform draws: central
    # differences of the samples across two Sessions against tf.gradients, per element.
    alpha = np.array([0.4, 1.0, 3.0, 20.0])
    delta = 1e-5

    def samples(a, with_gradient=False):
        with tf.Graph().as_default():
            tf.set_random_seed(5)
            at = tf.constant(a)
            s = tf.random_gamma([6], at, beta=np.float64(1.5), dtype=tf.float64)
            weights = np.arange(24, dtype=np.float64).reshape(6, 4) / 24
            fetch = [s, tf.gradients(s * weights, at)[0]] if with_gradient else s
            with tf.Session() as sess:
                return sess.run(fetch), weights
    (_, analytic), weights = samples(alpha, True)
    numeric = [((samples(alpha + delta * e)[0] - samples(alpha - delta * e)[0]) * weights
                ).sum() / (2 * delta) for e in np.eye(4)]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5)
