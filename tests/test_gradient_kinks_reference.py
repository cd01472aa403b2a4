"""Gradients at the points finite differences cannot decide (kinks, ties, zeros,
boundaries of relu6 or clip_by_value) follow TensorFlow: its values are the
specification there. Elsewhere these programs are also covered by finite differences."""
import numpy as np
import pytest

from gradient_check import check_gradients_match_tensorflow

R = np.random.RandomState(1)


def rand(*shape):
    return R.uniform(-1.0, 1.0, shape)


KINKS = {
    "pow_zero_base": (lambda tf, x, y: tf.pow(x, y),
                      [np.array([0.0, 0.0, 2.0, -2.0]), np.array([2.0, 0.5, 3.0, 2.0])]),
    "pow_negative_base": (lambda tf, x, y: tf.pow(x, y),
                          [np.array([-1.5, -2.0]), np.array([2.0, 3.0])]),
    "maximum_ties": (lambda tf, x, y: tf.maximum(x, y),
                     [np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])]),
    "minimum_ties": (lambda tf, x, y: tf.minimum(x, y),
                     [np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])]),
    "reduce_max_ties": (lambda tf, x: tf.reduce_max(x, 1),
                        [np.array([[1.0, 1.0, 0.5], [2.0, 3.0, 3.0]])]),
    "abs_at_zero": (lambda tf, x: tf.abs(x), [np.array([0.0, -1.0, 2.0])]),
    "sqrt_at_zero": (lambda tf, x: tf.sqrt(x), [np.array([0.0, 1.0])]),
    "sign_at_zero": (lambda tf, x: tf.sign(x) * x * x, [np.array([0.0, -1.0, 2.0])]),
    "relu_at_zero": (lambda tf, x: tf.nn.relu(x), [np.array([0.0, -1.0, 2.0])]),
    "relu6_at_edges": (lambda tf, x: tf.nn.relu6(x), [np.array([0.0, 6.0, 3.0, 7.0])]),
    "leaky_relu_at_zero": (lambda tf, x: tf.nn.leaky_relu(x), [np.array([0.0, -1.0, 2.0])]),
    "elu_at_zero": (lambda tf, x: tf.nn.elu(x), [np.array([0.0, -1.0, 2.0])]),
    "selu_at_zero": (lambda tf, x: tf.nn.selu(x), [np.array([0.0, -1.0, 2.0])]),
    "prod_with_zeros": (lambda tf, x: tf.reduce_prod(x, 1),
                        [np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.0]])]),
    "top_k_ties": (lambda tf, x: tf.nn.top_k(x, 2).values, [np.array([[1.0, 3.0, 3.0, 0.0]])]),
    "max_pool_ties": (lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
                      [np.ones((1, 3, 3, 1))]),
    "clip_by_value_edges": (lambda tf, x: tf.clip_by_value(x, -0.5, 0.5),
                            [np.array([-1.0, -0.5, 0.0, 0.5, 1.0])]),
    "div_no_nan_by_zero": (lambda tf, x, y: tf.div_no_nan(x, y),
                           [rand(3), np.array([0.0, 2.0, -1.0])]),
    "floormod_negative": (lambda tf, x, y: tf.floormod(x, y),
                          [np.array([-3.3, 3.3]), np.array([2.0, -2.0])]),
    "round_floor_cast": (lambda tf, x: tf.round(x) + tf.floor(x) +
                         tf.cast(tf.cast(x, tf.int32), tf.float64) * x,
                         [np.array([1.2, 2.7])]),
    "square_then_sqrt_at_zero": (lambda tf, x: tf.sqrt(tf.square(x)), [np.array([0.0, 2.0])]),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_gradient_at_kinks_matches_tensorflow(name):
    build, inputs = KINKS[name]
    check_gradients_match_tensorflow(build, inputs)
