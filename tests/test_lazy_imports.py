"""`import tfteach` loads only what a tiny graph needs (tfteach/_lazy_names.py).

Each check runs in a fresh interpreter: this test process has long since imported
everything. The heavy libraries (protobuf, tensorboard's protos, image codecs, plotting)
must wait for the namespace that uses them, and every public name must still resolve,
be listed by dir(tf), and import with `from tfteach import ...`.
"""
import numpy as np
import pytest

from tests.tf_reference import tfteach_json

import tfteach as tf
from tfteach import _lazy_names

HEAVY = ("google.protobuf", "tensorboard", "PIL", "matplotlib", "graphviz", "ipywidgets",
         "IPython", "numba.cuda")


fresh = tfteach_json      # `code` in a new interpreter with this worktree's tfteach


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


def test_import_and_a_tiny_run_load_neither_tf_nn_nor_tf_losses():
    # tf.nn (RNN cells, convolutions, pooling ...) and tf.losses wait for their first use;
    # a gradient module that needs one of their functions imports it when it runs.
    got = fresh(
        "import json, sys\n"
        "import tfteach as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "with tf.Session() as sess:\n"
        "    sess.run(x * 2.0 + 1.0, {x: 3.0})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'tfteach.nn' or\n"
        "      m.startswith(('tfteach.nn.', 'tfteach.losses')))))\n")
    assert got == []


def test_tf_math_names_of_lazy_namespaces_resolve_on_first_use():
    got = fresh(
        "import json, sys\n"
        "import tfteach as tf\n"
        "listed = [n in dir(tf.math) and n in tf.math.__all__ for n in\n"
        "          ('softmax', 'top_k', 'confusion_matrix', 'divide_no_nan', 'log')]\n"
        "nn_before = 'tfteach.nn' in sys.modules\n"
        "same = [tf.math.softmax is tf.nn.softmax, tf.math.top_k is tf.nn.top_k,\n"
        "        tf.math.confusion_matrix is tf.confusion_matrix,\n"
        "        tf.math.divide_no_nan is tf.div_no_nan, tf.math.log is tf.log]\n"
        "try:\n"
        "    tf.math.nope\n"
        "    error = None\n"
        "except AttributeError as e:\n"
        "    error = str(e)\n"
        "print(json.dumps([listed, nn_before, same, error]))\n")
    listed, nn_before, same, error = got
    assert listed == [True] * 5
    assert nn_before is False
    assert same == [True] * 5
    assert error == "module 'tensorflow.math' has no attribute 'nope'"


def test_complex_abs_gradient_in_a_fresh_process_imports_div_no_nan_when_it_runs():
    # ComplexAbs's gradient is z / |z|, 0 at z = 0 (div_no_nan, which lives in tf.losses).
    z = np.array([3 + 4j, 0j, -1 + 1j], dtype=np.complex64)
    got = fresh(
        "import json\n"
        "import numpy as np\n"
        "import tfteach as tf\n"
        "z = tf.constant(np.array([3 + 4j, 0j, -1 + 1j], dtype=np.complex64))\n"
        "g, = tf.gradients(tf.reduce_sum(tf.abs(z)), [z])\n"
        "with tf.Session() as sess:\n"
        "    v = sess.run(g)\n"
        "print(json.dumps([v.real.tolist(), v.imag.tolist()]))\n")
    modulus = np.abs(z)
    expected = np.where(modulus == 0, 0, z / np.where(modulus == 0, 1, modulus))
    np.testing.assert_allclose(got[0], expected.real, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got[1], expected.imag, rtol=1e-6, atol=1e-7)


def test_fusions_find_kernels_that_load_after_import_tfteach():
    # runtime/fusion.py does not import the convolution and training kernels; it looks
    # for them in sys.modules when a plan is fused. A fresh process that imports tfteach,
    # then builds a convolution and an SGD step, must still get both fusions.
    got = fresh(
        "import json, sys\n"
        "import numpy as np\n"
        "import tfteach as tf\n"
        "lazy = sorted(m.split('.')[-1] for m in sys.modules if m in (\n"
        "    'tfteach.kernels.cpu.conv_kernels', 'tfteach.kernels.cpu.training_kernels'))\n"
        "from tfteach.kernels.cpu.linalg import deferred_matmul_kernel\n"
        "rng = np.random.RandomState(0)\n"
        "x = tf.constant(rng.rand(2, 6, 6, 3).astype(np.float32))\n"
        "f = tf.Variable(rng.rand(3, 3, 3, 4).astype(np.float32))\n"
        "b = tf.Variable(np.zeros(4, np.float32))\n"
        "y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], 'SAME'), b))\n"
        "h = tf.reshape(y, [2, -1])\n"
        "w = tf.Variable(rng.rand(144, 5).astype(np.float32))\n"
        "loss = tf.reduce_sum(tf.square(tf.matmul(h, w)))\n"
        "train = tf.train.GradientDescentOptimizer(1e-3).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train)\n"
        "    steps = [s for p in sess._plans.values() for s in p.fast_steps]\n"
        "kw = lambda k: getattr(k, 'keywords', {})\n"
        "fused = sorted(s.op.type for s in steps if 'conv_kernel' in kw(s.kernel))\n"
        "shared = sorted(s.op.type for s in steps if kw(s.kernel).get('shared') is not None\n"
        "                or kw(kw(s.kernel).get('conv_kernel')).get('shared') is not None)\n"
        "deferred = [s.op.type for s in steps if s.kernel is deferred_matmul_kernel]\n"
        "print(json.dumps([lazy, fused, shared, deferred]))\n")
    lazy, fused, shared, deferred = got
    assert lazy == []
    assert len(fused) == 1                       # Relu(BiasAdd(Conv2D)): one step
    assert len(shared) == 2 and "Conv2DBackpropFilter" in shared
    assert deferred == ["MatMul"]


