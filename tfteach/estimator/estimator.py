"""`tf.estimator.Estimator`: train, evaluate and predict a model_fn, as TF 1.15 does.

Each call builds a fresh graph: input_fn -> model_fn(features, labels, mode, params,
config) -> EstimatorSpec, then runs it in a MonitoredSession.
  train     restores the latest checkpoint of model_dir (or initializes), runs train_op
            until `steps` more / `max_steps` / the input is exhausted; the chief hooks
            save `model_dir/model.ckpt-N` (Saver), summaries (`loss`, `global_step/sec`)
            into model_dir's event file, and log "loss = ..., step = ..." (tf.logging);
  evaluate  restores the latest checkpoint, runs the eval_metric_ops' updates over the
            input (or `steps` batches), returns {metric: value, "loss", "global_step"}
            and writes them as summaries into model_dir/eval (eval_<name>);
  predict   restores the latest checkpoint and yields one dict (or value) per example.
"""
import os
import tempfile
import time

import numpy as np

from tfteach import logging
from tfteach.estimator import eval_hooks, input_fn_call, summary_io, warm_starting
from tfteach.estimator.model_fn import EstimatorSpec, ModeKeys
from tfteach.estimator.run_config import RunConfig, get_default_session_config
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.train import basic_session_run_hooks as hooks_lib
from tfteach.train import checkpoint_management, checkpoint_utils, training_util
from tfteach.train import monitored_session

__all__ = ["Estimator"]

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


def _verify_model_fn_args(model_fn, params):
    args = set(input_fn_call.fn_args(model_fn))
    if "features" not in args:
        raise ValueError("model_fn (%s) must include features argument." % model_fn)
    if params is not None and "params" not in args:
        raise ValueError("model_fn (%s) does not include params argument, "
                         "but params (%s) is passed to Estimator." % (model_fn, params))
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params "
                        "are not passed to Estimator.", model_fn)
    non_valid_args = sorted(args - _VALID_MODEL_FN_ARGS)
    if non_valid_args:
        raise ValueError("model_fn (%s) has following not expected args: %s"
                         % (model_fn, non_valid_args))


def _checked_hooks(hooks):
    from tfteach.train.session_run_hook import SessionRunHook
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError("All hooks must be SessionRunHook instances, given: {}"
                            .format(hook))
    return hooks


def _dict_to_str(dictionary):
    return ", ".join("%s = %s" % (k, v) for k, v in sorted(dictionary.items())
                     if not isinstance(v, bytes))


