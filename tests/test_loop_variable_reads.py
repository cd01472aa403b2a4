"""Reads of a ref variable captured by a while_loop (runtime/loop_live_reads.py): live in
every iteration when the loop writes the variable, a hoisted invariant when it does
not. Expected values are computed with NumPy, iteration by iteration; the comparisons
with TensorFlow are in test_loop_variable_reads_reference.py."""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.runtime import loop_live_reads

W = np.array([[0.5, -1.0], [0.25, 2.0]], np.float32)


def _while_op(graph):
    (op,) = [op for op in graph.get_operations() if op.type == "While"]
    return op


def counting_loop(device=None):
    """The brief's repro: acc += v after each assign_add(v, 1), three times."""
    with tf.device(device):
        v = tf.Variable(0.0)

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                r = tf.identity(v)
            return i + 1, acc + r
        return v, tf.while_loop(lambda i, a: i < 3, body, [0, 0.0], parallel_iterations=1)


def test_each_iteration_reads_what_the_previous_ones_wrote():
    graph = tf.Graph()
    with graph.as_default():
        v, (i, acc) = counting_loop()
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run([i, acc]) == [3, 6.0]          # 1 + 2 + 3
            assert sess.run(v) == 3.0
            assert sess.run([i, acc]) == [3, 15.0]         # 4 + 5 + 6: the next run
    live = loop_live_reads.live_reads(_while_op(graph)._attrs["_loop"], {})
    assert [ref.op.name for _, ref in live] == ["Variable"]


def test_on_a_virtual_gpu_too(virtual_gpus):
    virtual_gpus(1)
    graph = tf.Graph()
    with graph.as_default():
        v, (i, acc) = counting_loop("/gpu:0")
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run([i, acc]) == [3, 6.0]


def test_a_fed_read_is_the_fed_value_in_every_iteration():
    graph = tf.Graph()
    with graph.as_default():
        v, (i, acc) = counting_loop()
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run([i, acc], {v.value(): 10.0}) == [3, 30.0]
            assert sess.run(v) == 3.0                      # the assignments ran
            assert sess.run([i, acc]) == [3, 15.0]         # not fed: live again


def test_a_loop_that_only_reads_its_variable_keeps_it_invariant(products):
    """An RNN's weights: read every iteration, written by none; the product of two of
    them is hoisted (computed once per loop run) and the read is not live."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(W)
        _, x = tf.while_loop(lambda i, x: i < 4,
                             lambda i, x: (i + 1, x * 0.5 + tf.matmul(v, v)),
                             [0, tf.zeros([2, 2])])
        with tf.Session() as sess:
            sess.run(v.initializer)
            value = sess.run(x)
    assert len(products) == 1
    assert loop_live_reads.live_reads(_while_op(graph)._attrs["_loop"], {}) == []
    expected = np.zeros((2, 2), np.float32)
    for _ in range(4):
        expected = expected * np.float32(0.5) + W @ W
    np.testing.assert_array_equal(value, expected)


def test_a_condition_that_writes_keeps_the_bodys_read_live(products):
    """Nothing in the body writes `v`, but the condition does: the body's product with
    the read of `v` is not a loop invariant (it is not hoisted)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.eye(2, dtype=np.float32))

        def cond(i, x):
            with tf.control_dependencies([tf.assign_add(v, tf.ones([2, 2]))]):
                return i < 3

        _, x = tf.while_loop(cond, lambda i, x: (i + 1, x + tf.matmul(v, W)),
                             [0, tf.zeros([2, 2])], parallel_iterations=1)
        with tf.Session() as sess:
            sess.run(v.initializer)
            value, v_after = sess.run(x), sess.run(v)
    assert len(products) == 3
    v_now, expected = np.eye(2, dtype=np.float32), np.zeros((2, 2), np.float32)
    for _ in range(3):
        v_now = v_now + 1                 # the condition ran first
        expected = expected + v_now @ W
    np.testing.assert_array_equal(value, expected)
    np.testing.assert_array_equal(v_after, v_now + 1)     # the condition's last run


def test_an_inner_loop_that_writes_keeps_the_outer_read_live():
    """The outer body reads `v * 100` before its inner loop adds to `v` twice: a new
    value each outer iteration (hoisted, it would stay the entry value)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(0.0)

        def inner(j, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                return j + 1, acc + 0.0

        def outer(i, acc):
            before = v * 100.0                       # feeds the inner loop: runs first
            _, acc = tf.while_loop(lambda j, a: j < 2, inner, [0, acc + before],
                                   parallel_iterations=1)
            return i + 1, acc
        _, total = tf.while_loop(lambda i, a: i < 3, outer, [0, 0.0],
                                 parallel_iterations=1)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(total) == 0.0 + 200.0 + 400.0
            assert sess.run(v) == 6.0


def test_an_assignment_of_a_new_size_leaves_the_read_its_old_buffer():
    """`validate_shape=False` gives the variable a new buffer (TF): the loop's captured
    read keeps the buffer it had, with the value from before."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable([1.0, 2.0], validate_shape=False)

        def body(i, acc):
            grow = tf.assign(v, tf.zeros([3]), validate_shape=False)
            with tf.control_dependencies([grow]):
                return i + 1, acc + tf.reduce_sum(tf.identity(v))
        _, total = tf.while_loop(lambda i, a: i < 2, body, [0, 0.0],
                                 parallel_iterations=1)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(total) == 6.0             # 3 + 3: the entry buffer
            np.testing.assert_array_equal(sess.run(v), np.zeros(3, np.float32))
