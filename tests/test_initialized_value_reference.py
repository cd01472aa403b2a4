"""Differential tests: `Variable.initialized_value()` against TensorFlow 1.15's.

TF 1.15 builds `cond(is_variable_initialized(v), v.read_value, lambda: v.initial_value)`:
the variable's value once it is initialized, its initial value before. TensorFlow's
`tf.compat.v1` in graph mode with ref variables and control flow v1 (1.15's cond) is
the reference. Skipped without TensorFlow.
"""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1, tf1_behaviour


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    # ref variables and 1.15's cond (initialized_value) in TensorFlow, for this module
    with tf1_behaviour():
        yield


def in_both(program):
    """`program(tf, sess)` run on TensorFlow and on tfteach, in a fresh graph each."""
    results = []
    for tf in (tensorflow_v1(), tfteach):
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph) as sess:
            results.append(program(tf, sess))
    return results


def test_the_graph_is_tensorflows_cond():
    def program(tf, sess):
        w = tf.Variable([2.0, 3.0], name="w")
        first = len(tf.get_default_graph().get_operations())
        value = w.initialized_value()
        ops = tf.get_default_graph().get_operations()[first:]
        return ([(op.name, op.type) for op in ops], value.name,
                {op.name: [t.name for t in op.inputs] for op in ops})
    (tf_ops, tf_name, tf_inputs), (ops, name, inputs) = in_both(program)
    # TF 1.15 reads the variable in the true branch through a RefSwitch
    # (`cond/read/Switch`); tfteach's read waits for the branch's pivot instead
    # (docs/variables.md): every other op, name and input is TensorFlow's.
    assert ("cond/read/Switch", "RefSwitch") in tf_ops
    assert ops == [op for op in tf_ops if op[0] != "cond/read/Switch"]
    assert name == tf_name == "cond/Merge:0"
    del tf_inputs["cond/read"], inputs["cond/read"], tf_inputs["cond/read/Switch"]
    assert inputs == tf_inputs


def test_the_notes_interactive_session_before_any_initializer():
    # The notes (InteractiveSession): sess.run(bb.initialized_value()) with nothing
    # initialized gives bb's initial value, computed from ww's.
    def program(tf, sess):
        ww = tf.Variable([2.0, 3.0], dtype=tf.float32)
        bb = tf.Variable(ww.initialized_value() * 2)
        return sess.run(bb.initialized_value()), sess.run(ww.initialized_value())
    expected, actual = in_both(program)
    np.testing.assert_array_equal(expected[0], [4.0, 6.0])
    np.testing.assert_array_equal(expected[1], [2.0, 3.0])
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def test_the_notes_program_in_an_interactive_session():
    tf = tfteach
    with tf.Graph().as_default():
        sess = tf.InteractiveSession()
        try:
            ww = tf.Variable(tf.constant([2, 3], dtype=tf.float32))
            np.testing.assert_array_equal(sess.run(ww.initialized_value()), [2.0, 3.0])
        finally:
            sess.close()


def test_initializers_run_in_any_order():
    def program(tf, sess):
        ww = tf.Variable([2.0, 3.0])
        bb = tf.Variable(ww.initialized_value() * 2)
        sess.run(bb.initializer)                  # ww not initialized: its initial value
        got = [sess.run(bb)]
        try:
            sess.run(ww)
        except tf.errors.FailedPreconditionError:
            got.append("ww uninitialized")
        sess.run(ww.initializer)
        sess.run(tf.assign(ww, [5.0, 7.0]))
        sess.run(bb.initializer)                  # ww initialized: its current value
        got.append(sess.run(bb))
        got.append(sess.run([ww.initialized_value(), bb.initialized_value()]))
        return got
    expected, actual = in_both(program)
    np.testing.assert_array_equal(expected[0], [4.0, 6.0])
    assert expected[1] == actual[1] == "ww uninitialized"
    np.testing.assert_array_equal(expected[2], [10.0, 14.0])
    np.testing.assert_array_equal(actual[0], expected[0])
    np.testing.assert_array_equal(actual[2], expected[2])
    for e, a in zip(expected[3], actual[3]):
        np.testing.assert_array_equal(a, e)


def test_global_initializer_with_a_dependent_variable():
    def program(tf, sess):
        start = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="start")
        centroids = tf.Variable(start.initialized_value(), name="S")   # the k-means note
        doubled = tf.Variable(centroids.initialized_value() * 2.0)
        sess.run(tf.global_variables_initializer())
        return sess.run([start, centroids, doubled])
    expected, actual = in_both(program)
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def test_under_control_dependencies_and_name_scope():
    # init_scope: no control dependencies, the current name scope kept.
    def program(tf, sess):
        w = tf.Variable(1.0, name="w")
        other = tf.no_op(name="other")
        with tf.name_scope("outer"), tf.control_dependencies([other]):
            value = w.initialized_value()
        return value.name, [c.name for c in value.op.control_inputs], sess.run(value)
    expected, actual = in_both(program)
    assert actual[:2] == expected[:2] == ("outer/cond/Merge:0", [])
    assert actual[2] == expected[2] == 1.0
