"""tfteach.keras on its own: TF1 graphs and Sessions, errors as Keras raises them,
callbacks, the progress bar's text, HDF5 round trips, the `keras` import helper, data
helpers. (Comparisons with tf-keras are in test_keras_reference.py.)"""
import importlib.util
import re

import numpy as np
import pytest

import tfteach as tf
from tolerances import assert_close

keras = tf.keras
RNG = np.random.RandomState(1)
X = RNG.rand(64, 6).astype(np.float32)
W_TRUE = RNG.randn(6, 1).astype(np.float32)
Y = X @ W_TRUE + 0.5


def regression_model():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(6,))])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    return model


def test_a_keras_layer_on_a_placeholder_is_plain_graph_nodes():
    x = tf.placeholder(tf.float32, [None, 6])
    y = keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros")(x)
    assert y.op.type == "BiasAdd" and y.name == "dense/BiasAdd:0"
    assert [v.name for v in tf.trainable_variables()] == ["dense/kernel:0", "dense/bias:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert_close(sess.run(y, {x: X}), np.repeat(X.sum(1, keepdims=True), 3, 1),
                     rtol=1e-6)


def test_set_session_makes_keras_use_the_students_session():
    model = regression_model()
    sess = tf.Session()
    keras.backend.set_session(sess)
    model.fit(X, Y, epochs=2, verbose=0)
    assert keras.backend.get_session() is sess
    # the student's session holds the trained weights
    kernel = sess.run(model.layers[0].kernel)
    assert_close(kernel, model.get_weights()[0], rtol=0)
    keras.backend.clear_session()
    assert keras.backend.get_session() is not sess


def test_get_session_never_resets_trained_variables():
    model = regression_model()
    model.fit(X, Y, epochs=3, verbose=0)
    before = model.get_weights()
    keras.layers.Dense(2)(tf.placeholder(tf.float32, [None, 2]))   # a new variable
    keras.backend.get_session()
    for a, b in zip(model.get_weights(), before):
        assert_close(a, b, rtol=0)


def test_fit_learns_a_linear_map_and_predict_evaluate_agree():
    model = regression_model()
    history = model.fit(X, Y, batch_size=8, epochs=60, verbose=0)
    assert history.history["loss"][-1] < 0.01 < history.history["loss"][0]
    predictions = model.predict(X)
    assert predictions.shape == (64, 1)
    assert_close(model.evaluate(X, Y, verbose=0), np.mean((predictions - Y) ** 2),
                 rtol=1e-5)


def test_subclassed_model_tracks_its_layers_and_trains():
    class TwoLayers(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="relu")
            self.out = keras.layers.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    model = TwoLayers()
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(X, Y, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert len(model.trainable_weights) == 4
    assert model.count_params() == 6 * 8 + 8 + 8 + 1
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[4].split() == ["dense", "(Dense)", "multiple", "56"]


def test_sequential_without_input_shape_is_built_by_fit():
    model = keras.Sequential([keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="isn't built"):
        model.layers[0].count_params()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y, epochs=1, verbose=0)
    assert model.layers[0].count_params() == 28
    assert model.inputs[0].get_shape().as_list() == [None, 6]


def test_wrong_input_shape_is_keras_value_error():
    model = regression_model()
    with pytest.raises(ValueError, match=re.escape(
            "Error when checking input: expected dense_input to have shape (6,) but got "
            "array with shape (5,)")):
        model.fit(X[:, :5], Y, verbose=0)
    with pytest.raises(ValueError, match=re.escape(
            "Error when checking input: expected dense_input to have 2 dimensions, but "
            "got array with shape (64,)")):
        model.predict(X[:, 0])
    with pytest.raises(ValueError, match="Found 64 input samples and 10 target samples"):
        model.fit(X, Y[:10], verbose=0)


def test_unknown_names_are_keras_value_errors():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(6,))])
    with pytest.raises(ValueError, match="Unknown loss function:not_a_loss"):
        model.compile(optimizer="sgd", loss="not_a_loss")
    with pytest.raises(ValueError, match="Unknown optimizer:nadamax"):
        model.compile(optimizer="nadamax", loss="mse")
    with pytest.raises(ValueError, match="Unknown activation function:swoosh"):
        keras.layers.Dense(2, activation="swoosh")
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        keras.layers.Dense(2, unit=3)


def test_fit_before_compile_is_an_error():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(6,))])
    with pytest.raises(RuntimeError, match="You must compile your model"):
        model.fit(X, Y, verbose=0)


