"""tfteach.keras executing eagerly (`import tfteach.v2 as tf`): Sequential and subclassed
models train with a GradientTape step, evaluate and predict, with the numbers graph
mode gives from the same initial weights (the same kernels run)."""
import numpy as np
import pytest

import tfteach
from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from thread_helpers import run_in_threads
from tolerances import assert_close

RNG = np.random.RandomState(3)
X = RNG.rand(48, 6).astype(np.float32)
LABELS = (X[:, 0] + X[:, 1] > 1).astype(np.int64)
IMAGES = RNG.rand(12, 8, 8, 1).astype(np.float32)


def mlp(keras):
    return keras.Sequential([
        keras.layers.Dense(8, activation="relu", input_shape=(6,)),
        keras.layers.BatchNormalization(),
        keras.layers.Dense(2, activation="softmax")])


def cnn(keras):
    return keras.Sequential([
        keras.layers.Conv2D(3, 3, activation="relu", input_shape=(8, 8, 1)),
        keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(2)])


def graph_run(builder, weights, optimizer, data, targets, loss, epochs):
    with tfteach.Graph().as_default():
        keras = tfteach.keras
        model = builder(keras)
        model.set_weights(weights)
        model.compile(optimizer=optimizer(keras), loss=loss, metrics=["accuracy"])
        history = model.fit(data, targets, batch_size=12, epochs=epochs, shuffle=False,
                            verbose=0, validation_split=0.25)
        result = (history.history, model.get_weights(), model.predict(data))
        keras.backend.get_session().close()
        return result


def mlp_plain(keras):
    return keras.Sequential([
        keras.layers.Dense(8, activation="relu", input_shape=(6,)),
        keras.layers.Dense(2, activation="softmax")])


# Eager steps compute what graph mode computes, op for op (the crossentropy reads the
# softmax's logits in both: eager/producers.py), so the results are equal bit for bit.
# That matters most for Adam and RMSprop: they divide each gradient by its own running
# size, so a weight whose gradient is ~0 (BatchNormalization cancels some) would turn a
# last-bit difference into a full step.
OPTIMIZERS = {
    "adam": lambda keras: keras.optimizers.Adam(0.01),
    "nesterov": lambda keras: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "rmsprop": lambda keras: keras.optimizers.RMSprop(0.01)}


@pytest.mark.parametrize("builder", [mlp, mlp_plain], ids=["batchnorm", "plain"])
@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
@pytest.mark.parametrize("seed", [0, 1])
def test_eager_fit_matches_graph_fit_from_the_same_weights(tf2, optimizer, builder, seed):
    optimizer = OPTIMIZERS[optimizer]
    tf2.random.set_seed(seed)             # the weights must not depend on earlier tests
    model = builder(tf2.keras)
    assert tf2.executing_eagerly()
    weights = model.get_weights()
    model.compile(optimizer=optimizer(tf2.keras), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(X, LABELS, batch_size=12, epochs=3, shuffle=False, verbose=0,
                        validation_split=0.25)
    expected, graph_weights, graph_predictions = graph_run(
        builder, weights, optimizer, X, LABELS, "sparse_categorical_crossentropy", 3)
    # TF 2 behaviour (tfteach.v2), in both runs: a metric is named as compile was given
    for key in ("loss", "val_loss", "accuracy", "val_accuracy"):
        assert history.history[key] == expected[key], key
    for a, b in zip(model.get_weights(), graph_weights):   # moving statistics included
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(model.predict(X), graph_predictions)


def confident_model(keras):
    """A softmax layer sure of class 1: logits [0, 30], so p(class 0) = e^-30 ~ 9e-14,
    far below the 1e-7 a crossentropy on probabilities clips to."""
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax",
                                                 input_shape=(1,))])
    model.set_weights([np.array([[0., 30.]], np.float32), np.zeros(2, np.float32)])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    return model


