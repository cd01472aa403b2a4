"""The shape errors of conv2d's gradients (conv2d_transpose's output_shape included)
carry the label of TensorFlow's CPU kernels, Conv2DCustomBackpropInput / ...Filter.

TF 1.15 registers Conv2DCustomBackpropInputOp / Conv2DCustomBackpropFilterOp for CPU
floats, and their shape checks name themselves so. TensorFlow 2.x wheels run oneDNN's
kernels by default; `TF_ENABLE_ONEDNN_OPTS=0` selects the Eigen/custom ones TF 1.15
shipped, so the reference runs in a fresh process with it.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfteach as tf

pytest.importorskip("tensorflow")

# The programs, as text: the same source builds them in TensorFlow (in its own process)
# and in tfteach.
CASES = """{
    "transpose_output_shape": lambda: tf.nn.conv2d_transpose(
        np.zeros((1, 5, 5, 4), np.float32), np.zeros((3, 3, 2, 4), np.float32),
        [1, 8, 10, 2], [1, 2, 2, 1]),
    "transpose_depth": lambda: tf.nn.conv2d_transpose(
        np.zeros((1, 5, 5, 4), np.float32), np.zeros((3, 3, 2, 3), np.float32),
        [1, 10, 10, 2], [1, 2, 2, 1]),
    "filter_grad_size": lambda: tf.nn.conv2d_backprop_filter(
        np.zeros((1, 8, 10, 3), np.float32), [3, 3, 3, 4],
        np.zeros((1, 5, 5, 4), np.float32), [1, 2, 2, 1], "SAME"),
}"""

RUN = """
def run_cases(tf, np, cases, last_conv_line):
    out = {}
    for name, build in cases.items():
        with tf.Graph().as_default():
            try:
                y = build()
                with tf.Session() as sess:
                    sess.run(y)
                out[name] = None
            except tf.errors.OpError as e:
                out[name] = [type(e).__name__, last_conv_line(e.message)]
            except ValueError as e:          # the op's shape function, while building
                out[name] = ["ValueError", str(e).splitlines()[0]]
    return out
"""

PROGRAM = RUN + """
import json
import numpy as np
import tensorflow
tf = tensorflow.compat.v1
tf.disable_eager_execution()
# TF 2.x puts its own lines around the kernel's message: keep the kernel's
pick = lambda m: [l for l in m.splitlines() if "Conv2D" in l and ":" in l][-1]
print(json.dumps(run_cases(tf, np, eval(%r), pick)))
""" % CASES


def _tensorflow():
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _tfteach():
    scope = {}
    exec(RUN, scope)
    cases = eval(CASES, {"tf": tf, "np": np})
    return scope["run_cases"](tf, np, cases, lambda m: m.splitlines()[0])


def test_conv_gradient_shape_errors_name_tensorflows_cpu_kernels():
    theirs, ours = _tensorflow(), _tfteach()
    assert theirs["transpose_output_shape"][1].startswith(
        "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed")
    for name in ("transpose_output_shape", "filter_grad_size"):     # run-time errors
        assert ours[name] == theirs[name], (name, ours[name], theirs[name])
    # A depth that does not match: TF 1.15's Conv2DBackpropInput shape function only makes
    # the shape from input_sizes (MakeShapeFromShapeTensor + WithRank 4), so the kernel
    # finds it when run; TF 2.x's shape function checks it while building.
    assert theirs["transpose_depth"][0] == "ValueError"
    assert theirs["transpose_depth"][1].startswith("Dimensions must be equal, but are 4 and 3")
    assert ours["transpose_depth"] == [
        "InvalidArgumentError",
        "Conv2DCustomBackpropInput: filter and out_backprop must have the same out_depth"]