def test_dense_rejects_a_rank_1_input():
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        keras.layers.Dense(2)(tf.placeholder(tf.float32, [5]))


def test_early_stopping_stops_when_the_monitored_value_stops_improving():
    model = regression_model()
    stopper = keras.callbacks.EarlyStopping(monitor="loss", patience=2, min_delta=10.)
    history = model.fit(X, Y, epochs=20, verbose=0, callbacks=[stopper])
    # no epoch improves the loss by 10: epoch 1 sets the best, two more wait, stop
    assert len(history.history["loss"]) == 3
    assert stopper.stopped_epoch == 2


def test_model_checkpoint_saves_the_best_model(tmp_path):
    model = regression_model()
    path = str(tmp_path / "best-{epoch:02d}.h5")
    checkpoint = keras.callbacks.ModelCheckpoint(path, monitor="val_loss",
                                                 save_best_only=True)
    model.fit(X, Y, epochs=3, verbose=0, validation_split=0.25, callbacks=[checkpoint])
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved and all(re.fullmatch(r"best-0[123]\.h5", n) for n in saved)
    restored = keras.models.load_model(str(tmp_path / saved[-1]))
    assert_close(restored.predict(X), model.predict(X), rtol=1e-6) if \
        saved[-1] == "best-03.h5" else None


def test_callbacks_see_batches_and_epoch_logs_with_validation():
    seen = []

    class Recorder(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append(("batch", batch, logs["size"]))

        def on_epoch_end(self, epoch, logs=None):
            seen.append(("epoch", epoch, sorted(logs)))

    model = regression_model()
    model.fit(X, Y, batch_size=20, epochs=1, verbose=0, validation_data=(X[:8], Y[:8]),
              callbacks=[Recorder()])
    assert seen == [("batch", 0, 20), ("batch", 1, 20), ("batch", 2, 20),
                    ("batch", 3, 4), ("epoch", 0, ["loss", "val_loss"])]


def test_progress_bar_prints_tf_1_15_lines(capsys):
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax",
                                                 input_shape=(6,))])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    labels = (X[:, 0] > 0.5).astype(int)
    history = model.fit(X, labels, batch_size=16, epochs=2, verbose=2,
                        validation_split=0.25)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Train on 48 samples, validate on 16 samples"
    assert lines[1] == "Epoch 1/2"
    assert re.fullmatch(r"48/48 - \d+s - loss: \d\.\d{4} - acc: \d\.\d{4} - val_loss: "
                        r"\d\.\d{4} - val_acc: \d\.\d{4}", lines[2]), lines[2]
    assert lines[3] == "Epoch 2/2"
    assert float(lines[4].split("val_acc: ")[1]) == pytest.approx(
        history.history["val_acc"][1], abs=1e-4)
    model.fit(X, labels, batch_size=64, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert re.search(r"64/64 \[={30}\] - \d+s \d+[mu]?s/sample - loss: \d\.\d{4} - "
                     r"acc: \d\.\d{4}\n", out), out


def test_history_metric_is_the_epoch_mean():
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax",
                                                 input_shape=(6,))])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss=
                  "sparse_categorical_crossentropy", metrics=["accuracy"])
    labels = (X[:, 0] > 0.5).astype(int)
    history = model.fit(X, labels, batch_size=10, epochs=1, verbose=0, shuffle=False)
    probabilities = model.predict(X)
    accuracy = np.mean(probabilities.argmax(1) == labels)
    loss = np.mean(-np.log(probabilities[np.arange(64), labels]))
    assert history.history["acc"][0] == pytest.approx(accuracy, abs=1e-6)
    assert history.history["loss"][0] == pytest.approx(loss, rel=1e-5)


def test_dropout_only_while_training():
    inputs = keras.Input(shape=(1000,))
    outputs = keras.layers.Dropout(0.5)(inputs)
    model = keras.Model(inputs, outputs)
    ones = np.ones((2, 1000), np.float32)
    assert_close(model.predict(ones), ones, rtol=0)
    sess = keras.backend.get_session()
    trained = sess.run(outputs, {inputs: ones, keras.backend.learning_phase(): True})
    assert set(np.unique(trained)) == {0.0, 2.0}
    assert 0.4 < np.mean(trained == 0) < 0.6


