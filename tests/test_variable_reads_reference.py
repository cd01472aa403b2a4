"""Differential tests: a TF1 variable's reads see the assignments ordered before them.

In TensorFlow 1.x a read of a ref variable (`v/read`, `tf.identity(v)`,
`v.read_value()`, and Reshape/ExpandDims/Squeeze/StopGradient of them) is the
variable's buffer, and assignments write into it: an op that a control or data
dependency orders after an assignment computes with the new value, and a fetched read
shows the value at the end of the run (docs/variables.md). Each program runs on
TensorFlow's `tf.compat.v1` (graph mode, ref variables, control flow v1 as in 1.15)
and on tfteach; only patterns whose result TensorFlow fixes are compared (an op that
nothing orders after an assignment may run before or after it there).
"""
import numpy as np
import pytest

import tfteach
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tests.tf_reference import tensorflow_v1, tf1_behaviour


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    # ref variables and 1.15's cond (initialized_value) in TensorFlow, for this module
    with tf1_behaviour():
        yield


def run_steps(tf, build):
    """Builds the program; runs `tf.global_variables_initializer()`, then each fetch of
    the list `build` returns, one `sess.run` each; returns their results."""
    graph = tf.Graph()
    with graph.as_default():
        runs = build(tf)
        init = tf.global_variables_initializer()
        with tf.Session(graph=graph) as sess:
            sess.run(init)
            return [sess.run(fetches) for fetches in runs]


def flat(results):
    """The arrays of nested fetch results, in order (an op's None left out)."""
    if isinstance(results, (list, tuple)):
        return [x for r in results for x in flat(r)]
    return [] if results is None else [np.asarray(results)]


def assert_same_as_tensorflow(build, rtol=1e-6, atol=0.0):
    expected = run_steps(tensorflow_v1(), build)
    actual = run_steps(tfteach, build)
    e, a = flat(expected), flat(actual)
    assert len(a) == len(e)
    for x, y in zip(e, a):
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol)
    return expected, actual


# -- tf.identity and other reads under control dependencies --------------------------------
def test_identity_under_a_control_dependency_sees_the_doubling():
    def build(tf):
        v = tf.Variable(1.0)
        update = tf.assign(v, v * 2)
        with tf.control_dependencies([update]):
            y = tf.identity(v)
        return [y, y]
    expected, _ = assert_same_as_tensorflow(build)
    assert [float(x) for x in expected] == [2.0, 4.0]       # what the issue reports


@pytest.mark.parametrize("read", ["identity", "read_value", "value", "reshape",
                                  "expand_dims", "squeeze", "stop_gradient"])
def test_a_read_made_before_the_update_but_consumed_after_it_sees_it(read):
    # The read op runs before the update (it has no dependency); the Add that consumes
    # it is ordered after the update, and computes from the variable's buffer then.
    def build(tf):
        v = tf.Variable([1.0, 3.0])
        reads = {"identity": lambda: tf.identity(v), "read_value": v.read_value,
                 "value": v.value, "reshape": lambda: tf.reshape(v, [2, 1]),
                 "expand_dims": lambda: tf.expand_dims(v, 0),
                 "squeeze": lambda: tf.squeeze(tf.expand_dims(v, 0)),
                 "stop_gradient": lambda: tf.stop_gradient(v)}
        r = reads[read]()
        update = tf.assign_add(v, [10.0, 20.0])
        with tf.control_dependencies([update]):
            after = r + 0.5
        return [after, after]
    expected, _ = assert_same_as_tensorflow(build)
    np.testing.assert_array_equal(np.ravel(expected[0]), [11.5, 23.5])


def test_ops_consuming_the_variable_directly_under_a_control_dependency():
    def build(tf):
        v = tf.Variable([1.0, 2.0])
        u = tf.Variable([10.0, 20.0])
        update = tf.assign(v, [5.0, 6.0])
        with tf.control_dependencies([update]):
            total = v + u
            product = tf.reduce_sum(v * v)
            matrix = tf.matmul(tf.reshape(v, [1, 2]), tf.reshape(u, [2, 1]))
        return [[total, product, matrix]]
    expected, _ = assert_same_as_tensorflow(build)
    np.testing.assert_array_equal(expected[0][0], [15.0, 26.0])


def test_a_data_dependency_orders_the_read_too():
    # The Add reads v and (through the Mul) the assign's output: the assign runs first.
    def build(tf):
        v = tf.Variable(3.0)
        bumped = tf.assign_add(v, 1.0)
        after = v + bumped * 0.0
        return [after, after]
    expected, _ = assert_same_as_tensorflow(build)
    assert [float(x) for x in expected] == [4.0, 5.0]


def test_a_fetched_read_is_the_value_at_the_end_of_the_run():
    # TensorFlow hands the client the variable's buffer: a fetched read shows the update
    # of the same run, whatever the order (this one holds on the CPU).
    def build(tf):
        v = tf.Variable(1.0)
        update = tf.assign(v, v * 2)
        return [[v.value(), update], [tf.identity(v), update]]
    expected, _ = assert_same_as_tensorflow(build)
    assert [float(x[0]) for x in expected] == [2.0, 4.0]


