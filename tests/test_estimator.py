"""tf.estimator.Estimator with a custom model_fn: train / evaluate / predict, the files of
model_dir, resuming from a checkpoint, the log lines and TF 1.15's errors.

Expected numbers come from NumPy: the model is linear regression trained by plain
gradient descent on batches numpy_input_fn gives in order (shuffle=False), so every
step can be replayed by hand.
"""
import os

import numpy as np
import pytest

import tfteach as tf
from tests.logging_helpers import log_lines
from tfteach.summary.summary_iterator import summary_iterator

RNG = np.random.RandomState(7)
X = RNG.randn(12, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
LR = 0.05


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    prediction = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction,
                                                             "double": 2 * prediction})
    loss = tf.reduce_mean(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(params["lr"]).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op,
        eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, prediction)})


def train_input(batch_size=4):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=batch_size,
                                              num_epochs=None, shuffle=False)


def numpy_training(steps, batch_size=4):
    """(w, b) after `steps` gradient-descent steps on the batches in order."""
    w, b = np.zeros((3, 1)), np.zeros(1)
    order = np.concatenate([np.arange(len(X))] * (steps * batch_size // len(X) + 1))
    for step in range(steps):
        index = order[step * batch_size:(step + 1) * batch_size]
        x, y = X[index].astype(np.float64), Y[index].astype(np.float64)
        error = x @ w + b - y
        w = w - LR * 2 * x.T @ error / error.size
        b = b - LR * 2 * error.sum(0) / error.size
    return w, b


def estimator(tmp_path, **config):
    return tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "model"),
                                  params={"lr": LR},
                                  config=tf.estimator.RunConfig(**config) if config else None)




def test_train_gives_numpy_gradient_descent_weights(tmp_path):
    est = estimator(tmp_path)
    assert est.train(train_input(), steps=7) is est
    w, b = numpy_training(7)
    np.testing.assert_allclose(est.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(est.get_variable_value("b"), b, rtol=1e-5, atol=1e-6)
    assert est.get_variable_value("global_step") == 7
    assert sorted(est.get_variable_names()) == ["b", "global_step", "w"]


def test_second_train_resumes_from_the_checkpoint(tmp_path):
    est = estimator(tmp_path)
    est.train(train_input(), steps=4)
    # A second train() reads the input from its start again (a new graph) but continues
    # the weights and the global step: steps 5..6 see the first two batches again.
    est.train(train_input(), steps=2)
    assert est.get_variable_value("global_step") == 6
    w, b = np.zeros((3, 1)), np.zeros(1)
    for index in [range(0, 4), range(4, 8), range(8, 12), range(0, 4), range(0, 4),
                  range(4, 8)]:
        x, y = X[list(index)].astype(np.float64), Y[list(index)].astype(np.float64)
        error = x @ w + b - y
        w, b = w - LR * 2 * x.T @ error / error.size, b - LR * 2 * error.sum(0) / error.size
    np.testing.assert_allclose(est.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)


def test_max_steps_stops_at_the_global_step_and_then_skips(tmp_path):
    est = estimator(tmp_path)
    est.train(train_input(), max_steps=5)
    assert est.get_variable_value("global_step") == 5
    with log_lines() as lines:
        est.train(train_input(), max_steps=3)
    assert "Skipping training since max_steps has already saved." in lines
    assert est.get_variable_value("global_step") == 5


def test_training_stops_when_the_input_ends(tmp_path):
    est = estimator(tmp_path)
    one_epoch = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=5,
                                                   shuffle=False)   # 5 + 5 + 2
    est.train(one_epoch)
    assert est.get_variable_value("global_step") == 3


def test_model_dir_files_and_checkpoint_state(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=3, keep_checkpoint_max=2)
    est.train(train_input(), steps=7)
    files = os.listdir(est.model_dir)
    assert "checkpoint" in files and "graph.pbtxt" in files
    assert any(f.startswith("events.out.tfevents.") for f in files)
    # Saved at 0, 3, 6 and the final 7; only the last two are kept.
    assert {f for f in files if f.startswith("model.ckpt-")} == {
        "model.ckpt-6.index", "model.ckpt-6.data-00000-of-00001",
        "model.ckpt-7.index", "model.ckpt-7.data-00000-of-00001"}
    assert est.latest_checkpoint() == os.path.join(est.model_dir, "model.ckpt-7")


def test_training_summaries_hold_the_loss(tmp_path):
    est = estimator(tmp_path, save_summary_steps=2, log_step_count_steps=2)
    est.train(train_input(), steps=5)
    events = [f for f in os.listdir(est.model_dir) if f.startswith("events")]
    tags = {}
    for event in summary_iterator(os.path.join(est.model_dir, events[0])):
        for value in event.summary.value:
            tags.setdefault(value.tag, []).append(event.step)
    # Summaries at steps 1, 3, 5 (every 2 steps, the first run included), as TF.
    assert tags["loss"] == [1, 3, 5]
    assert "global_step/sec" in tags


