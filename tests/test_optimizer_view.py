"""`%%tfgraph --optimized` without a kernel: the recorder keeps what the graph optimizer
did to each run's plan, the export carries it (a new field; the rest unchanged) and the
picture marks it (docs/optimizer.md, docs/notebook.md)."""
import numpy as np

import tfteach as tf
from tfteach.notebook import graph_dot, graph_export
from tfteach.notebook.graph_magics import _parse
from tfteach.notebook.run_recorder import RunRecorder


def chain_run(optimized):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.identity(tf.exp(tf.tanh(x) * 2.0), name="y")
        z = tf.sin(y, name="z")
        sess = tf.Session()
        with RunRecorder(optimized=optimized) as recorder:
            value = sess.run(z, {x: np.ones((3, 4), np.float32)})
    return graph, recorder.runs, value


def test_the_export_carries_the_rewrites_of_each_run():
    graph, runs, value = chain_run(optimized=True)
    np.testing.assert_allclose(value, np.sin(np.exp(np.tanh(np.ones((3, 4))) * 2.0)), rtol=1e-6)
    export = graph_export.export_graph(graph, runs)
    optimized = export["runs"][0]["optimized"]
    assert {"pass": "dependency", "nodes": ["y"], "result": "reads Exp:0"} in optimized
    chains = [r["nodes"] for r in optimized if r["pass"] == "elementwise_chains"]
    assert chains == [["Tanh", "mul", "Exp", "z"]]


def test_without_the_option_the_export_is_as_before_plus_an_empty_field():
    graph, runs, _ = chain_run(optimized=False)
    export = graph_export.export_graph(graph, runs)
    run = export["runs"][0]
    assert run["optimized"] == []
    assert {"executed", "pruned", "steps", "copies", "total_us", "error"} <= set(run)
    assert "z" in run["executed"] and "y" in run["executed"]     # traced: as built
    assert graph_dot.to_dot(export) == graph_dot.to_dot(export, optimized=True)


def test_the_optimized_picture_marks_fused_and_removed_nodes():
    graph, runs, _ = chain_run(optimized=True)
    export = graph_export.export_graph(graph, runs)
    built, optimized = graph_dot.to_dot(export), graph_dot.to_dot(export, optimized=True)
    assert "elementwise_chains" not in built and "read through" not in built
    # tanh, *, exp, sin: one run of one Numba kernel (NumPy's loops called from it)
    assert "fused 1/4, Numba kernel (elementwise_chains)" in optimized
    assert "fused 4/4, Numba kernel (elementwise_chains)" in optimized
    assert "read through (dependency)" in optimized
    assert "orange border: fused into one step" in optimized


def test_the_views_optimized_bundle_draws_the_marks():
    import pytest
    if not graph_dot.has_dot():
        pytest.skip("Graphviz's dot is not installed")
    from tfteach.notebook.graph_view import GraphView
    graph, runs, _ = chain_run(optimized=True)
    view = GraphView(graph_export.export_graph(graph, runs), runs, graph)
    bundle = view.optimized._repr_mimebundle_()
    assert "fused 2/4, Numba kernel (elementwise_chains)" in bundle["image/svg+xml"]
    assert "fused" not in view.bundle().get("image/svg+xml", "")


def test_the_magic_takes_the_option():
    assert _parse("--optimized", True).optimized is True
    assert _parse("", True).optimized is False


