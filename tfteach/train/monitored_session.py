"""`tf.train.MonitoredSession`, `MonitoredTrainingSession` and `Scaffold` (TF 1.15).

A MonitoredSession is a Session with a life cycle, which is what Estimator trains in:
  creation   hooks' begin(); the Scaffold's ops built; the graph finalized; a Session
             opened; the variables restored from the latest checkpoint in
             `checkpoint_dir` when there is one, else initialized; local_init_op run;
             hooks' after_create_session();
  run()      each hook's before_run() fetches added to the call, after_run() given them;
             a hook's request_stop() makes should_stop() True;
  close()    hooks' end() (not after an error), the Session closed. Used as a context
             manager, OutOfRangeError (an input_fn's data exhausted) ends it quietly.
Unlike TF, no recovery from a lost worker (there are no workers here): sessions are local.
"""
from tfteach import logging
from tfteach.framework import errors
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.train import basic_session_run_hooks as hooks_lib
from tfteach.train import checkpoint_management, training_util
from tfteach.train.session_run_hook import SessionRunContext, SessionRunValues

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "MonitoredSession",
           "SingularMonitoredSession", "MonitoredTrainingSession"]


def _one_of_collection(key, default_fn):
    graph = graph_lib.get_default_graph()
    items = graph.get_collection(key)
    if len(items) > 1:
        raise RuntimeError("More than one item in the collection %s. Please indicate which "
                           "one to use by passing it to the constructor." % key)
    if items:
        return items[0]
    value = default_fn()
    if value is not None:
        graph.add_to_collection(key, value)
    return value


def _refuse_overlap(feeds1, feeds2, message):
    overlap = set(feeds1) & set(feeds2)
    if overlap:
        raise RuntimeError(message + " Conflict(s): " + str(list(overlap)))


def _merge_run_options(options, incoming):
    """TF's merge of a hook's RunOptions into the run's: the larger of the numbers, the
    `or` of the flags, the debug watches of both."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs,
                                          incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(
        incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (
        options.debug_options.reset_disk_byte_usage or
        incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom or
        incoming.report_tensor_allocations_upon_oom)


class Scaffold:
    """The ops a MonitoredSession needs: init_op, local_init_op, saver, summary_op."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        self._init_op, self._init_feed_dict, self._init_fn = init_op, init_feed_dict, init_fn
        self._local_init_op, self._summary_op, self._saver = local_init_op, summary_op, saver
        self._ready_op = ready_op

    def finalize(self):
        """Builds the default ops the caller left out, then finalizes the graph."""
        import tfteach as tf
        if self._init_op is None:
            self._init_op = _one_of_collection(GraphKeys.INIT_OP,
                                               tf.global_variables_initializer)
        if self._local_init_op is None:
            self._local_init_op = _one_of_collection(
                GraphKeys.LOCAL_INIT_OP,
                # tfteach has no lookup tables: the local variables are all there is.
                lambda: tf.group(tf.local_variables_initializer()))
        if self._summary_op is None:
            self._summary_op = _one_of_collection(GraphKeys.SUMMARY_OP, tf.summary.merge_all)
        if self._saver is None:
            # TF also adds a new default Saver to the SAVERS collection; tfteach keeps it
            # in the Scaffold only: its meta graphs cannot serialize that collection yet.
            savers = graph_lib.get_default_graph().get_collection(GraphKeys.SAVERS)
            if len(savers) > 1:
                raise RuntimeError("More than one item in the collection savers. Please "
                                   "indicate which one to use by passing it to the "
                                   "constructor.")
            self._saver = savers[0] if savers else tf.train.Saver(allow_empty=True)
        graph_lib.get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    init_fn = property(lambda self: self._init_fn)
    local_init_op = property(lambda self: self._local_init_op)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    ready_op = property(lambda self: self._ready_op)


class SessionCreator:
    """What makes a MonitoredSession's Session (TF's abstract base): `create_session()`."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for %s." % self)


class ChiefSessionCreator(SessionCreator):
    """Makes a Session the chief's way (TF's ChiefSessionCreator): the scaffold finalized,
    the variables restored from `checkpoint_filename_with_path` or the latest checkpoint
    in `checkpoint_dir` when there is one, else initialized (init_op, then init_fn), then
    local_init_op run."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config

    def create_session(self):
        from tfteach.runtime.session import Session
        scaffold = self._scaffold.finalize()
        sess = Session(self._master, graph=graph_lib.get_default_graph(), config=self._config)
        checkpoint_path = self._checkpoint_filename_with_path
        if checkpoint_path is None and self._checkpoint_dir:
            checkpoint_path = checkpoint_management.latest_checkpoint(self._checkpoint_dir)
            if checkpoint_path:
                # As TF's SessionManager: the Saver takes over the checkpoints already
                # there, so keep_checkpoint_max counts them too.
                state = checkpoint_management.get_checkpoint_state(self._checkpoint_dir)
                scaffold.saver.recover_last_checkpoints(
                    list(state.all_model_checkpoint_paths))
        if checkpoint_path:
            scaffold.saver.restore(sess, checkpoint_path)
        else:
            sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
            if scaffold.init_fn is not None:
                scaffold.init_fn(scaffold, sess)
        logging.info("Running local_init_op.")
        sess.run(scaffold.local_init_op)
        logging.info("Done running local_init_op.")
        return sess


