"""Differential tests: tfteach.keras against tf-keras (Keras 2, installed with TensorFlow).

tf-keras 2.21 with eager execution off runs Keras' v1 graph-mode training loop, the one
TF 1.15 ran. Same layers -> same parameter counts and output shapes; same initial
weights (copied from tf-keras) and data, shuffle=False -> the same loss per epoch for
each optimizer; HDF5 files written by either are read by the other with identical
predictions. Skipped without tensorflow / tf_keras.
"""
import re

import numpy as np
import pytest

import tfteach as tf
from tests.tf_reference import tensorflow_v1
from tolerances import assert_close

pytestmark = [pytest.mark.reference,
              pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]

RNG = np.random.RandomState(0)
X = RNG.rand(96, 12).astype(np.float32)
LABELS = (X[:, :4].sum(1) > 2).astype(int) + 2 * (X[:, 4:8].sum(1) > 2).astype(int)
Y = np.eye(4, dtype=np.float32)[LABELS]
IMAGES = RNG.rand(16, 10, 10, 2).astype(np.float32)


@pytest.fixture(scope="module")
def tk():
    tensorflow_v1()
    return pytest.importorskip("tf_keras")


def mlp(keras):
    return keras.Sequential([
        keras.layers.Dense(16, activation="relu", input_shape=(12,)),
        keras.layers.Dense(4, activation="softmax")])


def cnn(keras):
    return keras.Sequential([
        keras.layers.Conv2D(4, 3, activation="relu", padding="same",
                            input_shape=(10, 10, 2)),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(3, (2, 3), strides=(1, 2)),
        keras.layers.BatchNormalization(),
        keras.layers.AveragePooling2D(pool_size=1),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(5, activation="tanh"),
        keras.layers.Activation("softmax")])


def branchy(keras):
    inputs = keras.Input(shape=(8,))
    a = keras.layers.Dense(6, activation="relu")(inputs)
    b = keras.layers.Dense(6)(inputs)
    merged = keras.layers.Concatenate()([keras.layers.Add()([a, b]), b])
    outputs = keras.layers.Dense(3, activation="softmax")(
        keras.layers.BatchNormalization()(merged))
    return keras.Model(inputs, outputs)


def image_model(keras):
    return keras.Sequential([
        keras.layers.Conv2DTranspose(3, 3, strides=2, input_shape=(5, 5, 2)),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Reshape((3, 1)),
        keras.layers.Flatten()])


def embedding_model(keras):
    return keras.Sequential([keras.layers.Embedding(20, 4, input_length=6),
                             keras.layers.Flatten(), keras.layers.Dense(2)])


def recurrent_model(keras):
    return keras.Sequential([
        keras.layers.Embedding(20, 4, input_length=6),
        keras.layers.LSTM(5, recurrent_activation="sigmoid", return_sequences=True,
                          unroll=True),
        keras.layers.GRU(3, recurrent_activation="sigmoid", reset_after=True, unroll=True),
        keras.layers.Dense(4, activation="softmax")])


BUILDERS = [mlp, cnn, branchy, image_model, embedding_model, recurrent_model]
IDS = RNG.randint(0, 20, size=(16, 6))


def one_hot_targets(model, count):
    classes = model.layers[-1].output_shape[-1]
    return np.eye(classes, dtype=np.float32)[np.arange(count) % classes]


def data_for(builder):
    return {mlp: X, cnn: IMAGES, branchy: X[:, :8], recurrent_model: IDS}[builder]


def layout(model):
    return [(type(layer).__name__, layer.count_params(),
             tuple(tuple(s) if isinstance(s, (list, tuple)) else s
                   for s in _shape(layer.output_shape)))
            for layer in model.layers]


def _shape(shape):
    # An InputLayer's output_shape is a list of one shape in tf-keras.
    return shape[0] if isinstance(shape, list) and len(shape) == 1 else shape


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda b: b.__name__)
def test_layers_parameter_counts_and_shapes_match_tf_keras(tk, builder):
    theirs, ours = builder(tk), builder(tf.keras)
    assert layout(ours) == layout(theirs)
    assert ours.count_params() == theirs.count_params()
    assert len(ours.trainable_weights) == len(theirs.trainable_weights)
    assert [w.get_shape().as_list() for w in ours.weights] == \
        [list(w.shape) for w in theirs.weights]


