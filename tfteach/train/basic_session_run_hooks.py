"""The hooks TF 1.15's Estimator and MonitoredTrainingSession use (tf.train.*Hook).

  LoggingTensorHook   logs "tag = value, ..." (tags sorted, as TF) every N steps/seconds;
  StopAtStepHook      asks the loop to stop at a global step (num_steps or last_step);
  CheckpointSaverHook saves `model.ckpt-N` at the start, every N steps/seconds and at the end;
  StepCounterHook     logs and writes the summary `global_step/sec`;
  SummarySaverHook    writes the merged summaries every N steps;
  NanTensorHook       stops with NanLossDuringTrainingError when the loss is NaN.
"""
import os
import time

import numpy as np

from tfteach import logging
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.train import training_util
from tfteach.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["LoggingTensorHook", "StopAtStepHook", "CheckpointSaverHook", "StepCounterHook",
           "SummarySaverHook", "NanTensorHook", "NanLossDuringTrainingError",
           "SecondOrStepTimer"]


class SecondOrStepTimer:
    """Triggers every `every_secs` seconds or every `every_steps` steps (one of the two)."""

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("exactly one of every_secs and every_steps should be provided.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_time = None
        self._last_step = None

    def should_trigger_for_step(self, step):
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.time() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Records a trigger; returns (seconds, steps) since the previous one, or Nones."""
        now = time.time()
        elapsed = (None, None) if self._last_time is None else \
            (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self):
        return self._last_step


def _global_step_or_error(hook_name):
    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use %s." % hook_name)
    return step


class LoggingTensorHook(SessionRunHook):
    """Prints the given tensors every N local steps, every N seconds, or at the end."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._log_at_end = at_end
        self._timer = None if only_log_at_end else \
            SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)

    def begin(self):
        if self._timer is not None:
            self._timer.reset()
        self._iter_count = 0
        graph = graph_lib.get_default_graph()
        self._current_tensors = {
            tag: graph.as_graph_element(t) if isinstance(t, str) else t
            for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer is not None and \
            self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count) \
            if self._timer is not None else (None, None)
        if self._formatter is not None:
            logging.info(self._formatter(tensor_values))
            return
        with np.printoptions(suppress=True):
            stats = ["%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order]
        if elapsed_secs is not None:
            logging.info("%s (%.3f sec)", ", ".join(stats), elapsed_secs)
        else:
            logging.info("%s", ", ".join(stats))

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches `last_step` (or start + num_steps)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._global_step_tensor = training_util.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtStepHook.")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # The value fetched is the step before this run's update: the step after it is +1.
        if int(run_values.results) + 1 >= self._last_step:
            step = int(run_context.session.run(self._global_step_tensor))
            if step >= self._last_step:
                run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves `checkpoint_dir/model.ckpt-STEP` (and graph.pbtxt) as TF's hook does."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []

    def begin(self):
        from tfteach.summary.writer import FileWriterCache
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_or_error("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        from tfteach.framework.graph_def import NotExportableError, graph_to_graph_def
        from tfteach.train.graph_io import write_graph
        global_step = int(session.run(self._global_step_tensor))
        graph = graph_lib.get_default_graph()
        try:
            graph_def = graph_to_graph_def(graph, add_shapes=True)
            self._write_meta_graph = True
        except NotExportableError as e:
            # An op TensorFlow's GraphDef cannot express (numpy_input_fn's generator
            # dataset): the checkpoints are complete, but TF could not read a .meta of
            # this graph. Say it once; graph.pbtxt (for TensorBoard) still draws it.
            graph_def = graph_to_graph_def(graph, add_shapes=True, for_display=True)
            self._write_meta_graph = False
            logging.info("Checkpoints are written without .meta files: %s", e)
        write_graph(graph_def, self._checkpoint_dir, "graph.pbtxt")
        self._summary_writer.add_graph(graph)
        if self._write_meta_graph:          # TF 1.15 adds the meta graph with its Saver
            self._summary_writer.add_meta_graph(self._meta_graph(graph, graph_def))
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def _meta_graph(self, graph, graph_def):
        import warnings
        from tfteach.framework.meta_graph import export_meta_graph
        saver = self._get_saver()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # unserializable collections
            return export_meta_graph(graph=graph, graph_def=graph_def,
                                     saver_def=saver.saver_def if saver else None)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = int(run_values.results)
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = graph_lib.get_default_graph().get_collection(GraphKeys.SAVERS)
        if len(savers) != 1:
            raise RuntimeError("More than one item in collection SAVERS. "
                               "Please indicate which one to use.")
        return savers[0]

    def _save(self, session, step):
        """Saves; returns True when a listener asks the loop to stop."""
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=getattr(self, "_write_meta_graph", True))
        from tfteach.io.tf_protos import SessionLog
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        stop = False
        for listener in self._listeners:
            stop = bool(listener.after_save(session, step)) or stop
        return stop


class StepCounterHook(SessionRunHook):
    """Logs `global_step/sec: X` and writes it as a summary every N steps."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer, self._output_dir = summary_writer, output_dir
        self._summary_tag = "global_step/sec"

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            from tfteach.summary.writer import FileWriterCache
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_error("StepCounterHook")
        self._last_global_step = None

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # TF 1.15's: the step fetched with the run may be stale, so when it is near a
        # trigger the real one is read, and the rate is logged and written at that step.
        stale_global_step = int(run_values.results)
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    self._log_and_record(elapsed_steps / elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            logging.log_first_n(
                logging.WARN, "It seems that global step (tf.train.get_global_step) has not "
                "been increased. Current value (could be stable): %s vs previous value: %s. "
                "You could increase the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.", 5, stale_global_step,
                self._last_global_step)
        self._last_global_step = stale_global_step

    def _log_and_record(self, steps_per_sec, global_step):
        if self._summary_writer is not None:
            from tfteach.io.tf_protos import Summary
            summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                                   simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)


class SummarySaverHook(SessionRunHook):
    """Writes the merged summaries (or `summary_op`) every N steps into output_dir."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op, self._scaffold = summary_op, scaffold
        self._summary_writer, self._output_dir = summary_writer, output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            from tfteach.summary.writer import FileWriterCache
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_error("SummarySaver")
        self._next_step = None

    def _get_summary_op(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        return op

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or \
            self._timer.should_trigger_for_step(self._next_step)
        fetches = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            fetches["summary"] = self._get_summary_op()
        return SessionRunArgs(fetches)

    def after_run(self, run_context, run_values):
        if self._summary_writer is None:
            return
        stale_global_step = int(run_values.results["global_step"])
        global_step = stale_global_step + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            from tfteach.io.tf_protos import SessionLog
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            if "summary" in run_values.results:
                self._summary_writer.add_summary(run_values.results["summary"], global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer is not None:
            self._summary_writer.flush()


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises NanLossDuringTrainingError (or only stops) when `loss_tensor` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor, self._fail_on_nan_loss = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(failure_message)
                raise NanLossDuringTrainingError
            logging.warning(failure_message)
            run_context.request_stop()
