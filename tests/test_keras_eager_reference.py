"""tfteach.v2's Keras (executing eagerly) against tf_keras executing eagerly (TF 2.21 in
a child process): what a course prints about a model before and after training.

Where TF 1.15 and TF 2.21 differ, tfteach follows 1.15 and the test says so."""
import importlib.util
import json
import textwrap

import pytest

import eager_helpers
from tf_reference import eager_tensorflow_json

eager, tf2 = eager_helpers.eager, eager_helpers.tf2     # the fixtures the tests use

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None
    or importlib.util.find_spec("tf_keras") is None,
    reason="TensorFlow / tf_keras is not installed")


def _tensorflow(program):
    """What `program` (with `keras` and `np` given, its answer in `result`) gives on
    tf_keras, as JSON."""
    code = ("import json\nimport numpy as np\nimport tf_keras as keras\n"
            + textwrap.dedent(program) + "\nprint(json.dumps(result))")
    return eager_tensorflow_json(code)


def _ours(tf2, program):
    import numpy as np
    namespace = {"keras": tf2.keras, "np": np}
    exec(textwrap.dedent(program), namespace)     # noqa: S102 - the shared program
    return json.loads(json.dumps(namespace["result"]))


SHAPES = """
    model = keras.Sequential([keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                              keras.layers.Dense(2)])
    features = keras.Model(model.input, model.layers[0].output)
    result = {"model": [model.input_shape, model.output_shape],
              "layers": [[l.input_shape, l.output_shape] for l in model.layers],
              "names": [model.input_names, model.output_names],
              "features": [features.output_shape,
                           list(features.predict(np.ones((3, 4))).shape)]}
"""


def test_a_sequential_model_knows_its_shapes_before_it_runs(tf2):
    # It was built from shapes with no graph of Keras tensors: `output_shape` was
    # "The layer has never been called", and `model.input` had no value.
    assert _ours(tf2, SHAPES) == _tensorflow(SHAPES)


DEFERRED = """
    built = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2)])
    built.build((None, 5))
    fitted = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2)])
    fitted.compile("sgd", "mse")
    fitted.fit(np.ones((4, 6), "float32"), np.ones((4, 2), "float32"), verbose=0)
    result = [[m.input_shape, m.output_shape, m.input_names,
               [l.output_shape for l in m.layers]] for m in (built, fitted)]
"""


def test_a_sequential_model_built_later_knows_its_shapes(tf2):
    assert _ours(tf2, DEFERRED) == _tensorflow(DEFERRED)


NESTED = """
    inputs = keras.Input(shape=(12,), name="pixels")
    base = keras.Model(inputs, keras.layers.Dense(6)(inputs), name="base")
    base.trainable = False
    stack = keras.Sequential([keras.layers.Dense(5, input_shape=(12,)),
                              keras.layers.Dense(4)], name="stack")
    models = [keras.Sequential([base, keras.layers.Dense(1)], name="head"),
              keras.Sequential([stack, keras.layers.Dense(2)], name="outer")]
    result = [[m.input_names, m.input_shape, m.output_shape,
               [l.output_shape for l in m.layers], m.count_params(),
               len(m.trainable_weights)] for m in models]
"""


def test_a_model_first_in_a_sequential_gives_it_its_input_shape(tf2):
    assert _ours(tf2, NESTED) == _tensorflow(NESTED)


METRICS = """
    x = np.linspace(0, 1, 160).reshape(40, 4).astype("float32")
    def results(units, loss, metrics):
        model = keras.Sequential([keras.layers.Dense(
            units, activation="sigmoid" if units == 1 else "softmax", input_shape=(4,),
            kernel_initializer=keras.initializers.Constant(0.3))])
        model.compile("sgd", loss, metrics=metrics)
        labels = (np.arange(40) % units).astype("int32")
        target = ((x[:, :1] > .5).astype("float32") if units == 1 else labels
                  if loss.startswith("sparse") else np.eye(units)[labels].astype("float32"))
        return [model.metrics_names, model.evaluate(x, target, verbose=0)]
    result = [results(1, "mse", ["accuracy", "crossentropy", "mae"]),
              results(3, "sparse_categorical_crossentropy", ["accuracy", "ce"])]
"""


def test_metrics_are_picked_as_tf_and_named_as_tf_1_15(tf2):
    ours, theirs = _ours(tf2, METRICS), _tensorflow(METRICS)
    for (our_names, our_values), (_, their_values) in zip(ours, theirs):
        assert our_values == pytest.approx(their_values, rel=1e-5)
    # With TF 2 behaviour TF 1.15 keeps the strings given, as TF 2 does
    # (training_utils.get_metric_name's `tf2.enabled()` branch); TF 1 programs get 'acc',
    # 'ce' and the function's name (test_keras_reference.py)
    assert [names for names, _ in ours] == [
        ["loss", "accuracy", "crossentropy", "mae"], ["loss", "accuracy", "ce"]]


REGRESSION = """
    x = np.linspace(0, 1, 80).reshape(20, 4).astype("float32")
    y = x.sum(1)                                   # labels (20,) for an output (20, 1)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(4,),
                                                 kernel_initializer="ones")])
    model.compile(keras.optimizers.SGD(0.01), "mse")
    first = model.evaluate(x, y + 1, verbose=0)
    history = model.fit(x, 2 * y, epochs=2, batch_size=5, shuffle=False, verbose=0)
    binary = keras.Sequential([keras.layers.Dense(1, activation="sigmoid",
                                                  input_shape=(4,))])
    binary.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    binary.set_weights([np.full((4, 1), .5, "float32"), np.array([-1.], "float32")])
    result = [first] + history.history["loss"] + binary.evaluate(
        x, (x[:, 0] > .5).astype("float32"), verbose=0)
"""


def test_one_dimensional_labels_are_one_column_as_tf(tf2):
    # Eagerly a loss of labels (20,) and an output (20, 1) broadcast to (20, 20): the
    # mse of a perfect fit shifted by 1 was 1.67, not 1.
    ours, theirs = _ours(tf2, REGRESSION), _tensorflow(REGRESSION)
    assert ours == pytest.approx(theirs, rel=1e-5)


LEARNING_RATE = """
    x = np.linspace(0, 1, 80).reshape(20, 4).astype("float32")
    y = x.sum(1, keepdims=True)
    sgd = getattr(keras.optimizers, "legacy", keras.optimizers).SGD
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(4,),
                                                 kernel_initializer="zeros")])
    model.compile(sgd(0.01), "mse")
    keras.backend.set_value(model.optimizer.lr, 0.05)
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr / 2)
    history = model.fit(x, y, epochs=2, shuffle=False, verbose=0, callbacks=[schedule])
    result = [float(keras.backend.get_value(model.optimizer.lr))] + [
        float(v) for v in history.history["lr"]] + history.history["loss"]
"""


def test_the_learning_rate_is_a_variable_the_steps_read(tf2):
    assert _ours(tf2, LEARNING_RATE) == pytest.approx(_tensorflow(LEARNING_RATE), rel=1e-5)
