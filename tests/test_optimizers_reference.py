"""Differential tests: optimizers against TensorFlow's (tf.compat.v1, ref variables).

The same program -- a variable, a gradient fed each step, several training steps -- runs
on TensorFlow and on tfteach; variables, slots and beta powers must agree to float
rounding (TF's Eigen kernels may vectorise rsqrt differently), the graphs must have the
same ops, and errors the same texts. Skipped when TensorFlow is not installed.
"""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1

STEPS = 4


@pytest.fixture(scope="module", autouse=True)
def ref_variables():
    tensorflow_v1().disable_resource_variables()


def both(program):
    """(TensorFlow's result, tfteach's result) of `program(tf)`, each in a fresh graph."""
    results = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            results.append(program(tf))
    return results


def first_message_line(exc):
    """The first line that is TF's own message (TF 2's session adds a header line)."""
    for line in str(exc).splitlines():
        if line and line != "Graph execution error:" and not line.startswith(
                ("Detected at node", "  File", "    ", "Node: ")):
            return line
    return ""


def errors_of_both(program):
    errors = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            try:
                program(tf)
            except Exception as e:  # noqa: BLE001 - the exception is what we compare
                errors.append(e)
            else:
                errors.append(None)
    return errors


OPTIMIZERS = {
    "sgd": lambda tf: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda tf: tf.train.MomentumOptimizer(0.05, 0.9),
    "nesterov": lambda tf: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adagrad": lambda tf: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.5),
    "rmsprop": lambda tf: tf.train.RMSPropOptimizer(0.01),
    "rmsprop_momentum": lambda tf: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5,
                                                             epsilon=1e-3),
    "rmsprop_centered": lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.3,
                                                             centered=True),
    "adam": lambda tf: tf.train.AdamOptimizer(0.1),
    "adam_options": lambda tf: tf.train.AdamOptimizer(0.05, beta1=0.5, beta2=0.9,
                                                      epsilon=0.1),
    "adadelta": lambda tf: tf.train.AdadeltaOptimizer(1.0),
}


def training_program(make_optimizer, dtype):
    rng = np.random.RandomState(3)
    initial = rng.randn(3, 4).astype(dtype)
    grads = [rng.randn(3, 4).astype(dtype) for _ in range(STEPS)]

    def program(tf):
        w = tf.Variable(initial, name="W")
        b = tf.Variable(np.zeros(4, dtype), name="b")
        g = tf.placeholder(w.dtype.base_dtype, [3, 4])
        step = tf.train.get_or_create_global_step()
        opt = make_optimizer(tf)
        train = opt.apply_gradients([(g, w), (tf.reduce_sum(g, 0), b)], global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for grad in grads:
                sess.run(train, {g: grad})
            values = {v.op.name: sess.run(v) for v in [w, b, step] + opt.variables()}
        return values, opt.get_slot_names(), train.name
    return program


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_training_steps_match_tensorflow(case, dtype):
    (want, want_slots, want_name), (got, got_slots, got_name) = both(
        training_program(OPTIMIZERS[case], dtype))
    assert sorted(got) == sorted(want)
    assert got_slots == want_slots and got_name == want_name
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    for name, value in want.items():
        assert got[name].dtype == value.dtype, name
        np.testing.assert_allclose(got[name], value, rtol=rtol, atol=rtol, err_msg=name)


def structure_program(tf):
    W = tf.Variable(np.ones((2, 2), np.float32), name="W")
    b = tf.Variable(np.zeros(2, np.float32), name="b")
    g = tf.ones([2, 2])
    step = tf.train.get_or_create_global_step()
    with tf.name_scope("outer"):
        tf.train.AdamOptimizer().apply_gradients([(g, W), (tf.ones([2]), b)],
                                                 global_step=step)
    tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(g, W), (None, b)], name="mom")
    tf.train.RMSPropOptimizer(0.1, centered=True).apply_gradients([(g, W)])
    tf.train.AdagradOptimizer(0.1).apply_gradients([(g, W)])
    tf.train.AdadeltaOptimizer().apply_gradients([(g, W)])
    tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, W)])
    graph = tf.get_default_graph()
    ops = [(op.name, op.type, [t.name for t in op.inputs],
            sorted(c.name for c in op.control_inputs)) for op in graph.get_operations()]
    collections = {key: [getattr(v, "name", None) for v in graph.get_collection(key)]
                   for key in ("variables", "trainable_variables", "train_op",
                               "global_step")}
    return ops, collections


