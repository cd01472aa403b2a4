"""Learning-rate schedules: graph nodes whose value follows the global step.

Each schedule is checked at several steps (the global step fed) against its formula in
NumPy, and against TensorFlow's values and op names when TensorFlow is installed.
"""
import math

import numpy as np
import pytest

import tfteach as tf
from tests.tf_reference import tensorflow_v1

STEPS = [0, 1, 7, 99, 100, 101, 250, 1000]


def values_at_steps(build, steps=STEPS, module=tf):
    """The schedule's value at each global step, and the result tensor's name."""
    with module.Graph().as_default():
        step = module.train.get_or_create_global_step()
        lr = build(module, step)
        with module.Session() as sess:
            return [sess.run(lr, {step: s}) for s in steps], lr.name


def exponential(lr, step, decay_steps, rate, staircase=False):
    p = step / decay_steps
    return lr * rate ** (math.floor(p) if staircase else p)


def inverse_time(lr, step, decay_steps, rate, staircase=False):
    p = step / decay_steps
    return lr / (1 + rate * (math.floor(p) if staircase else p))


def polynomial(lr, step, decay_steps, end=0.0001, power=1.0, cycle=False):
    if cycle:
        decay_steps = decay_steps * max(1.0, math.ceil(step / decay_steps))
    else:
        step = min(step, decay_steps)
    return (lr - end) * (1 - step / decay_steps) ** power + end


SCHEDULES = {
    "exponential": (lambda tf, s: tf.train.exponential_decay(0.1, s, 100, 0.96),
                    lambda s: exponential(0.1, s, 100, 0.96), "ExponentialDecay:0"),
    "exponential_staircase": (
        lambda tf, s: tf.train.exponential_decay(0.5, s, 100, 0.5, staircase=True),
        lambda s: exponential(0.5, s, 100, 0.5, staircase=True), "ExponentialDecay:0"),
    "natural_exp": (lambda tf, s: tf.train.natural_exp_decay(0.1, s, 100, 0.5),
                    lambda s: 0.1 * math.exp(-0.5 * s / 100), "ExponentialDecay:0"),
    "natural_exp_staircase": (
        lambda tf, s: tf.train.natural_exp_decay(0.1, s, 100, 0.5, staircase=True),
        lambda s: 0.1 * math.exp(-0.5 * math.floor(s / 100)), "ExponentialDecay:0"),
    "inverse_time": (lambda tf, s: tf.train.inverse_time_decay(0.1, s, 100, 0.5),
                     lambda s: inverse_time(0.1, s, 100, 0.5), "InverseTimeDecay:0"),
    "inverse_time_staircase": (
        lambda tf, s: tf.train.inverse_time_decay(0.1, s, 100, 0.5, staircase=True,
                                                  name="itd"),
        lambda s: inverse_time(0.1, s, 100, 0.5, staircase=True), "itd:0"),
    "polynomial": (lambda tf, s: tf.train.polynomial_decay(0.1, s, 200),
                   lambda s: polynomial(0.1, s, 200), "PolynomialDecay:0"),
    "polynomial_power": (
        lambda tf, s: tf.train.polynomial_decay(0.1, s, 200, end_learning_rate=0.01,
                                                power=2.0),
        lambda s: polynomial(0.1, s, 200, end=0.01, power=2.0), "PolynomialDecay:0"),
    "polynomial_cycle": (
        lambda tf, s: tf.train.polynomial_decay(0.1, s, 200, power=0.5, cycle=True),
        lambda s: polynomial(0.1, s, 200, power=0.5, cycle=True), "PolynomialDecay:0"),
}


@pytest.mark.parametrize("case", sorted(SCHEDULES))
def test_schedule_matches_formula(case):
    build, formula, name = SCHEDULES[case]
    got, got_name = values_at_steps(build)
    assert got_name == name
    for step, value in zip(STEPS, got):
        assert value.dtype == np.float32
        np.testing.assert_allclose(value, formula(step), rtol=2e-6, err_msg=str(step))


def test_piecewise_constant():
    def build(tf, step):
        return tf.train.piecewise_constant(step, [100, 200], [1.0, 0.5, 0.1])
    got, _ = values_at_steps(build)
    want = [1.0 if s <= 100 else 0.5 if s <= 200 else 0.1 for s in STEPS]
    assert [float(v) for v in got] == [float(np.float32(w)) for w in want]


def test_piecewise_constant_errors():
    step = tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match=r"^Boundaries \(<dtype: 'float32'>\) must have the "
                                         r"same dtype as x \(<dtype: 'int64'>\)\.$"):
        tf.train.piecewise_constant(step, [1.5], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^Values must have elements all with the same "
                                         r"dtype \(<dtype: 'float32'> vs <dtype: 'int32'>\)"):
        tf.train.piecewise_constant(step, [1], [1.0, 2])
    with pytest.raises(ValueError, match="^The length of boundaries should be 1 less than"):
        tf.train.piecewise_constant(step, [1, 2], [1.0, 2.0])


def test_float64_learning_rate_keeps_its_dtype():
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(tf.constant(0.1, tf.float64), step, 10, 0.5)
    assert lr.dtype == tf.float64
    with tf.Session() as sess:
        assert sess.run(lr, {step: 10}) == 0.05


def test_schedule_drives_an_optimizer():
    """The rate follows the global step that minimize increments."""
    x = tf.Variable(0.0)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(1.0, step, 1, 0.5)
    train = tf.train.GradientDescentOptimizer(lr).apply_gradients(
        [(tf.constant(-1.0), x)], global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            sess.run(train)
        assert sess.run(x) == 1.0 + 0.5 + 0.25 + 0.125


# -- TensorFlow ------------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(SCHEDULES) + ["piecewise"])
def test_schedule_matches_tensorflow(case):
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    if case == "piecewise":
        def build(tf, step):
            return tf.train.piecewise_constant(step, [100, 200], [1.0, 0.5, 0.1])
    else:
        build = SCHEDULES[case][0]
    want, want_name = values_at_steps(build, module=tf1)
    got, got_name = values_at_steps(build)
    if case != "piecewise":      # TF 2's cond ends in `cond/Identity`, TF 1.15's in Merge
        assert got_name == want_name
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
