"""tfteach's tf.function against TensorFlow's on the same programs: AutoGraph loops
(`for` over tensors and tf.range, `break`, `continue`, nested loops, variable updates
in loops) and gradients of a tf.function called under an outer GradientTape
(variables it captures included).

AutoGraph reads a function's source, so the program is a file both import (TensorFlow
in a child process, as test_eager_reference.py; this process's TensorFlow is in graph
mode for the other reference tests). `==` on tensors is identity in TF 1.15 (tfteach)
and elementwise in TF 2, so the programs say `tf.equal`.
"""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from eager_helpers import eager, tf2  # noqa: F401 - fixtures

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

PROGRAM = '''
import numpy as np


def run(tf):
    out = {}

    @tf.function
    def squares(x):
        s = tf.constant(0.0)
        for e in x:
            s += e * e
        return s
    out["squares"] = [float(squares(tf.constant([1.0, 2.0, 3.0]))),
                      float(squares(tf.constant([0.5, -1.5])))]

    @tf.function
    def evens(n):
        s = 0
        for i in tf.range(n):
            if tf.equal(i % 2, 0):
                s += i
        return s
    out["evens"] = [int(evens(tf.constant(n))) for n in (10, 7, 0)] + [
        evens.experimental_get_tracing_count()]

    @tf.function
    def until_big(n):
        s = 0
        for i in tf.range(n):
            if i > 4:
                break
            s += i
        return s
    out["break"] = [int(until_big(tf.constant(n))) for n in (10, 3)]

    @tf.function
    def positives(x):
        s = tf.constant(0.0)
        for e in x:
            if e < 0:
                continue
            s += e
        return s
    out["continue"] = float(positives(tf.constant([1.0, -2.0, 3.0, -4.0, 5.0])))

    @tf.function
    def first_square_above(n, limit):
        i = tf.constant(0)
        while i < n:
            i += 1
            if i * i > limit:
                break
        return i
    out["while_break"] = [int(first_square_above(tf.constant(100), tf.constant(50))),
                          int(first_square_above(tf.constant(3), tf.constant(50)))]

    @tf.function
    def pair_products(a, b):
        total = tf.constant(0.0)
        for x in a:
            for y in b:
                total += x * y
        return total
    out["nested"] = float(pair_products(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])))

    @tf.function
    def rows(m):
        acc = tf.zeros([3])
        for r in m:
            acc = acc * 0.5 + r
        return acc
    out["rows"] = rows(tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
                       ).numpy().tolist()

    v = tf.Variable(0.0)

    @tf.function
    def add_positives(x):
        for e in x:
            if e > 0:
                v.assign_add(e)
        return v.read_value()
    out["updates"] = [float(add_positives(tf.constant([1.0, -1.0, 2.0]))),
                      float(add_positives(tf.constant([10.0, -5.0])))]

    # A tf.function under an outer tape: its ops, and the variables it captures.
    r = np.random.RandomState(1)
    w = tf.Variable(r.randn(3, 2).astype(np.float32))
    b = tf.Variable(r.randn(2).astype(np.float32))

    @tf.function
    def loss_fn(x):
        h = tf.tanh(0.3 * (tf.matmul(x, w) + b))   # away from saturation (1 - tanh² cancels)
        total = tf.constant(0.0)
        for row in h:
            total += tf.reduce_sum(row * row)
        if total > 1.0:
            total = total * 2.0
        return total
    x = tf.constant(r.randn(4, 3).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x)
    gx, gw, gb = tape.gradient(loss, [x, w, b])
    out["tape"] = [float(loss), gx.numpy().tolist(), gw.numpy().tolist(),
                   gb.numpy().tolist()]
    with tf.GradientTape() as tape:
        loss = loss_fn(x) + tf.reduce_sum(w)
    out["tape_variables"] = [g.numpy().tolist() for g in tape.gradient(loss, [w, b])]
    return out
'''


def _load(path):
    spec = importlib.util.spec_from_file_location("autograph_program", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def program_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("autograph") / "autograph_program.py"
    path.write_text(textwrap.dedent(PROGRAM))
    return str(path)


@pytest.fixture(scope="module")
def tensorflow(program_file):
    code = ("import json, importlib.util, tensorflow as tf\n"
            "spec = importlib.util.spec_from_file_location('p', %r)\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "print(json.dumps(m.run(tf)))\n" % program_file)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def ours(tf2, program_file):
    return json.loads(json.dumps(_load(program_file).run(tf2)))


@pytest.mark.parametrize("name", ["evens", "break", "while_break", "updates"])
def test_integer_and_exact_results(tensorflow, ours, name):
    assert ours[name] == tensorflow[name]


@pytest.mark.parametrize("name", ["squares", "continue", "nested", "rows", "tape",
                                  "tape_variables"])
def test_float_results(tensorflow, ours, name):
    def flat(x):
        return np.hstack([np.ravel(e) for e in x]) if isinstance(x, list) else np.ravel(x)
    np.testing.assert_allclose(flat(ours[name]), flat(tensorflow[name]), rtol=1e-5,
                               atol=1e-6)
