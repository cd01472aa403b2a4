"""RNN cells and dynamic_rnn / static_rnn against TensorFlow (tf.compat.v1, graph mode).

Each program `build(tf, cells)` is built on TensorFlow (with TF1's reference variables and
v1 control flow, as in TF 1.15) and on tfteach. The tests compare the sorted variable
names and shapes, then copy TensorFlow's initial values into tfteach's variables (by
name) and compare every fetched value: outputs, final states and gradients.

TensorFlow 2's Keras 3 hides `tf.compat.v1.nn.rnn_cell`; the same TF1 cells live on in
`tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl`.
"""

import numpy as np
import pytest

import tfteach
from tfteach.ops import nest

from tf_reference import tensorflow_v1, tf1_behaviour


def _tf_cells():
    tensorflow_v1()
    try:
        from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl
    except ImportError:        # pragma: no cover - depends on the TensorFlow build
        pytest.skip("TensorFlow's TF1 RNN cells are not importable")
    return rnn_cell_impl


def _run_tf(build):
    v1 = tensorflow_v1()
    cells = _tf_cells()
    graph = v1.Graph()
    with tf1_behaviour(), graph.as_default():
        v1.set_random_seed(1)
        fetches, feed = build(v1, cells)
        variables = v1.global_variables()
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            values = {v.name: sess.run(v) for v in variables}
            return values, sess.run(fetches, feed)


def _run_tfteach(build, values):
    graph = tfteach.Graph()
    with graph.as_default():
        fetches, feed = build(tfteach, tfteach.nn.rnn_cell)
        variables = tfteach.global_variables()
        with tfteach.Session(graph=graph) as sess:
            sess.run(tfteach.global_variables_initializer())
            for v in variables:
                v.load(values[v.name], sess)
            shapes = {v.name: tuple(v.shape.as_list()) for v in variables}
            return shapes, sess.run(fetches, feed)


def compare(build, rtol=1e-5, atol=1e-6):
    """Runs `build` on both; asserts same variables and values; returns tfteach's."""
    tf_values, tf_result = _run_tf(build)
    shapes, result = _run_tfteach(build, tf_values)
    assert sorted(shapes) == sorted(tf_values)
    assert shapes == {k: v.shape for k, v in tf_values.items()}
    flat_tf, flat_ours = _flatten(tf_result), _flatten(result)
    assert len(flat_tf) == len(flat_ours)
    for a, b in zip(flat_tf, flat_ours):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    return result


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    return [x]


RNG = np.random.RandomState(0)
X = RNG.randn(3, 5, 4).astype(np.float32)
LENGTHS = np.array([5, 2, 0], dtype=np.int32)
C0, H0 = RNG.randn(3, 4), RNG.randn(3, 4)


def _inputs(tf, time_major=False, batch=None):
    x = tf.placeholder(tf.float32, [None, 5, 4] if batch is None else [batch, None, 4],
                       name="x")
    value = X.transpose(1, 0, 2) if time_major else X
    if time_major:
        x = tf.placeholder(tf.float32, [5, None, 4], name="x")
    return x, value


# -- dynamic_rnn, one cell type at a time ------------------------------------------------------
@pytest.mark.parametrize("make_cell", [
    lambda c: c.BasicLSTMCell(6),
    lambda c: c.BasicLSTMCell(6, forget_bias=0.5, state_is_tuple=False),
    lambda c: c.BasicRNNCell(6),
    lambda c: c.GRUCell(6),
    lambda c: c.LSTMCell(6),
    lambda c: c.LSTMCell(6, use_peepholes=True, cell_clip=0.3, num_proj=3, proj_clip=0.2),
], ids=["basic_lstm", "basic_lstm_concat_state", "basic_rnn", "gru", "lstm",
        "lstm_peephole_proj"])
def test_dynamic_rnn_matches_tensorflow(make_cell):
    def build(tf, cells):
        x, value = _inputs(tf)
        outputs, state = tf.nn.dynamic_rnn(make_cell(cells), x, dtype=tf.float32)
        return [outputs, state], {x: value}
    compare(build)


