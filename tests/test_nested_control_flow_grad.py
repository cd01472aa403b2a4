"""Gradients of nested control flow: a loop in a loop's body (any depth), a cond in a
loop in a loop, a loop in a cond in a loop. Values against central finite differences
(float64) and against TensorFlow 1.x graph mode."""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from gradient_check import check_gradients, check_gradients_match_tensorflow


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1.0, 1.0, shape)


# -- the programs (each `build(tf, ...)` runs on tfteach and on TensorFlow) --------------
def nested_power(tf, x, n, m):
    """y = x ** (1 + n*m): the inner loop multiplies m times per outer iteration."""
    def body(i, y):
        inner = tf.while_loop(lambda j, z: j < m, lambda j, z: (j + 1, z * x), [0, y])[1]
        return i + 1, inner
    return tf.while_loop(lambda i, y: i < n, body, [0, x])[1]


def triangle(tf, x, w):
    """The inner trip count depends on the outer counter; the inner body uses the outer
    loop variable `s` (captured from the outer body) and an outside tensor `w`."""
    def outer(i, s):
        def inner(j, z):
            return j + 1, tf.sin(z * w) + s * 0.5
        z = tf.while_loop(lambda j, z: j < i, inner, [0, s])[1]
        return i + 1, z * x
    return tf.while_loop(lambda i, s: i < 3, outer, [0, x])[1]


def cond_in_nested_loop(tf, x, w):
    def outer(i, s):
        def inner(j, z):
            z = tf.cond((i + j) % 2 < 1, lambda: z * w, lambda: tf.tanh(z) + x)
            return j + 1, z
        return i + 1, tf.while_loop(lambda j, z: j < 2, inner, [0, s])[1]
    return tf.while_loop(lambda i, s: i < 3, outer, [0, x])[1]


def loop_in_cond_in_loop(tf, x, w):
    def outer(i, s):
        def looped():
            return tf.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, z * w), [0, s])[1]
        return i + 1, tf.cond(i % 2 < 1, looped, lambda: tf.sin(s) * x)
    return tf.while_loop(lambda i, s: i < 4, outer, [0, x])[1]


def three_deep(tf, x, w):
    def level(depth, v):
        if depth == 0:
            return tf.tanh(v * w + x)
        return tf.while_loop(lambda k, u: k < 2,
                             lambda k, u: (k + 1, level(depth - 1, u)), [0, v])[1]
    return level(3, x)


def small_rnn_in_a_loop(tf, h0, w, xs):
    """An inner RNN over the rows of `xs`, run twice from the previous final state."""
    steps = tf.shape(xs)[0]

    def rnn(h):
        def cell(t, h):
            return t + 1, tf.tanh(tf.matmul(h, w) + tf.gather(xs, t))
        return tf.while_loop(lambda t, h: t < steps, cell, [0, h])[1]
    return tf.while_loop(lambda k, h: k < 2, lambda k, h: (k + 1, rnn(h)), [0, h0])[1]


def several_loop_variables(tf, a, b, c):
    def outer(i, a, b):
        def inner(j, a, b):
            return j + 1, a * b + c, tf.sin(a) - b * c
        _, a, b = tf.while_loop(lambda j, a, b: j < 2, inner, [0, a, b])
        return i + 1, a * 0.5, b + a
    _, a, b = tf.while_loop(lambda i, a, b: i < 2, outer, [0, a, b])
    return [a, b]


def inner_accumulates_captured(tf, x, w):
    """The inner loop starts from zeros: its gradient flows only to what it captured
    (the outer loop variable s and the outside w)."""
    def outer(i, s):
        acc = tf.while_loop(lambda j, a: j < 3,
                            lambda j, a: (j + 1, a + tf.sin(s * w) * tf.cast(j, tf.float64)),
                            [0, tf.zeros_like(s)])[1]
        return i + 1, s + acc * 0.3
    return tf.while_loop(lambda i, s: i < 2, outer, [0, x])[1]


def cond_in_loop(tf, x):
    """A cond in a (top-level) loop's body, with maximum_iterations."""
    def body(i, y):
        y = tf.cond(i % 2 < 1, lambda: y * x, lambda: tf.sin(y) + x)
        return [i + 1, y]
    return tf.while_loop(lambda i, y: True, body, [0, x], maximum_iterations=5)[1]


def nested_loops_in_cond(tf, p, x, w):
    """A loop in a loop, in a cond's true branch."""
    return tf.cond(p, lambda: triangle(tf, x, w), lambda: tf.tanh(x) * w)


