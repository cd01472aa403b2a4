"""A plan the graph optimizer leaves as built says why (docs/optimizer.md): a top-level
tf.cond or while_loop, or a real GPU (tests/test_cuda_runtime.py), where `%%tfgraph
--optimized` would otherwise show nothing at all and a student could not tell why. The
course kernel's virtual /gpu:0 is optimized, its fused chains accounted as their ops."""
import numpy as np

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.notebook import graph_dot, graph_export
from tfteach.notebook.run_recorder import RunRecorder
from tfteach.runtime.config import RewriterConfig
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


def test_a_virtual_gpu_plan_is_optimized_and_keeps_its_bits_and_memory(virtual_gpus):
    # The course kernel's /gpu:0: optimized (before, "not optimized: placed on a GPU"),
    # with the unoptimized plan's bits and TensorFlow's memory figures (every value its
    # GPU graph makes is counted: a fused chain's too, runtime/chain_accounting.py).
    virtual_gpus(1)
    results = {}
    for label, config in (("on", None), ("off", tf.ConfigProto(graph_options=tf.GraphOptions(
            rewrite_options=RewriterConfig(disable_meta_optimizer=True))))):
        tf.reset_default_graph()
        sess, train, loss, feed = regression(config)
        tf.config.reset_memory()
        losses = [sess.run([train, loss], feed)[1] for _ in range(5)]
        stats = tf.config.memory_stats()
        results[label] = (losses, sess.run(tf.trainable_variables()),
                          stats["peak_bytes_in_use"], stats["bytes_in_use"], stats["num_allocs"])
        done = rewrites_of(sess, [train, loss], list(feed))
        if label == "on":
            names = {r.pass_name for r in done}
            assert NOT_OPTIMIZED not in names and "shape_specialisation" in names
            # the gradient's 2-op chain: too short to pay for its replay on a GPU
            assert "elementwise_chains" not in names
        else:
            assert done == []
    on, off = results["on"], results["off"]
    assert np.asarray(on[0]).tobytes() == np.asarray(off[0]).tobytes()
    assert all(a.tobytes() == b.tobytes() for a, b in zip(on[1], off[1]))
    # Every tensor the unoptimized plan makes on the GPU is counted (a fused chain's
    # values too); what is read through (a Reshape to its own shape) shares its input's buffer,
    # so the peak can only fall; nothing is left behind.
    assert on[4] == off[4] and on[2] <= off[2] and on[3] == off[3]
    # ... and the CPU's numbers too (same kernels)
    tf.reset_default_graph()
    sess, train, loss, feed = regression(tf.ConfigProto(device_count={"GPU": 0}))
    cpu_losses = [sess.run([train, loss], feed)[1] for _ in range(5)]
    assert np.asarray(cpu_losses).tobytes() == np.asarray(on[0]).tobytes()
    # independently: w after 5 steps of gradient descent on mean((x w - 2)^2), x = 1
    w = np.float32(0)
    for _ in range(5):
        w = np.float32(w - np.float32(0.1) * np.float32(2) * (w - np.float32(2)))
    np.testing.assert_allclose(on[1][0].ravel(), [w], rtol=1e-6)


def test_a_top_level_cond_says_so():
    x = tf.placeholder(tf.float32, [None], name="x")
    out = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
    sess = tf.Session()
    assert sess.run(out, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
    done = rewrites_of(sess, [out], [x])
    assert done[0].pass_name == NOT_OPTIMIZED and "tf.cond or while_loop" in done[0].result


def test_the_optimized_picture_shows_the_note():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        out = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
        sess = tf.Session()
        with RunRecorder(optimized=True) as recorder:
            sess.run(out, {x: [1.0, 2.0]})
    export = graph_export.export_graph(graph, recorder.runs)
    notes = [r for r in export["runs"][0]["optimized"] if r["pass"] == NOT_OPTIMIZED]
    assert len(notes) == 1 and notes[0]["nodes"] == []
    dot = graph_dot.to_dot(export, run_index=0, optimized=True)
    assert "optimized_note" in dot and "tf.cond or while_loop" in dot
    assert "optimized_note" not in graph_dot.to_dot(export, run_index=0, optimized=False)
