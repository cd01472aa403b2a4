"""Eager tfteach against TensorFlow's eager mode, program by program: printed tensors,
tape gradients (variables, persistent tapes, nested tapes, jacobians), tf.function trace
counts, tf.Module's walk order, error classes and words.

TensorFlow runs eagerly in a child process (this process's reference tests switch
TensorFlow to graph mode for good: tf_reference.tensorflow_v1); each program is one
source text run by both, returning a JSON-able result.

Known differences, TF 1.15 being the specification: TF 2.21 on NumPy 2 shows a float
scalar as `numpy=0.5` only where NumPy's repr does (tfteach shows NumPy 1's `str`, as
1.15), and its eager errors start with `{{function_node ...}}` and end with ` name: `,
which 1.15's do not; `tf.add` is `Add` in 1.15 (`AddV2` in TF 2).
"""
import importlib.util
import json
import textwrap

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

PROGRAMS = {
    "printing": """
        def run(tf):
            ts = [tf.constant([1, 2]), tf.constant([[1.5, 2.0], [3.0, 4.25]]), tf.constant(7),
                  tf.constant([True, False]), tf.zeros([2, 0]), tf.constant([[1], [2]], tf.int64)]
            return [str(t) for t in ts] + [repr(t) for t in ts]
    """,
    "formatting": """
        def run(tf):
            # note 002's "Print constant tensor {} of rank {}".format(tensor, tf.rank(tensor))
            t = tf.constant(0)
            return ["{} of rank {}".format(t, tf.rank(t)), "{}".format(tf.constant([1, 2])),
                    "{:.2f}|{:>6}".format(tf.constant(1.5), tf.constant(7)),
                    "{}".format(tf.constant([[1.5, 2.0]]))]
    """,
    "bound_method": """
        def run(tf):
            # note 002 §3.4's slip, x.numpy without the call, printed
            t = tf.constant([[4], [5]])
            return [str(t.numpy).split(" of ")[0], type(t).__name__]
    """,
    "function_graph_ops": """
        def run(tf):
            # lesson 32 lists a concrete function's ops: TF ends it with an Identity per
            # returned tensor (func_graph's mark_as_return)
            @tf.function
            def f(a, b):
                return tf.matmul(a, b), a
            c = f.get_concrete_function(tf.TensorSpec([1, 2], tf.float32),
                                        tf.TensorSpec([2, 1], tf.float32))
            return [[op.name, op.type] for op in c.graph.get_operations()] + [
                [t.name for t in c.outputs]]
    """,
    "tape_values": """
        import numpy as np
        def run(tf):
            r = np.random.RandomState(0)
            w = tf.Variable(r.randn(3, 2).astype(np.float32))
            b = tf.Variable(np.zeros(2, np.float32))
            x = tf.constant(r.randn(4, 3).astype(np.float32))
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                h = tf.nn.softmax(tf.matmul(x, w) + b)
                loss = tf.reduce_mean(tf.square(h - 0.5)) + tf.reduce_sum(tf.abs(w)) * 0.01
                other = tf.reduce_sum(tf.exp(w) * tf.sin(x[:3, :2]))
            gw, gb = tape.gradient(loss, [w, b])
            g2 = tape.gradient(other, w)
            jac = tape.jacobian(h, b)
            bjac = tape.batch_jacobian(h, x)
            return [gw.numpy().tolist(), gb.numpy().tolist(), g2.numpy().tolist(),
                    jac.numpy().tolist(), bjac.numpy().tolist()]
    """,
    "tape_rules": """
        def run(tf):
            x = tf.constant(3.0)
            v = tf.Variable(2.0)
            frozen = tf.Variable(1.0, trainable=False)
            i = tf.constant(4)
            with tf.GradientTape(persistent=True) as t:
                t.watch([x, i])
                y = x * x * v * frozen
                k = i * 2
            out = [t.gradient(y, [x, v, frozen]), t.gradient(k, i),
                   t.gradient(y, tf.constant(1.0)),
                   t.gradient(y, [x, v], output_gradients=tf.constant(2.0))]
            with tf.GradientTape() as o:
                o.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    z = tf.tanh(x * 0.3) * x
                dz = inner.gradient(z, x)
            out.append([dz, o.gradient(dz, x)])
            def py(g):
                if isinstance(g, list):
                    return [py(e) for e in g]
                return None if g is None else round(float(g.numpy()), 5)
            return py(out)
    """,
    "function_traces": """
        def run(tf):
            f = tf.function(lambda x, s: x * s)
            f(tf.constant([1.0]), 2.0); f(tf.constant([3.0]), 2.0)
            f(tf.constant([1.0, 2.0]), 2.0); f(tf.constant([1.0]), 3.0)
            f(tf.constant([1], tf.int32), 2); f(tf.constant([5.0]), 2.0)
            g = tf.function(lambda x: x + 1.0,
                            input_signature=[tf.TensorSpec([None], tf.float32)])
            g(tf.constant([1.0])); g(tf.constant([1.0, 2.0, 3.0]))
            return [f.experimental_get_tracing_count(), g.experimental_get_tracing_count()]
    """,
    "module_walk": """
        def run(tf):
            class Leaf(tf.Module):
                def __init__(self, name):
                    super().__init__(name=name)
                    self.k = tf.Variable(1.0, name=name + "_k")
                    self.a = tf.Variable(1.0, name=name + "_a", trainable=False)
            class Root(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.z_list = [Leaf("first"), Leaf("second")]
                    self.m = {"b": Leaf("in_b"), "a": tf.Variable(0.0, name="dict_a")}
                    self.shared = self.z_list[0].k
            root = Root()
            return [root.name, [v.name for v in root.variables],
                    [v.name for v in root.trainable_variables],
                    [m.name for m in root.submodules]]
    """,
    "errors": """
        def run(tf):
            out = []
            for thunk in (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])),
                          lambda: tf.reshape(tf.ones([6]), [4, 2]),
                          lambda: tf.gather(tf.ones([3]), [5])):
                try:
                    thunk()
                    out.append(None)
                except Exception as e:
                    msg = str(e).split("}} ")[-1].split(" [Op:")[0]
                    out.append([type(e).__name__, msg])
            return out
    """,
    # Eager tensors of two dtypes reach the runtime, which refuses them in its words (in
    # graph mode the same programs are op_def_library's TypeErrors). (A Python value that
    # does not fit, `a + 1.5`, is TF 1.15's TypeError, test_eager.py; TF 2 converts it
    # and fails in the runtime.)
    "dtype_mismatch_errors": """
        def run(tf):
            a, b = tf.constant([1, 2]), tf.constant([1.5, 2.0])
            out = []
            for thunk in (lambda: a + b, lambda: b * a, lambda: tf.maximum(b, a),
                          lambda: tf.concat([a, b], 0), lambda: tf.stack([b, a]),
                          lambda: tf.add_n([b, tf.cast(b, tf.float64)]),
                          lambda: tf.convert_to_tensor([a, b]),
                          lambda: tf.math.logical_and(tf.constant([True, False]), b),
                          lambda: tf.convert_to_tensor([a, b], dtype=tf.float32)):
                try:
                    out.append(thunk().numpy().tolist())
                except Exception as e:
                    msg = str(e).split("}} ")[-1].split(" name:")[0]
                    out.append([type(e).__name__, msg])
            return out
    """,
}


