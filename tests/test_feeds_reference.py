"""Differential tests: what sess.run makes of odd feed values, on TensorFlow and tfteach.

Python ints that do not fit the placeholder's type, numbers fed to a string placeholder,
strings and bytes mixed: the same value or the same error (class and text). Only TF 2.x
words shape mismatches differently from TF 1.15 (tests/test_session.py checks those)."""
import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")

FEEDS = [
    ("int32", 2 ** 40), ("int32", -2 ** 31 - 1), ("int32", -2 ** 31), ("uint8", 256),
    ("uint8", -1), ("uint8", 255), ("bool", 2), ("bool", True), ("int64", 2 ** 63),
    ("int64", 2 ** 70), ("float32", 2 ** 60 + 1), ("float64", 3), ("string", 3),
    ("string", True), ("string", 2.5), ("string", [b"a", 1]), ("string", [1.0, 2.0]),
    ("string", [b"a", "b"]), ("string", np.array(["x", "yz"])), ("string", "text"),
    ("int32", [1.7, -2.5]), ("float32", [True, False]),
]


def _run(tf, dtype, value):
    with tf.Graph().as_default():
        p = tf.placeholder(getattr(tf, dtype))
        with tf.Session() as sess:
            try:
                result = sess.run(tf.identity(p), {p: value})
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                text = str(e)
                # TF 2.x prefixes errors from its C layer; the cause is the last line.
                return type(e).__name__, text.strip().splitlines()[-1] if text else ""
            result = np.asarray(result)
            return "value", result.dtype, result.tolist()


@pytest.mark.parametrize("dtype, value", FEEDS, ids=[
    "%s-%s" % (d, type(v).__name__ + str(i)) for i, (d, v) in enumerate(FEEDS)])
def test_feed_is_converted_or_refused_as_tensorflow_does(dtype, value):
    assert _run(tfteach, dtype, value) == _run(tensorflow_v1(), dtype, value)
