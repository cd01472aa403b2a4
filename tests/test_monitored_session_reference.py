"""MonitoredTrainingSession against TensorFlow's (tf.compat.v1, graph mode, ref variables:
TF 1.15's): the lines its hooks log, in order, and the events they write. Skipped without
TensorFlow."""
import glob
import logging
import re

import pytest

import tfteach
from tests.tf_reference import own_message, tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    with tf1_behaviour():
        yield


def _logged(run):
    """The "tensorflow" logger's lines (both libraries log there) while `run()` runs."""
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())
    logger = logging.getLogger("tensorflow")
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        run()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    # Times vary; TF 2 added the checkpoint listeners' lines, which 1.15 had not.
    return [re.sub(r"sec: [0-9.e+-]+", "sec: X", re.sub(r"\([0-9.]+ sec\)", "(X sec)", line))
            for line in lines if "checkpoint listeners" not in line]


def _train(tf, logdir, increment=True):
    graph = tf.Graph()
    with graph.as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        loss = tf.square(w, name="loss")
        tf.summary.scalar("loss", loss)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=step if increment else None)
        hooks = [tf.train.StopAtStepHook(last_step=5),
                 tf.train.LoggingTensorHook({"loss": loss, "step": step}, every_n_iter=2)]

        def run():
            with tf.train.MonitoredTrainingSession(
                    checkpoint_dir=logdir, hooks=hooks, save_summaries_steps=2,
                    log_step_count_steps=2) as sess:
                for _ in range(5 if increment else 4):
                    sess.run(train)
        lines = _logged(run)
    tf.summary.FileWriterCache.clear()
    events = []
    for path in sorted(glob.glob(logdir + "/events.out.tfevents.*")):
        for event in tfteach.train.summary_iterator(path):
            what = event.WhichOneof("what")
            events.append((event.step, what, [v.tag for v in event.summary.value]))
    return lines, events


def test_hooks_log_and_write_as_tensorflows(tmp_path):
    # The default hooks run before the caller's: "global_step/sec" comes before the
    # LoggingTensorHook's line of the same step, and is written at the real global step.
    theirs = _train(tensorflow_v1(), str(tmp_path / "tf"))
    ours = _train(tfteach, str(tmp_path / "tfteach"))
    assert ours[0][-6:] == [
        "loss = 1.0, step = 1", "global_step/sec: X", "loss = 0.4096, step = 3 (X sec)",
        "global_step/sec: X", "loss = 0.16777213, step = 5 (X sec)",
        "Saving checkpoints for 5 into %s." % str(tmp_path / "tfteach" / "model.ckpt")]
    # TF reads a ref variable fetched with the op that updates it in no fixed order, so
    # now and then its hooks see the step before the update (and warn that it did not
    # move): compare with TF the kinds of lines and events, in order, not their steps.
    assert _kinds(ours[0]) == _kinds(theirs[0])
    # The checkpoint saver writes the graph and the meta graph, as FileWriter did.
    assert [e[:2] for e in ours[1]] == [
        (0, "file_version"), (0, "graph_def"), (0, "meta_graph_def"), (0, "graph_def"),
        (0, "meta_graph_def"), (0, "session_log"), (1, "session_log"), (1, "summary"),
        (3, "summary"), (3, "summary"), (5, "summary"), (5, "summary"), (5, "session_log")]
    assert sorted(map(str, (e[1:] for e in ours[1]))) == sorted(
        map(str, (e[1:] for e in theirs[1])))


def _kinds(lines):
    """Each line's first two words ("loss =", "global_step/sec: X", "Saving checkpoints")."""
    return [" ".join(line.split()[:2]) for line in lines
            if not line.startswith("It seems that global step")]


def test_a_global_step_that_does_not_move_is_warned_about_as_tensorflow(tmp_path,
                                                                        monkeypatch):
    # logged for the first 5 times in a process (log_first_n): count from 0 here
    monkeypatch.setattr(tfteach.logging, "_counts", {})
    theirs = _train(tensorflow_v1(), str(tmp_path / "tf"), increment=False)[0]
    ours = _train(tfteach, str(tmp_path / "tfteach"), increment=False)[0]
    warned = [line for line in ours if line.startswith("It seems that global step")]
    assert len(warned) == 3 and warned[0] == (
        "It seems that global step (tf.train.get_global_step) has not been increased. "
        "Current value (could be stable): 0 vs previous value: 0. You could increase the "
        "global step by passing tf.train.get_global_step() to Optimizer.apply_gradients or "
        "Optimizer.minimize.")
    assert warned == [line for line in theirs if line.startswith("It seems that global")]


