"""`tf.estimator.train_and_evaluate` with `TrainSpec` / `EvalSpec`, on one machine.

As TF 1.15's local mode: train up to `train_spec.max_steps`; after each checkpoint is
saved (but the one before the first step), evaluate it (`eval_spec.steps` batches,
default 100) unless the previous evaluation is less than `throttle_secs` old, and
always evaluate the final checkpoint. Returns
`(last eval result, export results)`; exporters are not built (no SavedModel).
The distributed modes (TF_CONFIG with chief, workers, parameter servers) are not built.
"""
import collections

from tfteach import logging

__all__ = ["TrainSpec", "EvalSpec", "train_and_evaluate"]


def _check_input_fn(input_fn):
    if not callable(input_fn):
        raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    def __new__(cls, input_fn, max_steps=None, hooks=None):
        _check_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or []))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        _check_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if start_delay_secs < 0:
            raise ValueError("Must specify start_delay_secs >= 0, given: {}"
                             .format(start_delay_secs))
        if throttle_secs < 0:
            raise ValueError("Must specify throttle_secs >= 0, given: {}"
                             .format(throttle_secs))
        if exporters:
            raise NotImplementedError("tfteach builds no SavedModel exporters.")
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or []), (),
                               start_delay_secs, throttle_secs)


class _EvaluateAfterCheckpoints:
    """A CheckpointSaverListener as TF's: skips the checkpoint saved before the first
    step, evaluates the next one, then one at most every throttle_secs, and the last."""

    def __init__(self, estimator, eval_spec):
        from tfteach.train.basic_session_run_hooks import SecondOrStepTimer
        self._estimator, self._eval_spec = estimator, eval_spec
        self._timer = SecondOrStepTimer(every_secs=eval_spec.throttle_secs)
        self.eval_result, self._evaluated_step = None, None

    def begin(self):
        self._timer.reset()
        self._is_first_run = True

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        if self._is_first_run:      # the model is not trained yet
            self._is_first_run = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs (%d secs).",
                         self._eval_spec.throttle_secs)
        return False

    def end(self, session, global_step_value):
        if self._evaluated_step != global_step_value:
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result = self._estimator.evaluate(
            self._eval_spec.input_fn, steps=self._eval_spec.steps, name=self._eval_spec.name,
            hooks=list(self._eval_spec.hooks))
        self._evaluated_step = global_step_value


def train_and_evaluate(estimator, train_spec, eval_spec):
    from tfteach.estimator.estimator import Estimator
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: {}"
                        .format(type(estimator)))
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: {}"
                        .format(type(train_spec)))
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {}"
                        .format(type(eval_spec)))
    logging.info("Running training and evaluation locally (non-distributed).")
    listener = _EvaluateAfterCheckpoints(estimator, eval_spec)
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks),
                    max_steps=train_spec.max_steps, saving_listeners=[listener])
    if listener.eval_result is None:     # training was skipped: max_steps already reached
        listener._evaluate(None)
    return listener.eval_result, []