def test_an_assignment_that_resizes_the_variable_leaves_earlier_reads_alone():
    # A new size gives the variable a new buffer; the read keeps the old one.
    def build(tf):
        v = tf.Variable([1.0, 2.0], validate_shape=False)
        r = tf.identity(v)
        update = tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)
        with tf.control_dependencies([update]):
            after = r + 0.0
        return [after]
    expected, _ = assert_same_as_tensorflow(build)
    np.testing.assert_array_equal(expected[0], [1.0, 2.0])


# -- tf.group, ExponentialMovingAverage, optimizers' slots ------------------------------------
def test_group_of_updates_then_a_read():
    def build(tf):
        v = tf.Variable(1.0)
        u = tf.Variable(10.0)
        both = tf.group(tf.assign_add(v, 1.0), tf.assign_add(u, 1.0))
        with tf.control_dependencies([both]):
            total = v + u
        return [total, total]
    expected, _ = assert_same_as_tensorflow(build)
    assert [float(x) for x in expected] == [13.0, 15.0]


def test_moving_average_under_the_train_step_averages_the_new_weights():
    # The example: one gradient-descent step on w*w from w=1 (lr 0.01) makes
    # w 0.98; with decay 0 the shadow copies the weight *after* the step.
    def build(tf):
        w = tf.Variable(1.0)
        step = tf.train.GradientDescentOptimizer(0.01).minimize(w * w)
        ema = tf.train.ExponentialMovingAverage(0.0)
        with tf.control_dependencies([step]):
            averages = ema.apply([w])
        return [averages, [w, ema.average(w)]]
    expected, _ = assert_same_as_tensorflow(build)
    np.testing.assert_allclose(expected[1], [0.98, 0.98], rtol=1e-6)


def test_the_notes_mnist_pattern_with_global_step_and_decay():
    # docs/variables.md's program: the EMA (with num_updates = global_step) built under
    # the train step, a no_op grouping them; three steps.
    def build(tf):
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        y_ = tf.constant([[1.0], [0.0]])
        w = tf.Variable([[0.5], [-0.5]])
        b = tf.Variable([0.1])
        global_step = tf.Variable(0, trainable=False)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y_))
        train_step = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=global_step)
        ema = tf.train.ExponentialMovingAverage(0.99, global_step)
        with tf.control_dependencies([train_step]):
            averages_op = ema.apply(tf.trainable_variables())
        with tf.control_dependencies([averages_op]):
            train_op = tf.no_op(name="train")
        show = [w, b, ema.average(w), ema.average(b), global_step]
        return [train_op, show, train_op, train_op, show]
    assert_same_as_tensorflow(build, rtol=1e-5)


@pytest.mark.parametrize("optimizer", ["momentum", "adam", "rmsprop"])
def test_optimizer_slots_read_after_the_step(optimizer):
    def build(tf):
        w = tf.Variable([1.0, -2.0])
        opt = {"momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
               "adam": lambda: tf.train.AdamOptimizer(0.1),
               "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5)}[optimizer]()
        step = opt.minimize(tf.reduce_sum(w * w))
        slots = [opt.get_slot(w, name) for name in opt.get_slot_names()]
        with tf.control_dependencies([step]):
            seen = [tf.identity(s) for s in slots] + [w * 1.0]
        return [seen, seen]
    assert_same_as_tensorflow(build, rtol=1e-5)


def test_a_conv_layer_built_after_its_bias_update():
    # relu(conv2d(x, f) + b): the fast loop fuses the three ops, but not when the bias
    # must be read after an update of it (runtime/fusion.py leaves that add alone).
    def build(tf):
        x = tf.constant(np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) / 50)
        f = tf.Variable(np.linspace(-1, 1, 3 * 3 * 2 * 4, dtype=np.float32).reshape(3, 3, 2, 4))
        b = tf.Variable(np.array([0.1, -5.0, 0.3, -0.4], np.float32))
        update = tf.assign(b, [1.0, 2.0, -30.0, 4.0])
        with tf.control_dependencies([update]):
            out = tf.nn.relu(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME") + b)
        return [out]
    assert_same_as_tensorflow(build, rtol=1e-5, atol=1e-6)


def test_on_a_virtual_gpu_the_ordered_reads_are_the_same(virtual_gpus):
    # The GPU's accounted loop runs the same steps: reads ordered after an update see it
    # (TensorFlow's values from its CPU; on a GPU the same dependencies fix them).
    def program(device):
        def build(tf):
            with tf.device(device):
                w = tf.Variable([1.0, -2.0])
                step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(w * w))
                ema = tf.train.ExponentialMovingAverage(0.5)
                with tf.control_dependencies([step]):
                    averages = ema.apply([w])
                    after = tf.identity(w) * 1.0
            return [[averages, after], [ema.average(w), w]]
        return build
    virtual_gpus(1)
    expected = run_steps(tensorflow_v1(), program("/cpu:0"))
    actual = run_steps(tfteach, program("/gpu:0"))
    e, a = flat(expected), flat(actual)
    assert len(a) == len(e) == 3
    for x, y in zip(e, a):
        np.testing.assert_allclose(y, x, rtol=1e-6)
