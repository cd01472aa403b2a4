"""tf.train.ExponentialMovingAverage: the notes' worked example, names, collections.

The notes' example prints [v1, shadow] after each step; the values must be the notes'
(shortest float32 repr: 4.555, 4.60945) and bit-for-bit TensorFlow's.
"""
import numpy as np
import pytest

import tfteach as tf
from tests.tf_reference import tensorflow_v1


def notes_example(tf, init_v1_first=False):
    """The notes' program; returns what it prints, as lists of float32 values."""
    printed = []
    with tf.Graph().as_default():
        v1 = tf.Variable(0, dtype=tf.float32)
        step = tf.Variable(0, trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.99, step)
        maintain_averages_op = ema.apply([v1])
        with tf.Session() as sess:
            if init_v1_first:
                # TF 2's compat cond reads v1 before choosing its initial value branch.
                sess.run(v1.initializer)
            sess.run(tf.global_variables_initializer())
            printed.append(sess.run([v1, ema.average(v1)]))
            sess.run(tf.assign(v1, 5))
            sess.run(maintain_averages_op)
            printed.append(sess.run([v1, ema.average(v1)]))
            sess.run(tf.assign(step, 10000))
            sess.run(tf.assign(v1, 10))
            sess.run(maintain_averages_op)
            printed.append(sess.run([v1, ema.average(v1)]))
            sess.run(maintain_averages_op)
            printed.append(sess.run([v1, ema.average(v1)]))
    return printed


def test_notes_example_prints_the_notes_values():
    printed = notes_example(tf)
    for row in printed:
        assert all(isinstance(x, np.float32) for x in row)
    # The notes print float32 values by their shortest repr.
    assert [[float(str(x)) for x in row] for row in printed] == [
        [0.0, 0.0], [5.0, 4.5], [10.0, 4.555], [10.0, 4.60945]]


def test_notes_example_matches_tensorflow():
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    want = notes_example(tf1, init_v1_first=True)
    got = notes_example(tf)
    assert [[float(x) for x in row] for row in got] == [[float(x) for x in row]
                                                        for row in want]


def test_decay_without_num_updates_and_float64():
    v = tf.Variable(np.array([0.0, 10.0]), name="v")
    ema = tf.train.ExponentialMovingAverage(0.9)
    update = ema.apply([v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(v.assign([1.0, 0.0]))
        sess.run(update)
        sess.run(update)
        shadow = sess.run(ema.average(v))
    # decay 0.9 is a float32 tensor (cast to float64): 1 - decay in float32 first.
    keep = 1 - float(np.float64(np.float32(1.0) - np.float32(0.9)))
    want = np.array([0.0, 10.0])
    for _ in range(2):
        want = want - (want - np.array([1.0, 0.0])) * (1 - keep)
    assert shadow.dtype == np.float64
    np.testing.assert_allclose(shadow, want, rtol=1e-15)


def test_shadow_variable_names_and_collections():
    with tf.variable_scope("layer"):
        w = tf.Variable([1.0], name="w")
    b = tf.Variable(2.0, name="b")
    ema = tf.train.ExponentialMovingAverage(0.99)
    assert ema.name == "ExponentialMovingAverage"
    assert ema.average_name(w) == "layer/w/ExponentialMovingAverage"    # before apply
    op = ema.apply([w, b])
    assert op.name == "ExponentialMovingAverage" and op.type == "NoOp"
    shadow = ema.average(w)
    assert shadow.name == "layer/w/ExponentialMovingAverage:0"
    assert ema.average_name(b) == "b/ExponentialMovingAverage"
    assert not shadow.trainable
    assert shadow in tf.global_variables() and shadow not in tf.trainable_variables()
    assert tf.moving_average_variables() == [w, b]
    assert ema.average(tf.Variable(0.0)) is None
    assert [c.type for c in op.control_inputs] == ["AssignSub", "AssignSub"]
    assert tf.get_default_graph().get_operation_by_name(
        "ExponentialMovingAverage/AssignMovingAvg").type == "AssignSub"


def test_apply_defaults_to_trainable_variables_and_reuses_shadows():
    w = tf.Variable([1.0], name="w")
    tf.Variable(0, name="counter", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply()
    first = ema.average(w)
    ema.apply([w])
    assert ema.average(w) is first
    assert [v.op.name for v in tf.global_variables()] == ["w", "counter",
                                                          "w/ExponentialMovingAverage"]


def test_variables_to_restore_maps_average_names():
    w = tf.Variable([1.0], name="w")
    counter = tf.Variable(0, name="counter", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply([w])
    mapping = ema.variables_to_restore()
    assert mapping == {"w/ExponentialMovingAverage": w, "counter": counter}


def test_non_float_variable_rejected():
    v = tf.Variable(1, name="count")
    with pytest.raises(TypeError, match="^The variables must be half, float, or double: "
                                        "count:0$"):
        tf.train.ExponentialMovingAverage(0.9).apply([v])


def test_tensor_with_zero_debias():
    """A tensor's shadow starts at zero; zero_debias divides out the start's bias."""
    x = tf.placeholder(tf.float32, [2])
    y = x * 1.0
    ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
    update = ema.apply([y])
    assert ema.average(y).op.name == "mul/ExponentialMovingAverage"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update, {x: [4.0, 2.0]})
        # Debiased: after one step the average is the value itself.
        np.testing.assert_allclose(sess.run(ema.average(y)), [4.0, 2.0], rtol=1e-6)
        sess.run(update, {x: [0.0, 2.0]})
        # biased = 0.5*(0.5*0 + 0.5*4) + 0.5*0 = 1 ; 1 / (1 - 0.25) = 4/3
        np.testing.assert_allclose(sess.run(ema.average(y)), [4.0 / 3.0, 2.0], rtol=1e-6)


def test_tensor_zero_debias_matches_tensorflow():
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()

    def program(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [2])
            y = x * 1.0
            ema = tf.train.ExponentialMovingAverage(0.7, zero_debias=True)
            update = ema.apply([y])
            names = sorted(v.op.name for v in tf.global_variables())
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                out = []
                for value in ([4.0, 2.0], [0.0, 2.0], [1.0, -1.0]):
                    sess.run(update, {x: value})
                    out.append(sess.run(ema.average(y)).tolist())
            return names, out
    want, got = program(tf1), program(tf)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
