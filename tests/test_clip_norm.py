"""clip_by_norm, global_norm, clip_by_global_norm, clip_by_average_norm against NumPy."""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients

R = np.random.RandomState(3)


def run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


@pytest.mark.parametrize("clip", [0.5, 100.0])
@pytest.mark.parametrize("axes", [None, [0], [1], [0, 1]], ids=str)
def test_clip_by_norm_matches_numpy(clip, axes):
    t = R.randn(3, 4)
    got = run(tf.clip_by_norm(tf.constant(t), clip, axes=axes))
    norm = np.sqrt(np.sum(t * t, axis=None if axes is None else tuple(axes), keepdims=True))
    np.testing.assert_allclose(got, t * clip / np.maximum(norm, clip), rtol=1e-12)


def test_clip_by_norm_of_zeros_and_its_gradient_are_finite():
    t = tf.zeros([3], tf.float64)
    clipped = tf.clip_by_norm(t, 1.0)
    g, = tf.gradients(clipped, t)
    value, grad = run([clipped, g])
    np.testing.assert_array_equal(value, [0.0, 0.0, 0.0])
    assert np.all(np.isfinite(grad))


def test_clip_by_norm_name_and_shape_check():
    clipped = tf.clip_by_norm(tf.ones([2, 2]), 1.0, name="clipped")
    assert clipped.name == "clipped:0"
    assert clipped.op.type == "Identity"
    with pytest.raises(ValueError):
        tf.clip_by_norm(tf.ones([2]), tf.ones([3, 2]))


def test_clip_by_norm_gradient():
    check_gradients(lambda tf, t: tf.clip_by_norm(t, 1.0), [R.randn(2, 3)])
    check_gradients(lambda tf, t: tf.clip_by_norm(t, 1.0, axes=[1]), [R.randn(2, 3)])


def test_global_norm_matches_numpy_and_skips_none():
    a, b = R.randn(2, 3), R.randn(5)
    norm = tf.global_norm([tf.constant(a), None, tf.constant(b)])
    assert norm.name == "global_norm/global_norm:0"
    np.testing.assert_allclose(run(norm), np.sqrt(np.sum(a * a) + np.sum(b * b)), rtol=1e-12)
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.global_norm(tf.constant(a))


@pytest.mark.parametrize("clip", [0.5, 100.0])
def test_clip_by_global_norm_matches_numpy(clip):
    a, b = R.randn(2, 3), R.randn(5)
    (ca, cnone, cb), norm = tf.clip_by_global_norm([tf.constant(a), None, tf.constant(b)], clip)
    assert cnone is None
    assert ca.name == "clip_by_global_norm/clip_by_global_norm/_0:0"
    assert cb.name == "clip_by_global_norm/clip_by_global_norm/_2:0"
    got_a, got_b, got_norm = run([ca, cb, norm])
    expected_norm = np.sqrt(np.sum(a * a) + np.sum(b * b))
    scale = clip / max(expected_norm, clip)
    np.testing.assert_allclose(got_norm, expected_norm, rtol=1e-12)
    np.testing.assert_allclose(got_a, a * scale, rtol=1e-12)
    np.testing.assert_allclose(got_b, b * scale, rtol=1e-12)


def test_clip_by_global_norm_with_given_norm_and_infinite_norm():
    a = tf.constant([3.0, 4.0])
    (clipped,), norm = tf.clip_by_global_norm([a], 1.0, use_norm=tf.constant(10.0))
    np.testing.assert_allclose(run(clipped), [0.3, 0.4], rtol=1e-6)
    (clipped,), _ = tf.clip_by_global_norm([a], 1.0, use_norm=tf.constant(np.inf, tf.float32))
    assert np.all(np.isnan(run(clipped)))
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(a, 1.0)


def test_clip_by_average_norm():
    t = R.randn(2, 3).astype(np.float32)
    got = run(tf.clip_by_average_norm(tf.constant(t), 0.1))
    avg_norm = np.sqrt(np.sum(t * t)) / t.size
    np.testing.assert_allclose(got, t * 0.1 / max(avg_norm, 0.1), rtol=1e-5)
