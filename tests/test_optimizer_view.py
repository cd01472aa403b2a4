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
    assert "fused 1/4 (elementwise_chains)" in optimized
    assert "fused 4/4 (elementwise_chains)" in optimized
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
    assert "fused 2/4 (elementwise_chains)" in bundle["image/svg+xml"]
    assert "fused" not in view.bundle().get("image/svg+xml", "")


def test_the_magic_takes_the_option():
    assert _parse("--optimized", True).optimized is True
    assert _parse("", True).optimized is False
