"""Differential tests: feed_dict keys that are nested structures of tensors.

TensorFlow flattens each key and its value side by side (TF 1.15's
`nest.flatten_dict_items`), so an RNN's `LSTMStateTuple` of placeholders can be fed the
`LSTMStateTuple` of arrays the previous run returned, and a tuple of tensors a tuple (or
list) of values. Results, and the errors for a value of the wrong size or a tensor fed
twice, are compared with TensorFlow's."""
import collections

import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")


def _state_tuple(tf):
    if tf is tfteach:
        return tfteach.nn.rnn_cell.LSTMStateTuple
    try:      # Keras 3 hides tf.compat.v1.nn.rnn_cell; TF's TF1 cells live on here
        from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl
        return rnn_cell_impl.LSTMStateTuple
    except ImportError:        # pragma: no cover - depends on the TensorFlow build
        return collections.namedtuple("LSTMStateTuple", ("c", "h"))


def _state_loop(tf, steps=4):
    """Feeds the state a run returned back into the next run, as the notes' RNNs do."""
    LSTMStateTuple = _state_tuple(tf)
    with tf.Graph().as_default():
        state = LSTMStateTuple(tf.placeholder(tf.float32, [2, 3], name="c"),
                               tf.placeholder(tf.float32, [2, 3], name="h"))
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        new_c = 0.5 * state.c + tf.tanh(x + state.h)
        new_state = LSTMStateTuple(new_c, tf.sigmoid(new_c) * state.h + 0.1)
        with tf.Session() as sess:
            value = LSTMStateTuple(np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32))
            history = []
            for step in range(steps):
                value = sess.run(new_state, {state: value,
                                             x: np.full((2, 3), step * 0.3 - 0.4, np.float32)})
                assert type(value).__name__ == "LSTMStateTuple"
                history.append([value.c, value.h])
            return np.array(history)


def test_an_lstm_state_tuple_is_fed_back_as_in_tensorflow():
    ours, theirs = _state_loop(tfteach), _state_loop(tensorflow_v1())
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def _outcome(tf, make_feed):
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.placeholder(tf.float32, [2], name="b")
        c = tf.placeholder(tf.float32, [2], name="c")
        with tf.Session() as sess:
            try:
                return "value", sess.run(a + 2 * b + 3 * c, make_feed(a, b, c)).tolist()
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                return type(e).__name__, str(e)


one, two, three = np.ones(2), np.full(2, 2.0), np.full(2, 3.0)
FEEDS = {
    "tuple": lambda a, b, c: {(a, b): (one, two), c: three},
    "tuple-to-list": lambda a, b, c: {(a, b, c): [one, two, three]},
    "nested": lambda a, b, c: {(a, (b, c)): (one, [two, three])},
    "dict-in-tuple": lambda a, b, c: {(a, b): (one, two), (c,): {"z": three}},
    "names": lambda a, b, c: {("a:0", b): (one, two), "c:0": three},
    "too-few": lambda a, b, c: {(a, b, c): (one, two)},
    "an-array-is-one-leaf": lambda a, b, c: {(a, b): np.ones((2, 2)), c: three},
}


@pytest.mark.parametrize("name", sorted(FEEDS))
def test_nested_feed_keys_as_tensorflow(name):
    ours = _outcome(tfteach, FEEDS[name])
    theirs = _outcome(tensorflow_v1(), FEEDS[name])
    assert ours == theirs


def test_a_tensor_fed_twice_is_tensorflows_value_error():
    """TF 2.x words it "Cannot flatten dict because this key is not unique: ..."; TF 1.15
    (the specification) "Could not flatten dictionary: key ... is not unique."."""
    feed = lambda a, b, c: {(a, b): (one, two), (c, a): (three, one)}  # noqa: E731
    theirs = _outcome(tensorflow_v1(), feed)
    ours = _outcome(tfteach, feed)
    assert ours[0] == theirs[0] == "ValueError"
    assert ours[1] == ('Could not flatten dictionary: key Tensor("a:0", shape=(2,), '
                       'dtype=float32) is not unique.')
