"""The %%tfgraph views without a kernel: export JSON, outline, DOT/SVG, step panel.

Which nodes ran is checked against an independent walk of the graph's inputs written
here (not the engine's `prune`), and the SVG is parsed as XML, not searched as text.
"""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tfteach as tf
from tfteach.notebook import graph_dot, graph_export, graph_outline, graph_widgets
from tfteach.notebook.graph_view import GraphView, mime_bundle
from tfteach.notebook.run_recorder import RunRecorder, planned_run

from device_helpers import virtual_gpus  # noqa: F401 - fixture
from notes_graphs import notes_example

needs_dot = pytest.mark.skipif(not graph_dot.has_dot(), reason="Graphviz's dot is not installed")
SVG = "{http://www.w3.org/2000/svg}"
EVIL = "<img src=x onerror=alert(1)>"


def needed_ops(fetch_ops, fed_tensor_names=()):
    """Independent of the engine: every op reachable backwards from the fetches through
    data and control inputs, not crossing a fed tensor."""
    fed, seen, stack = set(fed_tensor_names), set(), list(fetch_ops)
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack += [t.op for t in op.inputs if t.name not in fed]
        stack += list(op.control_inputs)
    return seen


def record(fn):
    rec = RunRecorder()
    with rec:
        fn()
    return rec.runs


def svg_tree(svg_text):
    return ET.fromstring(svg_text)


