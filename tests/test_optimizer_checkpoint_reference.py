"""tf.train.Checkpoint with a TF 1 optimizer (Adam, Momentum) against TensorFlow's: the
optimizer's slot variables (`model/w/.OPTIMIZER_SLOT/optimizer/m/...`) and non-slot
variables (`optimizer/beta1_power/...`) are saved in TensorFlow's layout and restored
both ways — into a fresh optimizer that has made no step yet (the slots are created by
the restore, as TF does) — so a training run continues exactly: one more step after the
restore gives the values TensorFlow's uninterrupted run gives.

TensorFlow runs eagerly in a child process (as test_object_checkpoint_reference.py)."""
import importlib.util
import textwrap

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

# The same program for TensorFlow and tfteach (`tf` is either).
PROGRAM = textwrap.dedent("""
    class Net(tf.Module):
        def __init__(self, seed):
            super().__init__()
            r = np.random.RandomState(seed)
            self.w = tf.Variable(r.randn(3, 2).astype(np.float32), name="w")
            self.layers = [tf.Variable(r.randn(2).astype(np.float32), name="b")]

    X = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))

    def make_optimizer(kind):
        if kind == "adam":
            return tf.compat.v1.train.AdamOptimizer(0.1)
        return tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9)

    def step(net, opt):
        variables = [net.w, net.layers[0]]
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.tanh(tf.matmul(X, net.w) + net.layers[0])))
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))

    def values(net):
        return [net.w.numpy().tolist(), net.layers[0].numpy().tolist()]
""")


def _tensorflow(script):
    code = ("import json\nimport numpy as np\nimport tensorflow as tf\n" + PROGRAM
            + textwrap.dedent(script))
    return eager_tensorflow_json(code)


def _ours(tf):
    namespace = {"tf": tf, "np": np}
    exec(PROGRAM, namespace)             # noqa: S102 - the shared program
    return namespace


def _close(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["adam", "momentum"])
def test_tfteach_continues_tensorflows_training(eager, tmp_path, kind):
    theirs = _tensorflow("""
        net, opt = Net(0), make_optimizer(%r)
        step(net, opt); step(net, opt)
        tf.train.Checkpoint(model=net, optimizer=opt).write(%r)
        step(net, opt)
        print(json.dumps(values(net)))
    """ % (kind, str(tmp_path / "c")))
    ns = _ours(eager)
    net, opt = ns["Net"](5), ns["make_optimizer"](kind)     # fresh: no slots yet
    eager.train.Checkpoint(model=net, optimizer=opt).restore(
        str(tmp_path / "c")).assert_consumed()
    ns["step"](net, opt)
    _close(ns["values"](net), theirs)


@pytest.mark.parametrize("kind", ["adam", "momentum"])
def test_tensorflow_continues_tfteachs_training(eager, tmp_path, kind):
    ns = _ours(eager)
    net, opt = ns["Net"](0), ns["make_optimizer"](kind)
    ns["step"](net, opt)
    ns["step"](net, opt)
    # save(), not write(): TF's restore makes a save_counter, which assert_consumed
    # wants to find in the file
    path = eager.train.Checkpoint(model=net, optimizer=opt).save(str(tmp_path / "c"))
    keys = sorted(name for name, _ in eager.train.list_variables(path))
    slots = ["m", "v"] if kind == "adam" else ["momentum"]
    assert [k for k in keys if ".OPTIMIZER_SLOT" in k] == sorted(
        "%s/.OPTIMIZER_SLOT/optimizer/%s/.ATTRIBUTES/VARIABLE_VALUE" % (var, slot)
        for var in ("model/w", "model/layers/0") for slot in slots)
    ns["step"](net, opt)
    theirs = _tensorflow("""
        net, opt = Net(5), make_optimizer(%r)
        status = tf.train.Checkpoint(model=net, optimizer=opt).restore(%r)
        step(net, opt)               # TF restores beta1_power when the step makes it
        status.assert_consumed()
        print(json.dumps(values(net)))
    """ % (kind, path))
    _close(theirs, ns["values"](net))
