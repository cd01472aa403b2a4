"""Eager Keras `fit`/`evaluate` with a softmax output against tf_keras (TensorFlow 2.21
eagerly, in a child process; its steps are traced, as TF 1.15's are): the crossentropy
reads the Softmax's logits, whichever code called it. With confident outputs (weights
scaled up, probabilities far below the 1e-7 a crossentropy on probabilities clips to),
TF's losses are ~40-150 a sample; the clipped formula would give at most 16.1 and
train on zero gradients. From the same weights, tfteach's eager losses and weights
follow TensorFlow's (eager/producers.py)."""
import importlib.util
import textwrap

import numpy as np
import pytest

from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from tf_reference import eager_tensorflow_json
from tolerances import assert_close

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None
    or importlib.util.find_spec("tf_keras") is None,
    reason="TensorFlow / tf_keras is not installed")

# The same program for tf_keras and tfteach (`tf`, `keras` and `optimizers` are either).
PROGRAM = textwrap.dedent("""
    r = np.random.RandomState(0)
    X = (r.rand(48, 6) * 4 - 2).astype(np.float32)
    LABELS = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    ONE_HOT = np.eye(3, dtype=np.float32)[r.randint(0, 3, 48)]

    class Subclassed(keras.Model):
        def __init__(self, classes):
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="relu")
            self.out = keras.layers.Dense(classes)

        def call(self, inputs):
            return tf.nn.softmax(self.out(self.hidden(inputs)))

    def run(kind, loss, optimizer, scale):
        classes, targets = (2, LABELS) if loss.startswith("sparse") else (3, ONE_HOT)
        if kind == "layer":
            model = keras.Sequential([
                keras.layers.Dense(8, activation="relu", input_shape=(6,)),
                keras.layers.Dense(classes, activation="softmax")])
        else:
            model = Subclassed(classes)
            model(X[:1])
        w = np.random.RandomState(1)
        model.set_weights([w.uniform(-scale, scale, v.shape).astype(np.float32)
                           for v in model.get_weights()])
        model.compile(optimizer={"sgd": lambda: optimizers.SGD(0.05),
                                 "adam": lambda: optimizers.Adam(0.01),
                                 "rmsprop": lambda: optimizers.RMSprop(0.01)}[optimizer](),
                      loss=loss)
        before = float(model.evaluate(X, targets, verbose=0))
        history = model.fit(X, targets, batch_size=12, epochs=2, shuffle=False, verbose=0)
        return {"evaluate": before, "fit": [float(v) for v in history.history["loss"]],
                "weights": [v.tolist() for v in model.get_weights()]}
""")

CASES = [(kind, loss, optimizer, scale)
         for kind in ("layer", "subclassed")
         for loss in ("sparse_categorical_crossentropy", "categorical_crossentropy")
         for optimizer, scale in (("sgd", 8.0), ("adam", 8.0), ("rmsprop", 1.0))]


@pytest.fixture(scope="module")
def theirs():
    code = ("import json\nimport numpy as np\nimport tensorflow as tf\n"
            "import tf_keras as keras\noptimizers = keras.optimizers.legacy\n" + PROGRAM +
            "print(json.dumps([run(*case) for case in %r]))\n" % (CASES,))
    return dict(zip(CASES, eager_tensorflow_json(code)))


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_eager_softmax_crossentropy_trains_as_tensorflow(tf2, theirs, case):
    namespace = {"tf": tf2, "np": np, "keras": tf2.keras, "optimizers": tf2.keras.optimizers}
    exec(PROGRAM, namespace)             # noqa: S102 - the shared program
    ours, expected = namespace["run"](*case), theirs[case]
    if case[3] > 1:                     # confident: far above what clipping would give
        assert expected["evaluate"] > 30
    assert_close(ours["evaluate"], expected["evaluate"], rtol=1e-5)
    assert_close(ours["fit"], expected["fit"], rtol=1e-5)
    for a, b in zip(ours["weights"], expected["weights"]):
        assert_close(np.asarray(a), np.asarray(b), rtol=1e-4, scale=1.0)
