"""Training RNNs for several steps, tfteach against TensorFlow, through the optimized paths.

test_rnn_reference.py compares one run. Issue 20's speed-ups only start later: a loop's
sub-plans specialise on their fed shapes from the third run (loop_specialise.py), its
cells' regions run as compiled kernels once hot (elementwise_regions.py; here at once),
its gradient products are summed as one product (loop_sums.py). So each program here
trains 8 steps from TensorFlow's initial values, with the batch size changing (5, 3,
1, back to 5: new signatures, then old ones again), and compares every step's loss and
the variables at the end with TensorFlow's (TF1 cells, reference variables, v1 control
flow, as in TF 1.15). The variables are compared relative to how far training moved
them: float32 sums in other orders differ by far less than the updates (measured:
at most 1.1e-5 of the largest update with SGD and momentum, 9.7e-4 with Adam, whose
division by sqrt(v) magnifies the rounding of small gradients; the tolerances are ten
times that, where a wrong gradient moves a variable by the update's own size).
"""
import numpy as np
import pytest

import tfteach

from test_rnn_reference import _tf_cells
from tf_reference import tensorflow_v1, tf1_behaviour

BATCHES = (5, 5, 5, 3, 3, 1, 5, 5)
STEPS, FEATURES, CLASSES, VOCAB = 6, 4, 3, 11


# how far from TF's a variable may end, as a fraction of its largest move (see above)
TOLERANCE = {"sgd": 1e-4, "momentum": 1e-4, "adam": 1e-2}


def _program(make_cell, time_major=False, lengths=False, bidirectional=False,
             every_output=False, optimizer="sgd", embedding=False):
    def build(tf, cells):
        if embedding:
            x = tf.placeholder(tf.int32, [None, STEPS])
            inputs = tf.nn.embedding_lookup(tf.get_variable("emb", [VOCAB, FEATURES]), x)
            if time_major:
                inputs = tf.transpose(inputs, [1, 0, 2])
        else:
            x = inputs = tf.placeholder(
                tf.float32, [STEPS, None, FEATURES] if time_major else [None, STEPS, FEATURES])
        y = tf.placeholder(tf.float32, [None, CLASSES])
        kw = {"dtype": tf.float32, "time_major": time_major}
        length = tf.placeholder(tf.int32, [None]) if lengths else None
        if lengths:
            kw["sequence_length"] = length
        if bidirectional:
            (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(make_cell(cells), make_cell(cells),
                                                          inputs, **kw)
            outputs = tf.concat([fw, bw], -1)
        else:
            outputs, _ = tf.nn.dynamic_rnn(make_cell(cells), inputs, **kw)
        if time_major:
            outputs = tf.transpose(outputs, [1, 0, 2])
        features = tf.reduce_mean(outputs, 1) if every_output else outputs[:, -1]
        w = tf.get_variable("w_out", [features.shape[-1], CLASSES])
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=y, logits=tf.matmul(features, w)))
        train = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.3),
                 "adam": lambda: tf.train.AdamOptimizer(0.05),
                 "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9)}[optimizer]()
        train = train.minimize(loss)

        def feed(n, rng):
            if embedding:
                value = rng.randint(0, VOCAB, (n, STEPS))
            else:
                value = rng.randn(*((STEPS, n, FEATURES) if time_major else
                                    (n, STEPS, FEATURES))).astype(np.float32)
            fed = {x: value, y: np.eye(CLASSES, dtype=np.float32)[rng.randint(0, CLASSES, n)]}
            if lengths:
                fed[length] = rng.randint(0, STEPS + 1, n)
            return fed
        return loss, train, feed
    build.optimizer = optimizer
    return build


PROGRAMS = {
    "lstm": _program(lambda c: c.LSTMCell(8)),
    "lstm_lengths_adam_every_output": _program(lambda c: c.LSTMCell(5), lengths=True,
                                               every_output=True, optimizer="adam"),
    "gru_time_major": _program(lambda c: c.GRUCell(7), time_major=True),
    "basic_lstm_every_output": _program(lambda c: c.BasicLSTMCell(6), every_output=True),
    "multi_lstm_gru_momentum": _program(
        lambda c: c.MultiRNNCell([c.LSTMCell(6), c.GRUCell(5)]), optimizer="momentum"),
    "bidirectional_gru_lengths": _program(lambda c: c.GRUCell(4), bidirectional=True,
                                          lengths=True, every_output=True),
    "embedding_two_lstms_time_major": _program(
        lambda c: c.MultiRNNCell([c.LSTMCell(5), c.LSTMCell(5)]), embedding=True,
        time_major=True),
}


def _train(tf, cells, build, initial=None):
    """(initial values, losses, final values) of 8 steps; `initial`: values to load."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        loss, train, feed = build(tf, cells)
        variables = tf.global_variables()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            if initial is None:
                initial = {v.op.name: sess.run(v) for v in variables}
            else:
                for v in variables:
                    v.load(initial[v.op.name], sess)
            rng = np.random.RandomState(3)
            losses = [sess.run([loss, train], feed(n, rng))[0] for n in BATCHES]
            final = {v.op.name: sess.run(v) for v in variables}
    return initial, np.array(losses), final


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_training_steps_match_tensorflow(name, monkeypatch):
    from tfteach.runtime.optimizer import fused_arithmetic
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.0)
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "1")
    tensorflow_v1()
    cells = _tf_cells()
    with tf1_behaviour() as tf1:
        initial, tf_losses, tf_final = _train(tf1, cells, PROGRAMS[name])
    _, losses, final = _train(tfteach, tfteach.nn.rnn_cell, PROGRAMS[name], initial)
    np.testing.assert_allclose(losses, tf_losses, rtol=0, atol=2e-5)
    assert sorted(final) == sorted(tf_final)
    for key, theirs in tf_final.items():
        moved = np.abs(theirs - initial[key]).max()
        assert moved > 0, key                     # every variable trained
        np.testing.assert_allclose(final[key], theirs, rtol=0,
                                   atol=moved * TOLERANCE[PROGRAMS[name].optimizer],
                                   err_msg=key)
