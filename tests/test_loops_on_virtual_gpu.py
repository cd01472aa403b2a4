"""while_loop / dynamic_rnn on a virtual GPU (the course kernel's /gpu:0).

A loop's sub-plans keep their fed and fetched tensors on the device that makes them
(executor.Plan(on_device=True)), as a TensorFlow loop's tensors stay in the frame's
device memory: no copy to the client and back every iteration. And they are specialised
on their fed shapes (loop_specialise.py) with their memory still accounted.
"""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import counted_allocations, virtual_gpus  # noqa: F401 (fixture)
from test_loop_specialise import CELLS, _loop_plans, train_both_ways


def _tanh_loop(n, iterations=4):
    """h <- tanh(h @ w), `iterations` times, w an n x n variable; (x, h, session)."""
    x = tf.placeholder(tf.float32, [None, n])
    w = tf.Variable(tf.fill([n, n], 1e-3))

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(h, w))
    _, h = tf.while_loop(lambda i, h: i < iterations, body, [tf.constant(0), x])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return x, h, sess


def _numpy_tanh_loop(x, n, iterations=4):
    w = np.full((n, n), 1e-3, np.float32)
    for _ in range(iterations):
        x = np.tanh(x @ w)
    return x


def test_a_weight_over_half_the_memory_is_not_copied_every_iteration(virtual_gpus):
    # A 256 MiB card keeps 31 MiB for tensors (TF's MinSystemMemory): the 16 MiB weight
    # fits once, not twice. A copy of it into the loop each iteration ran out of memory;
    # TensorFlow's loop reads the variable where it lives.
    virtual_gpus(1, memory_limit=256)
    with tf.Graph().as_default():
        x, h, sess = _tanh_loop(2048)
        stats = tf.config.memory_stats()
        assert stats["bytes_limit"] < 2 * 2048 * 2048 * 4
        before = stats["bytes_in_use"]
        fed = np.random.RandomState(0).rand(2, 2048).astype(np.float32)
        out = sess.run(h, {x: fed})
        np.testing.assert_allclose(out, _numpy_tanh_loop(fed, 2048), rtol=1e-5, atol=1e-6)
        stats = tf.config.memory_stats()
        assert stats["bytes_in_use"] == before              # nothing left behind
        # the loop's temporaries were accounted while they lived
        assert stats["peak_bytes_in_use"] > before


def test_an_oom_inside_a_loop_body_is_tensorflows_and_leaves_the_session_usable(
        virtual_gpus):
    virtual_gpus(1, memory_limit=256)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8])

        def body(i, h):
            big = tf.tile(h, [1, 1 << 20])                   # 2 x 8M floats: 64 MiB
            return i + 1, h + tf.reduce_sum(big) * 0.0
        _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
        ok = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, h * 2.0),
                           [tf.constant(0), x])[1]
        sess = tf.Session()
        in_use = []
        for _ in range(2):
            with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating "
                               "tensor with shape\\[2,8388608\\] and type float"):
                sess.run(h, {x: np.ones((2, 8), np.float32)})
            in_use.append(tf.config.memory_stats()["bytes_in_use"])
        assert in_use[0] == in_use[1]                        # nothing kept from the runs
        # What stays is the body's constants, held for the session as TF holds them.
        live = tf.config.memory_stats()["live_buffers"]
        graph = tf.get_default_graph()
        assert live and all(graph.get_operation_by_name(b["op"]).type == "Const"
                            for b in live)
        np.testing.assert_array_equal(sess.run(ok, {x: np.ones((2, 8), np.float32)}),
                                      np.full((2, 8), 8.0, np.float32))


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_rnn_training_on_a_virtual_gpu_is_specialised_and_bit_identical(
        virtual_gpus, monkeypatch, cell):
    virtual_gpus(1, memory_limit=2048)
    sess, graph = train_both_ways(monkeypatch, CELLS[cell])
    assert all(p.plan.accounted for p in _loop_plans(sess, graph))   # really on the GPU
    # no copies between the client and the GPU inside the loops
    for p in _loop_plans(sess, graph):
        assert not [s.name for s in p.plan.steps if s.source is not None]
    assert tf.config.memory_stats()["bytes_in_use"] == sum(
        buf["bytes"] for buf in tf.config.memory_stats()["live_buffers"])


