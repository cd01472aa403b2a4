"""A Session's ConfigProto and a run's RunOptions as TF 1.x programs pass them, against
TensorFlow (tf.compat.v1, graph mode): the session-wide deadline of blocking ops
(`operation_timeout_in_ms`) and what `sess.run` makes of options that are not a
RunOptions. Skipped without TensorFlow."""
import threading

import pytest

import tfteach
from tests.tf_reference import own_message, tensorflow_v1

pytestmark = pytest.mark.reference

# Only a guard against a hang (a run that never returns fails the test instead of
# blocking the suite): every run below ends at its deadline, long before this.
HANG_GUARD_SECONDS = 120


def _outcome_without_hanging(run):
    """(error class, own message) of `run()`, or ("value", its result); a run still
    waiting after HANG_GUARD_SECONDS counts as a hang."""
    result = []

    def target():
        try:
            result.append(("value", run()))
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            result.append((type(e).__name__, own_message(e)))
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    return result[0] if result else ("hang", None)


def _empty_queue_dequeue(tf, config_timeout_ms, run_timeout_ms=None):
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(2, tf.float32)
        dequeue = queue.dequeue()
    config = tf.ConfigProto(operation_timeout_in_ms=config_timeout_ms)
    options = None if run_timeout_ms is None else tf.RunOptions(timeout_in_ms=run_timeout_ms)
    sess = tf.Session(graph=graph, config=config)

    def run():
        try:
            return sess.run(dequeue, options=options)
        finally:
            sess.close()
    return _outcome_without_hanging(run)


@pytest.mark.parametrize("config_ms, run_ms", [(200, None), (200, 0), (600000, 200),
                                               (200, -1)])
def test_operation_timeout_in_ms_bounds_a_blocking_run_as_tensorflow(config_ms, run_ms):
    """`ConfigProto(operation_timeout_in_ms=...)` is every run's deadline unless the
    run's RunOptions.timeout_in_ms is positive: tfteach ignored it, so a dequeue from an
    empty queue waited for ever (TF: DeadlineExceededError)."""
    expected = _empty_queue_dequeue(tensorflow_v1(), config_ms, run_ms)
    assert expected == ("DeadlineExceededError", "Timed out waiting for notification")
    assert _empty_queue_dequeue(tfteach, config_ms, run_ms) == expected


def test_an_operation_timeout_leaves_runs_that_do_not_block_alone():
    def values(tf):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None])
            queue = tf.FIFOQueue(2, tf.float32, shapes=[[]])
            enqueue = queue.enqueue(3.0)
            y = x * 2.0 + queue.dequeue()
        with tf.Session(graph=graph,
                        config=tf.ConfigProto(operation_timeout_in_ms=60000)) as sess:
            out = []
            for value in ([1.0], [1.0, 2.0]):
                sess.run(enqueue)
                out.append(sess.run(y, {x: value}).tolist())
            return out
    assert values(tfteach) == values(tensorflow_v1()) == [[5.0], [5.0, 7.0]]


def _run_with_options(tf, options_of):
    graph = tf.Graph()
    with graph.as_default():
        total = tf.constant(2.0) * 3.0
    with tf.Session(graph=graph) as sess:
        try:
            return ("value", float(sess.run(total, options=options_of(tf))))
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return type(e).__name__, str(e)


@pytest.mark.parametrize("options_of", [
    lambda tf: {},                                   # false: ignored
    lambda tf: tf.ConfigProto(),                     # another message: read as RunOptions
    lambda tf: {"trace_level": 3},                   # no protobuf message
    lambda tf: tf.RunOptions(timeout_in_ms=-1),
], ids=["empty dict", "ConfigProto", "dict", "negative timeout"])
def test_run_options_that_are_not_run_options_as_tensorflow(options_of):
    """tfteach read fields off whatever it was given (`AttributeError: trace_level`, or
    `'dict' object has no attribute 'report_tensor_allocations_upon_oom'`); TF
    serializes the options and parses them as RunOptions."""
    assert _run_with_options(tfteach, options_of) == \
        _run_with_options(tensorflow_v1(), options_of)


def _graph_def_shapes(tf, infer_shapes):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.reduce_sum(x * 2.0, axis=1, name="total")
    config = tf.ConfigProto(graph_options=tf.GraphOptions(infer_shapes=infer_shapes))
    with tf.Session(graph=graph, config=config) as sess:
        return {node.name: str(node.attr["_output_shapes"]) if "_output_shapes" in node.attr
                else None for node in sess.graph_def.node}


@pytest.mark.parametrize("infer_shapes", [True, False])
def test_graph_options_infer_shapes_adds_output_shapes_to_the_sessions_graph_def(
        infer_shapes):
    """TF's `sess.graph_def` is `as_graph_def(add_shapes=config.graph_options.
    infer_shapes)`; tfteach never added the shapes."""
    want = _graph_def_shapes(tensorflow_v1(), infer_shapes)
    assert _graph_def_shapes(tfteach, infer_shapes) == want
    assert (want["total"] is not None) == infer_shapes