def test_functional_model_called_on_new_input_shares_weights():
    inputs = keras.Input(shape=(6,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    other = tf.placeholder(tf.float32, [None, 6])
    outputs = model(other)
    sess = keras.backend.get_session()
    assert_close(sess.run(outputs, {other: X}), model.predict(X), rtol=1e-6)
    assert len(tf.trainable_variables()) == 2


def test_save_and_load_round_trip(tmp_path):
    model = regression_model()
    model.fit(X, Y, epochs=2, verbose=0)
    model.save(str(tmp_path / "m.h5"))
    restored = keras.models.load_model(str(tmp_path / "m.h5"))
    assert_close(restored.predict(X), model.predict(X), rtol=1e-6)
    assert isinstance(restored.optimizer, keras.optimizers.SGD)
    assert restored.optimizer.learning_rate == pytest.approx(0.1)
    restored.fit(X, Y, epochs=1, verbose=0)         # compiled again: it can train
    other = regression_model()
    with pytest.raises(ValueError, match="weight file containing 1 layers into a model "
                                         "with 2 layers"):
        two = keras.Sequential([keras.layers.Dense(2, input_shape=(6,)),
                                keras.layers.Dense(1)])
        model.save_weights(str(tmp_path / "w.h5"))
        two.load_weights(str(tmp_path / "w.h5"))
    other.load_weights(str(tmp_path / "w.h5"))
    assert_close(other.predict(X), model.predict(X), rtol=1e-6)


def test_install_as_keras_refuses_to_shadow_a_real_keras(monkeypatch):
    if importlib.util.find_spec("keras") is not None:
        with pytest.raises(ImportError, match="will not shadow it"):
            keras.install_as_keras()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.delitem(__import__("sys").modules, "keras", raising=False)
    for name in keras._SUBMODULES:
        monkeypatch.delitem(__import__("sys").modules, "keras." + name, raising=False)
    module = keras.install_as_keras()
    from keras.models import Sequential          # note 000's spelling
    from keras.layers import Dense
    assert module is keras and Sequential is keras.Sequential and \
        Dense is keras.layers.Dense


def test_to_categorical():
    assert_close(keras.utils.to_categorical([0, 2, 1], 3),
                 np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0]], np.float32), rtol=0)
    assert keras.utils.to_categorical(np.array([[1], [3]])).shape == (2, 4)


def test_mnist_load_data_splits_the_shared_test_set():
    from tfteach.datasets import mnist as files
    if "t10k" not in files.available():
        pytest.skip("MNIST not in $TFTEACH_DATA")
    with pytest.warns(UserWarning, match="test set"):
        (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
    assert x_train.shape == (8000, 28, 28) and x_test.shape == (2000, 28, 28)
    assert x_train.dtype == np.uint8 and y_test.dtype == np.uint8
    images, labels = files.load("t10k")
    assert (x_test == images[8000:]).all() and (y_train == labels[:8000]).all()


def test_other_datasets_say_they_cannot_be_downloaded():
    with pytest.raises(RuntimeError, match="does not download"):
        keras.datasets.cifar10.load_data()


def test_image_data_generator_flip_and_shift_move_pixels():
    image = np.zeros((1, 5, 5, 1), np.float32)
    image[0, 1, 0, 0] = 1.
    flipper = keras.preprocessing.image.ImageDataGenerator(horizontal_flip=True)
    flips = {tuple(np.argwhere(flipper.random_transform(image[0], seed=s)[..., 0])[0])
             for s in range(20)}
    assert flips == {(1, 0), (1, 4)}
    # a centred dot shifted along columns only: its centre of mass moves in x, not y
    image[0, 1, 0, 0], image[0, 2, 2, 0] = 0., 1.
    shifter = keras.preprocessing.image.ImageDataGenerator(width_shift_range=1.,
                                                           fill_mode="constant")
    centres = set()
    for seed in range(30):
        out = shifter.random_transform(image[0], seed=seed)[..., 0]
        rows, cols = np.indices(out.shape)
        assert_close(out.sum(), 1., rtol=1e-6)
        assert_close((rows * out).sum(), 2., rtol=1e-6)
        centres.add(round(float((cols * out).sum()), 3))
    assert len(centres) > 20 and min(centres) >= 1. and max(centres) <= 3.
    rotated = keras.preprocessing.image.ImageDataGenerator(rotation_range=30)
    batch_x, batch_y = next(rotated.flow(np.repeat(image, 4, 0), np.arange(4),
                                         batch_size=3, seed=0))
    assert batch_x.shape == (3, 5, 5, 1) and sorted(batch_y) == sorted(set(batch_y))


def test_fit_generator_trains_on_augmented_batches(capsys):
    images = RNG.rand(40, 6, 6, 1).astype(np.float32)
    labels = keras.utils.to_categorical((images.mean((1, 2, 3)) > 0.5).astype(int), 2)
    model = keras.Sequential([keras.layers.Conv2D(2, 3, input_shape=(6, 6, 1)),
                              keras.layers.Flatten(),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["acc"])
    generator = keras.preprocessing.image.ImageDataGenerator(
        rotation_range=30, width_shift_range=0.1, height_shift_range=0.1,
        horizontal_flip=True)
    history = model.fit_generator(generator.flow(images, labels, batch_size=16, seed=0),
                                  epochs=2, validation_data=(images, labels), workers=4,
                                  verbose=1)
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    out = capsys.readouterr().out
    assert re.search(r"3/3 \[={30}\] - \d+s \d+m?s/step - loss: ", out), out


def test_a_loss_object_with_logits_and_integer_labels():
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(6,))])
    model.compile(optimizer="sgd", metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    labels = (X[:, :3].argmax(1)).astype(np.int32)
    loss, accuracy = model.evaluate(X, labels, verbose=0)
    logits = model.predict(X)
    shifted = logits - logits.max(1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    assert loss == pytest.approx(-log_softmax[np.arange(64), labels].mean(), rel=1e-5)
    assert accuracy == pytest.approx(np.mean(logits.argmax(1) == labels), abs=1e-6)


def test_train_on_batch_initializes_the_optimizer_and_trains():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(6,))])
    model.compile(optimizer="adam", loss="mse")
    losses = [model.train_on_batch(X, Y) for _ in range(5)]
    assert losses[-1] < losses[0]
    assert model.test_on_batch(X, Y) == pytest.approx(
        float(np.mean((model.predict(X) - Y) ** 2)), rel=1e-5)