def test_log_lines_as_tf(tmp_path):
    est = estimator(tmp_path, log_step_count_steps=3)
    with log_lines() as lines:
        est.train(train_input(), steps=7)
    losses = [line for line in lines if line.startswith("loss = ")]
    # Steps 1, 4, 7: the global step after each logged run (TF 1.15's ref variable).
    assert [line.split("step = ")[1].split(" ")[0] for line in losses] == ["1", "4", "7"]
    assert losses[1].endswith(" sec)")
    # TF 1.15's hook order: the step counter's line comes before the loss of its step.
    rates = [line for line in lines if line.startswith(("loss = ", "global_step/sec: "))]
    assert [line.split(":")[0].split(" =")[0] for line in rates] == [
        "loss", "global_step/sec", "loss", "global_step/sec", "loss"]
    assert "Saving checkpoints for 0 into %s." % os.path.join(est.model_dir, "model.ckpt") \
        in lines
    assert any(line.startswith("Loss for final step: ") for line in lines)


def test_evaluate_returns_metrics_loss_and_global_step(tmp_path):
    est = estimator(tmp_path)
    est.train(train_input(), steps=6)
    w, b = numpy_training(6)
    eval_input = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=5, shuffle=False)
    with log_lines() as lines:
        results = est.evaluate(eval_input)
    error = X.astype(np.float64) @ w + b - Y
    # "loss" is the mean over batches of the model's loss (batches of 5, 5, 2).
    batch_losses = [np.mean(error[s:s + 5] ** 2) for s in (0, 5, 10)]
    assert set(results) == {"mae", "loss", "global_step"}
    assert results["global_step"] == 6
    np.testing.assert_allclose(results["loss"], np.mean(batch_losses), rtol=1e-5)
    np.testing.assert_allclose(results["mae"], np.mean(np.abs(error)), rtol=1e-5)
    assert any(line.startswith("Saving dict for global step 6: global_step = 6, loss = ")
               for line in lines)
    # The results are written as summaries into model_dir/eval, at the global step.
    eval_dir = os.path.join(est.model_dir, "eval")
    values = {}
    for name in os.listdir(eval_dir):
        for event in summary_iterator(os.path.join(eval_dir, name)):
            for value in event.summary.value:
                values[value.tag] = (event.step, value.simple_value)
    assert values["mae"][0] == 6
    np.testing.assert_allclose(values["loss"][1], results["loss"], rtol=1e-6)


def test_evaluate_steps_and_name(tmp_path):
    est = estimator(tmp_path)
    est.train(train_input(), steps=2)
    results = est.evaluate(train_input(batch_size=3), steps=2, name="first_two")
    w, b = numpy_training(2)
    error = X[:6].astype(np.float64) @ w + b - Y[:6]
    np.testing.assert_allclose(results["mae"], np.mean(np.abs(error)), rtol=1e-5)
    assert os.path.isdir(os.path.join(est.model_dir, "eval_first_two"))


def test_predict_yields_one_dict_per_example(tmp_path):
    est = estimator(tmp_path)
    est.train(train_input(), steps=3)
    w, b = numpy_training(3)
    predict_input = tf.estimator.inputs.numpy_input_fn({"x": X[:5]}, batch_size=2,
                                                       shuffle=False)
    predictions = list(est.predict(predict_input))
    assert len(predictions) == 5 and set(predictions[0]) == {"y", "double"}
    np.testing.assert_allclose(np.stack([p["y"] for p in predictions]), X[:5] @ w + b,
                               rtol=1e-5, atol=1e-6)
    only_y = list(est.predict(predict_input, predict_keys=["y"]))
    assert set(only_y[0]) == {"y"}
    with pytest.raises(ValueError, match="Expected to run at least one output from"):
        list(est.predict(predict_input, predict_keys=["nope"]))


def test_input_fn_returning_a_dataset(tmp_path):
    est = estimator(tmp_path)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4).repeat()
    est.train(input_fn, steps=5)
    w, _ = numpy_training(5)
    np.testing.assert_allclose(est.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)


def test_predict_without_checkpoint_initializes(tmp_path):
    est = estimator(tmp_path)
    predict_input = tf.estimator.inputs.numpy_input_fn({"x": X[:2]}, shuffle=False)
    assert [float(p["y"][0]) for p in est.predict(predict_input)] == [0.0, 0.0]