def nested_models(keras):
    """A model as the first layer of a Sequential (a frozen base, a new head)."""
    inputs = keras.Input(shape=(12,), name="pixels")
    base = keras.Model(inputs, keras.layers.Dense(6)(inputs), name="base")
    base.trainable = False
    stack = keras.Sequential([keras.layers.Dense(5, input_shape=(12,)),
                              keras.layers.Dense(4)], name="stack")
    return (keras.Sequential([base, keras.layers.Dense(1)], name="head"),
            keras.Sequential([stack, keras.layers.Dense(2)], name="outer"))


def test_a_model_first_in_a_sequential_gives_it_its_input_shape(tk):
    # TF 1.15 takes the input shape of the deepest first layer (training_utils.
    # get_input_shape_and_dtype); the Sequential was left unbuilt ("never been called").
    def described(keras):
        return [(model.input_names, model.input_shape, model.output_shape,
                 [layer.output_shape for layer in model.layers], model.count_params(),
                 len(model.trainable_weights)) for model in nested_models(keras)]
    assert described(tf.keras) == described(tk)


METRIC_X = RNG.rand(40, 4).astype(np.float32)
METRIC_CASES = [   # (units, loss, metrics): as TF 1.15's training_utils picks and names them
    (1, "mse", ["accuracy", "crossentropy"]),               # one unit: the binary ones
    (1, "binary_crossentropy", ["acc", "ce", "mae", "mse"]),
    (3, "categorical_crossentropy", ["accuracy", "ce", "mae"]),
    (3, "sparse_categorical_crossentropy", ["accuracy", "crossentropy"])]


def metric_results(keras, units, loss, metrics):
    model = keras.Sequential([keras.layers.Dense(
        units, activation="sigmoid" if units == 1 else "softmax", input_shape=(4,),
        kernel_initializer=keras.initializers.Constant(0.3))])
    model.compile("sgd", loss, metrics=metrics)
    labels = (np.arange(40) % units).astype(np.int32)
    if units == 1:
        target = (METRIC_X[:, :1] > .5).astype(np.float32)
    elif loss.startswith("sparse"):
        target = labels
    else:
        target = np.eye(units, dtype=np.float32)[labels]
    return model.metrics_names, model.evaluate(METRIC_X, target, verbose=0)


@pytest.mark.parametrize("units,loss,metrics", METRIC_CASES)
def test_metrics_are_picked_and_named_as_tf_1_15(tk, units, loss, metrics):
    # 'mae' was reported as 'mae' (TF 1.15: 'mean_absolute_error', TF 2 keeps the
    # string), 'accuracy' of a one-unit output with an mse loss was the categorical one
    # (always 1.0), and 'crossentropy' / 'ce' were unknown.
    our_names, ours = metric_results(tf.keras, units, loss, metrics)
    from tensorflow.python import tf2
    was_enabled = tf2.enabled()
    tf2.disable()            # TF 1.15's naming rule: tf_keras asks tf2.enabled()
    try:
        their_names, theirs = metric_results(tk, units, loss, metrics)
    finally:
        if was_enabled:
            tf2.enable()
    assert our_names == their_names
    assert_close(ours, theirs, rtol=1e-5)


TARGET_MISTAKES = [   # (units, loss, targets)
    (3, "categorical_crossentropy", LABELS[:20] % 3),            # integer labels
    (3, "categorical_crossentropy", Y[:20]),                     # 4 classes, not 3
    (1, "mse", Y[:20, :3]), (1, "binary_crossentropy", Y[:20, :2]),
    (3, "mean_absolute_error", Y[:20, :1]),     # not checked: broadcast, as in TF
    (3, "hinge", LABELS[:20] % 3)]              # not checked: (20,) is (20, 1)


def target_outcome(keras, units, loss, targets):
    model = keras.Sequential([keras.layers.Dense(units, input_shape=(12,),
                                                 kernel_initializer="ones")])
    model.compile("sgd", loss)
    try:
        return model.evaluate(X[:20], targets, verbose=0)
    except ValueError as e:
        return str(e).replace("tf_keras.src.utils", "keras.utils")


@pytest.mark.parametrize("units,loss,targets", TARGET_MISTAKES)
def test_targets_are_checked_as_tf_1_15(tk, units, loss, targets):
    # Every target whose shape differs from the output's was refused with Keras 2.1's
    # "Error when checking target: expected dense to have shape (3,) ..."; TF 1.15 checks
    # only for mse and the crossentropies, with its own messages (the import it
    # suggests is `keras.utils`, tf_keras names itself).
    ours = target_outcome(tf.keras, units, loss, targets)
    theirs = target_outcome(tk, units, loss, targets)
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        assert_close(ours, theirs, rtol=1e-5)


