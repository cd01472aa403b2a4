"""%%tfgraph in real kernels on real notebooks (nbclient), and the first lesson.

One notebook is executed once (module fixture) and every assertion reads its outputs.
Which nodes ran is checked three ways: the run's JSON (the engine's step stats), the
engine's own pruning (`run_observers.would_run`, printed by the kernel), and a walk of
the exported edges written here.
"""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from nb_kernel_helpers import tfteach_kernel  # noqa: E402,F401 (fixture)
from tfteach.notebook import graph_dot  # noqa: E402
from tfteach.notebook.graph_export import MIME_TYPE  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SVG = "{http://www.w3.org/2000/svg}"
EVIL = "<img src=x onerror=alert(1)>"
needs_dot = pytest.mark.skipif(not graph_dot.has_dot(), reason="Graphviz's dot is not installed")

NOTES = '''a = tf.constant(1, name="a")
b = tf.constant(2, name="b")
c = tf.constant(3, name="c")
d = tf.constant(4, name="d")
add1 = tf.add(a, b, name="add1")
mul1 = tf.multiply(b, c, name="mul1")
add2 = tf.add(c, d, name="add2")
output = tf.add(add1, mul1, name="output")
'''

SCOPED = '''with tf.name_scope("inputs"):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
with tf.name_scope("layer1"):
    with tf.device("/cpu:0"):
        w = tf.Variable([[1.0], [2.0]], name="w")
    h = tf.matmul(x, w, name="h")
with tf.name_scope("layer2"), tf.device("/gpu:1"):
    y = tf.reduce_sum(h * 2.0, name="y")
'''

CELLS = [
    # The tfteach kernel has loaded the extension already (its argv says --ext=tfteach).
    ("setup", "import json\nimport numpy as np\nimport tfteach as tf\n"
              "tf.config.set_virtual_gpus(2)"),
    ("notes", "%%tfgraph\n" + NOTES + "with tf.Session() as sess:\n    print(sess.run(output))"),
    ("notes_check", "from tfteach.notebook import graph_magics\n"
                    "from tfteach.runtime import run_observers\n"
                    "view = graph_magics.last_view()\n"
                    "check = tf.Session(graph=view.graph)\n"
                    "walked = []\n"
                    "while True:\n"
                    "    before = view.stepper.position\n"
                    "    cur = view.stepper.next()\n"
                    "    if view.stepper.position == before:\n"
                    "        break\n"
                    "    src = cur['name'].split('/_copy_to_')[0]   # a copy: its tensor\n"
                    "    src = src if ':' in src else src + ':0'\n"
                    "    again = check.run(view.graph.get_tensor_by_name(src))\n"
                    "    walked.append([cur['name'], np.asarray(cur['values'][0]).tolist(),\n"
                    "                   np.asarray(again).tolist()])\n"
                    "notes_graph = view.graph\n"
                    "print(json.dumps({'walked': walked, 'engine': run_observers.would_run("
                    "view.graph, 'output')}))"),
    ("scoped", "%%tfgraph\n" + SCOPED + "sess = tf.Session()\n"
               "sess.run(tf.global_variables_initializer())\n"
               "print(sess.run(y, {x: [[1.0, 1.0]]}))\n"
               "print(sess.run(y, {h: [[5.0]]}))"),
    ("scoped_check", "print(json.dumps(run_observers.would_run(tf.get_default_graph(), y, "
                     "feeds=[h])))"),
    ("norun", "%%tfgraph --no-run\n" + NOTES +
              "with tf.Session() as sess:\n    print('result', sess.run(output))"),
    ("keep_fetch", "%%tfgraph --keep --fetch add1\nextra = tf.identity(output, name='extra')"),
    ("collapse", "%%tfgraph --collapse 0\n" + SCOPED),
    ("evil", "%%%%tfgraph\nevil = tf.constant(%r, name='evil')\nout = tf.identity(evil, name='out')\n"
             "out.op._name = %r   # the engine refuses such names: force one\n"
             "with tf.Session() as s:\n    s.run(out)" % (EVIL, EVIL)),
    ("evil_panel", "from tfteach.notebook import graph_widgets\n"
                   "v = graph_magics.last_view()\nv.stepper.go(1)\n"
                   "print(graph_widgets.step_html(v.stepper))"),
    ("line", "%tfgraph notes_graph"),
    ("bad_option", "%%tfgraph --bogus\nx = 1"),
    ("bad_fetch", "%%tfgraph --fetch nothere\nq = tf.constant(1.0, name='q')"),
    ("raises", "%%tfgraph\nq = tf.constant(1.0, name='q')\n1 / 0"),
    ("bad_line", "%tfgraph 123"),
    ("held", "isess = tf.InteractiveSession()   # runs the default graph\n"
             "held_graph = tf.get_default_graph()"),
    ("held_cell", "%%tfgraph --no-release\nq2 = tf.constant(2.0, name='q2')\n"
                  "nr_count = get_ipython().execution_count\n"
                  "with tf.Session() as s:\n    print(s.run(q2))"),
    ("alive", "print('default kept', tf.get_default_graph() is held_graph)\n"
              "isess.close()\n"
              "print('still alive', graph_magics.no_release_requested(nr_count),\n"
              "      graph_magics.no_release_requested(nr_count - 1),\n"
              "      q2.graph is not held_graph)\n"
              "hooks = [f for e in ('pre_run_cell', 'post_run_cell', 'pre_execute',\n"
              "                     'post_execute') for f in get_ipython().events.callbacks[e]\n"
              "         if getattr(f, '__module__', '').startswith('tfteach.notebook.graph')]\n"
              "print('graph hooks', len(hooks), len(run_observers._observers))"),
]
ERROR_CELLS = {"bad_option", "bad_fetch", "raises", "bad_line"}