# -- TF 1.15's errors -----------------------------------------------------------------------
def spec_fn(**spec):
    def fn(features, labels, mode):
        w = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_sum(w * 0.0)
        parts = {"loss": loss, "train_op": tf.assign_add(tf.train.get_global_step(), 1),
                 "predictions": {"w": tf.ones([1]) * w}}
        parts.update(spec)
        return tf.estimator.EstimatorSpec(mode, **{k: v for k, v in parts.items()
                                                   if v is not None})
    return fn


@pytest.mark.parametrize("missing, message", [("loss", "Missing loss."),
                                              ("train_op", "Missing train_op.")])
def test_train_spec_without_loss_or_train_op(tmp_path, missing, message):
    est = tf.estimator.Estimator(spec_fn(**{missing: None}), model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=message):
        est.train(train_input(), steps=1)


def test_spec_checks():
    with pytest.raises(ValueError, match="Missing predictions."):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
    with pytest.raises(ValueError, match="Loss must be scalar, given: "):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.ones([2]))
    with pytest.raises(ValueError, match="mode=fit unrecognized."):
        tf.estimator.EstimatorSpec("fit")
    with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   eval_metric_ops=[1])


def test_train_argument_errors(tmp_path):
    est = estimator(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps."):
        est.train(train_input(), steps=1, max_steps=1)
    with pytest.raises(ValueError, match=r"Must specify steps > 0, given: 0"):
        est.train(train_input(), steps=0)
    with pytest.raises(ValueError, match=r"Must specify max_steps > 0, given: -1"):
        est.train(train_input(), max_steps=-1)


def test_constructor_errors(tmp_path):
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda labels, mode: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(lambda features, labels, mode: None, params={"a": 1})
    with pytest.raises(ValueError, match="has following not expected args"):
        tf.estimator.Estimator(lambda features, labels, mode, extra: None)
    with pytest.raises(ValueError, match="config must be an instance of `RunConfig`"):
        tf.estimator.Estimator(model_fn, config={"model_dir": "x"})
    with pytest.raises(ValueError, match="are set both in constructor and `RunConfig`"):
        tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "a"), params={"lr": 1},
                               config=tf.estimator.RunConfig(model_dir=str(tmp_path / "b")))


def test_run_config_defaults_and_checks():
    config = tf.estimator.RunConfig()
    assert (config.save_checkpoints_secs, config.save_checkpoints_steps,
            config.keep_checkpoint_max, config.save_summary_steps,
            config.log_step_count_steps) == (600, None, 5, 100, 100)
    config = tf.estimator.RunConfig(save_checkpoints_steps=10)
    assert (config.save_checkpoints_secs, config.save_checkpoints_steps) == (None, 10)
    assert config.replace(save_checkpoints_secs=5).save_checkpoints_steps is None
    with pytest.raises(ValueError, match="Can not specify both save_checkpoints_steps and "
                                         "save_checkpoints_secs."):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="is not supported by RunConfig.replace()"):
        config.replace(cluster_spec=None)


def test_the_config_an_estimator_logs_is_tf_1_15s(tmp_path):
    # TF 2.21 has no tf.estimator: the line is TF 1.15's, as its notebooks show it (the
    # RunConfig's attributes in TF's order, the default session config filled in).
    with log_lines() as lines:
        est = tf.estimator.Estimator(lambda features, labels, mode: None,
                                     model_dir=str(tmp_path))
    line = [line for line in lines if line.startswith("Using config: ")][0]
    cluster = repr(est.config.cluster_spec)
    assert line == (
        "Using config: {'_model_dir': '%s', '_tf_random_seed': None, "
        "'_save_summary_steps': 100, '_save_checkpoints_steps': None, "
        "'_save_checkpoints_secs': 600, '_session_config': allow_soft_placement: true\n"
        "graph_options {\n  rewrite_options {\n    meta_optimizer_iterations: ONE\n  }\n}\n"
        ", '_keep_checkpoint_max': 5, '_keep_checkpoint_every_n_hours': 10000, "
        "'_log_step_count_steps': 100, '_train_distribute': None, '_device_fn': None, "
        "'_protocol': None, '_eval_distribute': None, '_experimental_distribute': None, "
        "'_experimental_max_worker_delay_secs': None, '_session_creation_timeout_secs': "
        "7200, '_service': None, '_cluster_spec': %s, '_task_type': 'worker', "
        "'_task_id': 0, '_global_id_in_cluster': 0, '_master': '', '_evaluation_master': "
        "'', '_is_chief': True, '_num_ps_replicas': 0, '_num_worker_replicas': 1}"
        % (tmp_path, cluster))
    assert cluster.startswith("<") and "ClusterSpec object at 0x" in cluster
    assert not est.config.cluster_spec and est.config.cluster_spec.as_dict() == {}
    given = tf.ConfigProto(log_device_placement=True)
    est = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(session_config=given))
    assert est.config.session_config == given