def all_text(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def test_export_marks_what_the_fetch_needed():
    output, add2 = notes_example()
    with tf.Session() as sess:
        runs = record(lambda: sess.run(output))
    ex = graph_export.export_graph(tf.get_default_graph(), runs)
    ex = json.loads(json.dumps(ex))                          # it is plain JSON
    assert ex["version"] == graph_export.SCHEMA_VERSION == 1
    run = ex["runs"][0]
    assert set(run["executed"]) == needed_ops([output.op])
    assert "add2" not in run["executed"] and set(run["pruned"]) == {"add2", "d"}
    # executed order is a topological order of the graph
    pos = {n: i for i, n in enumerate(run["executed"])}
    for e in ex["edges"]:
        if e["dst"] in pos:
            assert pos[e["src"]] < pos[e["dst"]]
    by_name = {n["name"]: n for n in ex["nodes"]}
    assert by_name["a"]["kind"] == "constant" and by_name["output"]["kind"] == "op"
    assert [e["dtype"] for e in ex["edges"] if e["dst"] == "output"] == ["int32", "int32"]
    step_values = {s["name"]: s["outputs"][0]["preview"] for s in run["steps"]}
    assert step_values["output"] == "9" and step_values["mul1"] == "6"


def test_feeds_cut_the_graph_and_fetch_plans_nothing():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("layer"):
        h = tf.multiply(x, 2.0, name="h")
        y = tf.reduce_sum(h, name="y")
    with tf.Session() as sess:
        runs = record(lambda: sess.run(y, {h: [[1.0, 2.0]]}))
    run = graph_export.export_graph(tf.get_default_graph(), runs)["runs"][0]
    assert run["feeds"] == ["layer/h:0"]
    assert set(run["executed"]) == needed_ops([y.op], ["layer/h:0"])
    assert "layer/h" not in run["executed"] and "x" not in run["executed"]
    plan = planned_run(tf.get_default_graph(), ["layer/y"])
    assert plan.kind == "fetch" and plan.steps == []
    assert set(plan.executed) == needed_ops([y.op])
    with pytest.raises((KeyError, ValueError)):
        planned_run(tf.get_default_graph(), ["nothere"])


def test_dot_has_one_cluster_per_scope_and_collapse_folds():
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            a = tf.constant(1.0, name="a")
        b = tf.add(a, 1.0, name="b")
    tf.add(b, 1.0, name="c")
    ex = graph_export.export_graph(tf.get_default_graph())
    # tf.add(.., 1.0, name="b") puts its constant at "outer/b/y": "b" is a scope too,
    # and the op b is drawn inside it (as TensorBoard does)
    assert [s["path"] for s in ex["scopes"]] == ["c", "outer", "outer/b", "outer/inner"]
    assert {n["name"]: n["scope"] for n in ex["nodes"]}["outer/b"] == "outer/b"
    dot = graph_dot.to_dot(ex)
    assert dot.count('subgraph "cluster_') == 4 + 1           # + the legend
    folded = graph_dot.to_dot(ex, collapse=0)
    assert folded.count('subgraph "cluster_') == 1            # only the legend
    under_outer = [op for op in tf.get_default_graph().get_operations()
                   if op.name.startswith("outer/")]
    assert "(%d ops, folded)" % len(under_outer) in folded
    assert "(2 ops, folded)" in folded                        # c and c/y
    assert graph_dot.to_dot(ex, collapse=1).count('subgraph "cluster_') == 2 + 1


@needs_dot
def test_svg_device_colours_and_virtual_legend(virtual_gpus):  # noqa: F811
    virtual_gpus(2)
    with tf.device("/cpu:0"):
        a = tf.constant([1.0, 2.0], name="a")
    with tf.device("/gpu:1"):
        b = tf.multiply(a, 3.0, name="b")
    with tf.name_scope("s"):
        c = tf.add(b, 1.0, name="c")      # default: GPU:0
    with tf.Session() as sess:
        runs = record(lambda: sess.run(c))
    ex = graph_export.export_graph(tf.get_default_graph(), runs)
    devices = {d["name"]: d for d in ex["devices"]}
    assert set(devices) == {"CPU:0", "GPU:0", "GPU:1"}
    assert devices["GPU:1"]["virtual"] and not devices["CPU:0"]["virtual"]
    run = ex["runs"][0]
    copies = {(c["tensor"], c["to"]): c["bytes"] for c in run["copies"]}
    assert copies[("a:0", "GPU:1")] == 8 and copies[("s/c:0", "CPU:0")] == 8
    root = svg_tree(mime_bundle(ex)["image/svg+xml"])
    fills = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "node":
            shape = next((el for el in g.iter() if el.tag in (
                SVG + "polygon", SVG + "ellipse", SVG + "path")), None)
            name = "".join(g.find(SVG + "title").itertext())
            fills[name] = shape.get("fill") if shape is not None else None
    text = " ".join(all_text(root))
    assert "GPU:1 (virtual GPU)" in text and "GPU:0 (virtual GPU)" in text
    order = [n["name"] for n in ex["nodes"]]
    ids = {n: "n%d" % order.index(n) for n in ("a", "b", "s/c")}   # DOT ids: export order
    assert fills[ids["a"]] == devices["CPU:0"]["color"]
    assert fills[ids["b"]] == devices["GPU:1"]["color"]
    assert fills[ids["s/c"]] == devices["GPU:0"]["color"]
    clusters = [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]
    assert len(clusters) == len(ex["scopes"]) + 1


@needs_dot
def test_a_20000_character_string_or_name_is_still_drawn():
    """Graphviz refuses quoted strings over 16 KiB: labels, tooltips and the JSON carry
    a preview that states the full size, and the picture is drawn."""
    text = "s" * 19_000 + "&<\"" * 250                 # 20,000 chars, escapes included
    constant = tf.constant(text, name="text")
    with tf.name_scope("q" * 20_000):
        out = tf.identity(constant, name="n" * 20_000)
    with tf.Session() as sess:
        runs = record(lambda: sess.run(out))
    ex = graph_export.export_graph(tf.get_default_graph(), runs)
    bundle = mime_bundle(ex, collapse=None)
    assert "image/svg+xml" in bundle, bundle["text/plain"][-400:]
    root = svg_tree(bundle["image/svg+xml"])
    texts = all_text(root)

    def cut(name, suffix=""):          # a preview of a long name: start, full size
        return [t for t in texts if t.startswith(name[:20]) and
                t.endswith(name[-1] + "... (20,000 characters)" + suffix) and
                len(t) <= 60 + 4]
    assert cut("#2 " + "n" * 100) and cut("q" * 100, "/")  # the op's box, its cluster
    tooltips = [el.attrib.get("{http://www.w3.org/1999/xlink}title", "")
                for el in root.iter(SVG + "a")]
    assert any(t.startswith("text (Const)") and "value = b'sss" in t and "characters)" in t
               for t in tooltips)
    assert max(len(t) for t in tooltips) < 3000
    # The JSON keeps names whole (they identify nodes) and previews values.
    by_name = {n["name"]: n for n in json.loads(json.dumps(ex))["nodes"]}
    assert out.op.name in by_name
    value = by_name["text"]["attrs"]["value"]
    assert value.endswith(" characters)") and len(value) < 100
    step = {s["name"]: s for s in ex["runs"][0]["steps"]}[out.op.name]
    preview = step["outputs"][0]["preview"]
    assert preview.startswith("b'sss") and preview.endswith(" characters)")
    assert len(preview) < 200


@needs_dot
def test_malicious_names_are_text_everywhere():
    evil = tf.constant(EVIL, name="evil")
    out = tf.identity(evil, name="out")
    out.op._name = EVIL                  # the engine refuses such names; force one
    with tf.Session() as sess:
        runs = record(lambda: sess.run(out))
    ex = graph_export.export_graph(tf.get_default_graph(), runs)
    bundle = mime_bundle(ex)
    root = svg_tree(bundle["image/svg+xml"])          # well-formed XML
    tags = {el.tag.split("}")[-1] for el in root.iter()}
    assert not tags & {"img", "script", "foreignObject", "iframe"}
    assert any(EVIL in t for t in all_text(root))      # shown as text
    attrs = " ".join(v for el in root.iter() for k, v in el.attrib.items() if "on" in k.lower()
                     and k.lower().startswith("on"))
    assert attrs == ""
    assert EVIL in bundle["text/plain"]
    view = GraphView(ex, runs, tf.get_default_graph())
    view.stepper.go(1)
    panel = graph_widgets.step_html(view.stepper)
    assert "<img" not in panel and "&lt;img src=x onerror=alert(1)&gt;" in panel


@needs_dot
def test_quote_round_trips_dot_specials():
    name = 'a"b\\N\nc&amp;<x>'
    ex = {"nodes": [{"name": name, "op": "Const", "kind": "constant", "scope": "",
                     "requested_device": "", "assigned_device": "", "inputs": [],
                     "control_inputs": [], "outputs": [], "attrs": {}, "location": ""}],
          "edges": [], "scopes": [], "devices": [], "runs": [], "view": {}}
    root = svg_tree(graph_dot.svg(graph_dot.to_dot(ex)))
    lines = all_text(root)
    assert 'a"b\\N' in lines and "c&amp;<x>" in lines


def test_step_through_values_and_outline():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.square(x, name="y")
    z = tf.reduce_sum(y, name="z")
    feed = np.array([1.0, 2.0, 3.0], np.float32)
    with tf.Session() as sess:
        runs = record(lambda: sess.run(z, {x: feed}))
        ex = graph_export.export_graph(tf.get_default_graph(), runs)
        view = GraphView(ex, runs, tf.get_default_graph())
        seen = []
        while True:
            before = view.stepper.position
            cur = view.stepper.next()
            if view.stepper.position == before:
                break
            seen.append(cur["name"])
            expected = sess.run(cur["name"] + ":0", {x: feed})
            np.testing.assert_allclose(cur["values"][0], expected)
        assert view.stepper.previous()["name"] == seen[-2]
    assert seen == [n for n in ex["runs"][0]["executed"]]
    text = graph_outline.outline(ex)
    assert "fed (cut, their producers need not run): x:0" in text
    assert "pruned (did not run): x" in text


def test_bundle_without_dot_keeps_json_and_text(monkeypatch):
    notes_example()
    monkeypatch.setattr(graph_dot.shutil, "which", lambda name: None)
    bundle = mime_bundle(graph_export.export_graph(tf.get_default_graph()))
    assert set(bundle) == {graph_export.MIME_TYPE, "text/plain"}
    assert bundle[graph_export.MIME_TYPE]["version"] == 1


def test_value_preview_is_short():
    p = graph_export.value_preview(np.arange(10000, dtype=np.float32).reshape(100, 100))
    assert p["dtype"] == "float32" and p["shape"] == [100, 100]
    assert len(p["preview"]) <= 160 and "..." in p["preview"]
    assert graph_export.value_preview(np.int32(3))["preview"] == "3"


def test_recorder_keeps_the_first_runs_then_stops_observing():
    from tfteach.runtime import run_observers
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.multiply(x, 2.0, name="y")
    rec = RunRecorder(max_runs=3)
    with tf.Session() as sess, rec:
        for i in range(10):
            sess.run(y, {x: float(i)})
        assert rec not in run_observers._observers      # the loop's tail ran untraced
    assert rec.full and len(rec.runs) == 3
    assert [r.values_of("y")[0] for r in rec.runs] == [0.0, 2.0, 4.0]


# -- big training graphs read like TensorBoard's: training folded, initializers apart -----------
def _mlp_training_graph(optimizer):
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    w1 = tf.Variable(tf.truncated_normal([784, 100], stddev=0.1), name="w1")
    b1 = tf.Variable(tf.zeros([100]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([100, 10], stddev=0.1), name="w2")
    b2 = tf.Variable(tf.zeros([10]), name="b2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = optimizer.minimize(loss)
    init = tf.global_variables_initializer()
    return x, y, loss, train, init


@pytest.mark.parametrize("make, scope", [
    (lambda: tf.train.GradientDescentOptimizer(0.1), "GradientDescent"),
    (lambda: tf.train.AdamOptimizer(0.1), "Adam")])
def test_a_big_training_graph_starts_with_gradients_and_updates_folded(make, scope):
    _mlp_training_graph(make())
    ops = tf.get_default_graph().get_operations()
    ex = graph_export.export_graph(tf.get_default_graph())
    assert len(ops) >= graph_export.FOLD_TRAINING_FROM
    # and the insides of the library's cross entropy (its reshapes: no variables)
    assert ex["view"]["folded"] == sorted(["gradients", scope,
                                           "softmax_cross_entropy_with_logits"])
    dot = graph_dot.to_dot(ex)
    n_grad = sum(1 for op in ops if op.name.startswith("gradients/"))
    # the NoOp `GradientDescent` that minimize() returns is drawn in its own scope
    n_update = sum(1 for op in ops if op.name == scope or op.name.startswith(scope + "/"))
    assert "gradients/\\n(%d ops, folded)" % n_grad in dot
    assert "%s/\\n(%d ops, folded)" % (scope, n_update) in dot
    assert 'subgraph "cluster_gradients' not in dot
    # an explicit level replaces the start folds
    assert "ops, folded" not in graph_dot.to_dot(ex, collapse=None, folded=())


def test_initializers_are_auxiliary_and_drawn_apart():
    _mlp_training_graph(tf.train.GradientDescentOptimizer(0.1))
    ex = graph_export.export_graph(tf.get_default_graph())
    aux = {n["name"] for n in ex["nodes"] if n["auxiliary"]}
    # the init NoOp, each variable's initializing Assign, the initial values feeding
    # only them; never the variables, the placeholders or the model
    assert {"init", "w1/Assign", "b1/Assign", "w2/Assign", "b2/Assign"} <= aux
    assert {"truncated_normal", "truncated_normal/TruncatedNormal", "zeros"} <= aux
    assert not aux & {"w1", "b1", "x", "y", "w1/read", "MatMul"}
    assert all(n.startswith(("init", "truncated_normal", "zeros", "w1/", "b1/", "w2/",
                             "b2/")) for n in aux)
    dot = graph_dot.to_dot(ex)
    cluster = dot[dot.index('subgraph "cluster_auxiliary"'):]
    cluster = cluster[:cluster.index("\n  }")]
    assert "initialization (auxiliary nodes)" in cluster
    assert cluster.count("[shape=") == len(aux)
    assert '"w1/Assign\\nAssign"' in cluster            # labelled with the whole name
    # the Assign -> variable edge does not pull the layout
    assert "constraint=false" in dot


def test_a_small_graph_keeps_its_gradients_open():
    x = tf.placeholder(tf.float32, name="x")
    w = tf.Variable(1.0, name="w")
    loss = tf.square(x * w - 1.0)
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)     # linear regression size
    assert len(tf.get_default_graph().get_operations()) < graph_export.FOLD_TRAINING_FROM
    ex = graph_export.export_graph(tf.get_default_graph())
    assert ex["view"]["folded"] == []
    assert "ops, folded" not in graph_dot.to_dot(ex)


@needs_dot
def test_the_svg_fits_the_output_width():
    tf.add(tf.constant(1.0, name="a"), 2.0, name="b")
    text = graph_dot.svg(graph_dot.to_dot(graph_export.export_graph(tf.get_default_graph())))
    root = ET.fromstring(text)
    assert "max-width: 100%" in root.get("style") and root.get("viewBox")


def test_the_scope_menu_replaces_the_start_folds():
    _mlp_training_graph(tf.train.GradientDescentOptimizer(0.1))
    ex = graph_export.export_graph(tf.get_default_graph())
    view = GraphView(ex, [], tf.get_default_graph())
    assert "gradients/\\n(" in graph_dot.to_dot(view.bundle()[graph_export.MIME_TYPE])
    view.select(collapse=None)                         # "all scopes open" in the menu
    assert "ops, folded" not in graph_dot.to_dot(view.bundle()[graph_export.MIME_TYPE])