def test_a_keras_model_trained_by_a_tf_train_optimizer_in_a_tf1_session():
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.float32, [None, 1])
    model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(6,)),
                              keras.layers.Dropout(0.5), keras.layers.Dense(1)])
    prediction = model(x)
    loss = tf.reduce_mean(tf.square(prediction - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    phase = keras.backend.learning_phase()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: X, y: Y})
        for _ in range(50):
            sess.run(train, {x: X, y: Y, phase: True})       # dropout on while training
        assert sess.run(loss, {x: X, y: Y}) < first
        # without the learning phase fed, dropout is off: two runs agree
        assert_close(sess.run(prediction, {x: X}), sess.run(prediction, {x: X}), rtol=0)
        with pytest.raises(AssertionError):
            assert_close(sess.run(prediction, {x: X, phase: True}),
                         sess.run(prediction, {x: X}), rtol=1e-3)


def test_get_file_downloads_once_into_the_cache_and_fails_clearly_offline(tmp_path):
    source = tmp_path / "nietzsche.txt"
    source.write_text("supposing that truth is a woman")
    cache = tmp_path / "cache"
    path = keras.utils.get_file("nietzsche.txt", origin=source.as_uri(),
                                cache_dir=str(cache))
    assert path == str(cache / "datasets" / "nietzsche.txt")
    assert open(path).read() == "supposing that truth is a woman"
    source.unlink()                                    # a cached file is not fetched again
    assert keras.utils.get_file("nietzsche.txt", origin=source.as_uri(),
                                cache_dir=str(cache)) == path
    with pytest.raises(Exception, match="URL fetch failure on .*missing.txt.*by hand"):
        keras.utils.get_file("missing.txt", origin=(tmp_path / "missing.txt").as_uri(),
                             cache_dir=str(cache))
    assert not (cache / "datasets" / "missing.txt").exists()


@pytest.mark.parametrize("optimizer", ["adam", "rmsprop", "adagrad", "sgd-momentum"])
def test_a_loaded_model_goes_on_training_where_it_stopped(tmp_path, optimizer):
    def build():
        make = {"adam": lambda: keras.optimizers.Adam(0.05),
                "rmsprop": lambda: keras.optimizers.RMSprop(0.01),
                "adagrad": lambda: keras.optimizers.Adagrad(0.1),
                "sgd-momentum": lambda: keras.optimizers.SGD(0.05, momentum=0.9)}
        model = keras.Sequential([keras.layers.Dense(3, activation="tanh",
                                                     input_shape=(6,)),
                                  keras.layers.Dense(1)])
        model.compile(optimizer=make[optimizer](), loss="mse")
        return model
    model = build()
    model.fit(X, Y, epochs=2, batch_size=16, verbose=0, shuffle=False)
    model.save(str(tmp_path / "m.h5"))
    restored = keras.models.load_model(str(tmp_path / "m.h5"))
    for a, b in zip(restored.optimizer.get_weights(), model.optimizer.get_weights()):
        assert_close(a, b, rtol=0)
    go_on = model.fit(X, Y, epochs=2, batch_size=16, verbose=0, shuffle=False)
    again = restored.fit(X, Y, epochs=2, batch_size=16, verbose=0, shuffle=False)
    assert_close(again.history["loss"], go_on.history["loss"], rtol=1e-6)


