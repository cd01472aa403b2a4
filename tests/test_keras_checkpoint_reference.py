"""tf.train.Checkpoint with a Keras model and its optimizer against TensorFlow's
(tf_keras with the OptimizerV2 optimizers TF 1.15's tf.keras had, today
`tf_keras.optimizers.legacy`): the slots are saved as TF saves them
(`model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/...`), `iter` and the
hyperparameters as the optimizer's own variables; a model trained two steps, saved,
restored into a fresh model and optimizer on the other side and trained one more step
equals the uninterrupted run. Both directions, for SGD with momentum, Adam, RMSprop and
Adagrad.

TensorFlow runs eagerly in a child process (as test_object_checkpoint_reference.py)."""
import importlib.util
import textwrap

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None
    or importlib.util.find_spec("tf_keras") is None,
    reason="TensorFlow / tf_keras is not installed")

# The same program for tf_keras and tfteach.keras (`keras` and `optimizers` are either).
PROGRAM = textwrap.dedent("""
    X = np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32)
    Y = np.cos(np.arange(10)).reshape(5, 2).astype(np.float32)

    def make(kind, seed):
        r = np.random.RandomState(seed)
        model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                  keras.layers.Dense(2)])
        model.set_weights([r.randn(*w.shape).astype(np.float32) for w in model.get_weights()])
        opt = {"sgd": lambda: optimizers.SGD(0.05, momentum=0.9),
               "adam": lambda: optimizers.Adam(0.05),
               "rmsprop": lambda: optimizers.RMSprop(0.02),
               "adagrad": lambda: optimizers.Adagrad(0.3)}[kind]()
        model.compile(opt, "mse")
        return model, opt

    def values(model):
        return [w.tolist() for w in model.get_weights()]
""")

KINDS = ["sgd", "adam", "rmsprop", "adagrad"]
SLOTS = {"sgd": ["momentum"], "adam": ["m", "v"], "rmsprop": ["rms"],
         "adagrad": ["accumulator"]}
HYPERS = {"sgd": ["decay", "learning_rate", "momentum"],
          "adam": ["beta_1", "beta_2", "decay", "learning_rate"],
          "rmsprop": ["decay", "learning_rate", "momentum", "rho"],
          "adagrad": ["decay", "learning_rate"]}


def _tensorflow(script):
    code = ("import json\nimport numpy as np\nimport tensorflow as tf\n"
            "import tf_keras as keras\noptimizers = keras.optimizers.legacy\n"
            + PROGRAM + textwrap.dedent(script))
    return eager_tensorflow_json(code)


def _ours(tf):
    namespace = {"tf": tf, "np": np, "keras": tf.keras, "optimizers": tf.keras.optimizers}
    exec(PROGRAM, namespace)             # noqa: S102 - the shared program
    return namespace


def _close(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_tensorflow_continues_tfteachs_keras_training(eager, tmp_path, kind):
    ns = _ours(eager)
    model, opt = ns["make"](kind, 0)
    model.train_on_batch(ns["X"], ns["Y"])
    model.train_on_batch(ns["X"], ns["Y"])
    path = eager.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "c"))
    keys = sorted(name for name, _ in eager.train.list_variables(path))
    assert [k for k in keys if ".OPTIMIZER_SLOT" in k] == sorted(
        "model/layer_with_weights-%d/%s/.OPTIMIZER_SLOT/optimizer/%s/.ATTRIBUTES/"
        "VARIABLE_VALUE" % (layer, var, slot)
        for layer in (0, 1) for var in ("kernel", "bias") for slot in SLOTS[kind])
    assert [k for k in keys if k.startswith("optimizer/")] == [
        "optimizer/%s/.ATTRIBUTES/VARIABLE_VALUE" % n for n in sorted(HYPERS[kind] + ["iter"])]
    model.train_on_batch(ns["X"], ns["Y"])
    theirs = _tensorflow("""
        model, opt = make(%r, 5)
        status = tf.train.Checkpoint(model=model, optimizer=opt).restore(%r)
        model.train_on_batch(X, Y)     # TF restores the slots when the step makes them
        status.assert_consumed()
        print(json.dumps(values(model) + [int(opt.iterations.numpy())]))
    """ % (kind, path))
    assert theirs[-1] == 3
    _close(theirs[:-1], ns["values"](model))


@pytest.mark.parametrize("kind", KINDS)
def test_tfteach_continues_tensorflows_keras_training(eager, tmp_path, kind):
    theirs = _tensorflow("""
        model, opt = make(%r, 0)
        model.train_on_batch(X, Y); model.train_on_batch(X, Y)
        tf.train.Checkpoint(model=model, optimizer=opt).write(%r)
        model.train_on_batch(X, Y)
        print(json.dumps(values(model)))
    """ % (kind, str(tmp_path / "c")))
    ns = _ours(eager)
    model, opt = ns["make"](kind, 5)                # fresh: no slots, no step counter yet
    eager.train.Checkpoint(model=model, optimizer=opt).restore(
        str(tmp_path / "c")).assert_consumed()
    assert int(opt.iterations.numpy()) == 2
    model.train_on_batch(ns["X"], ns["Y"])
    _close(ns["values"](model), theirs)
    assert int(opt.iterations.numpy()) == 3


def test_restored_hyperparameters_are_used(eager, tmp_path):
    """A learning rate restored from a checkpoint is the one the next step uses (TF keeps
    hyperparameters as variables)."""
    ns = _ours(eager)
    model, opt = ns["make"]("sgd", 0)
    model.train_on_batch(ns["X"], ns["Y"])
    checkpoint = eager.train.Checkpoint(optimizer=opt)
    path = checkpoint.write(str(tmp_path / "c"))
    opt.learning_rate = 0.5
    assert opt.learning_rate == 0.5
    checkpoint.restore(path).assert_consumed()
    assert opt.learning_rate == pytest.approx(0.05)        # float32 in the checkpoint
    fresh = ns["make"]("sgd", 1)[1]
    assert fresh.learning_rate == pytest.approx(0.05)
    fresh.learning_rate = 0.25
    eager.train.Checkpoint(optimizer=fresh).restore(path)
    assert fresh.learning_rate == pytest.approx(0.05)
    assert fresh.get_config()["learning_rate"] == pytest.approx(0.05)


def test_another_optimizers_checkpoint_is_not_consumed(eager, tmp_path):
    """Adam's checkpoint restored into SGD with momentum: Adam's slots (`m`, `v`) and
    `beta_1`/`beta_2` match nothing, so `assert_consumed` fails with TF's words and SGD
    gets no `m` slot; the weights, `iter` and the learning rate are restored."""
    ns = _ours(eager)
    model, adam = ns["make"]("adam", 0)
    model.train_on_batch(ns["X"], ns["Y"])
    path = eager.train.Checkpoint(model=model, optimizer=adam).write(str(tmp_path / "c"))
    other, sgd = ns["make"]("sgd", 1)
    status = eager.train.Checkpoint(model=other, optimizer=sgd).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    assert not any(name == "m" for name, _ in sgd._slot_order)
    _close(ns["values"](other), ns["values"](model))
    assert int(sgd.iterations.numpy()) == 1
    assert sgd.learning_rate == pytest.approx(0.05)