def _tensorflow_results():
    code = ["import json, sys", "import tensorflow as tf", "results = {}"]
    for name, source in PROGRAMS.items():
        code.append("ns = {}\nexec(%r, ns)\nresults[%r] = ns['run'](tf)"
                    % (textwrap.dedent(source), name))
    code.append("print(json.dumps(results))")
    return eager_tensorflow_json("\n".join(code))


@pytest.fixture(scope="module")
def tensorflow():
    return _tensorflow_results()


def _ours(tf2, name):
    namespace = {}
    exec(textwrap.dedent(PROGRAMS[name]), namespace)     # noqa: S102 - the shared program
    return json.loads(json.dumps(namespace["run"](tf2)))


@pytest.fixture
def tf2(eager):
    import tfteach.v2 as v2
    return v2


def test_printing(tensorflow, tf2):
    assert _ours(tf2, "printing") == tensorflow["printing"]


def test_tape_values(tensorflow, tf2):
    ours, theirs = _ours(tf2, "tape_values"), tensorflow["tape_values"]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["tape_rules", "function_traces", "module_walk", "errors",
                                  "dtype_mismatch_errors", "formatting", "bound_method",
                                  "function_graph_ops"])
def test_same_result(tensorflow, tf2, name):
    assert _ours(tf2, name) == tensorflow[name]
