"""The canned Estimators: TF 1.15's variable names, predictions that are the network the
checkpoint holds (recomputed in NumPy), TF 1.15's SUM loss reduction, the metrics' keys,
label vocabularies and TF's argument errors."""
import numpy as np
import pytest

import tfteach as tf

RNG = np.random.RandomState(3)
X = RNG.randn(40, 2).astype(np.float32)
COLOUR = np.array(["red", "green", "blue"])[RNG.randint(0, 3, 40)]
LABEL = ((X[:, 0] - X[:, 1] + (COLOUR == "red")) > 0.3).astype(np.int64)


def columns():
    fc = tf.feature_column
    return [fc.numeric_column("x", shape=(2,)),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "colour", ["red", "green", "blue"]))]


def inputs(labels=LABEL, epochs=None, batch_size=10, n=40):
    return tf.estimator.inputs.numpy_input_fn(
        {"x": X[:n], "colour": COLOUR[:n]}, None if labels is None else labels[:n],
        batch_size=batch_size, num_epochs=epochs, shuffle=False)


def dense_input(est):
    one_hot = (COLOUR[:, None] == np.array(["blue", "green", "red"])[None, :])
    # input_layer orders its columns by name: colour_indicator (vocabulary order), x.
    reorder = one_hot[:, [2, 1, 0]].astype(np.float64)
    return np.concatenate([reorder, X.astype(np.float64)], 1)


def test_dnn_classifier_names_and_predictions(tmp_path):
    est = tf.estimator.DNNClassifier(hidden_units=[5, 3], feature_columns=columns(),
                                     model_dir=str(tmp_path))
    est.train(inputs(), steps=20)
    model = sorted(n for n in est.get_variable_names() if "Adagrad" not in n)
    assert model == ["dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel",
                     "dnn/hiddenlayer_1/bias", "dnn/hiddenlayer_1/kernel",
                     "dnn/logits/bias", "dnn/logits/kernel", "global_step"]
    v = est.get_variable_value
    h = dense_input(est)
    for layer in ("dnn/hiddenlayer_0", "dnn/hiddenlayer_1"):
        h = np.maximum(h @ v(layer + "/kernel") + v(layer + "/bias"), 0)
    logits = h @ v("dnn/logits/kernel") + v("dnn/logits/bias")
    predictions = list(est.predict(inputs(labels=None, epochs=1)))
    assert len(predictions) == 40
    assert set(predictions[0]) == {"logits", "logistic", "probabilities", "class_ids",
                                   "classes", "all_class_ids", "all_classes"}
    got = np.stack([p["logits"] for p in predictions])
    np.testing.assert_allclose(got, logits, rtol=1e-4, atol=1e-5)
    logistic = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(np.stack([p["probabilities"] for p in predictions]),
                               np.concatenate([1 - logistic, logistic], 1),
                               rtol=1e-4, atol=1e-6)
    assert [p["classes"][0] for p in predictions] == \
        [b"1" if lg > 0 else b"0" for lg in logits[:, 0]]


def test_binary_evaluation_keys_and_sum_reduction(tmp_path):
    est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns(),
                                     model_dir=str(tmp_path))
    est.train(inputs(), steps=5)
    results = est.evaluate(inputs(epochs=1, batch_size=40))
    assert set(results) == {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall",
                            "average_loss", "label/mean", "loss", "precision",
                            "prediction/mean", "recall", "global_step"}
    # TF 1.15's canned loss is the SUM over the batch: one batch of 40 -> 40 x average.
    np.testing.assert_allclose(results["loss"], 40 * results["average_loss"], rtol=1e-5)
    np.testing.assert_allclose(results["label/mean"], LABEL.mean(), rtol=1e-6)
    np.testing.assert_allclose(results["accuracy_baseline"],
                               max(LABEL.mean(), 1 - LABEL.mean()), rtol=1e-6)
    logits = np.stack([p["logits"] for p in est.predict(inputs(labels=None, epochs=1))])
    np.testing.assert_allclose(results["accuracy"],
                               np.mean((logits[:, 0] > 0) == LABEL), rtol=1e-6)


