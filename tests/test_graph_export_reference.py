"""The nodes %%tfgraph marks as executed are the nodes TensorFlow itself executes.

TensorFlow's own FULL_TRACE step stats (with Grappler off, so constants are not folded
away) name every node a run executed; the export of the same program run on tfteach
must mark exactly those (TF's internal `_SOURCE`, `_arg_*`, `_retval_*` nodes aside).
"""
import pytest

import tfteach
from tfteach.notebook import graph_export
from tfteach.notebook.run_recorder import RunRecorder

from tf_reference import tensorflow_v1

pytestmark = pytest.mark.reference


def notes_example(tf):
    a, b, c, d = (tf.constant(v, name=n) for v, n in ((1, "a"), (2, "b"), (3, "c"), (4, "d")))
    add1 = tf.add(a, b, name="add1")
    mul1 = tf.multiply(b, c, name="mul1")
    tf.add(c, d, name="add2")
    return tf.add(add1, mul1, name="output"), {}


def notes_fed(tf):
    output, _ = notes_example(tf)
    return output, {"add1:0": 100}


def scoped_fed_inner(tf):
    with tf.name_scope("inputs"):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("model"):
        w = tf.constant([[1.0], [2.0]], name="w")
        h = tf.matmul(x, w, name="h")
        y = tf.reduce_sum(h * 2.0, name="y")
    return y, {"model/h:0": [[5.0]]}


def control_dependency(tf):
    a = tf.constant(1.0, name="a")
    side = tf.add(a, 1.0, name="side")
    unused = tf.multiply(a, 5.0, name="unused")
    with tf.control_dependencies([side]):
        out = tf.identity(a, name="out")
    del unused
    return out, {}


def tf_executed(build):
    tf = tensorflow_v1()
    from tensorflow.core.protobuf import rewriter_config_pb2
    config = tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True),
        optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0,
                                              do_constant_folding=False)))
    graph = tf.Graph()
    with graph.as_default():
        fetch, feeds = build(tf)
        feed_dict = {graph.get_tensor_by_name(k): v for k, v in feeds.items()}
        with tf.Session(graph=graph, config=config) as sess:
            meta = tf.RunMetadata()
            value = sess.run(fetch, feed_dict,
                             options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                             run_metadata=meta)
    names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    return {n for n in names if not n.startswith("_")}, value


def tfteach_executed(build):
    graph = tfteach.Graph()
    with graph.as_default():
        fetch, feeds = build(tfteach)
        feed_dict = {graph.get_tensor_by_name(k): v for k, v in feeds.items()}
        recorder = RunRecorder()
        with tfteach.Session(graph=graph) as sess, recorder:
            value = sess.run(fetch, feed_dict)
    (run,) = graph_export.export_graph(graph, recorder.runs)["runs"]
    return set(run["executed"]), value


@pytest.mark.parametrize("build", [notes_example, notes_fed, scoped_fed_inner,
                                   control_dependency])
def test_executed_nodes_match_tensorflow(build):
    expected, tf_value = tf_executed(build)
    got, value = tfteach_executed(build)
    assert got == expected
    assert value == pytest.approx(tf_value)
