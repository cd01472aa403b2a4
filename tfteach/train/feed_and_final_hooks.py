"""`tf.train.FeedFnHook` and `tf.train.FinalOpsHook` (TF 1.15's basic_session_run_hooks):
a hook that feeds every run from a function, and one that runs ops when the session ends
and keeps their values."""
from tfteach import logging
from tfteach.framework import errors
from tfteach.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["FeedFnHook", "FinalOpsHook"]


class FeedFnHook(SessionRunHook):
    """Feeds each run what `feed_fn()` returns (a feed_dict); fetches nothing."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` (with `final_ops_feed_dict`) when the session ends; their values
    are `final_ops_values` afterwards."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration) as e:
            # TF's warning: the final ops read an input that has run out
            logging.warning(
                "An OutOfRangeError or StopIteration exception is raised by the "
                "code in FinalOpsHook. This typically means the Ops running by the "
                "FinalOpsHook have a dependency back to some input source, which "
                "should not happen. For example, for metrics in "
                "tf.estimator.Estimator, all metrics functions return two Ops: "
                "`value_op` and  `update_op`. Estimator.evaluate calls the "
                "`update_op` for each batch of the data in input source and, once "
                "it is exhausted, it call the `value_op` to get the metric values. "
                "The `value_op` here should have dependency back to variables "
                "reading only, rather than reading another batch from input. "
                "Otherwise, the `value_op`, executed by `FinalOpsHook`, triggers "
                "another data reading, which ends OutOfRangeError/StopIteration. "
                "Please fix that.")
            raise e
