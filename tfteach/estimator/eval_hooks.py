"""The two hooks of an evaluation (TF 1.15's evaluation.py): stop after N batches,
and read the metrics' final values when the session ends."""
from tfteach import logging
from tfteach.train.session_run_hook import SessionRunHook

__all__ = ["StopAfterNEvalsHook", "FinalOpsHook"]


class StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop after `num_evals` runs, logging "Evaluation [k/N]" 10 times."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals, self._log_progress = num_evals, log_progress
        self._evals_completed = 0
        self._log_frequency = 1 if num_evals < 20 else num_evals // 10

    def after_run(self, run_context, run_values):
        self._evals_completed += 1
        if self._log_progress and (self._evals_completed % self._log_frequency == 0 or
                                   self._evals_completed == self._num_evals):
            logging.info("Evaluation [%d/%d]", self._evals_completed, self._num_evals)
        if self._evals_completed >= self._num_evals:
            run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` (the metric values) in end(): their values after the last batch."""

    def __init__(self, final_ops):
        self._final_ops = final_ops
        self.final_ops_values = None

    def end(self, session):
        self.final_ops_values = session.run(self._final_ops)