def learning_rate_run(keras, sgd, tmp_path):
    """The learning rate as the callbacks and K.set_value move it, and its effect."""
    def model():
        made = keras.Sequential([keras.layers.Dense(1, input_shape=(12,),
                                                    kernel_initializer="zeros")])
        made.compile(sgd(0.01), "mse")
        return made
    target = X.sum(1, keepdims=True)
    scheduled = model()
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch: 0.02 * (epoch + 1))
    first = scheduled.fit(X, target, epochs=3, batch_size=32, shuffle=False, verbose=0,
                          callbacks=[schedule]).history
    plateau = model()
    reduce = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                               min_delta=100)
    log = str(tmp_path / ("log_%s.csv" % keras.__name__))
    second = plateau.fit(X, target, epochs=3, shuffle=False, verbose=0,
                         callbacks=[reduce, keras.callbacks.CSVLogger(log)]).history
    keras.backend.set_value(plateau.optimizer.lr, 0.)
    before = plateau.get_weights()
    plateau.train_on_batch(X, target)
    unchanged = all(np.array_equal(a, b) for a, b in zip(before, plateau.get_weights()))
    nan = model().fit(X, target * np.nan, batch_size=32, epochs=2, verbose=0,
                      callbacks=[keras.callbacks.TerminateOnNaN()]).history
    return ([float(v) for v in first["lr"]], first["loss"], [float(v) for v in second["lr"]],
            second["loss"], unchanged, open(log).read().splitlines()[0], len(nan["loss"]))


def test_learning_rate_callbacks_and_set_value_as_tf_keras(tk, tmp_path):
    # optimizer.lr was a Python float baked into the graph as a constant:
    # K.set_value(model.optimizer.lr, ...) failed ('float' object has no attribute
    # 'dtype'), and LearningRateScheduler, ReduceLROnPlateau, CSVLogger and
    # TerminateOnNaN did not exist.
    ours = learning_rate_run(tf.keras, tf.keras.optimizers.SGD, tmp_path)
    theirs = learning_rate_run(tk, tk.optimizers.legacy.SGD, tmp_path)
    assert (ours[4], ours[6]) == (theirs[4], theirs[6])
    # tf_keras 2.x adds `val_` columns for every key even without validation (for
    # validation_freq > 1); TF 1.15's CSVLogger writes the first epoch's keys
    assert ours[5] == "epoch,loss,lr"
    for our, their in zip(ours[:4], theirs[:4]):
        assert_close(our, their, rtol=1e-5)


LOSS_FUNCTIONS = ["hinge", "squared_hinge", "categorical_hinge", "logcosh", "poisson",
                  "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
                  "kullback_leibler_divergence", "mape", "msle", "kld", "cosine_similarity"]


@pytest.mark.parametrize("name", LOSS_FUNCTIONS)
@pytest.mark.parametrize("labels", ["binary", "signed"])
def test_loss_functions_compute_what_tf_keras_computes(tk, name, labels):
    # hinge took 0/1 labels as they are (TF 1.15 makes them -1/1: 0.73 for 0.8); the
    # others did not exist
    y_true = Y[:6, :3] if labels == "binary" else 2 * Y[:6, :3] - 1
    y_pred = X[:6, :3]

    def value(keras, losses):
        return keras.backend.eval(getattr(losses, name)(y_true, y_pred))
    assert_close(value(tf.keras, tf.keras.losses), value(tk, tk.losses), rtol=1e-5)
    if name in ("mape", "msle", "kld"):
        assert_close(value(tf.keras, tf.keras.metrics), value(tk, tk.metrics), rtol=1e-5)