def test_multi_rnn_cell_time_major_sequence_length():
    def build(tf, cells):
        x, value = _inputs(tf, time_major=True)
        lengths = tf.placeholder(tf.int32, [None], name="lengths")
        cell = cells.MultiRNNCell([cells.BasicLSTMCell(5), cells.GRUCell(3)])
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                           time_major=True, dtype=tf.float32)
        return [outputs, state], {x: value, lengths: LENGTHS}
    outputs, state = compare(build)
    assert outputs.shape == (5, 3, 3)
    np.testing.assert_array_equal(outputs[2:, 1], 0)      # past length 2: zeros
    np.testing.assert_array_equal(outputs[:, 2], 0)       # length 0: all zeros
    np.testing.assert_array_equal(state[1][2], 0)         # ...and the zero state


def test_sequence_length_shorter_than_time_everywhere():
    # The loop stops after the longest sequence; the missing steps are zeros.
    def build(tf, cells):
        x, value = _inputs(tf)
        lengths = tf.constant([3, 2, 1])
        outputs, state = tf.nn.dynamic_rnn(cells.BasicLSTMCell(4), x,
                                           sequence_length=lengths, dtype=tf.float32)
        return [outputs, state], {x: value}
    outputs, _ = compare(build)
    np.testing.assert_array_equal(outputs[:, 3:], 0)


def test_initial_state_and_scope_names():
    def build(tf, cells):
        x, value = _inputs(tf)
        cell = cells.BasicLSTMCell(4, name="encoder_cell")
        c0 = tf.placeholder(tf.float32, [None, 4])
        h0 = tf.placeholder(tf.float32, [None, 4])
        init = cells.LSTMStateTuple(c0, h0)
        out1, st1 = tf.nn.dynamic_rnn(cell, x, initial_state=init, scope="encoder")
        # The same cell again, in another scope: the same weights (no new variables).
        out2, _ = tf.nn.dynamic_rnn(cell, x, initial_state=st1, scope="again")
        gru = cells.GRUCell(2)
        out3, _ = tf.nn.dynamic_rnn(gru, out2, dtype=tf.float32)
        feed = {x: value, c0: C0, h0: H0}
        return [out1, st1, out2, out3], feed
    compare(build)


def test_bidirectional_dynamic_rnn():
    def build(tf, cells):
        x, value = _inputs(tf)
        lengths = tf.placeholder(tf.int32, [None])
        (fw, bw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
            cells.BasicLSTMCell(3), cells.GRUCell(2), x, sequence_length=lengths,
            dtype=tf.float32)
        (fw2, bw2), _ = tf.nn.bidirectional_dynamic_rnn(
            cells.BasicRNNCell(2), cells.BasicRNNCell(2), x, dtype=tf.float32,
            scope="plain")
        return [fw, bw, sfw, sbw, fw2, bw2], {x: value, lengths: LENGTHS}
    compare(build)


def test_bidirectional_time_major():
    def build(tf, cells):
        x, value = _inputs(tf, time_major=True)
        lengths = tf.constant([4, 1, 5])
        outputs, states = tf.nn.bidirectional_dynamic_rnn(
            cells.BasicLSTMCell(3), cells.BasicLSTMCell(3), x, sequence_length=lengths,
            dtype=tf.float32, time_major=True)
        return [outputs, states], {x: value}
    compare(build)


# -- static_rnn -------------------------------------------------------------------------------------
def test_static_rnn_and_bidirectional():
    def build(tf, cells):
        steps = [tf.constant(X[:, t]) for t in range(5)]
        lengths = tf.constant(LENGTHS)
        cell = cells.MultiRNNCell([cells.BasicLSTMCell(3) for _ in range(2)])
        outputs, state = tf.nn.static_rnn(cell, steps, dtype=tf.float32,
                                          sequence_length=lengths)
        bi, sfw, sbw = tf.nn.static_bidirectional_rnn(
            cells.GRUCell(2), cells.GRUCell(2), steps, dtype=tf.float32,
            sequence_length=lengths)
        return [outputs, state, bi, sfw, sbw], {}
    compare(build)


