"""Differential test: where `log_device_placement=True` writes, on TensorFlow and tfteach.

The notes' placement program runs in a fresh process on each (CPU only), and both
streams are captured. TensorFlow prints each placement with `printf` to stdout and logs
it with `LOG(INFO)` to stderr; tfteach must write the same lines to the same streams, so
a program's stdout is what TensorFlow prints. TF 1.15 (the specification) also printed
"Device mapping: ..." to stdout; TF 2.x only logs it, so that line is checked against
TF 1.15's text (runtime/placement_log.py)."""
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("tensorflow")

PROGRAM = """
import sys
if sys.argv[1] == "tensorflow":
    import tensorflow
    tf = tensorflow.compat.v1
    tf.disable_eager_execution()
else:
    import tfteach as tf
with tf.device("/cpu:0"):
    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name="a")
    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name="b")
c = tf.matmul(a, b)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("result", sess.run(c).tolist())
sys.stdout.flush()
"""
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
PLACEMENTS = ["MatMul: (MatMul): %s" % CPU, "a: (Const): %s" % CPU, "b: (Const): %s" % CPU]


def _streams(which):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="0",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for name in ("TFTEACH_VIRTUAL_GPUS", "TFTEACH_VIRTUAL_GPUS_IF_NO_GPU"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", PROGRAM, which], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def _logged(stderr, source):
    """The messages of the log lines from `source` (whatever prefix format the log has)."""
    return [m.group(1) for m in re.finditer(r"%s:\d+\] (.*)" % re.escape(source), stderr)]


def test_placement_lines_go_to_the_streams_tensorflow_uses():
    tf_out, tf_err = _streams("tensorflow")
    out, err = _streams("tfteach")
    # stdout: TensorFlow's printf lines, then the program's own output.
    tf_lines = [line for line in tf_out.splitlines() if ": (" in line]
    assert tf_lines == PLACEMENTS
    assert out == ("Device mapping: no known devices.\n" + "\n".join(PLACEMENTS) +
                   "\nresult [[22.0, 28.0], [49.0, 64.0]]\n")
    assert "result [[22.0, 28.0], [49.0, 64.0]]" in tf_out
    # stderr: the same lines as INFO log messages from the placer, and the device mapping.
    assert _logged(tf_err, "placer.cc") == _logged(err, "placer.cc") == PLACEMENTS
    assert "Device mapping" in "".join(_logged(tf_err, "direct_session.cc"))
    assert _logged(err, "direct_session.cc") == ["Device mapping:"]
    prefix = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}: I tensorflow/core/common_runtime/"
    assert re.search(r"(?m)^%splacer\.cc:54\] MatMul: \(MatMul\): " % prefix, err)
    assert re.search(r"(?m)^%sdirect_session\.cc:341\] Device mapping:\n\n" % prefix, err)