BACKEND_EXPRESSIONS = [
    "K.sum(a, axis=0)", "K.sum(a)", "K.mean(a, axis=-1, keepdims=True)", "K.max(a, 1)",
    "K.min(a)", "K.prod(a, 0)", "K.std(a)", "K.var(a, 0)", "K.mean(K.greater(a, .5))",
    "K.argmax(a)", "K.argmin(a, 0)", "K.square(a)", "K.sqrt(a - .5)", "K.abs(a - .5)",
    "K.exp(a)", "K.log(a)", "K.pow(a, 3)", "K.clip(a, .3, .2)", "K.round(a * 4)",
    "K.sign(a - .5)", "K.dot(a, K.transpose(a))", "K.concatenate([a, a])",
    "K.stack([a, a], 1)", "K.reshape(a, (6, 2))", "K.expand_dims(a)",
    "K.batch_flatten(K.expand_dims(a))", "K.flatten(a)", "K.softmax(a)", "K.relu(a - .5)",
    "K.relu(a - .5, alpha=.1, max_value=.3)", "K.sigmoid(a)", "K.hard_sigmoid(a)",
    "K.tanh(a)", "K.softplus(a)", "K.elu(a - .5, .5)", "K.l2_normalize(a, 1)",
    "K.binary_crossentropy(K.round(a), a)",
    "K.categorical_crossentropy(K.softmax(a), a)", "K.maximum(a, .5)",
    "K.cast(a * 4, 'int32')", "K.constant([1, 2])", "K.sum(K.ones((2, 3)))", "K.ndim(a)",
    "K.dtype(a)", "K.int_shape(K.zeros((2, 5)))", "K.count_params(K.zeros((2, 5)))",
    "K.backend()"]


@pytest.mark.parametrize("expression", BACKEND_EXPRESSIONS)
def test_backend_functions_compute_what_tf_keras_computes(tk, expression):
    # K.sum, K.mean, K.sqrt, ... (what custom losses and metrics are written with) did
    # not exist
    def value(keras):
        K = keras.backend
        a = K.constant(X[:4, :3])
        result = eval(expression, {"K": K, "a": a})    # noqa: S307 - the list above
        return K.eval(result) if hasattr(result, "op") else result
    ours, theirs = value(tf.keras), value(tk)
    if isinstance(theirs, (str, tuple, int, np.integer)):
        assert ours == theirs
    else:
        assert_close(np.asarray(ours), np.asarray(theirs), rtol=1e-5)


def test_weight_names_are_keras_names(tk):
    ours = cnn(tf.keras)
    assert [w.name for w in ours.weights[:2]] == ["conv2d/kernel:0", "conv2d/bias:0"]
    names = [w.name for w in ours.layers[3].weights]
    assert names == ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                     "batch_normalization/moving_mean:0",
                     "batch_normalization/moving_variance:0"]


def test_summary_text_has_tf_1_15_layout_with_tf_keras_numbers(tk):
    theirs = cnn(tk)
    lines = []
    cnn(tf.keras).summary(print_fn=lines.append)
    counts = [layer.count_params() for layer in theirs.layers]
    shapes = [str(layer.output_shape) for layer in theirs.layers]
    names = ["conv2d (Conv2D)", "max_pooling2d (MaxPooling2D)", "conv2d_1 (Conv2D)",
             "batch_normalization (BatchNormalization)",
             "average_pooling2d (AveragePooling2D)", "flatten (Flatten)",
             "dropout (Dropout)", "dense (Dense)", "activation (Activation)"]
    expected = ['Model: "sequential"', "_" * 65,
                "Layer (type)                 Output Shape              Param #   ",
                "=" * 65]
    for index, (name, shape, count) in enumerate(zip(names, shapes, counts)):
        row = name[:28].ljust(29) + shape.ljust(26) + str(count)
        expected.append(row.ljust(65))
        expected.append(("=" if index == len(names) - 1 else "_") * 65)
    trainable = sum(int(np.prod(w.shape)) for w in theirs.trainable_weights)
    total = theirs.count_params()
    expected += ["Total params: {:,}".format(total),
                 "Trainable params: {:,}".format(trainable),
                 "Non-trainable params: {:,}".format(total - trainable), "_" * 65]
    assert lines == expected


def test_functional_summary_lists_connections(tk):
    lines = []
    branchy(tf.keras).summary(print_fn=lines.append)
    assert lines[2] == ("Layer (type)                    Output Shape         Param #     "
                        "Connected to                     ")
    assert lines[4].startswith("input_1 (InputLayer)            [(None, 8)]          0")
    add_row = [i for i, line in enumerate(lines) if line.startswith("add (Add)")][0]
    assert lines[add_row].rstrip().endswith("dense[0][0]")
    assert lines[add_row + 1].strip() == "dense_1[0][0]"
    theirs = branchy(tk)
    trainable = sum(int(np.prod(w.shape)) for w in theirs.trainable_weights)
    assert lines[-4:-1] == ["Total params: {:,}".format(theirs.count_params()),
                            "Trainable params: {:,}".format(trainable),
                            "Non-trainable params: {:,}".format(theirs.count_params()
                                                                 - trainable)]