def _client(nb, cwd):
    return nbclient.NotebookClient(nb, timeout=120, kernel_name="tfteach",
                                   resources={"metadata": {"path": cwd}})


@pytest.fixture(scope="module")
def executed(tmp_path_factory, tfteach_kernel):
    nb = nbformat.v4.new_notebook()
    for tag, source in CELLS:
        tags = [tag] + (["raises-exception"] if tag in ERROR_CELLS else [])
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags}))
    cwd = str(tmp_path_factory.mktemp("nb"))
    try:
        _client(nb, cwd).execute()
    finally:       # kept for a look when an assertion fails
        nbformat.write(nb, os.path.join(cwd, "executed.ipynb"))
    return nb


def outputs(nb, tag):
    for cell in nb.cells:
        if tag in cell.metadata.get("tags", []):
            return cell.outputs
    raise KeyError(tag)


def bundles(nb, tag):
    return [o for o in outputs(nb, tag) if o.output_type == "display_data"
            and MIME_TYPE in o.data]


def graph_json(nb, tag):
    (b,) = bundles(nb, tag)
    return b.data[MIME_TYPE]


def stdout(nb, tag):
    return "".join(o.text for o in outputs(nb, tag) if o.output_type == "stream")


def error(nb, tag):
    (e,) = [o for o in outputs(nb, tag) if o.output_type == "error"]
    return e


def usage_error(nb, tag):
    """IPython prints a UsageError on stderr (no traceback); the cell still fails."""
    return "".join(o.text for o in outputs(nb, tag)
                   if o.output_type == "stream" and o.name == "stderr")


def walk(export, fetch_nodes, fed=()):
    """Independent pruning: back from the fetched nodes along the exported edges (data
    and control), not through a fed tensor."""
    into = {}
    for e in export["edges"]:
        into.setdefault(e["dst"], []).append(e)
    seen, stack = set(), list(fetch_nodes)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack += [e["src"] for e in into.get(node, []) if e["tensor"] not in fed]
    return seen


def svg_root(nb, tag):
    (b,) = bundles(nb, tag)
    return ET.fromstring(b.data["image/svg+xml"])


def test_bundle_has_all_three_mime_types(executed):
    for tag in ("notes", "scoped", "norun", "keep_fetch", "collapse", "evil", "line"):
        (b,) = bundles(executed, tag)
        expected = {MIME_TYPE, "text/plain"} | ({"image/svg+xml"} if graph_dot.has_dot()
                                                else set())
        assert expected <= set(b.data), tag
        assert b.data[MIME_TYPE]["version"] == 1