def test_eager_evaluate_reads_the_softmax_logits_and_a_direct_call_clips(tf2):
    """TF 1.15 traces evaluate's step, where the loss finds the Softmax op's logits:
    the loss of label 0 is the logit gap, 30. Called by hand on an eager output, the
    loss has no op to look under and clips: -log(1e-7) = 16.118..."""
    x, label = np.ones((1, 1), np.float32), np.zeros(1, np.int64)
    model = confident_model(tf2.keras)
    assert model.evaluate(x, label, verbose=0) == pytest.approx(30.0, rel=1e-6)
    direct = tf2.keras.losses.sparse_categorical_crossentropy(label, model(x))
    assert float(direct[0]) == pytest.approx(-np.log(np.float32(1e-7)), rel=1e-6)
    with tfteach.Graph().as_default():
        graph_model = confident_model(tfteach.keras)
        assert graph_model.evaluate(x, label, verbose=0) == pytest.approx(30.0, rel=1e-6)
        tfteach.keras.backend.get_session().close()


def test_a_step_in_one_thread_leaves_another_threads_direct_call_clipping(tf2):
    """The logits are noted per thread: a custom loop's loss in another thread, running
    while evaluate steps run, still clips (TF 1.15's rule for an EagerTensor)."""
    x, label = np.ones((1, 1), np.float32), np.zeros(1, np.int64)
    models = [confident_model(tf2.keras), confident_model(tf2.keras)]
    clipped = -np.log(np.float32(1e-7))

    def work(k):
        for _ in range(30):
            if k % 2 == 0:
                assert models[0].evaluate(x, label, verbose=0) == pytest.approx(30.0,
                                                                                rel=1e-6)
            else:
                loss = tf2.keras.losses.sparse_categorical_crossentropy(label, models[1](x))
                assert float(loss[0]) == pytest.approx(clipped, rel=1e-6)
    run_in_threads(work, 4)


