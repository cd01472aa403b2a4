"""A plan the graph optimizer leaves as built says why (docs/optimizer.md): the course
kernel places graphs on its virtual /gpu:0, where `%%tfgraph --optimized` would
otherwise show nothing at all and a student could not tell why."""
import numpy as np

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.notebook import graph_dot, graph_export
from tfteach.notebook.run_recorder import RunRecorder
from tfteach.runtime.optimizer import NOT_OPTIMIZED, rewrites_of


def regression(config=None):
    x = tf.placeholder(tf.float32, [None, 1], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([1, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((4, 1), np.float32), y: np.full((4, 1), 2.0, np.float32)}
    return sess, train, loss, feed


def test_a_cpu_plan_has_no_note_and_a_single_fetch_is_taken_as_sess_run_takes_it():
    sess, train, loss, feed = regression()
    for _ in range(3):
        sess.run([train, loss], feed)
    done = rewrites_of(sess, train, list(feed))              # one op, not a list
    assert done and NOT_OPTIMIZED not in {r.pass_name for r in done}
    assert rewrites_of(sess, loss, list(feed)) == rewrites_of(sess, [loss], list(feed))


def test_a_gpu_plan_says_it_was_left_as_built(virtual_gpus):
    virtual_gpus(1)
    sess, train, loss, feed = regression()
    sess.run([train, loss], feed)
    done = rewrites_of(sess, [train, loss], list(feed))
    assert [r.pass_name for r in done] == [NOT_OPTIMIZED]
    assert done[0].nodes == ()
    assert done[0].result.startswith("not optimized: its ops are placed on a GPU")
    # ... and on the CPU, as the note says, the same graph is optimized
    tf.reset_default_graph()
    sess, train, loss, feed = regression(tf.ConfigProto(device_count={"GPU": 0}))
    sess.run([train, loss], feed)
    assert NOT_OPTIMIZED not in {r.pass_name for r in rewrites_of(sess, [train, loss],
                                                                    list(feed))}


def test_a_top_level_cond_says_so():
    x = tf.placeholder(tf.float32, [None], name="x")
    out = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
    sess = tf.Session()
    assert sess.run(out, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
    done = rewrites_of(sess, [out], [x])
    assert done[0].pass_name == NOT_OPTIMIZED and "tf.cond or while_loop" in done[0].result


def test_the_optimized_picture_shows_the_note(virtual_gpus):
    virtual_gpus(1)
    graph = tf.Graph()
    with graph.as_default():
        sess, train, loss, feed = regression()
        with RunRecorder(optimized=True) as recorder:
            sess.run([train, loss], feed)
    export = graph_export.export_graph(graph, recorder.runs)
    notes = [r for r in export["runs"][0]["optimized"] if r["pass"] == NOT_OPTIMIZED]
    assert len(notes) == 1 and notes[0]["nodes"] == []
    dot = graph_dot.to_dot(export, run_index=0, optimized=True)
    assert "optimized_note" in dot and "placed on a GPU" in dot
    assert "optimized_note" not in graph_dot.to_dot(export, run_index=0, optimized=False)