def test_notes_example_add2_never_runs(executed):
    ex = graph_json(executed, "notes")
    (run,) = ex["runs"]
    assert run["kind"] == "run" and run["fetches"] == ["output:0"]
    assert set(run["executed"]) == walk(ex, ["output"]) == {"a", "b", "c", "add1", "mul1",
                                                            "output"}
    assert "add2" in run["pruned"] and "add2" not in run["executed"]
    check = json.loads(stdout(executed, "notes_check"))
    assert check["engine"] == run["executed"]              # the engine's own pruning
    assert "9" in stdout(executed, "notes")
    assert "pruned (did not run): d, add2" in bundles(executed, "notes")[0].data["text/plain"]


def test_step_through_values_equal_sess_run(executed):
    check = json.loads(stdout(executed, "notes_check"))
    run = graph_json(executed, "notes")["runs"][0]
    names = [s["name"] for s in run["steps"]]
    assert [w[0] for w in check["walked"]] == names        # every step, in order
    for name, stepped, fetched in check["walked"]:
        np.testing.assert_array_equal(stepped, fetched, err_msg=name)
    assert dict((w[0], w[1]) for w in check["walked"])["output"] == 9


def test_feeds_cut_the_graph(executed):
    ex = graph_json(executed, "scoped")
    init, fed_x, fed_h = ex["runs"]
    assert fed_x["feeds"] == ["inputs/x:0"] and fed_h["feeds"] == ["layer1/h:0"]
    assert set(fed_h["executed"]) == walk(ex, ["layer2/y"], {"layer1/h:0"})
    assert "layer1/h" not in fed_h["executed"] and "layer1/w" not in fed_h["executed"]
    assert set(fed_x["executed"]) == walk(ex, ["layer2/y"], {"inputs/x:0"})
    assert json.loads(stdout(executed, "scoped_check")) == fed_h["executed"]
    assert ex["view"]["selected_run"] == 2
    assert stdout(executed, "scoped").split() == ["6.0", "10.0"]


@needs_dot
def test_svg_clusters_and_device_colours(executed):
    ex = graph_json(executed, "scoped")
    root = svg_root(executed, "scoped")
    clusters = ["".join(g.find(SVG + "title").itertext()) for g in root.iter(SVG + "g")
                if g.get("class") == "cluster"]
    aux = any(n["auxiliary"] for n in ex["nodes"])               # the initializers
    assert len(clusters) == len(ex["scopes"]) + 1 + aux           # + the legend
    assert {s["path"] for s in ex["scopes"]} >= {"inputs", "layer1", "layer2"}
    devices = {d["name"]: d for d in ex["devices"]}
    assert {"CPU:0", "GPU:0", "GPU:1"} <= set(devices)
    assert devices["GPU:1"]["virtual"]
    fills = {el.get("fill") for el in root.iter() if el.get("fill")}
    for name in ("CPU:0", "GPU:1"):
        assert devices[name]["color"] in fills
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert "GPU:1 (virtual GPU)" in texts
    by_name = {n["name"]: n for n in ex["nodes"]}
    assert by_name["layer1/w"]["assigned_device"].endswith("CPU:0")
    assert by_name["layer2/y"]["assigned_device"].endswith("GPU:1")
    copies = ex["runs"][1]["copies"]
    assert any(c["tensor"] == "inputs/x:0" and c["from"] == "CPU:0" and c["bytes"] == 8
               for c in copies)


def test_no_run_plans_without_executing(executed):
    ex = graph_json(executed, "norun")
    (run,) = ex["runs"]
    assert run["kind"] == "dry_run" and run["steps"] == []
    assert set(run["executed"]) == walk(ex, ["output"])
    assert "result None" in stdout(executed, "norun")


def test_keep_and_fetch(executed):
    ex = graph_json(executed, "keep_fetch")
    names = {n["name"] for n in ex["nodes"]}
    assert {"add2", "output", "extra"} <= names                  # kept the earlier graph
    fetch = ex["runs"][0]
    assert fetch["kind"] == "fetch" and fetch["steps"] == []
    assert set(fetch["executed"]) == walk(ex, ["add1"]) == {"a", "b", "add1"}
    # the fresh default graph of the next cells does not contain the notes' ops
    assert "add2" not in {n["name"] for n in graph_json(executed, "collapse")["nodes"]}


