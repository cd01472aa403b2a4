"""tf.hessians: against second-order central differences of the function's values
(float64), against TensorFlow's tf.hessians, and in closed form."""
import numpy as np
import pytest

import tfteach as tf
from tf_reference import run_program, tensorflow_v1
from tolerances import assert_close

R = np.random.RandomState(3)
W = R.uniform(-1.0, 1.0, (3, 2))
B = R.uniform(-1.0, 1.0, (2,))
LABELS = np.array([0.2, 0.3, 0.5])

# y(tf, x) -> a scalar, for x of shape [3] (or [2, 3] where marked)
PROGRAMS = {
    "tanh": lambda tf, x: tf.reduce_sum(tf.tanh(x * x)),
    "sigmoid": lambda tf, x: tf.reduce_sum(tf.sigmoid(x) * x),
    "exp": lambda tf, x: tf.reduce_sum(tf.exp(x[::-1] * x)),
    "square": lambda tf, x: tf.reduce_sum(tf.square(x) * x),
    "mul": lambda tf, x: x[0] * x[1] * x[2] + x[0] * x[0],
    "matmul_mlp": lambda tf, x: tf.reduce_sum(tf.sigmoid(tf.nn.bias_add(
        tf.matmul(tf.reshape(tf.tanh(x), [1, 3]), W), B))),
    "softplus": lambda tf, x: tf.reduce_sum(tf.nn.softplus(2.0 * x)),
    "softsign": lambda tf, x: tf.reduce_sum(tf.nn.softsign(x)),
    "log_sqrt_rsqrt": lambda tf, x: tf.reduce_sum(tf.log(x * x + 1.0) + tf.sqrt(x * x + 2.0) +
                                                  tf.rsqrt(x * x + 1.5)),
    "softmax_xent": lambda tf, x: tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=LABELS, logits=x)),
    "logsumexp_mean": lambda tf, x: tf.reduce_logsumexp(x) + tf.reduce_mean(x * x * x),
    "matrix": lambda tf, x: tf.reduce_sum(tf.tanh(tf.matmul(x, W))),     # x: [2, 3]
}
NOT_IN_TF = {"softsign"}      # TF 1.15 has no gradient for SoftsignGrad


def _x(name):
    return R.uniform(-1.0, 1.0, (2, 3) if name == "matrix" else (3,))


def _value(sess, y, x, xv):
    return float(sess.run(y, {x: xv}))


def numeric_hessian(build, xv, h=1e-4):
    """d2y/dxi dxj ~ (y(+i+j) - y(+i-j) - y(-i+j) + y(-i-j)) / 4h^2, forward runs only."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, xv.shape)
        y = build(tf, x)
        n = xv.size
        result = np.zeros((n, n))
        with tf.Session() as sess:
            for i in range(n):
                for j in range(n):
                    total = 0.0
                    for si, sj, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                        shifted = xv.copy().reshape(-1)
                        shifted[i] += si * h
                        shifted[j] += sj * h
                        total += sign * _value(sess, y, x, shifted.reshape(xv.shape))
                    result[i, j] = total / (4 * h * h)
    return result.reshape(xv.shape + xv.shape)


def hessian_of(module, build, xv, shape=None):
    def program(tf):
        x = tf.placeholder(tf.float64, xv.shape if shape is None else shape)
        return tf.hessians(build(tf, x), x)[0], {x: xv}
    return run_program(module, program)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_hessian_matches_finite_differences(name):
    xv = _x(name)
    got = hessian_of(tf, PROGRAMS[name], xv)
    assert got.shape == xv.shape + xv.shape
    np.testing.assert_allclose(got, numeric_hessian(PROGRAMS[name], xv), rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - NOT_IN_TF))
def test_hessian_matches_tensorflow(name):
    xv = _x(name)
    expected = hessian_of(tensorflow_v1(), PROGRAMS[name], xv)
    np.testing.assert_allclose(hessian_of(tf, PROGRAMS[name], xv), expected,
                               rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("pred", [True, False])
def test_hessian_of_a_function_with_a_cond(pred):
    # The Hessian's loop differentiates the gradient ops of both branches; those of the
    # untaken branch are dead: the loop must still run (and pick the live side).
    def build(tf, x):
        return tf.cond(tf.constant(pred), lambda: tf.reduce_sum(tf.tanh(x) * x[::-1]),
                       lambda: tf.reduce_sum(tf.exp(x) * x))
    xv = _x("cond")
    got = hessian_of(tf, build, xv)
    np.testing.assert_allclose(got, numeric_hessian(build, xv), rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(got, hessian_of(tensorflow_v1(), build, xv), rtol=1e-7,
                               atol=1e-10)


def test_hessian_of_a_quadratic_form_in_closed_form():
    a = R.uniform(-1.0, 1.0, (4, 4))
    x = tf.placeholder(tf.float64, [4])
    y = tf.reduce_sum(x * tf.squeeze(tf.matmul(a, tf.reshape(x, [4, 1]))))    # x^T A x
    h, = tf.hessians(y, x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(h, {x: R.rand(4)}), a + a.T, rtol=1e-12)


def test_unknown_shape_and_several_xs():
    x = tf.placeholder(tf.float64, [None])
    w = tf.placeholder(tf.float64, [])
    y = tf.reduce_sum(tf.tanh(x * w))
    hx, hw = tf.hessians(y, [x, w])
    assert hx.shape.as_list() == [None, None] and hw.shape.as_list() == []
    xv, wv = R.uniform(-1, 1, 5), 0.7
    with tf.Session() as sess:
        got_x, got_w = sess.run([hx, hw], {x: xv, w: wv})
    t = np.tanh(xv * wv)
    np.testing.assert_allclose(got_x, np.diag(-2 * t * (1 - t ** 2) * wv ** 2), atol=1e-14)
    terms = -2 * t * (1 - t ** 2) * xv ** 2                 # signed: the sum can be ~0
    assert_close(got_w, np.sum(terms), scale=np.abs(terms).sum())


def test_linear_function_has_a_zero_hessian():
    x = tf.placeholder(tf.float64, [3])
    h, = tf.hessians(tf.reduce_sum(x * 2.0), x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(h, {x: [1.0, 2.0, 3.0]}), np.zeros((3, 3)))


def test_unconnected_x_is_an_error():
    x = tf.placeholder(tf.float64, [3])
    z = tf.placeholder(tf.float64, [3])
    with pytest.raises(ValueError, match="None values not supported"):
        tf.hessians(tf.reduce_sum(x * x), z)


def test_ops_are_built_once_under_hessians_in_a_loop():
    counts = []
    for size in (5, 50):
        with tf.Graph().as_default() as graph:
            x = tf.placeholder(tf.float64, [size])
            h, = tf.hessians(tf.reduce_sum(tf.tanh(x)), x)
            ops = graph.get_operations()
            assert h.name.startswith("hessians/")
            assert sum(op.type == "While" for op in ops) == 1
            counts.append(len(ops))
    assert counts[0] == counts[1]         # the graph does not grow with size(x)


def test_hessian_with_respect_to_a_variable():
    wv = np.array([0.5, -0.3])
    w = tf.Variable(wv, name="w")
    h, = tf.hessians(tf.reduce_sum(tf.exp(w * w)), w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(h), np.diag(np.exp(wv ** 2) * (2 + 4 * wv ** 2)))
