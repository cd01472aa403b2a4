"""bench/nn_steps.py's hand-written NumPy LSTM step computes what the lstm row's graph
computes: its ratio column is only honest if both do the same work. One step from the
same weights, against tfteach (whose LSTM is tested against TensorFlow elsewhere)."""
import os
import sys

import numpy as np

import tfteach as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bench"))
import nn_steps  # noqa: E402  (bench/ is not a package)


def test_the_numpy_lstm_step_is_the_graphs_training_step():
    step = nn_steps.numpy_lstm()
    before = [v.copy() for v in step.variables]
    step()
    graph = tf.Graph()
    with graph.as_default():
        train, feed = nn_steps.lstm_graph(tf)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            variables = tf.trainable_variables()
            # kernel_0, bias_0, kernel_1, bias_1, the softmax weights: the NumPy order
            assert [v.shape.as_list() for v in variables] == [list(v.shape) for v in before]
            for v, value in zip(variables, before):
                v.load(value, sess)
            sess.run(train, feed)
            after = sess.run(variables)
    for graph_value, numpy_value, start in zip(after, step.variables, before):
        moved = np.abs(numpy_value - start).max()
        assert moved > 1e-4                      # the step did change every variable
        # float32 sums in other orders: far below the update's size
        np.testing.assert_allclose(numpy_value, graph_value, rtol=0, atol=moved * 1e-3)


def test_paired_times_run_one_step_each_in_turn():
    calls = []
    steps = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    times = nn_steps.paired_times(steps, rounds=5)
    assert {label: len(values) for label, values in times.items()} == {"a": 5, "b": 5}
    assert all(t >= 0 for values in times.values() for t in values)
    # the warm-up calls (best_ms' own), then a, b, a, b, ...: one of each per round
    assert calls[-10:] == ["a", "b"] * 5


def test_paired_ratios_are_taken_round_by_round():
    times = {"x": [2.0, 30.0, 4.0, 9.0], "ref": [1.0, 10.0, 2.0, 3.0]}
    # per round: 2, 3, 2, 3 -> sorted 2, 2, 3, 3 (the ratio of the medians: 6.5 / 2.5)
    assert nn_steps.paired_ratios(times, "x", "ref") == (3.0, 2.0, 3.0)
    assert nn_steps.paired_ratios(times, "ref", "ref") == (1.0, 1.0, 1.0)