PROGRAMS = {
    "nested_power": (nested_power, lambda: [np.array([1.1, -0.9]), np.array(3, np.int32),
                                            np.array(2, np.int32)]),
    "triangle": (triangle, lambda: [_rand(3), _rand(3, seed=1)]),
    "cond_in_nested_loop": (cond_in_nested_loop, lambda: [_rand(3), _rand(3, seed=1)]),
    "loop_in_cond_in_loop": (loop_in_cond_in_loop, lambda: [_rand(2), _rand(2, seed=1)]),
    "three_deep": (three_deep, lambda: [_rand(2), _rand(2, seed=1)]),
    "small_rnn_in_a_loop": (small_rnn_in_a_loop, lambda: [
        _rand(2, 3) * 0.5, _rand(3, 3, seed=1) * 0.5, _rand(3, 2, 3, seed=2)]),
    "several_loop_variables": (several_loop_variables, lambda: [
        _rand(2) * 0.5, _rand(2, seed=1) * 0.5, np.array(0.3)]),
    "inner_accumulates_captured": (inner_accumulates_captured,
                                   lambda: [_rand(3), _rand(3, seed=1)]),
    "cond_in_loop": (cond_in_loop, lambda: [_rand(3)]),
    "nested_loops_in_cond_taken": (nested_loops_in_cond,
                                   lambda: [np.array(True), _rand(3), _rand(3, seed=1)]),
    "nested_loops_in_cond_untaken": (nested_loops_in_cond,
                                     lambda: [np.array(False), _rand(3), _rand(3, seed=1)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nested_gradient_matches_finite_differences(name):
    build, inputs = PROGRAMS[name]
    check_gradients(build, inputs(), none_ok=False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nested_gradient_matches_tensorflow(name):
    build, inputs = PROGRAMS[name]
    check_gradients_match_tensorflow(build, inputs())


@pytest.mark.parametrize("n, m", [(0, 2), (1, 0), (2, 1), (3, 2)])
def test_nested_power_in_closed_form(n, m):
    x = np.array([1.1, -0.9, 0.7])
    grads = check_gradients(nested_power, [x, np.array(n, np.int32), np.array(m, np.int32)],
                            grad_ys="ones")
    np.testing.assert_allclose(grads[0], (1 + n * m) * x ** (n * m))


def test_unknown_shapes_in_the_nested_rnn():
    build, inputs = PROGRAMS["small_rnn_in_a_loop"]
    check_gradients(build, inputs(), shapes=[[None, 3], None, [None, 2, 3]])


def test_nested_gradient_uses_each_inner_runs_own_values():
    # A random factor in the inner body: each of the 3 x 2 inner iterations draws its
    # own, and the gradient must use exactly those (y = x * product of all draws).
    x = tf.placeholder(tf.float64, [3])

    def outer(i, y):
        return i + 1, tf.while_loop(
            lambda j, z: j < 2,
            lambda j, z: (j + 1, z * tf.random_uniform([3], 0.5, 1.5, tf.float64)), [0, y])[1]
    y = tf.while_loop(lambda i, y: i < 3, outer, [0, x])[1]
    g, = tf.gradients(y, x)
    with tf.Session() as sess:
        xv = np.array([1.0, 2.0, -3.0])
        for _ in range(2):
            yv, gv = sess.run([y, g], {x: xv})
            np.testing.assert_allclose(gv, yv / xv)


def test_nested_loops_train_a_variable():
    w = tf.Variable(np.array([1.2, 0.8]), name="w")
    x = tf.placeholder(tf.float64, [2])
    y = nested_power_of(w, x)
    loss = tf.reduce_sum(y)
    gw, = tf.gradients(loss, w)
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv = np.array([2.0, -1.0])
        wv = np.array([1.2, 0.8])
        got = sess.run(gw, {x: xv})
        np.testing.assert_allclose(got, 6 * xv * wv ** 5)     # y = x * w ** 6
        sess.run(step, {x: xv})
        np.testing.assert_allclose(sess.run(w), wv - 0.01 * got, rtol=1e-6)


def nested_power_of(w, x):
    def outer(i, y):
        return i + 1, tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, z * w),
                                    [0, y])[1]
    return tf.while_loop(lambda i, y: i < 2, outer, [0, x])[1]


def test_two_gradients_of_one_nested_loop_in_one_run():
    x = tf.placeholder(tf.float64, [])
    y = nested_power(tf, x, 2, 2)                      # x ** 5
    g1, = tf.gradients(y, x)
    g2, = tf.gradients(y * y, x)                       # x ** 10
    with tf.Session() as sess:
        a, b = sess.run([g1, g2], {x: 1.1})
    np.testing.assert_allclose([a, b], [5 * 1.1 ** 4, 10 * 1.1 ** 9])


def test_nested_history_is_named_after_the_inner_loop():
    x = tf.placeholder(tf.float64, [])
    nested_power(tf, x, 2, 2)
    tf.gradients(tf.get_default_graph().get_tensor_by_name("while/Exit_1:0"), x)
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops.get("while/while/History") == "LoopHistory"


def test_gradient_of_an_inner_loop_taken_inside_the_outer_body():
    # tf.gradients called while the outer body is built: the inner WhileGrad runs in
    # the same iteration as the inner loop, with that run's history.
    x = tf.placeholder(tf.float64, [])

    def body(i, acc):
        inner = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, z * x),
                              [0, acc + 1.0])[1]          # (acc + 1) * x ** 3
        g, = tf.gradients(inner, x)                       # 3 (acc + 1) x ** 2
        return i + 1, acc + g
    y = tf.while_loop(lambda i, a: i < 2, body, [0, tf.constant(0.0, tf.float64)])[1]
    with tf.Session() as sess:
        got = sess.run(y, {x: 1.5})
    acc = 0.0
    for _ in range(2):
        acc += 3 * (acc + 1) * 1.5 ** 2
    np.testing.assert_allclose(got, acc)


def test_nested_gradient_on_a_virtual_gpu(virtual_gpus):
    # The loops run on the GPU; the recorded histories (strings to the placer) stay on
    # the host, and the values copied between them keep the gradient right.
    virtual_gpus(1, memory_limit=256)
    x = tf.placeholder(tf.float64, [3])
    y = nested_power(tf, x, 2, 3)                    # x ** 7
    g, = tf.gradients(tf.reduce_sum(y), x)
    xv = np.array([1.1, -0.9, 0.7])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: xv}), 7 * xv ** 6)
        graph = tf.get_default_graph()
        device_of = sess._placer.device_of
        assert "GPU" in device_of(graph.get_operation_by_name("while")).name
        assert "CPU" in device_of(graph.get_operation_by_name("while/while/History")).name