def test_eager_fit_reads_the_logits_of_tf_nn_softmax_in_a_subclassed_call(tf2):
    """Whichever code calls the Softmax op: TF 1.15's traced step finds it."""
    class Confident(tf2.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf2.keras.layers.Dense(2)

        def call(self, inputs):
            return tf2.nn.softmax(self.dense(inputs))

    x, label = np.ones((1, 1), np.float32), np.zeros(1, np.int64)
    model = Confident()
    model(x)
    model.set_weights([np.array([[0., 30.]], np.float32), np.zeros(2, np.float32)])
    model.compile(optimizer=tf2.keras.optimizers.SGD(0.01),
                  loss="sparse_categorical_crossentropy")
    assert model.evaluate(x, label, verbose=0) == pytest.approx(30.0, rel=1e-6)
    # the gradient of the logits' loss: d/dz of 30's terms is softmax - onehot = [-1, 1]
    # (the clipped loss's gradient would be ~0: its probability sits below the clip)
    model.fit(x, label, epochs=1, verbose=0)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(bias, [0.01, -0.01], rtol=1e-5)
    np.testing.assert_allclose(kernel, [[0.01, 30. - 0.01]], rtol=1e-5)


def test_eager_cnn_predicts_as_graph_mode(tf2):
    model = cnn(tf2.keras)
    outputs = model.predict(IMAGES)
    assert isinstance(outputs, np.ndarray) and outputs.shape == (12, 2)
    _, _, graph_predictions = graph_run(cnn, model.get_weights(),
                                        lambda keras: "sgd", IMAGES,
                                        np.zeros((12, 2), np.float32), "mse", 0)
    assert_close(outputs, graph_predictions, rtol=1e-5)
    # calling the model on a tensor gives an eager tensor at once
    assert_close(model(tf2.constant(IMAGES)).numpy(), outputs, rtol=1e-6)


def test_eager_sequential_summary_and_names(tf2):
    model = mlp(tf2.keras)
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[4].split() == ["dense", "(Dense)", "(None,", "8)", "56"]
    assert lines[-4:-1] == ["Total params: 106", "Trainable params: 90",
                            "Non-trainable params: 16"]
    assert [w.name for w in model.weights][:2] == ["dense/kernel:0", "dense/bias:0"]


def test_eager_sequential_without_input_shape_is_built_by_fit(tf2):
    model = tf2.keras.Sequential([tf2.keras.layers.Dense(4), tf2.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, X[:, :1], epochs=1, verbose=0)
    assert model.count_params() == 6 * 4 + 4 + 5
    with pytest.raises(ValueError, match=r"expected dense_input to have shape \(6,\)"):
        model.predict(X[:, :5])


def test_eager_subclassed_model_recomputes_its_regularization_penalty(tf2):
    class Linear(tf2.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf2.keras.layers.Dense(
                1, kernel_regularizer=tf2.keras.regularizers.l2(0.5))

        def call(self, inputs):
            return self.dense(inputs)

    model = Linear()
    model.compile(optimizer=tf2.keras.optimizers.SGD(0.05), loss="mse")
    model.fit(X, X[:, :1], epochs=2, verbose=0)
    kernel = model.dense.kernel.numpy()
    assert_close(float(model.losses[0]), 0.5 * float((kernel ** 2).sum()), rtol=1e-6)
    # the penalty pulls the kernel towards 0 compared with training without it
    loss, = [model.evaluate(X, X[:, :1], verbose=0)]
    assert loss > 0


def test_eager_save_and_load(tf2, tmp_path):
    model = mlp(tf2.keras)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(X, LABELS, epochs=1, verbose=0)
    model.save(str(tmp_path / "m.h5"))
    restored = tf2.keras.models.load_model(str(tmp_path / "m.h5"))
    assert_close(restored.predict(X), model.predict(X), rtol=1e-6)


def functional(keras, dropout=0.25):
    """Branches, a merge with two inputs, BatchNormalization and Dropout (which take
    `training`): what a Sequential model cannot express."""
    inputs = keras.Input(shape=(6,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    left = keras.layers.Dense(4, activation="tanh")(hidden)
    right = keras.layers.BatchNormalization()(keras.layers.Dense(4)(hidden))
    merged = keras.layers.Concatenate()([left, keras.layers.Add()([left, right])])
    merged = keras.layers.Dropout(dropout)(merged)
    outputs = keras.layers.Dense(2, activation="softmax")(merged)
    return keras.Model(inputs, outputs)


def summary_lines(model):
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def test_eager_input_is_a_keras_tensor(tf2):
    inputs = tf2.keras.Input(shape=(3,), name="features")
    assert repr(inputs) == ("<KerasTensor: shape=(None, 3) dtype=float32 "
                            "(created by layer 'features')>")
    outputs = tf2.keras.layers.Dense(5)(inputs)
    assert outputs.shape.as_list() == [None, 5] and outputs.dtype == tf2.float32
    assert outputs._keras_history[0].kernel.numpy().shape == (3, 5)   # built eagerly
    with pytest.raises(TypeError, match="Keras layers only"):
        outputs + 1.0


def test_eager_functional_model_matches_graph_mode(tf2):
    # (Dropout draws random masks while training: compare training without them)
    tf2.random.set_seed(5)
    model = functional(tf2.keras, dropout=0.0)
    assert tf2.executing_eagerly()
    weights = model.get_weights()
    optimizer = lambda keras: keras.optimizers.SGD(0.1, momentum=0.9)  # noqa: E731
    model.compile(optimizer=optimizer(tf2.keras), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(X, LABELS, batch_size=12, epochs=3, shuffle=False, verbose=0,
                        validation_split=0.25)

    expected, graph_weights, graph_predictions = graph_run(
        lambda keras: functional(keras, dropout=0.0), weights, optimizer, X, LABELS,
        "sparse_categorical_crossentropy", 3)
    for key in ("loss", "val_loss", "accuracy", "val_accuracy"):   # bit for bit, as above
        assert history.history[key] == expected[key], key
    for a, b in zip(model.get_weights(), graph_weights):   # moving statistics included
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(model.predict(X), graph_predictions)
    loss, accuracy = model.evaluate(X, LABELS, verbose=0)
    probabilities = graph_predictions[np.arange(len(X)), LABELS]
    assert_close(loss, -np.log(probabilities).mean(), rtol=1e-5)
    assert accuracy == (graph_predictions.argmax(1) == LABELS).mean()


def test_eager_functional_summary_is_graph_modes(tf2):
    eager_lines = summary_lines(functional(tf2.keras))
    with tfteach.Graph().as_default():
        graph_lines = summary_lines(functional(tfteach.keras))
    assert eager_lines == graph_lines
    assert eager_lines[2] == ("Layer (type)                    Output Shape         "
                              "Param #     Connected to").ljust(98)
    # Dense 6*8+8, two Dense 8*4+4, BatchNormalization 4*4, Dense 8*2+2
    assert eager_lines[-4] == "Total params: %d" % (56 + 36 + 36 + 16 + 18)


def test_eager_functional_model_is_called_and_reused(tf2):
    model = functional(tf2.keras)
    values = model(tf2.constant(X[:5]))
    assert isinstance(values, tf2.Tensor) and values.shape.as_list() == [5, 2]
    assert_close(values.numpy(), model.predict(X[:5]), rtol=1e-6)
    # a model is a layer: called on a new Input it is reused with its weights
    inputs = tf2.keras.Input(shape=(6,))
    outer = tf2.keras.Model(inputs, tf2.keras.layers.Dense(1)(model(inputs)))
    # finding the output's shape ran the inner layers in inference: no updates recorded
    assert model.get_layer("batch_normalization").updates == []
    assert outer.count_params() == model.count_params() + 3
    assert [layer.name for layer in outer.layers][1] == model.name
    assert_close(outer.layers[2](model(tf2.constant(X))).numpy(), outer.predict(X),
                 rtol=1e-6)


def test_eager_functional_sequence_model(tf2):
    inputs = tf2.keras.Input(shape=(5,), dtype="int32")
    embedded = tf2.keras.layers.Embedding(10, 4)(inputs)
    state = tf2.keras.layers.LSTM(3)(embedded)
    model = tf2.keras.Model(inputs, tf2.keras.layers.Dense(10)(state))
    tokens = RNG.randint(0, 10, size=(7, 5))
    outputs = model.predict(tokens)
    _, _, graph_predictions = graph_run(
        lambda keras: keras.Model(*_sequence_graph(keras)), model.get_weights(),
        lambda keras: "sgd", tokens, np.zeros((7, 10), np.float32), "mse", 0)
    assert_close(outputs, graph_predictions, rtol=1e-5)


def _sequence_graph(keras):
    inputs = keras.Input(shape=(5,), dtype="int32")
    state = keras.layers.LSTM(3)(keras.layers.Embedding(10, 4)(inputs))
    return inputs, keras.layers.Dense(10)(state)


def test_eager_functional_bad_graphs_and_data(tf2):
    inputs, other = tf2.keras.Input(shape=(6,)), tf2.keras.Input(shape=(6,))
    outputs = tf2.keras.layers.Add()([inputs, other])
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf2.keras.Model(inputs, outputs)
    model = functional(tf2.keras)
    with pytest.raises(ValueError, match=r"expected input_\d+ to have shape \(6,\)"):
        model.predict(X[:, :5])
    with pytest.raises(TypeError, match="mixed with other values"):
        tf2.keras.layers.Add()([inputs, tf2.constant(X)])


def test_eager_functional_save_and_load(tf2, tmp_path):
    model = functional(tf2.keras)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(X, LABELS, epochs=1, verbose=0)
    model.save(str(tmp_path / "m.h5"))
    restored = tf2.keras.models.load_model(str(tmp_path / "m.h5"))
    assert summary_lines(restored)[4:] == summary_lines(model)[4:]
    assert_close(restored.predict(X), model.predict(X), rtol=1e-6)


def test_eager_optimizer_state_is_saved_with_keras_names(tf2, tmp_path):
    model = mlp_plain(tf2.keras)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(X, LABELS, epochs=1, verbose=0)
    assert [w.name for w in model.optimizer.weights][:3] == [
        "Adam/iter:0", "dense/kernel/Adam/m:0", "dense/bias/Adam/m:0"]
    model.save(str(tmp_path / "m.h5"))
    restored = tf2.keras.models.load_model(str(tmp_path / "m.h5"))
    for a, b in zip(restored.optimizer.get_weights(), model.optimizer.get_weights()):
        assert_close(a, b, rtol=0)


@pytest.mark.parametrize("subclassed", [False, True], ids=["sequential", "subclassed"])
def test_tf_train_checkpoint_saves_and_restores_a_keras_model(tf2, tmp_path, subclassed):
    if subclassed:
        class Net(tf2.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = tf2.keras.layers.Dense(8, activation="relu")
                self.out = tf2.keras.layers.Dense(2, activation="softmax")

            def call(self, inputs):
                return self.out(self.hidden(inputs))
        model = Net()
    else:
        model = mlp(tf2.keras)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(X, LABELS, epochs=1, verbose=0)
    checkpoint = tf2.train.Checkpoint(model=model, optimizer=model.optimizer)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    saved, saved_state = model.get_weights(), model.optimizer.get_weights()
    model.fit(X, LABELS, epochs=1, verbose=0)                  # move away from them
    assert not np.allclose(model.get_weights()[0], saved[0])
    checkpoint.restore(path)
    for a, b in zip(model.get_weights() + model.optimizer.get_weights(),
                    saved + saved_state):
        assert_close(a, b, rtol=0)


def test_a_tf_nn_cell_kept_by_a_keras_model_is_tracked(eager):
    """Note 002's character RNN keeps a `tf.nn.rnn_cell.BasicLSTMCell` as an attribute
    of a subclassed Keras model (TF 1.15 eager): its variables are the model's and a
    tape step trains them."""
    tf = eager

    class RNN(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.cell = tf.nn.rnn_cell.BasicLSTMCell(num_units=4)
            self.dense = tf.keras.layers.Dense(units=3)

        def call(self, inputs):
            state = self.cell.zero_state(batch_size=2, dtype=tf.float32)
            output, state = self.cell(inputs, state)
            return self.dense(output)

    model = RNN()
    inputs = tf.constant(X[:2, :5])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(inputs)))
    assert [v.name.split("/")[-1] for v in model.variables] == [
        "kernel:0", "bias:0", "kernel:0", "bias:0"]
    assert model.variables[0] is model.cell.trainable_weights[0]
    assert model.variables[0].shape.as_list() == [5 + 4, 4 * 4]
    grads = tape.gradient(loss, model.variables)
    assert all(g is not None for g in grads)
    before = model.cell.trainable_weights[0].numpy()
    tf.train.GradientDescentOptimizer(0.5).apply_gradients(zip(grads, model.variables))
    assert_close(model.cell.trainable_weights[0].numpy(), before - 0.5 * grads[0].numpy(),
                 rtol=1e-6, scale=1.0)
    model.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 4


def test_sequential_may_start_with_an_input_tensor(tf2):
    # TF 1.15's Sequential.add takes an Input(...) tensor as its InputLayer; eagerly it
    # is a Keras tensor
    model = tf2.keras.Sequential([tf2.keras.Input(shape=(6,)), tf2.keras.layers.Dense(2)])
    assert summary_lines(model)[4].split() == ["dense", "(Dense)", "(None,", "2)", "14"]
    kernel, bias = model.get_weights()
    assert_close(model.predict(X), X @ kernel + bias, rtol=1e-5)
    with tfteach.Graph().as_default():
        graph_model = tfteach.keras.Sequential([tfteach.keras.Input(shape=(6,)),
                                                tfteach.keras.layers.Dense(2)])
        assert graph_model.inputs[0].op.type == "Placeholder"
        assert summary_lines(graph_model)[4:] == summary_lines(model)[4:]
        tfteach.keras.backend.get_session().close()
    with pytest.raises(TypeError, match="must be an instance of class Layer"):
        tf2.keras.Sequential([tf2.constant(X)])


def test_metric_names_follow_tf2_behaviour_as_tf_1_15(eager):
    """TF 1.15's get_metric_name: with TF 2 behaviour the string compile was given, else
    'acc'/'ce' and a function's name; enable/disable_v2_behavior switch it, as in TF."""
    def names():
        model = eager.keras.Sequential([eager.keras.layers.Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse", metrics=["accuracy", "mae"])
        history = model.fit(np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32),
                            verbose=0)
        return model.metrics_names, sorted(history.history)
    assert names() == (["loss", "acc", "mean_absolute_error"],
                       ["acc", "loss", "mean_absolute_error"])
    eager.enable_v2_behavior()
    assert names() == (["loss", "accuracy", "mae"], ["accuracy", "loss", "mae"])
    eager.disable_v2_behavior()
    assert not eager.executing_eagerly()
    with eager.Graph().as_default(), eager.Session().as_default():
        assert names()[0] == ["loss", "acc", "mean_absolute_error"]