def test_import_and_a_tiny_run_do_not_import_numba():
    # The kernel modules every graph needs compile their loops on first call
    # (kernels/cpu/lazy_jit.py), and the device list asks for a CUDA driver before it
    # imports numba.cuda's configuration.
    got = fresh(
        "import json, sys\n"
        "import tfteach as tf\n"
        "at_import = 'numba' in sys.modules\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "with tf.Session() as sess:\n"
        "    sess.run(x * 2.0 + 1.0, {x: 3.0})\n"
        "print(json.dumps([at_import, 'numba' in sys.modules]))\n")
    assert got == [False, False]


def test_the_lazily_compiled_loops_run_in_a_fresh_process():
    # Each of the four modules' loops, reached with arrays large enough to take them:
    # gather, a per-channel bias add (>= 4096 elements, >= 8 channels), an exclusive
    # cumsum, unsorted_segment_sum and one_hot.
    rng = np.random.RandomState(3)
    params = rng.rand(50, 7).astype(np.float32)
    idx = np.array([3, 0, 49, 3, 12], np.int32)
    x = rng.rand(64, 128).astype(np.float32)
    b = rng.rand(128).astype(np.float32)
    seg = np.array([1, 0, 1, 2, 0], np.int32)
    got = fresh(
        "import json, sys\n"
        "import numpy as np\n"
        "import tfteach as tf\n"
        "rng = np.random.RandomState(3)\n"
        "params = rng.rand(50, 7).astype(np.float32)\n"
        "idx = np.array([3, 0, 49, 3, 12], np.int32)\n"
        "x = rng.rand(64, 128).astype(np.float32)\n"
        "b = rng.rand(128).astype(np.float32)\n"
        "seg = np.array([1, 0, 1, 2, 0], np.int32)\n"
        "px, bx = tf.placeholder(tf.float32, [64, 128]), tf.placeholder(tf.float32, [128])\n"
        "outs = [tf.gather(params, idx), px + bx, tf.cumsum(px, axis=1, exclusive=True),\n"
        "        tf.unsorted_segment_sum(params[:5], seg, 3), tf.one_hot(idx, 50)]\n"
        "with tf.Session() as sess:\n"
        "    vals = sess.run(outs, {px: x, bx: b})\n"
        "print(json.dumps([v.tolist() for v in vals] + ['numba' in sys.modules]))\n")
    gathered, biased, scanned, segmented, hot, numba_loaded = got
    np.testing.assert_array_equal(gathered, params[idx])
    np.testing.assert_array_equal(np.float32(biased), x + b)
    running = np.cumsum(x.astype(np.float64), axis=1)
    exclusive = np.concatenate([np.zeros((64, 1)), running[:, :-1]], axis=1)
    np.testing.assert_allclose(scanned, exclusive, rtol=1e-5, atol=1e-5)
    sums = np.zeros((3, 7), np.float64)
    np.add.at(sums, seg, params[:5])
    np.testing.assert_allclose(segmented, sums, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(hot, np.eye(50, dtype=np.float32)[idx])
    assert numba_loaded is True


def test_lazy_jit_compiles_on_first_call_and_resolves_lazy_callees():
    import types

    from tfteach.kernels.cpu import lazy_jit
    module = types.ModuleType("lazy_jit_probe")
    exec("from tfteach.kernels.cpu.lazy_jit import njit\n"
         "@njit(cache=False)\n"
         "def twice(v):\n"
         "    return 2 * v\n"
         "@njit(cache=False)\n"
         "def total_twice(a):\n"
         "    s = 0.0\n"
         "    for v in a:\n"
         "        s += twice(v)\n"
         "    return s\n", module.__dict__)
    wrapper = module.total_twice
    assert isinstance(wrapper, lazy_jit.LazyJit) and isinstance(module.twice, lazy_jit.LazyJit)
    assert wrapper(np.arange(5.0)) == 20.0
    # Numba's dispatchers replaced both module globals; the wrapper still calls through.
    assert not isinstance(module.total_twice, lazy_jit.LazyJit)
    assert not isinstance(module.twice, lazy_jit.LazyJit)
    assert module.twice(4.0) == 8.0 and wrapper(np.ones(3)) == 6.0
    assert wrapper.__name__ == "total_twice" and wrapper.py_func(np.ones(2)) == 4.0
