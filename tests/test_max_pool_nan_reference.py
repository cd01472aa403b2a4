"""max_pool over windows holding NaN (or only -inf), and its gradient, against TensorFlow.

TF's CPU MaxPool starts each window from the type's lowest value and keeps a value that
beats it, so a NaN never wins ([5, 7, 13, 15] for a 4x4 ramp with a NaN corner) and a
window of NaNs (or of -inf) gives the lowest float. Its MaxPoolGrad starts from the
window's first cell, so a NaN *there* takes that window's gradient. TensorFlow 2.x
wheels run oneDNN's kernels by default, which pick differently; TF 1.15's are the Eigen
kernels, which `TF_ENABLE_ONEDNN_OPTS=0` selects: the reference runs in a fresh process
with it.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfteach

pytest.importorskip("tensorflow")


def _ramp(*cells, value=np.nan):
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    for i, j in cells:
        x[0, i, j, 0] = value
    return x


CASES = {
    "nan_corner": (_ramp((0, 0)), 2, 2, "VALID"),
    "nan_inside": (_ramp((1, 1)), 2, 2, "VALID"),
    "all_nan": (np.full((1, 2, 2, 1), np.nan, np.float32), 2, 2, "VALID"),
    "all_minus_inf": (np.full((1, 2, 2, 1), -np.inf, np.float32), 2, 2, "VALID"),
    "plus_inf": (_ramp((0, 0), value=np.inf), 2, 2, "VALID"),
    "overlapping": (_ramp((0, 0), (2, 2)), 3, 1, "SAME"),
    "two_channels": (np.stack([_ramp((0, 0))[..., 0], _ramp((3, 3))[..., 0]], -1), 2, 2,
                     "VALID"),
}

PROGRAM = """
import json, sys
import numpy as np
import tensorflow
tf = tensorflow.compat.v1
tf.disable_eager_execution()
results = {}
for name, (x, k, s, padding) in json.loads(sys.stdin.read()).items():
    x = np.array(x, np.float32)
    with tf.Graph().as_default():
        p = tf.placeholder_with_default(x, None)
        y = tf.nn.max_pool(p, [1, k, k, 1], [1, s, s, 1], padding)
        weights = tf.cast(tf.reshape(tf.range(1, 1 + tf.size(y)), tf.shape(y)), tf.float32)
        g = tf.gradients(tf.reduce_sum(y * weights), p)[0]
        with tf.Session() as sess:
            results[name] = [v.tolist() for v in sess.run([y, g])]
print(json.dumps(results))
"""


def _encode(value):
    return json.dumps({name: [x.tolist(), k, s, p] for name, (x, k, s, p) in value.items()})


@pytest.fixture(scope="module")
def tensorflow_results():
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", PROGRAM], input=_encode(CASES), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _tfteach(x, k, s, padding):
    tf = tfteach
    with tf.Graph().as_default():
        p = tf.placeholder_with_default(x, None)
        y = tf.nn.max_pool(p, [1, k, k, 1], [1, s, s, 1], padding)
        weights = tf.cast(tf.reshape(tf.range(1, 1 + tf.size(y)), tf.shape(y)), tf.float32)
        g = tf.gradients(tf.reduce_sum(y * weights), p)[0]
        with tf.Session() as sess:
            return sess.run([y, g])


@pytest.mark.parametrize("name", sorted(CASES))
def test_max_pool_and_its_gradient_treat_nan_as_tensorflow(name, tensorflow_results):
    y, g = _tfteach(*CASES[name])
    tf_y, tf_g = (np.array(v, np.float32) for v in tensorflow_results[name])
    np.testing.assert_array_equal(y, tf_y)
    np.testing.assert_array_equal(g, tf_g)


def test_the_issue_example():
    """The 4x4 ramp with a NaN corner: TF gives [5, 7, 13, 15]."""
    y, _ = _tfteach(*CASES["nan_corner"])
    np.testing.assert_array_equal(y.reshape(-1), [5, 7, 13, 15])
