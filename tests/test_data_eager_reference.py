"""tf.data while executing eagerly, against TensorFlow 2's eager tf.data: `for element in
dataset` and one-shot iterators give the same elements (values, dtypes, shapes, nesting)
for pipelines of every transformation; the end is StopIteration / OutOfRangeError; a
failing map function raises TF's error class at the element that fails.

Before, iterating raised "dataset.__iter__() is only supported when eager execution is
enabled." even when it was, and a `map` failed building its function's Session."""
import importlib.util
import json
import textwrap

import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

PIPELINES = {
    # (tf.equal, not ==: `==` on tensors is identity in TF 1.15, elementwise in TF 2)
    "map_filter_batch": "D.range(10).map(lambda x: x * 3)"
                        ".filter(lambda x: tf.equal(x % 2, 0)).batch(2)",
    "batch_drop": "D.range(7).batch(3, drop_remainder=True)",
    "slices_dict": "D.from_tensor_slices({'a': np.arange(4.0), 'b': ['w', 'x', 'y', 'z']})"
                   ".batch(3)",
    "slices_tuple": "D.from_tensor_slices((np.eye(3, dtype=np.float32), [1, 2, 3]))"
                    ".map(lambda x, y: (tf.reduce_sum(x * 2.0), y + 1))",
    "zip_concat": "D.zip((D.range(3), D.from_tensors([1, 2]).repeat())).concatenate("
                  "D.zip((D.range(10, 12), D.from_tensors([5, 6]).repeat(2))))",
    "flat_map": "D.range(4).flat_map(lambda x: D.from_tensors(x).repeat(x))",
    "interleave": "D.range(1, 4).interleave(lambda x: D.range(x * 10, x * 10 + 3), "
                  "cycle_length=2, block_length=2)",
    "padded_batch": "D.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2, "
                    "padded_shapes=[None])",
    "take_skip_repeat": "D.range(5).repeat(3).skip(4).take(6)",
    "unbatch": "D.range(6).batch(4).apply(tf.data.experimental.unbatch())",
    "captured_tensor": "D.range(3).map(lambda x: tf.cast(x, tf.float32) * w)",
    "generator": "D.from_generator(lambda: iter([[1], [2, 3], []]), tf.int32, "
                 "tf.TensorShape([None])).padded_batch(2, [None])",
}

PROGRAM = """
def run(tf, np):
    D = tf.data.Dataset
    w = tf.constant(1.5)
    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in sorted(value.items())}
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        array = value.numpy()
        listed = array.tolist()
        if array.dtype == object:
            listed = [b.decode() for b in array.reshape(-1)]
        return [value.dtype.name, value.shape.as_list(), listed]
    out = {}
    for name, source in PIPELINES.items():
        scope = {"tf": tf, "np": np, "D": D, "w": w}
        out[name] = [plain(e) for e in eval(source, scope)]
    it = tf.compat.v1.data.make_one_shot_iterator(D.range(2))
    first, second = it.get_next(), next(it)
    try:
        it.get_next()
        end = None
    except Exception as e:
        end = [type(e).__name__, str(e).split(" [Op:")[0].split("}} ")[-1]]
    out["iterator"] = [plain(first), plain(second), end]
    failing = D.from_tensor_slices([2, 1, 0, 4]).map(lambda x: 8 // x)
    got = []
    try:
        for x in failing:
            got.append(int(x))
    except Exception as e:
        got.append(type(e).__name__)
    out["failing"] = got
    return out
"""


@pytest.fixture(scope="module")
def tensorflow():
    code = "\n".join(["import json", "import numpy as np", "import tensorflow as tf",
                      "PIPELINES = %r" % (PIPELINES,), textwrap.dedent(PROGRAM),
                      "print(json.dumps(run(tf, np)))"])
    return eager_tensorflow_json(code)


@pytest.fixture
def ours(eager):
    import numpy as np
    namespace = {"PIPELINES": PIPELINES}
    exec(textwrap.dedent(PROGRAM), namespace)           # noqa: S102 - the shared program
    return json.loads(json.dumps(namespace["run"](eager, np)))


@pytest.mark.parametrize("name", sorted(PIPELINES) + ["iterator", "failing"])
def test_same_elements_as_tensorflow(tensorflow, ours, name):
    assert ours[name] == tensorflow[name]


def test_each_iteration_is_a_new_pass(eager):
    tf = eager
    shuffled = tf.data.Dataset.range(6).shuffle(6, seed=3)
    first, second = [int(x) for x in shuffled], [int(x) for x in shuffled]
    assert sorted(first) == sorted(second) == list(range(6))
    assert first != second                       # reshuffle_each_iteration, as in TF
    fixed = tf.data.Dataset.range(6).shuffle(6, seed=3, reshuffle_each_iteration=False)
    assert [int(x) for x in fixed] == [int(x) for x in fixed]
    with pytest.raises(RuntimeError, match="make_initializable_iterator is not supported "
                                           "when eager execution is enabled"):
        tf.compat.v1.data.make_initializable_iterator(fixed)


KERAS_PROGRAM = """
def run(tf, keras, np, ours):
    rng = np.random.RandomState(0)
    x = rng.rand(20, 3).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 1.5).astype(np.float32)
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.set_weights([rng.randn(3, 1).astype(np.float32) * 0.1, np.zeros(1, np.float32)])
    sgd = keras.optimizers.SGD(0.5) if ours else keras.optimizers.legacy.SGD(0.5)
    model.compile(sgd, "binary_crossentropy", metrics=["accuracy"])
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(6)      # batches 6, 6, 6, 2
    history = model.fit(data, epochs=3, verbose=0, validation_data=data).history
    out = {k.replace("accuracy", "acc"): [round(float(v), 5) for v in values]
           for k, values in sorted(history.items())}
    out["evaluate"] = [round(float(v), 5) for v in model.evaluate(data, verbose=0)]
    out["predict"] = np.round(model.predict(data.map(lambda a, b: a)), 5).ravel().tolist()
    later = model.fit(data.repeat(), epochs=2, steps_per_epoch=2, verbose=0).history
    out["continued"] = [round(float(v), 5) for v in later["loss"]]
    return out
"""


def test_keras_fit_evaluate_predict_on_a_dataset_eagerly(eager):
    # Executing eagerly TF runs Keras' v2 loop: the loss too is a mean per sample.
    import numpy as np
    code = "\n".join(["import json", "import numpy as np", "import tensorflow as tf",
                      "import tf_keras as keras", textwrap.dedent(KERAS_PROGRAM),
                      "print(json.dumps(run(tf, keras, np, False)))"])
    theirs = eager_tensorflow_json(code)
    namespace = {}
    exec(textwrap.dedent(KERAS_PROGRAM), namespace)      # noqa: S102 - the shared program
    ours = json.loads(json.dumps(namespace["run"](eager, eager.keras, np, True)))
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=2e-5)
