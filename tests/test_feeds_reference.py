"""Differential tests: what sess.run makes of odd feed values, on TensorFlow and tfteach.

Python ints that do not fit the placeholder's type, numbers fed to a string placeholder,
strings and bytes mixed: the same value or the same error (class and text). Only TF 2.x
words shape mismatches differently from TF 1.15 (tests/test_session.py checks those)."""
import numpy as np
import pytest

import tfteach
from tf_reference import run_program, tensorflow_v1

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


# -- nested feed keys: TF's nest.flatten_dict_items ------------------------------------------------
def _nested_program(value_of):
    def build(tf):
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.placeholder(tf.float32, [2], name="b")
        c = tf.placeholder(tf.float32, [], name="c")
        key = ((a, b), c)                       # an RNN state is such a tuple of tuples
        return a * 2 + b * c, {key: value_of(np)}
    return build


def _outcome(tf, build):
    try:
        return "value", np.asarray(run_program(tf, build)).tolist()
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return type(e).__name__, str(e).strip().splitlines()[0]


@pytest.mark.parametrize("value_of", [
    lambda np: ((np.array([1.0, 2.0]), [3.0, 4.0]), 10.0),       # same structure
    lambda np: [np.array([1.0, 2.0]), [3.0, 4.0], 10.0],          # flattened alike
], ids=["nested", "flat-list"])
def test_a_tuple_of_tensors_is_fed_from_the_same_structure(value_of):
    build = _nested_program(value_of)
    assert _outcome(tfteach, build) == _outcome(tensorflow_v1(), build)


def test_a_value_of_another_size_than_the_key_is_refused():
    build = _nested_program(lambda np: ((np.array([1.0, 2.0]),),))
    ours, theirs = _outcome(tfteach, build), _outcome(tensorflow_v1(), build)
    assert ours[0] == theirs[0] == "ValueError"
    words = "Could not flatten dictionary. Key had 3 elements, but value had 1 elements."
    assert ours[1].startswith(words) and theirs[1].startswith(words)


def test_the_notes_ptb_pattern_feeds_the_lstm_state_back():
    # {model.initial_state: state}: the state fetched from one run is the next run's feed;
    # the same as feeding each of its four tensors by hand
    tf = tfteach
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)])
        initial = cell.zero_state(2, tf.float32)
        _, state = cell(tf.ones([2, 4]), initial)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s1 = sess.run(state)
            nested = sess.run(state, {initial: s1})
            by_hand = sess.run(state, {initial[0].c: s1[0].c, initial[0].h: s1[0].h,
                                       initial[1].c: s1[1].c, initial[1].h: s1[1].h})
    assert not np.allclose(s1[1].h, nested[1].h)          # the fed state made a difference
    for got, want in zip([t for pair in nested for t in pair], [t for pair in by_hand for t in pair]):
        np.testing.assert_array_equal(got, want)