def test_a_loop_on_a_virtual_gpu_gives_the_cpus_numbers(virtual_gpus):
    fed = np.random.RandomState(1).rand(3, 64).astype(np.float32)
    with tf.Graph().as_default():
        x, h, sess = _tanh_loop(64)
        on_cpu = sess.run(h, {x: fed})
    virtual_gpus(1, memory_limit=2048)
    with tf.Graph().as_default():
        x, h, sess = _tanh_loop(64)
        for _ in range(4):                    # the plain runs, then the specialised ones
            np.testing.assert_array_equal(sess.run(h, {x: fed}), on_cpu)
    np.testing.assert_allclose(on_cpu, _numpy_tanh_loop(fed, 64), rtol=1e-5, atol=1e-6)


def _embedded_two_layer_training():
    """5 steps of an LSTM under a GRU over embedded inputs (the gradient sums a loop
    makes: weights' products and the gather of each time step's input, plus an
    embedding's IndexedSlices outside it). Returns (losses, weights, memory figures,
    the (op, bytes) of every tensor the GPU's allocator charged)."""
    with counted_allocations() as allocations:
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            rng = np.random.RandomState(0)
            x = tf.placeholder(tf.float32, [None, 5, 3])
            ids = tf.placeholder(tf.int32, [None, 5])
            y = tf.placeholder(tf.float32, [None, 2])
            embedding = tf.Variable(tf.random_normal([7, 3]))
            inputs = x + tf.nn.embedding_lookup(embedding, ids)
            cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(24),
                                                 tf.nn.rnn_cell.GRUCell(16)])
            outputs, _ = tf.nn.dynamic_rnn(cells, inputs, dtype=tf.float32)
            loss = tf.reduce_mean(tf.square(tf.layers.dense(outputs[:, -1], 2) - y))
            train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                feed = {x: rng.randn(4, 5, 3).astype(np.float32),
                        ids: rng.randint(0, 7, (4, 5)),
                        y: rng.randn(4, 2).astype(np.float32)}
                losses = [sess.run([loss, train], feed)[0] for _ in range(5)]
                weights = sess.run(tf.trainable_variables())
                stats = tf.config.memory_stats()
    return losses, weights, stats, allocations


def test_a_loops_summed_gradients_are_charged_as_the_tensors_they_stand_for(
        virtual_gpus, monkeypatch):
    # WhileGrad multiplies a weight's per-iteration products as one GEMM and adds only
    # the gathered rows of the input's gradient (runtime/loop_sums.py) on a virtual GPU
    # too: each stand-in is charged as the tensor TF's GPU graph makes, so the figures
    # are those of the loop run tensor by tensor.
    from collections import Counter
    from tfteach.runtime import fusion
    virtual_gpus(1, memory_limit=1024)
    deferred = Counter()
    plain_defer = fusion.defer_summed_products

    def counting_defer(steps, *args):
        fused = plain_defer(steps, *args)
        deferred["steps"] += sum(a is not b for a, b in zip(fused, steps))
        return fused
    monkeypatch.setattr(fusion, "defer_summed_products", counting_defer)
    losses, weights, stats, summed = _embedded_two_layer_training()
    # the LSTM's product, the GRU's two and the input's gather: deferred
    assert deferred["steps"] >= 4
    assert any("while_grad" in op for op, _ in summed)      # the loops ran on the GPU
    virtual_gpus(1, memory_limit=1024)           # a fresh allocator
    monkeypatch.setattr(fusion, "defer_summed_products", lambda steps, *args: steps)
    plain_losses, plain_weights, plain_stats, by_tensor = _embedded_two_layer_training()
    assert summed == by_tensor                   # every tensor, its op and size
    for figure in ("peak_bytes_in_use", "num_allocs", "largest_alloc_size",
                   "bytes_in_use"):
        assert stats[figure] == plain_stats[figure], figure
    np.testing.assert_allclose(losses, plain_losses, rtol=1e-5)
    for a, b in zip(weights, plain_weights):     # one GEMM's rounding, not 5 sums'
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