def regression_step():
    """Lesson 08's training step with `[None, 1]` placeholders (lessons/37)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1], name="x")
        y_ = tf.placeholder(tf.float32, [None, 1], name="y_")
        w = tf.Variable(tf.zeros([1, 1]), name="W")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y_))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 0}))
        sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((5, 1), np.float32), y_: np.zeros((5, 1), np.float32)}
    return graph, sess, train, loss, x, y_, feed


def test_rewrites_of_takes_a_training_op_and_lists_the_fed_shapes_folds():
    from tfteach.runtime.optimizer import rewrites_of
    graph, sess, train, loss, x, y_, feed = regression_step()
    before = rewrites_of(sess, [train, loss], [x, y_])     # an op as in sess.run: a target
    assert [r.result for r in before if r.pass_name == "shape_specialisation"] == [
        "folded for each fed-shape signature"]
    sess.run([train, loss], feed)
    after = rewrites_of(sess, [train, loss], [x, y_])
    (folds,) = [r for r in after if r.pass_name == "shape_specialisation"]
    assert folds.result == "constants for shapes ((5, 1), (5, 1))"
    assert "gradients/sub_grad/BroadcastGradientArgs" in folds.nodes
    assert {n for r in after if r.pass_name == "redundant_shape_ops" for n in r.nodes} == {
        "gradients/sub_grad/Sum", "gradients/sub_grad/Reshape"}
    # the specialised steps' chains only, not the general plan's as well
    chains = [r.nodes for r in after if r.pass_name == "elementwise_chains"]
    assert len(chains) == len(set(chains))


def test_the_export_shows_what_the_untraced_runs_after_the_recorded_ones_ran():
    # The recorded runs are traced (every op as built); the fed-shape folds appear only
    # with the untraced runs after them, so the export is filled when the cell ends.
    graph, sess, train, loss, x, y_, feed = regression_step()
    with RunRecorder(optimized=True, max_runs=1) as recorder:
        for _ in range(3):
            sess.run([train, loss], feed)
    export = graph_export.export_graph(graph, recorder.runs)
    optimized = export["runs"][0]["optimized"]
    folded = {n for r in optimized if r["pass"] == "shape_specialisation" for n in r["nodes"]}
    assert "gradients/sub_grad/BroadcastGradientArgs" in folded
    marks = graph_dot.to_dot(export, optimized=True)
    assert "read through (redundant_shape_ops)" in marks


def test_the_picture_says_which_fused_links_run_in_a_numba_kernel():
    from tfteach.notebook.optimized_view import marks
    run = {"optimized": [{"pass": "elementwise_chains", "nodes": ["t", "m", "a", "t2"],
                          "result": "one step: Tanh -> Numba[Mul -> AddV2] -> Tanh"}]}
    assert marks(run) == {
        "t": ("elementwise_chains", "fused 1/4 (elementwise_chains)"),
        "m": ("elementwise_chains", "fused 2/4, Numba kernel (elementwise_chains)"),
        "a": ("elementwise_chains", "fused 3/4, Numba kernel (elementwise_chains)"),
        "t2": ("elementwise_chains", "fused 4/4 (elementwise_chains)")}
    # words that do not match the chain's nodes: no kernel claimed
    run["optimized"][0]["result"] = "one step: Numba[Mul -> AddV2]"
    assert all("Numba" not in words for _, words in marks(run).values())


def test_the_picture_marks_a_fused_rnn_cell_as_one_numba_kernel():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8], name="x")
        c = tf.placeholder(tf.float32, [None, 2], name="c")
        i, j, f, o = tf.split(x, 4, axis=1)
        new_c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        new_h = tf.multiply(tf.tanh(new_c), tf.sigmoid(o), name="new_h")
        sess = tf.Session()
        with RunRecorder(optimized=True) as recorder:
            sess.run([new_c, new_h], {x: np.ones((3, 8), np.float32),
                                      c: np.ones((3, 2), np.float32)})
    export = graph_export.export_graph(graph, recorder.runs)
    (region,) = [r for r in export["runs"][0]["optimized"]
                 if r["pass"] == "elementwise_regions"]
    assert region["nodes"][0] == "split" and region["nodes"][-1] == "new_h"
    picture = graph_dot.to_dot(export, optimized=True)
    n = len(region["nodes"])
    assert "fused 1/%d, Numba kernel (elementwise_regions)" % n in picture
    assert "fused %d/%d, Numba kernel (elementwise_regions)" % (n, n) in picture
    assert "elementwise_regions" not in graph_dot.to_dot(export)
