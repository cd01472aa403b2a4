"""Loops with invariant ops in their bodies (hoisted by runtime/loop_hoisting.py) against
TensorFlow: the same numbers, the same error (class and words) from an invariant op that
fails, and no error from one in a loop that runs no iteration. Skips without TensorFlow."""
import numpy as np
import pytest

from tests.tf_reference import errors_of_both, first_line, own_message, run_both, tf1_behaviour

pytestmark = pytest.mark.reference

A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
B = np.array([[0.5, -1.0], [0.25, 2.0]], np.float32)
BAD = np.ones((4, 5), np.float32)


def invariant_loop(n, b_value):
    def build(tf):
        a = tf.placeholder(tf.float32, [None, None], name="a")
        b = tf.placeholder(tf.float32, [None, None], name="b")
        count = tf.placeholder(tf.int32, [], name="n")
        _, x = tf.while_loop(lambda i, x: i < count,
                             lambda i, x: (i + 1, x * 0.5 + tf.tanh(tf.matmul(a, b) * 0.25)),
                             [tf.constant(0), tf.zeros([2, 2])])
        grads = tf.gradients(tf.reduce_sum(x * x), [a, b]) if b_value is B else []
        return [x] + grads, {a: A, b: b_value, count: n}
    return build


def test_values_and_gradients_match_tensorflow():
    with tf1_behaviour():
        theirs, ours = run_both(invariant_loop(4, B))
    for t, o in zip(theirs, ours):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)


def test_a_loop_that_runs_no_iteration_raises_nothing_as_in_tensorflow():
    with tf1_behaviour():
        theirs, ours = run_both(invariant_loop(0, BAD))
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[0], np.zeros((2, 2), np.float32))


def test_a_failing_invariant_op_raises_tensorflows_error():
    with tf1_behaviour():
        theirs, ours = errors_of_both(invariant_loop(3, BAD))
    assert theirs is not None and ours is not None
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) == own_message(theirs)
    assert ours.op.name == "while/MatMul" and "{{node while/MatMul}}" in str(theirs)