def test_subclassed_model_tracks_layers_kept_in_a_list():
    class Stack(keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [keras.layers.Dense(4, activation="relu") for _ in range(2)]
            self.head = keras.layers.Dense(1)

        def call(self, inputs):
            for block in self.blocks:
                inputs = block(inputs)
            return self.head(inputs)

    model = Stack()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y, epochs=1, verbose=0)
    assert len(model.layers) == 3 and len(model.trainable_weights) == 6
    assert model.count_params() == (6 * 4 + 4) + (4 * 4 + 4) + 5


@pytest.mark.parametrize("build", [
    lambda: keras.layers.Dense(3, kernel_initializer="ones",
                               bias_regularizer=keras.regularizers.l1(0.5),
                               activity_regularizer=keras.regularizers.l2(0.25)),
    lambda: keras.layers.Conv2D(2, 3, kernel_regularizer=keras.regularizers.l2(0.5),
                                activity_regularizer=keras.regularizers.l1(0.25)),
    lambda: keras.layers.GRU(2, recurrent_initializer="zeros",
                             recurrent_regularizer=keras.regularizers.l1_l2(0.5, 0.25)),
    lambda: keras.layers.BatchNormalization(gamma_regularizer=keras.regularizers.l2(0.5),
                                            moving_variance_initializer="zeros"),
    lambda: keras.layers.Embedding(10, 3, embeddings_initializer="zeros",
                                   embeddings_regularizer=keras.regularizers.l2(0.5),
                                   activity_regularizer=keras.regularizers.l1(0.25)),
], ids=["Dense", "Conv2D", "GRU", "BatchNormalization", "Embedding"])
def test_weight_options_survive_a_config_round_trip(build):
    layer = build()
    config = layer.get_config()
    options = {k: v for k, v in config.items()
               if k.endswith(("_initializer", "_regularizer", "_constraint"))}
    assert any(isinstance(v, dict) and v["class_name"] == "L1L2" for v in options.values())
    again = type(layer).from_config(config)
    assert again.get_config() == config
    for name, value in options.items():
        if value is not None and not name.endswith("_constraint"):
            assert type(getattr(again, name)) is type(getattr(layer, name))
            assert getattr(again, name).get_config() == getattr(layer, name).get_config()


def test_embedding_config_keeps_its_activity_regularizer():
    # TF 1.15's Embedding.get_config serializes it (tfteach wrote None before)
    layer = keras.layers.Embedding(10, 3, activity_regularizer=keras.regularizers.l1(0.25))
    assert layer.get_config()["activity_regularizer"] == {
        "class_name": "L1L2", "config": {"l1": 0.25, "l2": 0.0}}
    again = keras.layers.Embedding.from_config(layer.get_config())
    assert again.activity_regularizer.get_config() == {"l1": 0.25, "l2": 0.0}


@pytest.mark.parametrize("layer,options", [
    ("Dense", dict(units=2)), ("Conv2D", dict(filters=1, kernel_size=2)),
    ("LSTM", dict(units=2)), ("BatchNormalization", {}),
    ("Embedding", dict(input_dim=3, output_dim=2))])
def test_bad_weight_options_are_keras_value_errors(layer, options):
    cls = getattr(keras.layers, layer)
    first = {"Dense": "kernel", "Conv2D": "kernel", "LSTM": "kernel",
             "BatchNormalization": "beta", "Embedding": "embeddings"}[layer]
    with pytest.raises(ValueError, match="^Unknown initializer:swirl$"):
        cls(**options, **{first + "_initializer": "swirl"})
    with pytest.raises(ValueError, match="^Unknown regularizer:l3$"):
        cls(**options, **{first + "_regularizer": "l3"})
    # the initializers are resolved before the regularizers, as in Keras
    with pytest.raises(ValueError, match="^Unknown initializer:swirl$"):
        cls(**options, **{first + "_initializer": "swirl", first + "_regularizer": "l3"})


