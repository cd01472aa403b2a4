"""tests/test_control_flow.py again, every graph on a virtual GPU (the course kernel's
/gpu:0, where a student's tf.cond runs by default).

A GPU plan runs in the accounted loop (runtime/device_run.py). Until 2026-11-27 that loop
ran the plan's fast steps, which leave constants to the plan's template: a constant in
a tf.cond branch (which waits for the branch's pivot) then never turned dead, both
branches' values reached the Merge, and `tf.cond(p, lambda: tf.constant(1), lambda:
tf.constant(2))` gave 2 for p = True. Each test of that file computes its expected
values independently (Python, NumPy), so here they check the GPU's answers too.
A loop whose capture may be dead (a Hessian through a tf.cond) turns its sub-plans
dead-aware after they are built; on a GPU that crashed with an AttributeError.
"""
import inspect

import numpy as np
import pytest

import tfteach as tf
import test_control_flow as on_the_cpu
import test_control_flow_grad
import test_hessians
from device_helpers import virtual_gpus  # noqa: F401 (fixture)

# What differs on a GPU by design, not by mistake: the last node a traced run records
# is the copy of the cond's result to the client.
DIFFERS_ON_A_GPU = {"test_only_the_taken_branch_runs_in_step_stats"}

CASES = sorted(name for name, fn in vars(on_the_cpu).items()
               if name.startswith("test_") and callable(fn) and name not in DIFFERS_ON_A_GPU)


@pytest.mark.parametrize("name", CASES)
def test_on_a_virtual_gpu(virtual_gpus, name, capsys):
    virtual_gpus(1, memory_limit=1024)
    test = getattr(on_the_cpu, name)
    fixtures = {"capsys": capsys}
    with tf.Graph().as_default():
        test(**{p: fixtures[p] for p in inspect.signature(test).parameters})


def test_a_constant_branch_gives_the_taken_branchs_value(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: tf.constant(1.5), lambda: tf.constant(2.5))
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 1.5
        assert sess.run(r, {p: False}) == 2.5
        metadata = tf.RunMetadata()
        sess.run(r, {p: True}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
    devices = {n.node_name: n.device for n in metadata.step_stats.all_nodes()}
    assert devices["cond/Merge"].endswith("GPU:0")           # really on the GPU


@pytest.mark.parametrize("pred", [True, False])
def test_a_loop_capturing_a_tensor_that_may_be_dead(virtual_gpus, pred):
    virtual_gpus(1, memory_limit=1024)
    with tf.Graph().as_default():
        test_control_flow_grad.test_loop_capturing_a_tensor_that_may_be_dead(pred)


@pytest.mark.parametrize("pred", [True, False])
def test_a_hessian_through_a_cond(virtual_gpus, pred):
    virtual_gpus(1, memory_limit=1024)

    def build(tf, x):
        return tf.cond(tf.constant(pred), lambda: tf.reduce_sum(tf.tanh(x) * x[::-1]),
                       lambda: tf.reduce_sum(tf.exp(x) * x))
    xv = test_hessians._x("cond")
    np.testing.assert_allclose(test_hessians.hessian_of(tf, build, xv),
                               test_hessians.numeric_hessian(build, xv),
                               rtol=1e-5, atol=2e-6)