def _session_creator_run(tf, checkpoint_dir, kind):
    """A model restored by a MonitoredSession made the three ways TF 1.15 offers: a
    ChiefSessionCreator, a SingularMonitoredSession (positional hooks first), a custom
    SessionCreator. Returns what the runs saw and which hooks ran."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(5.0, name="w")
        double = tf.assign(w, w * 2.0)
        ran = []

        class Counter(tf.train.SessionRunHook):
            def before_run(self, run_context):
                ran.append("before")

        if kind == "chief":
            sess = tf.train.MonitoredSession(
                session_creator=tf.train.ChiefSessionCreator(checkpoint_dir=checkpoint_dir),
                hooks=[Counter()])
        elif kind == "singular":
            sess = tf.train.SingularMonitoredSession([Counter()], None, "", None,
                                                     checkpoint_dir)
        else:
            class Plain(tf.train.SessionCreator):
                def create_session(self):
                    session = tf.Session()
                    session.run(w.initializer)
                    return session
            sess = tf.train.MonitoredSession(Plain(), [Counter()])
        with sess:
            values = [float(sess.run(double)) for _ in range(2)]
            if kind == "singular":
                values.append(float(sess.raw_session().run(w)))   # no hook runs
    return values, ran


@pytest.mark.parametrize("kind", ["chief", "singular", "custom"])
def test_session_creators_as_tensorflows(tmp_path, kind):
    """The standard TF 1.15 ways of giving a MonitoredSession its session: tfteach had no
    tf.train.ChiefSessionCreator nor SessionCreator, ignored `session_creator`, and took
    SingularMonitoredSession's first positional argument for a session creator."""
    tf1 = tensorflow_v1()
    results = []
    for tf in (tf1, tfteach):
        directory = tmp_path / tf.__name__.split(".")[0]
        with tf.Graph().as_default():      # a checkpoint where w is 3.0
            w = tf.Variable(3.0, name="w")
            with tf.Session() as s:
                s.run(w.initializer)
                tf.train.Saver().save(s, str(directory / "model"))
        results.append(_session_creator_run(tf, str(directory), kind))
    assert results[1] == results[0]
    expected = [10.0, 20.0] if kind == "custom" else [6.0, 12.0]
    assert results[1][0][:2] == expected


def test_monitored_session_takes_tensorflows_arguments_only():
    """TF's MonitoredSession has no `scaffold` or `checkpoint_dir` argument (they belong
    to the session creator): the same TypeError's class."""
    def build(tf):
        tf.Variable(1.0)
        tf.train.MonitoredSession(scaffold=tf.train.Scaffold())
    tf1 = tensorflow_v1()
    errors = []
    for tf in (tf1, tfteach):
        with tf.Graph().as_default():
            with pytest.raises(TypeError) as info:
                build(tf)
            errors.append(str(info.value))
    assert all("unexpected keyword argument 'scaffold'" in e for e in errors)


