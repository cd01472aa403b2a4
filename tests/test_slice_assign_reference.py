"""Sliced assignment (`v[:, 1].assign(...)`) against TensorFlow: the graph it builds (op
names and types, the StridedSliceAssign op of TF 1.15's ref variables) and the values
after runs, in graph mode (tf.compat.v1 with ref variables) and eagerly (TensorFlow 2 in
a child process); the errors: TF 1.15's shape mismatch (TF 2 broadcasts since, so that
one is checked against TF 1.15's words alone) and the assign of a plain tensor's slice."""
import importlib.util

import numpy as np
import pytest

import tfteach
from eager_helpers import eager  # noqa: F401 - fixture
from tests.tf_reference import eager_tensorflow_json, tensorflow_v1

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

START = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
# each update is (slice as a Python expression on v, value)
UPDATES = [("v[:, 1]", [9.0, 9.0]), ("v[0, ::2]", [7.0, 7.0]), ("v[1]", [0.0, -1.0, -2.0]),
           ("v[1:, :]", [[3.0, 3.0, 3.0]]), ("v[0, 0]", 5.0), ("v[..., -1]", [8.0, 8.0]),
           ("v[::-1, 1]", [1.5, 2.5]), ("v[tf.newaxis, 0, 1:]", [[4.0, 4.0]])]


def _graph_run(tf):
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(START)
        ops = [eval(target, {"v": v, "tf": tf}).assign(value)       # noqa: S307
               for target, value in UPDATES]
        names = [(op.name, op.op.type, op.dtype.name) for op in ops]
        with tf.Session() as sess:
            sess.run(v.initializer)
            values = [sess.run(op).tolist() for op in ops]
    return names, values


def test_graph_mode_as_tensorflow():
    tensorflow_v1().disable_resource_variables()
    assert _graph_run(tfteach) == _graph_run(tensorflow_v1())


def test_eagerly_as_tensorflow(eager):
    code = """
import json
import tensorflow as tf
v = tf.Variable(%r)
out = []
for target, value in %r:
    eval(target, {"v": v, "tf": tf}).assign(value)
    out.append(v.numpy().tolist())
print(json.dumps(out))
""" % (START, UPDATES)
    theirs = eager_tensorflow_json(code)
    v = eager.Variable(START)
    ours = []
    for target, value in UPDATES:
        result = eval(target, {"v": v, "tf": eager}).assign(value)     # noqa: S307
        assert result is v
        ours.append(v.numpy().tolist())
    assert ours == theirs


def test_errors_and_readers():
    tf = tfteach
    with tf.Graph().as_default():
        v = tf.Variable(START)
        with pytest.raises(ValueError, match="^Sliced assignment is only supported for "
                                             "variables$"):
            tf.constant([1, 2])[0].assign(3)
        wrong = v[0].assign([1.0, 2.0])
        before = tf.identity(v.initialized_value())
        with tf.Session() as sess:
            sess.run(v.initializer)
            # (TF 1.15's words; TF 2 broadcasts what it can since)
            with pytest.raises(tf.errors.UnimplementedError,
                               match=r"^sliced l-value shape \[3\] does not match r-value "
                                     r"shape \[2\]. Automatic broadcasting not yet "
                                     r"implemented."):
                sess.run(wrong)
            held = sess.run(before)
            sess.run(v[0, 0].assign(100.0))
            np.testing.assert_array_equal(held, START)       # a fetched value is not changed
            assert sess.run(v)[0, 0] == 100.0


def test_tensorflows_graph_with_a_sliced_assign_runs_in_a_fresh_process(tmp_path):
    # The op type must be registered by `import tfteach` itself: a GraphDef may name it
    # before the program has built any slice.
    import os
    import subprocess
    import sys
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    graph = tf1.Graph()
    with graph.as_default():
        v = tf1.Variable([1.0, 2.0, 3.0], name="v")
        v[1:].assign([7.0, 8.0], name="write")
    path = tmp_path / "sliced_assign.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    code = ("import tfteach as tf\n"
            "gd = tf.GraphDef(); gd.ParseFromString(open(%r, 'rb').read())\n"
            "tf.import_graph_def(gd, name='')\n"
            "with tf.Session() as s:\n"
            "    s.run('v/Assign'); print(s.run('write:0').tolist())\n" % str(path))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[1.0, 7.0, 8.0]"