class MonitoredSession:
    """A Session that initializes or restores itself and runs hooks around every run():
    `tf.train.MonitoredSession(session_creator=None, hooks=None,
    stop_grace_period_secs=120)`; the session comes from `session_creator` (a
    ChiefSessionCreator() by default)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._graph = graph_lib.get_default_graph()
        self._sess = (session_creator or ChiefSessionCreator()).create_session()
        self._stop_requested = False
        for hook in self._hooks:
            hook.after_create_session(self._sess, None)

    @property
    def graph(self):
        return self._graph

    def should_stop(self):
        return self._stop_requested or self._sess is None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """As TF 1.15's `_HookedSession.run`: each hook's before_run() may add fetches,
        feeds and RunOptions (merged into the caller's, or into a new RunOptions); every
        run gets a RunMetadata, so a hook that asked for a trace reads it in after_run()."""
        from tfteach.runtime.config import RunOptions
        from tfteach.runtime.run_metadata import RunMetadata
        from tfteach.train.session_run_hook import SessionRunArgs
        if self._stop_requested:         # a hook asked to stop (TF's _HookedSession)
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict), self._sess)
        options = options or RunOptions()
        all_fetches = {"caller": fetches}
        feed_dict = self._call_hooks_before_run(context, all_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = self._sess.run(all_fetches, feed_dict=feed_dict, options=options,
                                 run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(context, SessionRunValues(outputs.get(hook), options,
                                                     run_metadata))
        self._stop_requested = self._stop_requested or context.stop_requested
        return outputs["caller"]

    def _call_hooks_before_run(self, context, all_fetches, user_feeds, options):
        """Asks each hook for its SessionRunArgs: its fetches join `all_fetches` (keyed
        by the hook), its options are merged into `options`; returns the run's feeds."""
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(context)
            if request is None:
                continue
            if request.fetches is not None:
                all_fetches[hook] = request.fetches
            if request.feed_dict:
                _refuse_overlap(hook_feeds, request.feed_dict,
                                "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feeds
        if not user_feeds:
            return hook_feeds
        _refuse_overlap(user_feeds, hook_feeds,
                        "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feeds)
        return hook_feeds

    def run_step_fn(self, step_fn):
        class _StepContext:
            session = property(lambda ctx: self._sess)

            def run_with_hooks(ctx, *args, **kwargs):
                return self.run(*args, **kwargs)

            def request_stop(ctx):
                self._stop_requested = True
        return step_fn(_StepContext())

    def close(self):
        self._close(run_end_hooks=True)

    def _close(self, run_end_hooks):
        if self._sess is None:
            return
        try:
            if run_end_hooks:
                for hook in self._hooks:
                    hook.end(self._sess)
        finally:
            self._sess.close()
            self._sess = None

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None  # the input is exhausted: a normal end, as TF
        self._close(run_end_hooks=exception_type is None)
        return exception_type is None



class SingularMonitoredSession(MonitoredSession):
    """MonitoredSession for a single process, made from the chief's arguments, as TF's:
    `SingularMonitoredSession(hooks=None, scaffold=None, master='', config=None,
    checkpoint_dir=None, stop_grace_period_secs=120, checkpoint_filename_with_path=None)`,
    with `raw_session()`."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None,
                 checkpoint_dir=None, stop_grace_period_secs=120,
                 checkpoint_filename_with_path=None):
        super().__init__(ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path),
            hooks=hooks, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The Session inside (its run() runs no hooks)."""
        return self._sess


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None,  # noqa: N802
                             scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=600, save_summaries_steps=100,
                             save_summaries_secs=None, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=None,
                             summary_dir=None):
    """A MonitoredSession with TF's default hooks for a chief: step counter, summaries
    and checkpoints in `checkpoint_dir` (TF's defaults: 600 s, 100 steps)."""
    scaffold = scaffold or Scaffold()
    # TF 1.15's order: the chief's hooks and default hooks, then `hooks` (so in a
    # training log "global_step/sec" comes before a LoggingTensorHook's line).
    all_hooks = []
    if is_chief:
        all_hooks.extend(chief_only_hooks or [])
        summary_dir = summary_dir or checkpoint_dir
        if summary_dir:
            if log_step_count_steps and log_step_count_steps > 0:
                all_hooks.append(hooks_lib.StepCounterHook(
                    output_dir=summary_dir, every_n_steps=log_step_count_steps))
            if (save_summaries_steps and save_summaries_steps > 0) or \
                    (save_summaries_secs and save_summaries_secs > 0):
                all_hooks.append(hooks_lib.SummarySaverHook(
                    scaffold=scaffold, save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs, output_dir=summary_dir))
        if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                               (save_checkpoint_steps and save_checkpoint_steps > 0)):
            all_hooks.append(hooks_lib.CheckpointSaverHook(
                checkpoint_dir, save_steps=save_checkpoint_steps,
                save_secs=None if save_checkpoint_steps else save_checkpoint_secs,
                scaffold=scaffold))
    all_hooks.extend(hooks or [])
    training_util.get_global_step()
    return MonitoredSession(ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir if is_chief else None, config=config,
        master=master), hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
