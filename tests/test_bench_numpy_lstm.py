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
