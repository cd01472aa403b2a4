"""Differential test: a CNN training step whose second layer tfteach computes in the
Fourier domain (kernels/cpu/conv_fourier.py) against TensorFlow's, step by step.

The program is the notes' LeNet-5 shape at half width (conv 5x5x16 SAME, pool, conv
5x5x32 SAME, pool, dense), batch 50: the second layer pays in the Fourier domain, so
its forward, input gradient and filter gradient all take that path, and every weight
after three Momentum steps, the loss of each step and the conv output fetched beside
the training op must match TensorFlow's.
"""
import numpy as np
import pytest

from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")
import tfteach  # noqa: E402
from tfteach.kernels.cpu import conv_fourier  # noqa: E402
from tfteach.kernels.cpu.conv_geometry import ConvParams  # noqa: E402
from tolerances import assert_close


def _train(tf, steps=3):
    rng = np.random.RandomState(0)
    x_val = rng.rand(50, 28, 28, 1).astype(np.float32)
    y_val = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=50)]
    params = [rng.randn(5, 5, 1, 16) * 0.2, np.full(16, 0.1), rng.randn(5, 5, 16, 32) * 0.1,
              np.full(32, 0.1), rng.randn(7 * 7 * 32, 10) * 0.05, np.zeros(10)]
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.float32, [None, 10])
        w1, b1, w2, b2, w3, b3 = [tf.Variable(p.astype(np.float32)) for p in params]
        h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        conv2 = tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME")
        h = tf.nn.max_pool(tf.nn.relu(conv2 + b2), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        logits = tf.matmul(tf.reshape(h, [-1, 7 * 7 * 32]), w3) + b3
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            losses, convs = [], []
            for _ in range(steps):
                _, loss_val, conv_val = sess.run([train, loss, conv2], {x: x_val, y: y_val})
                losses.append(loss_val)
                convs.append(conv_val)
            return losses, convs, sess.run([w1, b1, w2, b2, w3, b3])


def test_training_through_the_fourier_domain_matches_tensorflow(monkeypatch):
    p = ConvParams.from_attrs({"strides": [1, 1, 1, 1], "padding": "SAME"})
    assert conv_fourier.pays(p, 50, 14, 14, 16, 5, 5, 32, *p.output_geometry(14, 14, 5, 5))
    calls = []
    for name in ("forward", "backprop_input", "backprop_filter"):     # count, then run
        def counted(*args, _run=getattr(conv_fourier, name), _name=name, **kwargs):
            calls.append(_name)
            return _run(*args, **kwargs)
        monkeypatch.setattr(conv_fourier, name, counted)
    theirs = _train(tensorflow_v1())
    ours = _train(tfteach)
    assert sorted(set(calls)) == ["backprop_filter", "backprop_input", "forward"]
    assert len(calls) == 9                  # the second layer's three ops, three steps
    assert_close(ours[0], theirs[0], rtol=1e-5)
    for got, want in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for got, want in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert not np.allclose(ours[2][2], theirs[2][2] * 0)