def copy_weights(theirs, ours):
    """Both models get the same weights, drawn here from a fixed seed. tf-keras'
    initializers draw from TensorFlow's process-wide random state, which the tests run
    before move, so a test would otherwise train other weights in CI than alone, and
    Adam and RMSprop turn the last-bit differences between two libraries into whole
    steps where a gradient is ~0: whether it passed would depend on the test order. The
    constant weights (biases, BatchNormalization's) are kept as initialized."""
    rng = np.random.RandomState(7)
    weights = []
    for w in theirs.get_weights():
        if w.ndim >= 2 and np.ptp(w) > 0:          # a kernel: Glorot-uniform's range
            limit = np.sqrt(6.0 / (np.prod(w.shape[:-1]) + w.shape[-1]))
            w = rng.uniform(-limit, limit, w.shape).astype(w.dtype)
        weights.append(w)
    theirs.set_weights(weights)
    ours.set_weights(weights)


@pytest.mark.parametrize("optimizer", [
    ("SGD", dict(learning_rate=0.1)),
    ("SGD", dict(learning_rate=0.05, momentum=0.9)),
    ("SGD", dict(learning_rate=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(learning_rate=0.01)),
    ("RMSprop", dict(learning_rate=0.01)),
    ("Adagrad", dict(learning_rate=0.1)),
], ids=lambda o: o[0] + "-" + "-".join(map(str, o[1].values())))
def test_training_curve_matches_tf_keras_from_the_same_weights(tk, optimizer):
    name, options = optimizer
    theirs, ours = mlp(tk), mlp(tf.keras)
    copy_weights(theirs, ours)
    # tf-keras' RMSprop/Adagrad follow TF 1.15's kernels only through their v1 classes.
    their_optimizer = getattr(tk.optimizers.legacy, name)(**options)
    theirs.compile(optimizer=their_optimizer, loss="categorical_crossentropy",
                   metrics=["accuracy"])
    ours.compile(optimizer=getattr(tf.keras.optimizers, name)(**options),
                 loss="categorical_crossentropy", metrics=["accuracy"])
    h1 = theirs.fit(X, Y, batch_size=16, epochs=4, shuffle=False, verbose=0,
                    validation_split=0.25)
    h2 = ours.fit(X, Y, batch_size=16, epochs=4, shuffle=False, verbose=0,
                  validation_split=0.25)
    assert_close(h2.history["loss"], h1.history["loss"], rtol=2e-4)
    assert_close(h2.history["val_loss"], h1.history["val_loss"], rtol=2e-4)
    their_acc = h1.history.get("acc", h1.history.get("accuracy"))
    assert_close(h2.history["acc"], their_acc, rtol=1e-6)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        assert_close(a, b, rtol=1e-3)


def test_batch_norm_and_dropout_train_like_tf_keras(tk):
    def build(keras):
        return keras.Sequential([
            keras.layers.Conv2D(3, 3, input_shape=(10, 10, 2)),
            keras.layers.BatchNormalization(),
            keras.layers.Flatten(), keras.layers.Dense(4, activation="softmax")])
    theirs, ours = build(tk), build(tf.keras)
    copy_weights(theirs, ours)
    targets = Y[:16]
    for model in (theirs, ours):
        model.compile(optimizer="sgd", loss="categorical_crossentropy")
    h1 = theirs.fit(IMAGES, targets, batch_size=8, epochs=3, shuffle=False, verbose=0)
    h2 = ours.fit(IMAGES, targets, batch_size=8, epochs=3, shuffle=False, verbose=0)
    assert_close(h2.history["loss"], h1.history["loss"], rtol=2e-4)
    # moving statistics (Bessel-corrected, momentum 0.99) and inference outputs agree;
    # the convolution's bias gets a gradient of ~0 (BatchNormalization subtracts it
    # again), so weights are compared at the scale of the weights (|w| ~ 0.1 .. 1).
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        assert_close(a, b, rtol=1e-4, scale=1.0)
    assert_close(ours.predict(IMAGES), theirs.predict(IMAGES), rtol=1e-4)
    assert_close(ours.evaluate(IMAGES, targets, verbose=0),
                 theirs.evaluate(IMAGES, targets, verbose=0), rtol=1e-4)


@pytest.mark.parametrize("loss,target", [
    ("sparse_categorical_crossentropy", LABELS),
    ("mean_squared_error", Y),
    ("binary_crossentropy", Y),
    ("mae", Y)])
def test_losses_match_tf_keras(tk, loss, target):
    # (binary cross-entropy on a sigmoid output: tf-keras 2.21 would feed a softmax's
    # logits to a sigmoid cross-entropy, which neither TF 1.15 nor the maths does)
    activation = "sigmoid" if loss == "binary_crossentropy" else "softmax"

    def build(keras):
        return keras.Sequential([
            keras.layers.Dense(16, activation="relu", input_shape=(12,)),
            keras.layers.Dense(4, activation=activation)])
    theirs, ours = build(tk), build(tf.keras)
    copy_weights(theirs, ours)
    theirs.compile(optimizer="sgd", loss=loss)
    ours.compile(optimizer="sgd", loss=loss)
    assert_close(ours.evaluate(X, target, verbose=0), theirs.evaluate(X, target, verbose=0),
                 rtol=1e-5)


@pytest.mark.parametrize("builder", [mlp, cnn, branchy, recurrent_model],
                         ids=lambda b: b.__name__)
def test_hdf5_files_written_by_tfteach_are_read_by_tf_keras(tk, builder, tmp_path):
    ours = builder(tf.keras)
    ours.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    data = data_for(builder)
    ours.fit(data, one_hot_targets(ours, len(data)), epochs=1, verbose=0)
    ours.save(str(tmp_path / "model.h5"))
    ours.save_weights(str(tmp_path / "weights.h5"))
    expected = ours.predict(data)
    loaded = tk.models.load_model(str(tmp_path / "model.h5"))
    assert_close(loaded.predict(data), expected, rtol=1e-5)
    # the optimizer's state (step, every m, every v) goes across too
    their_state = loaded.optimizer.get_weights()
    assert len(their_state) == len(ours.optimizer.weights) > 1
    for a, b in zip(their_state, ours.optimizer.get_weights()):
        assert_close(a, b, rtol=1e-6)
    fresh = builder(tk)
    fresh.load_weights(str(tmp_path / "weights.h5"))
    assert_close(fresh.predict(data), expected, rtol=1e-5)


@pytest.mark.parametrize("builder", [mlp, cnn, branchy, recurrent_model],
                         ids=lambda b: b.__name__)
def test_hdf5_files_written_by_tf_keras_are_read_by_tfteach(tk, builder, tmp_path):
    theirs = builder(tk)
    theirs.compile(optimizer=tk.optimizers.legacy.Adam(),
                   loss="categorical_crossentropy", metrics=["accuracy"])
    data = data_for(builder)
    theirs.fit(data, one_hot_targets(theirs, len(data)), epochs=1, verbose=0)
    theirs.save(str(tmp_path / "model.h5"))
    theirs.save_weights(str(tmp_path / "weights.h5"))
    expected = theirs.predict(data)
    loaded = tf.keras.models.load_model(str(tmp_path / "model.h5"))
    assert [type(l).__name__ for l in loaded.layers] == \
        [type(l).__name__ for l in theirs.layers]
    assert_close(loaded.predict(data), expected, rtol=1e-5)
    assert isinstance(loaded.optimizer, tf.keras.optimizers.Adam)
    for a, b in zip(loaded.optimizer.get_weights(), theirs.optimizer.get_weights()):
        assert_close(a, b, rtol=1e-6)
    assert len(loaded.optimizer.weights) == len(theirs.optimizer.weights)
    fresh = builder(tf.keras)
    fresh.load_weights(str(tmp_path / "weights.h5"))
    assert_close(fresh.predict(data), expected, rtol=1e-5)


SEQUENCES = RNG.randn(5, 7, 3).astype(np.float32)


@pytest.mark.parametrize("layer,options", [
    ("SimpleRNN", {}),
    ("SimpleRNN", dict(return_sequences=True, go_backwards=True)),
    ("LSTM", dict(recurrent_activation="sigmoid")),
    ("LSTM", dict(recurrent_activation="sigmoid", return_sequences=True)),
    ("GRU", dict(recurrent_activation="sigmoid", reset_after=False)),
    ("GRU", dict(recurrent_activation="sigmoid", reset_after=True)),
], ids=lambda v: v if isinstance(v, str) else "-".join("%s=%s" % kv for kv in v.items()))
def test_recurrent_layers_compute_what_tf_keras_computes(tk, layer, options):
    # (recurrent_activation is given: TF 1.15's default 'hard_sigmoid' is 0.2x+0.5,
    #  tf-keras 2.21's is x/6+0.5; both clip to [0, 1])
    def build(keras):
        # unroll=True: tf-keras' while-loop gradient fails in TF 2.21's graph mode;
        # tfteach always unrolls.
        return keras.Sequential([getattr(keras.layers, layer)(4, input_shape=(7, 3),
                                                              unroll=True, **options),
                                 keras.layers.Dense(2)])
    theirs, ours = build(tk), build(tf.keras)
    def names(model):   # tf-keras numbers layers per process, tfteach per graph
        return [re.sub(r"_\d+/", "/", w.name) for w in model.weights]
    assert names(ours) == names(theirs)
    assert layout(ours) == layout(theirs)
    copy_weights(theirs, ours)
    assert_close(ours.predict(SEQUENCES), theirs.predict(SEQUENCES), rtol=1e-5)
    targets = RNG.randn(5, 7, 2).astype(np.float32) if options.get("return_sequences") \
        else RNG.randn(5, 2).astype(np.float32)
    for model in (theirs, ours):
        model.compile(optimizer=tk.optimizers.legacy.SGD(0.1) if model is theirs
                      else tf.keras.optimizers.SGD(0.1), loss="mse")
    h1 = theirs.fit(SEQUENCES, targets, epochs=3, verbose=0, shuffle=False)
    h2 = ours.fit(SEQUENCES, targets, epochs=3, verbose=0, shuffle=False)
    assert_close(h2.history["loss"], h1.history["loss"], rtol=1e-4)


def test_lstm_defaults_are_tf_1_15s():
    layer = tf.keras.layers.LSTM(3)
    model = tf.keras.Sequential([layer])
    model.build((None, 2, 4))
    bias = tf.keras.backend.get_value(layer.cell.bias)
    assert (bias == np.r_[np.zeros(3), np.ones(3), np.zeros(6)]).all()   # forget gate 1
    recurrent = tf.keras.backend.get_value(layer.cell.recurrent_kernel)    # orthogonal
    assert_close(recurrent @ recurrent.T, np.eye(3), rtol=1e-5, scale=1.0)
    assert layer.get_config()["recurrent_activation"] == "hard_sigmoid"
    x = np.linspace(-4, 4, 9).astype(np.float32)
    with tf.Session() as sess:
        hard = sess.run(tf.keras.layers.recurrent.hard_sigmoid(tf.constant(x)))
    assert_close(hard, np.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)


@pytest.mark.parametrize("layer,args", [
    ("Dense", (3,)), ("Conv2D", (2, 3)), ("Conv2DTranspose", (2, 3)), ("SimpleRNN", (2,)),
    ("LSTM", (2,)), ("GRU", (2,)), ("BatchNormalization", ()), ("Embedding", (10, 3))])
def test_weight_option_keys_are_tf_keras_keys_in_its_order(tk, layer, args):
    def option_keys(keras):
        config = getattr(keras.layers, layer)(
            *args, activity_regularizer=keras.regularizers.l1(0.25)).get_config()
        return [k for k in config if k.endswith(("_initializer", "_regularizer",
                                                 "_constraint"))]
    assert option_keys(tf.keras) == option_keys(tk)


def test_embedding_config_has_its_activity_regularizer_as_tf_keras(tk):
    def activity(keras):
        layer = keras.layers.Embedding(10, 3,
                                       activity_regularizer=keras.regularizers.l1(0.25))
        entry = layer.get_config()["activity_regularizer"]
        return entry["class_name"], entry["config"]["l1"]
    theirs, ours = activity(tk), activity(tf.keras)
    assert ours[0] == "L1L2" and theirs[0] in ("L1", "L1L2")   # tf-keras 2.21 has L1
    assert_close(ours[1], theirs[1], rtol=1e-6)


@pytest.mark.parametrize("name", ["l1", "l2", "l1_l2"])
def test_regularizers_by_name_penalize_as_tf_keras(tk, name):
    # TF 1.15 makes 'l2' an L1L2(l2=0.01), tf-keras 2.21 an L2(0.01): the same penalty
    weights = RNG.randn(3, 4).astype(np.float32)
    bias = RNG.randn(4).astype(np.float32)

    def penalties(keras):
        model = keras.Sequential([keras.layers.Dense(
            4, input_shape=(3,), kernel_regularizer=name, bias_regularizer=name,
            kernel_initializer=keras.initializers.Constant(weights),
            bias_initializer=keras.initializers.Constant(bias))])
        return keras.backend.batch_get_value(model.losses)
    assert_close(penalties(tf.keras), penalties(tk), rtol=1e-6)


def _dataset_run(keras, data_module, ours):
    """fit/evaluate/predict on a tf.data Dataset whose last batch is short (96 = 5 x 18 +
    6), so TF 1.15's step-counting loop (the loss a mean over batches, the metrics per
    sample) shows; then steps_per_epoch on a repeated dataset (an epoch continues where
    the previous stopped)."""
    model = mlp(keras)
    model.set_weights(copy_weights_values(model))
    optimizer = (keras.optimizers.SGD(learning_rate=0.1) if ours else
                 keras.optimizers.legacy.SGD(learning_rate=0.1))
    model.compile(optimizer=optimizer, loss="categorical_crossentropy",
                  metrics=["accuracy"])
    data = data_module.Dataset.from_tensor_slices((X, Y)).batch(18)
    history = model.fit(data, epochs=3, verbose=0, validation_data=data).history
    evaluated = model.evaluate(data, verbose=0)
    predicted = model.predict(data.map(lambda x, y: x))
    continued = model.fit(data.repeat(), epochs=3, steps_per_epoch=4, verbose=0).history
    accuracy = history.get("acc", history.get("accuracy"))
    return [history["loss"], history["val_loss"], accuracy, evaluated, predicted,
            continued["loss"], model.get_weights()]


def copy_weights_values(model):
    rng = np.random.RandomState(7)
    return [rng.uniform(-0.3, 0.3, w.shape).astype(w.dtype) if w.ndim >= 2 else w
            for w in model.get_weights()]


def test_fit_evaluate_predict_on_a_dataset_as_tf_keras(tk):
    tf1 = tensorflow_v1()
    theirs = _dataset_run(tk, tf1.data, ours=False)
    ours = _dataset_run(tf.keras, tf.data, ours=True)
    for a, b in zip(ours[:6], theirs[:6]):
        assert_close(a, b, rtol=2e-4)
    for a, b in zip(ours[6], theirs[6]):
        assert_close(a, b, rtol=1e-3)


def test_fit_generator_loss_is_per_sample_as_tf_keras(tk):
    # Batches of 16, 16 and 4: over a generator the v1 loop reports the epoch's loss per
    # sample (over a Dataset, the mean of the batches' losses: the test above), and its
    # accuracy per sample.
    def batches():
        while True:
            for start, end in ((0, 16), (16, 32), (32, 36)):
                yield X[start:end], Y[start:end]
    histories = []
    for keras, ours in ((tk, False), (tf.keras, True)):
        model = mlp(keras)
        model.set_weights(copy_weights_values(model))
        sgd = keras.optimizers.SGD(learning_rate=0.1) if ours else \
            keras.optimizers.legacy.SGD(learning_rate=0.1)
        model.compile(optimizer=sgd, loss="categorical_crossentropy", metrics=["accuracy"])
        history = model.fit_generator(batches(), steps_per_epoch=3, epochs=3,
                                      verbose=0).history
        histories.append((history["loss"], history.get("acc", history.get("accuracy"))))
    (their_loss, their_acc), (our_loss, our_acc) = histories
    assert_close(our_loss, their_loss, rtol=2e-4)
    assert_close(our_acc, their_acc, rtol=1e-6)


def test_history_params_are_tf_keras_v1_loops(tk):
    def params(keras, **fit):
        model = mlp(keras)
        model.compile("sgd", "categorical_crossentropy", metrics=["accuracy"])
        found = dict(model.fit(X, Y, epochs=2, verbose=0, **fit).params)
        found["metrics"] = [m.replace("accuracy", "acc") for m in found["metrics"]]
        return found
    for fit in (dict(batch_size=16, validation_split=0.25), dict()):
        assert params(tf.keras, **fit) == params(tk, **fit)


@pytest.mark.parametrize("layer,args", [
    ("Conv2D", (2, 3)), ("Conv2DTranspose", (2, (3, 2))), ("MaxPooling2D", ()),
    ("AveragePooling2D", ((3, 1),)), ("Reshape", ((2, 4),))])
def test_shape_options_in_configs_are_tuples_as_tf_keras(tk, layer, args):
    def shaped(keras):
        config = getattr(keras.layers, layer)(*args).get_config()
        return {k: v for k, v in config.items() if isinstance(v, (list, tuple))}
    assert shaped(tf.keras) == shaped(tk) and shaped(tf.keras)
