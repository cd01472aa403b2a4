"""`tf.train.SessionRunHook` and the small records passed to hooks (TF 1.15's API).

A hook watches a MonitoredSession's `run` calls: `before_run` may ask for extra fetches
(a SessionRunArgs), `after_run` sees their values (a SessionRunValues) and may ask the
loop to stop through `run_context.request_stop()`.
"""
import collections

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to MonitoredSession.run(); every method is optional."""

    def begin(self):
        """Called once before the graph is finalized: add ops to the graph here."""

    def after_create_session(self, session, coord):
        """Called when the session has been created (variables initialized or restored)."""

    def before_run(self, run_context):
        """Called before each run(); may return SessionRunArgs to fetch more."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each run() with the values asked for in before_run()."""

    def end(self, session):
        """Called at the end of the session (not when an exception stops it)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run() call: fetches, feeds and RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run() call a hook sees: its arguments, the session, and a stop request."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        self._stop_requested = True


SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])