def test_keep_checkpoint_max_counts_the_checkpoints_of_earlier_runs(tmp_path):
    estimator(tmp_path).train(train_input(), steps=3)      # keeps 0 and 3 (of max 5)
    est = estimator(tmp_path, save_checkpoints_steps=2, keep_checkpoint_max=2)
    est.train(train_input(), steps=4)                      # saves 3 (again), 5, 7
    kept = sorted(f for f in os.listdir(est.model_dir) if f.endswith(".index"))
    assert kept == ["model.ckpt-5.index", "model.ckpt-7.index"]


def test_warm_start_from_another_model_dir(tmp_path):
    first = estimator(tmp_path)
    first.train(train_input(), steps=5)
    second = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "second"),
                                    params={"lr": LR}, warm_start_from=first.model_dir)
    second.train(train_input(), steps=2)
    # Starts from the first model's weights, with its own global step (from 0).
    assert second.get_variable_value("global_step") == 2
    w = np.asarray(first.get_variable_value("w"), np.float64)
    b = np.asarray(first.get_variable_value("b"), np.float64)
    for index in (range(0, 4), range(4, 8)):
        x, y = X[list(index)].astype(np.float64), Y[list(index)].astype(np.float64)
        error = x @ w + b - y
        w, b = w - LR * 2 * x.T @ error / error.size, b - LR * 2 * error.sum(0) / error.size
    np.testing.assert_allclose(second.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)
    only_b = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "third"),
                                    params={"lr": LR}, warm_start_from=tf.estimator.
                                    WarmStartSettings(first.model_dir, vars_to_warm_start="b"))
    only_b.train(train_input(), steps=1)
    first_w = np.zeros((3, 1))
    x, y = X[:4].astype(np.float64), Y[:4].astype(np.float64)
    b0 = np.asarray(first.get_variable_value("b"), np.float64)
    error = x @ first_w + b0 - y
    np.testing.assert_allclose(only_b.get_variable_value("w"),
                               first_w - LR * 2 * x.T @ error / error.size,
                               rtol=1e-5, atol=1e-6)


def test_hooks_must_be_session_run_hooks(tmp_path):
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        estimator(tmp_path).train(train_input(), steps=1, hooks=[object()])


def test_train_and_evaluate_evaluates_the_new_checkpoints(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=3)
    eval_input = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=6, shuffle=False)
    with log_lines() as lines:
        result, exports = tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(train_input(), max_steps=7),
            tf.estimator.EvalSpec(eval_input, steps=None, throttle_secs=0))
    assert exports == [] and result["global_step"] == 7
    w, b = numpy_training(7)
    np.testing.assert_allclose(result["mae"], np.mean(np.abs(X @ w + b - Y)), rtol=1e-5)
    # Checkpoints at 0, 3, 6, 7: all but the untrained first one evaluated
    # (throttle_secs=0), the last one once.
    evaluated = [line.split("Saving dict for global step ")[1].split(":")[0]
                 for line in lines if line.startswith("Saving dict for global step")]
    assert evaluated == ["3", "6", "7"]
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tf.estimator.TrainSpec(None)
    with pytest.raises(ValueError, match=r"Must specify max_steps > 0, given: 0"):
        tf.estimator.TrainSpec(train_input(), max_steps=0)


def test_train_and_evaluate_throttles_evaluations(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=2)
    eval_input = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=6, shuffle=False)
    with log_lines() as lines:
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(train_input(), max_steps=6),
            tf.estimator.EvalSpec(eval_input, throttle_secs=600))
    evaluated = [line.split("Saving dict for global step ")[1].split(":")[0]
                 for line in lines if line.startswith("Saving dict for global step")]
    # The first trained checkpoint (2), then nothing for 600 s, then the final one (6).
    assert evaluated == ["2", "6"]


def test_predict_ignores_labels_and_accepts_a_single_tensor(tmp_path):
    def single(features, labels, mode):
        assert mode != tf.estimator.ModeKeys.PREDICT or labels is None
        w = tf.get_variable("w", [3, 1], initializer=tf.ones_initializer())
        return tf.estimator.EstimatorSpec(mode, predictions=tf.matmul(features["x"], w))
    est = tf.estimator.Estimator(single, model_dir=str(tmp_path))
    with_labels = tf.estimator.inputs.numpy_input_fn({"x": X[:3]}, Y[:3], shuffle=False)
    got = list(est.predict(with_labels))
    np.testing.assert_allclose(np.stack(got), X[:3].sum(1, keepdims=True), rtol=1e-6)
    batches = list(est.predict(with_labels, yield_single_examples=False))
    assert len(batches) == 1 and batches[0].shape == (3, 1)
    with pytest.raises(ValueError, match="predict_keys argument is not valid in case of "
                                         "non-dict predictions."):
        list(est.predict(with_labels, predict_keys=["y"]))