# -- what hooks add to a run: fetches, feeds, RunOptions (TF 1.15's _HookedSession) ------------
def _hooked_runs(tf):
    """Two hooks: one traces every run (no fetches of its own), one fetches `b` and asks
    for partition graphs and a timeout; what after_run shows them, and the caller's
    own RunMetadata and RunOptions afterwards."""
    seen = []

    class Tracer(tf.train.SessionRunHook):
        def before_run(self, run_context):
            seen.append(("context", run_context.original_args))
            return tf.train.SessionRunArgs(
                None, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))

        def after_run(self, run_context, run_values):
            seen.append(("tracer", run_values.results, str(run_values.options),
                         len(run_values.run_metadata.step_stats.dev_stats)))

    class Fetcher(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs(
                b, options=tf.RunOptions(output_partition_graphs=True, timeout_in_ms=500))

        def after_run(self, run_context, run_values):
            seen.append(("fetcher", run_values.results.tolist(),
                         len(run_values.run_metadata.partition_graphs)))

    graph = tf.Graph()
    with graph.as_default():
        b = tf.square(tf.constant([1.0, 2.0]), name="b")
        c = tf.negative(b, name="c")
        with tf.train.MonitoredSession(hooks=[Tracer(), Fetcher()]) as sess:
            seen.append(("caller", sess.run(c).tolist()))
            options, metadata = tf.RunOptions(trace_level=tf.RunOptions.SOFTWARE_TRACE), \
                tf.RunMetadata()
            seen.append(("caller", sess.run(c, options=options,
                                            run_metadata=metadata).tolist()))
            seen.append(("caller's", str(options), len(metadata.step_stats.dev_stats),
                         len(metadata.partition_graphs)))
    return [_plain(item) for item in seen]


def _plain(item):
    if item[0] == "context":         # SessionRunArgs(fetches=<a tensor>, ...): compare fields
        args = item[1]
        return ("context", getattr(args.fetches, "name", args.fetches), args.feed_dict,
                args.options)
    return item


def test_hooks_run_options_are_merged_and_their_trace_is_seen_in_after_run():
    """tfteach dropped a hook's RunOptions (no trace for after_run), gave hooks the
    caller's RunMetadata (None when the caller passed none) and refused a hook's
    SessionRunArgs(None, options=...) with `TypeError: Fetch argument None`."""
    assert _hooked_runs(tfteach) == _hooked_runs(tensorflow_v1())


def _stop_then_run(tf):
    class Stopper(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            run_context.request_stop()

    graph = tf.Graph()
    with graph.as_default():
        c = tf.constant(1.0)
        with tf.train.MonitoredSession(hooks=[Stopper()]) as sess:
            sess.run(c)
            stopped = sess.should_stop()
            try:
                sess.run(c)
            except RuntimeError as e:
                return stopped, str(e)
    return stopped, None


def test_a_run_after_a_hook_asked_to_stop_is_refused_as_tensorflow():
    assert _stop_then_run(tfteach) == _stop_then_run(tensorflow_v1()) == (
        True, "Run called even after should_stop requested.")


def _feeding_hooks(tf):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.placeholder(tf.float32, [], name="y")
        total = x + y

        class Feeder(tf.train.SessionRunHook):
            def __init__(self, feeds):
                self.feeds = feeds

            def before_run(self, run_context):
                return tf.train.SessionRunArgs(None, feed_dict=self.feeds)

        results = []
        with tf.train.MonitoredSession(hooks=[Feeder({x: 1.0}), Feeder({y: 2.0})]) as sess:
            results.append(float(sess.run(total)))          # only the hooks feed
        for hooks, feeds in (([Feeder({x: 1.0}), Feeder({x: 2.0})], None),
                             ([Feeder({x: 1.0})], {x: 3.0, y: 1.0})):
            with tf.train.MonitoredSession(hooks=hooks) as sess:
                try:
                    sess.run(total, feed_dict=feeds)
                except RuntimeError as e:
                    results.append(str(e))
    return results


def test_feeds_from_hooks_and_their_conflicts_as_tensorflow():
    conflict = " Conflict(s): [<tf.Tensor 'x:0' shape=() dtype=float32>]"
    assert _feeding_hooks(tfteach) == _feeding_hooks(tensorflow_v1()) == [
        3.0, "Same tensor is fed by two hooks." + conflict,
        "Same tensor is fed by a SessionRunHook and user." + conflict]


# -- session creators: how TF 1.x programs give a MonitoredSession its config ----------------
def _deadline_through_creator(tf):
    graph = tf.Graph()
    with graph.as_default():
        dequeue = tf.FIFOQueue(2, tf.float32).dequeue()
        creator = tf.train.ChiefSessionCreator(
            config=tf.ConfigProto(operation_timeout_in_ms=200))
        with tf.train.MonitoredSession(session_creator=creator) as sess:
            try:
                sess.run(dequeue)
            except tf.errors.DeadlineExceededError as e:
                return own_message(e)
    return None


def test_a_chief_session_creators_config_reaches_the_session():
    assert _deadline_through_creator(tfteach) == _deadline_through_creator(
        tensorflow_v1()) == "Timed out waiting for notification"


def _feed_fn_and_final_ops(tf):
    """FeedFnHook feeds every run (counting its calls); FinalOpsHook's ops run at the end,
    after the last step, and keep their values."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        total = tf.Variable(0.0, name="total")
        add = tf.assign_add(total, x)
        calls = []

        def feed_fn():
            calls.append(len(calls))
            return {x: float(len(calls))}
        final = tf.train.FinalOpsHook({"total": total, "twice": total * 2})
        hooks = [tf.train.FeedFnHook(feed_fn), final]
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            steps = [float(sess.run(add)) for _ in range(3)]
    return steps, len(calls), final.final_ops_values


def test_feed_fn_and_final_ops_hooks_as_tensorflow():
    """tf.train.FeedFnHook and FinalOpsHook were missing (AttributeError)."""
    want = _feed_fn_and_final_ops(tensorflow_v1())
    assert _feed_fn_and_final_ops(tfteach) == want == ([1.0, 3.0, 6.0], 3,
                                                       {"total": 6.0, "twice": 12.0})