# -- wrappers ------------------------------------------------------------------------------------------
def test_wrappers_keep_the_cells_variable_names():
    def build(tf, cells):
        x, value = _inputs(tf)
        cell = cells.MultiRNNCell([
            cells.DropoutWrapper(cells.BasicLSTMCell(4), output_keep_prob=1.0),
            cells.ResidualWrapper(cells.BasicLSTMCell(4))])
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return [outputs, state], {x: value}
    compare(build)


# -- gradients --------------------------------------------------------------------------------------
def test_gradients_through_dynamic_rnn_match_tensorflow():
    def build(tf, cells):
        x, value = _inputs(tf)
        lengths = tf.placeholder(tf.int32, [None])
        cell = cells.MultiRNNCell([cells.LSTMCell(4, use_peepholes=True),
                                   cells.BasicLSTMCell(3)])
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                           dtype=tf.float32)
        loss = tf.reduce_sum(tf.square(outputs)) + tf.reduce_sum(state[1].c * 0.5)
        variables = sorted(tf.trainable_variables(), key=lambda v: v.name)
        return [loss, tf.gradients(loss, variables + [x])], {x: value, lengths: LENGTHS}
    compare(build, rtol=1e-4, atol=1e-5)


# -- errors -----------------------------------------------------------------------------------------
def test_same_scope_twice_with_new_cells_is_an_error_in_both():
    def build(tf, cells):
        x, value = _inputs(tf)
        tf.nn.dynamic_rnn(cells.BasicLSTMCell(4), x, dtype=tf.float32)
        tf.nn.dynamic_rnn(cells.BasicLSTMCell(4), x, dtype=tf.float32)
        return [], {}
    with pytest.raises(ValueError) as theirs:
        _run_tf(build)
    with pytest.raises(ValueError) as ours:
        _run_tfteach(build, {})
    first = "Variable rnn/basic_lstm_cell/kernel already exists, disallowed."
    assert str(theirs.value).startswith(first)
    assert str(ours.value).startswith(first)


# -- names a student prints ---------------------------------------------------------------
def _names(tf, cells, kind):
    """The names of what dynamic_rnn returns, for `print(outputs, state)`."""
    seq = tf.placeholder(tf.float32, [None, 5, 3])
    lengths = tf.placeholder(tf.int32, [None])
    if kind == "lstm":
        out, state = tf.nn.dynamic_rnn(cells.BasicLSTMCell(4), seq, dtype=tf.float32)
    elif kind == "gru_lengths_time_major":
        out, state = tf.nn.dynamic_rnn(cells.GRUCell(4), tf.transpose(seq, [1, 0, 2]),
                                       sequence_length=lengths, time_major=True,
                                       dtype=tf.float32)
    elif kind == "multi":
        multi = cells.MultiRNNCell([cells.LSTMCell(4), cells.GRUCell(2)])
        out, state = tf.nn.dynamic_rnn(multi, seq, dtype=tf.float32)
    else:
        out, state = tf.nn.bidirectional_dynamic_rnn(cells.LSTMCell(3), cells.LSTMCell(3),
                                                     seq, dtype=tf.float32)
    if kind == "gru_lengths_time_major":
        # time-major outputs are TF's TensorArray stack, tfteach's grown tensor
        # (docs/rnn.md, "Differences"): only the state's names are TF's there
        return [t.name for t in nest.flatten(state)]
    return [t.name for t in nest.flatten((out, state))]


@pytest.mark.parametrize("kind", ["lstm", "gru_lengths_time_major", "multi", "bidirectional"])
def test_dynamic_rnn_results_have_tensorflows_names(kind):
    # TF 1.15's loop has an iteration counter (maximum_iterations=time_steps) as loop
    # variable 0, so the final state is `rnn/while/Exit_3`, not `Exit_2`.
    v1 = tensorflow_v1()
    cells = _tf_cells()
    with tf1_behaviour(), v1.Graph().as_default():
        expected = _names(v1, cells, kind)
    with tfteach.Graph().as_default():
        assert _names(tfteach, tfteach.nn.rnn_cell, kind) == expected
