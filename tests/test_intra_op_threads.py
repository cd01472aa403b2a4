"""`ConfigProto(intra_op_parallelism_threads=1)`: each step of the session runs on its
one thread, as TensorFlow runs each op on one thread then. BLAS is one-threaded while
the step runs (and as before afterwards), the convolutions' two halves are computed one
after the other by the step's own thread (no worker), and the values are the default
session's: the same halves, the same products."""
import numpy as np
import pytest

import tfteach as tf
from thread_helpers import run_in_threads
from tfteach.kernels.cpu import linalg, two_workers


def _cnn_step(config):
    """A small CNN's training step large enough to split (over_batch's work limit)."""
    rng = np.random.RandomState(0)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(rng.rand(16, 28, 28, 8).astype(np.float32))
        f = tf.Variable(rng.rand(5, 5, 8, 32).astype(np.float32) * 0.05)
        w = tf.Variable(rng.rand(28 * 28 * 32, 10).astype(np.float32) * 0.01)
        h = tf.nn.relu(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"))
        loss = tf.reduce_sum(tf.matmul(tf.reshape(h, [16, -1]), w) ** 2)
        train = tf.train.GradientDescentOptimizer(1e-6).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return sess, train, loss, f, w


def _mlp_step(config):
    rng = np.random.RandomState(1)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        w = tf.Variable(rng.rand(784, 500).astype(np.float32) * 0.01)
        loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    feed = {x: rng.rand(100, 784).astype(np.float32)}
    return sess, train, loss, feed


@pytest.fixture
def blas_during_products(monkeypatch):
    """[(BLAS threads, this thread computes both halves itself), ...] seen by every
    matrix product the kernels compute."""
    seen = []
    plain = linalg.split_matmul

    def watching(left, right):
        seen.append((two_workers.blas_threads(), bool(two_workers.THIS_THREAD.alone)))
        return plain(left, right)
    monkeypatch.setattr(linalg, "split_matmul", watching)
    return seen


needs_openblas = pytest.mark.skipif(
    two_workers.blas_threads() is None, reason="NumPy's BLAS here is not OpenBLAS")


@needs_openblas
def test_products_run_one_threaded_in_such_a_session_and_the_count_comes_back(
        blas_during_products):
    before = two_workers.blas_threads()
    one = tf.ConfigProto(intra_op_parallelism_threads=1)
    sess, train, loss, feed = _mlp_step(one)
    sess.run([train, loss], feed)
    assert blas_during_products and all(seen == (1, True) for seen in blas_during_products)
    assert two_workers.blas_threads() == before
    del blas_during_products[:]
    sess, train, loss, feed = _mlp_step(tf.ConfigProto(intra_op_parallelism_threads=2))
    sess.run([train, loss], feed)
    assert all(seen == (before, False) for seen in blas_during_products)


def test_a_step_with_convolutions_uses_no_worker_and_gives_the_default_values(monkeypatch):
    default, one = tf.ConfigProto(), tf.ConfigProto(intra_op_parallelism_threads=1)
    results = []
    for config in (default, one):
        submitted = []
        pool = two_workers._pool()
        real_submit = pool.submit

        def counting(*args, **kwargs):
            submitted.append(args[0])
            return real_submit(*args, **kwargs)
        monkeypatch.setattr(pool, "submit", counting)
        sess, train, loss, f, w = _cnn_step(config)
        losses = [sess.run([train, loss])[1] for _ in range(3)]
        results.append((losses, sess.run(f), sess.run(w), len(submitted)))
        monkeypatch.undo()
    (losses_default, f_default, w_default, used_default), \
        (losses_one, f_one, w_one, used_one) = results
    if two_workers.worker_count() >= 2:
        assert used_default > 0          # the default step does split here
    assert used_one == 0
    assert losses_one == losses_default
    assert f_one.tobytes() == f_default.tobytes() and w_one.tobytes() == w_default.tobytes()


@needs_openblas
def test_two_threads_with_one_threaded_sessions_get_the_serial_values():
    one = tf.ConfigProto(intra_op_parallelism_threads=1)
    before = two_workers.blas_threads()
    expected = []
    for _ in range(2):
        sess, train, loss, feed = _mlp_step(one)
        expected.append([sess.run([train, loss], feed)[1] for _ in range(20)])
    got = [None, None]

    def train_in_thread(k):
        sess, train, loss, feed = _mlp_step(one)
        got[k] = [sess.run([train, loss], feed)[1] for _ in range(20)]
    run_in_threads(train_in_thread, 2)
    assert got == expected
    assert two_workers.blas_threads() == before