@pytest.mark.parametrize("name,l1,l2", [("l1", 0.01, 0.), ("l2", 0., 0.01),
                                        ("l1_l2", 0.01, 0.01)])
def test_a_regularizer_by_name_is_its_function_called_with_its_defaults(name, l1, l2):
    # TF 1.15's regularizers.get('l2') is l2(): an L1L2 with l2=0.01
    assert keras.regularizers.get(name).get_config() == {"l1": l1, "l2": l2}
    made = keras.regularizers.get({"class_name": name, "config": {}})
    assert made.get_config() == {"l1": l1, "l2": l2}
    layer = keras.layers.Dense(2, kernel_regularizer=name, kernel_initializer="ones",
                               bias_initializer="ones", bias_regularizer=name)
    model = keras.Sequential([layer])
    model.build((None, 3))
    # kernel: 6 ones, bias: 2 ones
    penalties = keras.backend.get_session().run(model.losses)
    assert_close(penalties, [6 * (l1 + l2), 2 * (l1 + l2)], rtol=1e-6)
    assert layer.get_config()["kernel_regularizer"] == {"class_name": "L1L2",
                                                        "config": {"l1": l1, "l2": l2}}


def test_a_regularizer_function_in_a_saved_config_gets_its_arguments():
    made = keras.regularizers.get({"class_name": "l2", "config": {"l": 0.5}})
    assert made.get_config() == {"l1": 0.0, "l2": 0.5}
    with pytest.raises(ValueError, match="^Unknown regularizer:l3$"):
        keras.regularizers.get("l3")


def test_losses_take_python_lists_as_tf_1_15s_do():
    # TF 1.15's losses start with convert_to_tensor(y_pred) and cast y_true to its dtype;
    # a list crashed here with "'list' object has no attribute 'dtype'".
    losses, metrics = tf.keras.losses, tf.keras.metrics
    fetches = [losses.categorical_crossentropy([[0.0, 1.0]], [[0.3, 0.7]]),
               losses.binary_crossentropy([[1.0]], [[0.7]]),
               losses.mean_squared_error([1, 2], [2.0, 2.0]),     # int labels cast
               losses.mean_absolute_error([1.0, 2.0], [2.0, 4.0]),
               losses.hinge([1.0, -1.0], [0.5, 0.5]),
               losses.CategoricalCrossentropy()([[0.0, 1.0]], [[0.3, 0.7]]),
               losses.MeanSquaredError()([1.0, 2.0], [2.0, 2.0]),
               metrics.binary_accuracy([[1.0], [0.0]], [[0.7], [0.6]]),
               metrics.categorical_accuracy([[0.0, 1.0]], [[0.3, 0.7]])]
    with tf.Session() as sess:
        got = sess.run(fetches)
    want = [[-np.log(0.7)], [-np.log(0.7)], 0.5, 1.5, np.mean([0.5, 1.5]), -np.log(0.7),
            0.5, [1.0, 0.0], [1.0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_model_input_output_and_their_shapes():
    # A graph network is its own first call in Keras: model.input/.output and the shapes
    # are the tensors it was built from (they raised "has no inbound nodes").
    layers = tf.keras.layers
    with tf.Graph().as_default():
        model = tf.keras.Sequential([layers.Dense(4, input_dim=3), layers.Dense(2)])
        assert (model.input_shape, model.output_shape) == ((None, 3), (None, 2))
        assert model.input is model.inputs[0] and model.output is model.outputs[0]
        model(layers.Input((3,)))                     # called again: still its own
        assert model.input is model.inputs[0] and model.output_shape == (None, 2)
        a, b = layers.Input((4,)), layers.Input((2,), name="b")
        hidden = layers.Dense(3)(a)
        functional = tf.keras.Model([a, b], [hidden, layers.Concatenate()([hidden, b])])
        assert functional.input_shape == [(None, 4), (None, 2)]
        assert functional.output_shape == [(None, 3), (None, 5)]
        recurrent = tf.keras.Sequential([layers.LSTM(4, input_dim=3, input_length=5)])
        assert recurrent.input_shape == (None, 5, 3)
        never_called = layers.Dense(2)
        with pytest.raises(AttributeError, match="^The layer has never been called and thus "
                                                 "has no defined output shape.$"):
            never_called.output_shape
        with pytest.raises(AttributeError, match="^Layer dense_.* has no inbound nodes.$"):
            never_called.output