def test_apply_gradients_builds_tensorflows_graph():
    (want_ops, want_collections), (got_ops, got_collections) = both(structure_program)
    assert got_ops == want_ops
    assert got_collections == want_collections


def test_minimize_matches_tensorflow():
    """minimize end to end (tf.gradients included) on a small least-squares problem."""
    if not callable(getattr(tfteach, "gradients", None)):
        pytest.skip("tf.gradients not available yet")
    rng = np.random.RandomState(0)
    x = rng.rand(20, 2).astype(np.float32)
    y = x @ np.array([[2.0], [-1.0]], np.float32) + 0.5

    def program(tf):
        W = tf.Variable(np.zeros((2, 1), np.float32), name="W")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(30):
                sess.run(train)
            return sess.run([W, b, loss, step])

    want, got = both(program)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# -- errors ----------------------------------------------------------------------------
def test_uninitialized_slot_error_matches():
    def program(tf):
        W = tf.Variable([1.0, 2.0], name="W")
        train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(tf.ones([2]), W)])
        with tf.Session() as sess:
            sess.run(W.initializer)
            sess.run(train)
    want, got = errors_of_both(program)
    assert type(got).__name__ == type(want).__name__ == "FailedPreconditionError"
    assert first_message_line(got) == first_message_line(want)


def test_fed_gradient_shape_error_matches():
    def program(tf):
        W = tf.Variable([1.0, 2.0], name="W")
        g = tf.placeholder(tf.float32)
        train = tf.train.AdamOptimizer().apply_gradients([(g, W)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {g: [1.0, 2.0, 3.0]})
    want, got = errors_of_both(program)
    assert type(got).__name__ == type(want).__name__ == "InvalidArgumentError"
    assert first_message_line(got) == first_message_line(want)


BUILD_ERRORS = {
    "shape": lambda tf, W: tf.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(tf.ones([3]), W)]),
    "dtype": lambda tf, W: tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients(
        [(tf.ones([2], tf.float64), W)]),
    "no_gradients": lambda tf, W: tf.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(None, W)]),
    "no_variables_provided": lambda tf, W: tf.train.AdamOptimizer().apply_gradients([]),
    "no_variables": lambda tf, W: tf.train.AdamOptimizer().minimize(
        tf.constant(1.0), var_list=[]),
    "int_loss": lambda tf, W: tf.train.AdamOptimizer().compute_gradients(tf.constant(1)),
    "adagrad_init": lambda tf, W: tf.train.AdagradOptimizer(0.1, -1.0),
    "gate": lambda tf, W: tf.train.AdamOptimizer().compute_gradients(W * 2.0,
                                                                     gate_gradients=3),
}


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_errors_match(case):
    def program(tf):
        W = tf.Variable([1.0, 2.0], name="W")
        BUILD_ERRORS[case](tf, W)
    want, got = errors_of_both(program)
    assert type(got) is type(want)
    # TF 2 names the node as a NodeDef ("{{node ...}}") where TF 1.15, and tfteach, say
    # "for 'GradientDescent/update_W/ApplyGradientDescent' (op: ...)": compare the rest.
    assert str(got).split(" for '")[0] == str(want).split(" for '")[0]
    if case == "shape":
        assert str(got).endswith("with input shapes: [2], [], [3].")


def test_no_gradient_for_any_variable_matches():
    if not callable(getattr(tfteach, "gradients", None)):
        pytest.skip("tf.gradients not available yet")

    def program(tf):
        W = tf.Variable([1.0, 2.0], name="W")
        unused = tf.Variable(1.0, name="unused")
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(W), var_list=[unused])
    want, got = errors_of_both(program)
    assert type(got) is type(want) is ValueError
    assert str(got) == str(want)