class Estimator:
    """A model (model_fn) with its model_dir: checkpoints, summaries, the graph."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        if config is None:
            config = RunConfig()
            logging.info("Using default config.")
        elif not isinstance(config, RunConfig):
            raise ValueError("config must be an instance of `RunConfig`, but provided %s."
                             % config)
        model_dir = os.fspath(model_dir) if model_dir is not None else None
        if model_dir and config.model_dir and model_dir != config.model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with different "
                "values. In constructor: '{}', in `RunConfig`: '{}' ".format(
                    model_dir, config.model_dir))
        model_dir = model_dir or config.model_dir
        if not model_dir:
            model_dir = tempfile.mkdtemp()
            logging.warning("Using temporary folder as model directory: %s", model_dir)
        if config.session_config is None:       # TF 1.15's default, logged below
            config = config.replace(session_config=get_default_session_config())
        self._config = config.replace(model_dir=model_dir)
        logging.info("Using config: %s", str(vars(self._config)))
        self._model_dir = model_dir
        self._params = dict(params or {})
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._warm_start_settings = warm_starting.settings_of(warm_start_from)

    # -- properties ------------------------------------------------------------------------
    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: self._config)
    params = property(lambda self: dict(self._params))
    model_fn = property(lambda self: self._call_model_fn)

    def latest_checkpoint(self):
        return checkpoint_management.latest_checkpoint(self._model_dir)

    def get_variable_names(self):
        return [name for name, _ in checkpoint_utils.list_variables(self._model_dir)]

    def get_variable_value(self, name):
        return checkpoint_utils.load_variable(self._model_dir, name)

    # -- building --------------------------------------------------------------------------
    def _call_model_fn(self, features, labels, mode, config):
        args = input_fn_call.fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec

    def _new_graph(self):
        graph = graph_lib.Graph()
        if self._config.tf_random_seed is not None:
            graph.seed = self._config.tf_random_seed
        return graph

    def _build(self, input_fn, mode):
        """input_fn and model_fn in the default graph: (spec, input hooks, global step)."""
        global_step = training_util.get_or_create_global_step()
        features, labels, input_hooks = input_fn_call.call_input_fn(
            input_fn, mode, self.params, self._config)
        if mode == ModeKeys.PREDICT:
            labels = None     # predict ignores the labels an input_fn may give, as TF
        spec = self._call_model_fn(features, labels, mode, self._config)
        return spec, input_hooks, global_step

    def _saver(self):
        import tfteach as tf
        saver = tf.train.Saver(sharded=False, max_to_keep=self._config.keep_checkpoint_max,
                               keep_checkpoint_every_n_hours=(
                                   self._config.keep_checkpoint_every_n_hours),
                               save_relative_paths=True, allow_empty=True)
        return saver

    # -- train -----------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains `steps` more steps, up to global step `max_steps`, or until input ends."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        if max_steps is not None and self.latest_checkpoint():
            start_step = int(checkpoint_utils.load_variable(self._model_dir,
                                                            GraphKeys.GLOBAL_STEP))
            if max_steps <= start_step:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        hooks = _checked_hooks(hooks)
        with self._new_graph().as_default():
            spec, input_hooks, global_step = self._build(input_fn, ModeKeys.TRAIN)
            if self._warm_start_settings is not None and not self.latest_checkpoint():
                warm_starting.warm_start(self._warm_start_settings)
            loss = self._train_with_spec(spec, global_step, input_hooks + hooks, steps,
                                         max_steps, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_with_spec(self, spec, global_step, hooks, steps, max_steps, saving_listeners):
        import tfteach as tf
        config = self._config
        tf.summary.scalar("loss", spec.loss)
        # TF 1.15's order: input and caller's hooks, StopAtStepHook, NanTensorHook, the
        # loss log, the model_fn's training_hooks (MonitoredTrainingSession runs them
        # after its own). As TF 1.15 (a ref variable fetched in the training run): the
        # step logged is the global step after this run's update, "step = 1" first.
        hooks = list(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(hooks_lib.StopAtStepHook(steps, max_steps))
        hooks.append(hooks_lib.NanTensorHook(spec.loss))
        if config.log_step_count_steps is not None:
            hooks.append(hooks_lib.LoggingTensorHook(
                {"loss": spec.loss, "step": global_step},
                every_n_iter=config.log_step_count_steps))
        hooks.extend(spec.training_hooks)
        scaffold = spec.scaffold or monitored_session.Scaffold()
        if scaffold.saver is None and not graph_lib.get_default_graph().get_collection(
                GraphKeys.SAVERS):  # a model_fn's own Saver in SAVERS is used as in TF
            scaffold._saver = self._saver()
        chief_hooks = []
        if config.save_checkpoints_secs or config.save_checkpoints_steps:
            chief_hooks.append(hooks_lib.CheckpointSaverHook(
                self._model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, scaffold=scaffold,
                listeners=saving_listeners))
        chief_hooks.extend(spec.training_chief_hooks)
        loss = None
        with monitored_session.MonitoredTrainingSession(
                checkpoint_dir=self._model_dir, scaffold=scaffold, hooks=hooks,
                chief_only_hooks=chief_hooks, save_checkpoint_secs=0,
                save_summaries_steps=config.save_summary_steps, config=config.session_config,
                log_step_count_steps=config.log_step_count_steps) as mon_sess:
            while not mon_sess.should_stop():
                _, loss = mon_sess.run([spec.train_op, spec.loss])
        return loss

    # -- evaluate --------------------------------------------------------------------------
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the latest checkpoint on input_fn's data; returns the metrics dict."""
        import tfteach as tf
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to evaluate.", self._model_dir)
        with self._new_graph().as_default():
            spec, input_hooks, global_step = self._build(input_fn, ModeKeys.EVAL)
            if "loss" in spec.eval_metric_ops:
                raise ValueError("Metric with name \"loss\" is not allowed, because "
                                 "Estimator already defines a default metric with the "
                                 "same name.")
            metrics = dict(spec.eval_metric_ops)
            metrics["loss"] = tf.metrics.mean(spec.loss)
            update_op = tf.group(*[update for _, update in metrics.values()])
            values = {key: value for key, (value, _) in metrics.items()}
            values[GraphKeys.GLOBAL_STEP] = global_step
            all_hooks = list(input_hooks) + _checked_hooks(hooks) + \
                list(spec.evaluation_hooks)
            if steps is not None:
                all_hooks.append(eval_hooks.StopAfterNEvalsHook(steps))
            scaffold = spec.scaffold or monitored_session.Scaffold()
            if scaffold.saver is None:
                scaffold._saver = self._saver()
            logging.info("Starting evaluation at %s",
                         time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()))
            final_hook = eval_hooks.FinalOpsHook(values)
            with monitored_session.MonitoredSession(
                    monitored_session.ChiefSessionCreator(
                        scaffold=scaffold, config=self._config.session_config,
                        checkpoint_filename_with_path=checkpoint_path),
                    hooks=all_hooks + [final_hook]) as sess:
                while not sess.should_stop():
                    sess.run(update_op)
            results = final_hook.final_ops_values
            logging.info("Finished evaluation at %s",
                         time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
            logging.info("Saving dict for global step %d: %s",
                         results[GraphKeys.GLOBAL_STEP], _dict_to_str(results))
            eval_dir = os.path.join(self._model_dir, "eval" if not name else "eval_" + name)
            summary_io.write_dict_to_summary(eval_dir, results,
                                             results[GraphKeys.GLOBAL_STEP])
        if checkpoint_path:
            logging.info("Saving 'checkpoint_path' summary for global step %d: %s",
                         results[GraphKeys.GLOBAL_STEP], checkpoint_path)
        return results

    # -- predict ---------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields the predictions for each example (a dict, or the single tensor's value)."""
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to predict.", self._model_dir)
        with self._new_graph().as_default():
            spec, input_hooks, _ = self._build(input_fn, ModeKeys.PREDICT)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            scaffold = spec.scaffold or monitored_session.Scaffold()
            if scaffold.saver is None:
                scaffold._saver = self._saver()
            with monitored_session.MonitoredSession(
                    monitored_session.ChiefSessionCreator(
                        scaffold=scaffold, config=self._config.session_config,
                        checkpoint_filename_with_path=checkpoint_path),
                    hooks=list(input_hooks) + _checked_hooks(hooks) +
                    list(spec.prediction_hooks)) as sess:
                while not sess.should_stop():
                    preds = sess.run(predictions)
                    if not yield_single_examples:
                        yield preds
                        continue
                    if not isinstance(predictions, dict):
                        for pred in preds:
                            yield pred
                        continue
                    for i in range(self._batch_length(preds)):
                        yield {key: value[i] for key, value in preds.items()}

    @staticmethod
    def _extract_keys(predictions, predict_keys):
        if not predict_keys:
            return predictions
        if isinstance(predict_keys, str):
            predict_keys = [predict_keys]
        if not isinstance(predictions, dict):
            raise ValueError("predict_keys argument is not valid in case of non-dict "
                             "predictions.")
        existing = predictions
        predictions = {k: v for k, v in predictions.items() if k in predict_keys}
        if not predictions:
            raise ValueError("Expected to run at least one output from %s, provided %s."
                             % (list(existing), predict_keys))
        return predictions

    @staticmethod
    def _batch_length(preds):
        batch_length = None
        for key, value in preds.items():
            value = np.asarray(value)
            if value.ndim == 0:
                raise ValueError("Prediction {} should have at least one dimension, the "
                                 "batch size.".format(key))
            if batch_length is None:
                batch_length = value.shape[0]
            elif value.shape[0] != batch_length:
                raise ValueError("Batch length of predictions should be same. %s has "
                                 "different batch length than others." % key)
        return batch_length or 0
