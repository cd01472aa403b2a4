"""`import tfteach` loads only what a tiny graph needs (tfteach/_lazy_names.py).

Each check runs in a fresh interpreter: this test process has long since imported
everything. The heavy libraries (protobuf, tensorboard's protos, image codecs, plotting)
must wait for the namespace that uses them, and every public name must still resolve,
be listed by dir(tf), and import with `from tfteach import ...`.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfteach as tf
from tfteach import _lazy_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("google.protobuf", "tensorboard", "PIL", "matplotlib", "graphviz", "ipywidgets",
         "IPython", "numba.cuda")


def fresh(code):
    """Runs `code` in a new interpreter with this worktree's tfteach; its stdout as JSON."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_ENABLE_CUDASIM", None)      # conftest's simulator: not a user's process
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_and_a_tiny_run_load_no_heavy_library():
    got = fresh(
        "import json, sys\n"
        "import tfteach as tf\n"
        "after_import = sorted(m for m in sys.modules)\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "with tf.Session() as sess:\n"
        "    value = float(sess.run(x * 2.0 + 1.0, {x: 3.0}))\n"
        "heavy = %r\n"
        "loaded = lambda names: [h for h in heavy if any(n == h or n.startswith(h + '.') "
        "for n in names)]\n"
        "print(json.dumps([value, loaded(after_import), loaded(sys.modules)]))\n" % (HEAVY,))
    value, at_import, after_run = got
    assert value == 7.0
    assert at_import == []
    assert after_run == []


def test_every_lazy_name_resolves_is_listed_and_is_the_real_object():
    names = sorted(_lazy_names.LAZY)
    got = fresh(
        "import json, sys\n"
        "import tfteach as tf\n"
        "listed = dir(tf)\n"
        "names = %r\n"
        "out = {}\n"
        "for n in names:\n"
        "    v = getattr(tf, n)\n"
        "    out[n] = [n in listed, getattr(v, '__name__', type(v).__name__)]\n"
        "print(json.dumps(out))\n" % (names,))
    for name in names:
        module, attribute = _lazy_names.LAZY[name]
        expected = getattr(tf, name)            # resolved here, in this process
        assert got[name][0], "dir(tf) does not list %r" % name
        assert got[name][1] == getattr(expected, "__name__", type(expected).__name__), name


def test_the_namespaces_students_use_resolve_after_a_lazy_import():
    got = fresh(
        "import json\n"
        "import tfteach as tf\n"
        "from tfteach import train, summary\n"
        "names = [tf.train.GradientDescentOptimizer.__name__, tf.data.Dataset.__name__,\n"
        "         tf.image.resize_images.__name__, tf.summary.FileWriter.__name__,\n"
        "         tf.estimator.Estimator.__name__, tf.flags is tf.app.flags,\n"
        "         tf.GraphDef.__name__, train is tf.train, summary is tf.summary,\n"
        "         tf.contrib.layers.fully_connected.__name__]\n"
        "print(json.dumps(names))\n")
    assert got == ["GradientDescentOptimizer", "DatasetV1", "resize_images", "FileWriter",
                   "Estimator", True, "GraphDef", True, True, "fully_connected"]


def test_unknown_and_renamed_names_still_raise_tensorflows_attribute_error():
    with pytest.raises(AttributeError, match="module 'tensorflow' has no attribute 'nope'"):
        tf.nope  # noqa: B018
    with pytest.raises(AttributeError, match="renamed tf.multiply"):
        tf.mul  # noqa: B018


def test_a_graphdef_naming_an_op_of_a_lazy_namespace_imports_and_runs(tmp_path):
    # The image ops register themselves when tf.image is imported; a fresh process that
    # imports a GraphDef using one has not imported tf.image (registry.get_op_def).
    images = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3, 1)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 3, 1], name="x")
        tf.identity(tf.image.adjust_contrast(x, 2.0), name="out")
    path = tmp_path / "graph.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    got = fresh(
        "import json, sys\n"
        "import numpy as np\n"
        "import tfteach as tf\n"
        "before = 'tfteach.ops.image' in sys.modules\n"
        "gd = tf.GraphDef()\n"
        "gd.ParseFromString(open(%r, 'rb').read())\n"
        "tf.import_graph_def(gd, name='')\n"
        "with tf.Session() as sess:\n"
        "    out = sess.run('out:0', {'x:0': np.arange(18, dtype=np.float32)"
        ".reshape(2, 3, 3, 1)})\n"
        "print(json.dumps([before, out.ravel().tolist()]))\n" % str(path))
    # adjust_contrast: (x - mean over height and width) * factor + mean, per image.
    mean = images.mean(axis=(1, 2), keepdims=True)
    expected = (images - mean) * 2.0 + mean
    assert got[0] is False
    np.testing.assert_allclose(got[1], expected.ravel(), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("module", [
    "tfteach.notebook.scalars_magic", "tfteach.io.records", "tfteach.io.tfrecord",
    "tfteach.train", "tfteach.summary", "tfteach.data", "tfteach.image", "tfteach.estimator"])
def test_each_namespace_imports_first_in_a_fresh_process(module):
    # A submodule imported before anything else imported its neighbours (the notebook
    # extension's %tfscalars reads event files first) must not meet a circular import.
    got = fresh("import json, importlib\nimport tfteach\n"
                "importlib.import_module(%r)\nprint(json.dumps(True))\n" % module)
    assert got is True