@needs_dot
def test_collapse_folds_scopes(executed):
    root = svg_root(executed, "collapse")
    clusters = [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]
    assert len(clusters) == 1                                     # only the legend
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    nodes = graph_json(executed, "collapse")["nodes"]
    for scope in ("inputs", "layer1", "layer2"):
        inside = [n for n in nodes if n["name"].startswith(scope + "/")]
        i = texts.index(scope + "/")
        assert texts[i + 1] == "(%d ops, folded)" % len(inside)
    assert graph_json(executed, "collapse")["view"]["collapse"] == 0


@needs_dot
def test_malicious_names_are_escaped(executed):
    root = svg_root(executed, "evil")
    tags = {el.tag.split("}")[-1] for el in root.iter()}
    assert not tags & {"img", "script", "foreignObject"}
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert any(EVIL in t for t in texts)
    panel = stdout(executed, "evil_panel")
    assert "<img" not in panel and "&lt;img src=x onerror=alert(1)&gt;" in panel


def test_line_magic_draws_a_given_graph(executed):
    ex = graph_json(executed, "line")
    assert {n["name"] for n in ex["nodes"]} == {"a", "b", "c", "d", "add1", "mul1", "add2",
                                                "output"}
    assert ex["runs"] == []


def test_bad_input_gives_clear_messages_and_the_kernel_lives(executed):
    assert "UsageError: %%tfgraph: unrecognized arguments: --bogus" in usage_error(
        executed, "bad_option")
    assert "UsageError: --fetch nothere:" in usage_error(executed, "bad_fetch")
    assert bundles(executed, "bad_fetch")                         # the graph is still shown
    e = error(executed, "raises")
    assert e.ename == "ZeroDivisionError"
    ex = graph_json(executed, "raises")
    assert [n["name"] for n in ex["nodes"]] == ["q"] and "raised ZeroDivisionError" in ex["note"]
    assert "'123' is a int, not a tf.Graph" in usage_error(executed, "bad_line")
    assert stdout(executed, "alive").splitlines()[:2] == ["default kept True",
                                                         "still alive True False True"]


def test_held_default_graph_and_no_cost_outside_the_magic(executed):
    ex = graph_json(executed, "held_cell")
    # an open InteractiveSession on the default graph: the cell is drawn in a graph of its
    # own, and the session's graph stays the default (TF would let the magic reset it)
    assert [n["name"] for n in ex["nodes"]] == ["q2"] and "InteractiveSession" in ex["note"]
    assert stdout(executed, "held_cell").strip() == "2.0"
    # no per-cell hook from the graph half, and no observer left registered
    assert stdout(executed, "alive").splitlines()[2] == "graph hooks 0 0"


@needs_dot
def test_static_html_shows_the_svg(executed):
    from nbconvert import HTMLExporter
    import base64
    import re
    html, _ = HTMLExporter().from_notebook_node(executed)
    # nbconvert 7 embeds each SVG as an <img> with a data URI (which runs no script)
    uris = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert len(uris) >= 7
    svgs = [base64.b64decode(u).decode("utf-8") for u in uris]
    notes = [ET.fromstring(s) for s in svgs if ">add2<" in s and ">#6 output<" in s]
    assert notes                                 # the notes' run, drawn in the page
    assert "<img src=x onerror" not in html
    assert "VBox(children" not in html
    # saved without widget state (JupyterLab's default), the widgets read as a sentence,
    # not as their repr
    import copy
    plain = copy.deepcopy(executed)
    plain.metadata.pop("widgets", None)
    html, _ = HTMLExporter().from_notebook_node(plain)
    assert "VBox(children" not in html and "HBox(" not in html
    assert "run selector and step-through" in html


def test_lesson_01_executes_top_to_bottom(tmp_path, tfteach_kernel):
    path = os.path.join(ROOT, "lessons", "01_graphs_and_sessions.ipynb")
    nb = nbformat.read(path, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")   # committed clean
    _client(nb, str(tmp_path)).execute()
    graphs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "display_data" and MIME_TYPE in o.data]
    assert len(graphs) >= 4
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert errors == [] or all("raises-exception" in c.metadata.get("tags", [])
                               for c in nb.cells if c.cell_type == "code" and
                               any(o.output_type == "error" for o in c.outputs))