def test_linear_classifier_names_ftrl_and_logits(tmp_path):
    est = tf.estimator.LinearClassifier(feature_columns=columns(), model_dir=str(tmp_path))
    est.train(inputs(), steps=10)
    assert sorted(est.get_variable_names()) == [
        "global_step", "linear/linear_model/bias_weights",
        "linear/linear_model/bias_weights/Ftrl", "linear/linear_model/bias_weights/Ftrl_1",
        "linear/linear_model/colour_indicator/weights",
        "linear/linear_model/colour_indicator/weights/Ftrl",
        "linear/linear_model/colour_indicator/weights/Ftrl_1",
        "linear/linear_model/x/weights", "linear/linear_model/x/weights/Ftrl",
        "linear/linear_model/x/weights/Ftrl_1"]
    v = est.get_variable_value
    weights = np.concatenate([v("linear/linear_model/colour_indicator/weights"),
                              v("linear/linear_model/x/weights")])
    logits = dense_input(est) @ weights + v("linear/linear_model/bias_weights")
    got = np.stack([p["logits"] for p in est.predict(inputs(labels=None, epochs=1))])
    np.testing.assert_allclose(got, logits, rtol=1e-4, atol=1e-5)


def test_multi_class_with_label_vocabulary(tmp_path):
    est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns()[:1],
                                     n_classes=3, label_vocabulary=["red", "green", "blue"],
                                     model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": X}, COLOUR, batch_size=10,
                                                 num_epochs=None, shuffle=False), steps=3)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": X}, COLOUR,
                                                              batch_size=40, shuffle=False))
    assert set(results) == {"accuracy", "average_loss", "loss", "global_step"}
    prediction = next(est.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": X[:1]}, shuffle=False)))
    assert list(prediction["all_classes"]) == [b"red", b"green", b"blue"]
    assert prediction["classes"][0] == [b"red", b"green", b"blue"][
        int(np.argmax(prediction["logits"]))]


def test_regressors_predict_and_average_loss(tmp_path):
    target = (X[:, :1] * 2 - 1).astype(np.float32)
    for i, est in enumerate([
            tf.estimator.LinearRegressor(columns()[:1], model_dir=str(tmp_path / "l")),
            tf.estimator.DNNRegressor([3], columns()[:1], model_dir=str(tmp_path / "d"))]):
        est.train(tf.estimator.inputs.numpy_input_fn({"x": X}, target, batch_size=8,
                                                     num_epochs=None, shuffle=False), steps=5)
        results = est.evaluate(tf.estimator.inputs.numpy_input_fn(
            {"x": X}, target, batch_size=40, shuffle=False))
        predictions = np.stack([p["predictions"] for p in est.predict(
            tf.estimator.inputs.numpy_input_fn({"x": X}, shuffle=False))])
        np.testing.assert_allclose(results["average_loss"],
                                   np.mean((predictions - target) ** 2), rtol=1e-5)
        assert set(results) == {"average_loss", "label/mean", "prediction/mean", "loss",
                                "global_step"}


def test_canned_argument_errors():
    with pytest.raises(ValueError, match="n_classes must be > 1"):
        tf.estimator.DNNClassifier([2], columns(), n_classes=1)
    with pytest.raises(ValueError, match="Length of label_vocabulary"):
        tf.estimator.LinearClassifier(columns(), label_vocabulary=["a"])
    est = tf.estimator.DNNClassifier([2], columns(), optimizer="Nope")
    with pytest.raises(ValueError, match="Unsupported optimizer name: Nope"):
        est.train(inputs(), steps=1)


def test_out_of_range_label_is_an_error_when_running(tmp_path):
    est = tf.estimator.LinearClassifier(columns(), model_dir=str(tmp_path))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must <= n_classes - 1"):
        est.train(inputs(labels=LABEL + 1), steps=1)


def test_weight_column_weights_the_losses(tmp_path):
    fc = tf.feature_column
    est = tf.estimator.LinearRegressor([fc.numeric_column("x", shape=(2,))],
                                       weight_column="w", model_dir=str(tmp_path))
    target = X[:, :1] + 1.0
    weights = np.where(np.arange(40) < 10, 3.0, 1.0).astype(np.float32)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": X, "w": weights}, target,
                                                 batch_size=40, shuffle=False), steps=1)
    results = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": X, "w": weights}, target, batch_size=40, shuffle=False))
    predictions = np.stack([p["predictions"] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn({"x": X, "w": weights}, shuffle=False))])
    squared = ((predictions - target) ** 2)[:, 0]
    # SUM: the weighted sum; average_loss: the weighted mean.
    np.testing.assert_allclose(results["loss"], np.sum(weights * squared), rtol=1e-5)
    np.testing.assert_allclose(results["average_loss"],
                               np.sum(weights * squared) / weights.sum(), rtol=1e-5)
