"""What `sess.run` hands back, against TensorFlow: a fetched scalar is a NumPy scalar,
but a fetched tensor that is also fed comes back as the fed array itself, a 0-d array for
a scalar (Jupyter shows `array(1.5, dtype=float32)`), in every fetch structure, the first
run (the general path) and the later ones (the fed-run fast path) alike."""
import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")


def _results(tf):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, name="x")
        y = x + 0
        same = np.array([1.0, 2.0], np.float32)
        out = []
        with tf.Session() as sess:
            for _ in range(3):                 # the first run, then the fast path
                out += [repr(sess.run(x, {x: 1.5})), repr(sess.run([x, y], {x: 1.5})),
                        repr(sess.run(y, {x: 1.5})), repr(sess.run((y, x), {x: 2})),
                        repr(sess.run({"k": x}, {x: 3})),
                        repr(sess.run(x, {x: np.float64(2)})),
                        sess.run(x, {x: same}) is same]
        return out


def test_fed_fetches_come_back_as_tensorflows():
    ours = _results(tfteach)
    assert ours == _results(tensorflow_v1())
    assert ours[0] == "array(1.5, dtype=float32)" and ours[2] == "np.float32(1.5)"
