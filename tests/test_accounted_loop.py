"""The GPU plans' accounted loop as straight-line code (runtime/accounted_loop.py).

Every program here runs on a virtual GPU twice, in fresh allocators: once with the
compiled loop (after its first runs) and once walked step by step by
device_run.run_accounted (COMPILE_AFTER_RUNS made unreachable). The values, the errors
and the memory figures must be the same; the compiled loop must really have run.
"""
import threading
import types

import numpy as np
import pytest

import tfteach as tf
from device_helpers import both_ways, compiled_runs, virtual_gpus  # noqa: F401 (fixtures)
from device_helpers import bits as _bits
from tfteach.runtime import accounted_loop

def _mlp():
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 20])
    y = tf.placeholder(tf.int64, [None])
    hidden = tf.layers.dense(x, 32, activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 5)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    mean, variance = tf.nn.moments(hidden, axes=[0])
    first, _ = tf.split(logits, [2, 3], axis=1)         # an output nobody reads
    predicted = tf.argmax(logits, 1)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    runs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: rng.randn(16, 20).astype(np.float32), y: rng.randint(0, 5, 16)}
        for _ in range(6):
            runs.append(_bits(sess.run([loss, mean, variance, first, predicted, train],
                                       feed)[:-1]))
    return runs


def _lstm():
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [None, 6, 3])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(8),
                                        tf.nn.rnn_cell.GRUCell(5)])
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs[:, -1]))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    runs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: rng.randn(4, 6, 3).astype(np.float32)}
        for _ in range(5):
            runs.append(_bits(sess.run([loss, outputs, train], feed)[:-1]))
    return runs


@pytest.mark.parametrize("program", [_mlp, _lstm], ids=["mlp", "lstm"])
def test_compiled_runs_give_the_same_values_and_memory_figures(
        virtual_gpus, monkeypatch, compiled_runs, program):
    compiled, walked = both_ways(virtual_gpus, monkeypatch, program)
    assert compiled_runs["runs"] > 0
    assert compiled[0] == walked[0]
    assert compiled[1] == walked[1]


def test_an_error_in_a_compiled_run_names_its_op_and_frees_everything(
        virtual_gpus, monkeypatch, compiled_runs):
    def program():
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None, None])
        product = tf.matmul(tf.tanh(a) * 2.0, b, name="product")
        errors = []
        with tf.Session() as sess:
            ok = {a: np.ones((2, 3), np.float32), b: np.ones((3, 4), np.float32)}
            for _ in range(4):
                sess.run(product, ok)
            before = tf.config.memory_stats()["bytes_in_use"]
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(product, {a: np.ones((2, 3), np.float32),
                                   b: np.ones((2, 4), np.float32)})
            errors.append((str(info.value).splitlines()[0], info.value.op.name))
            assert tf.config.memory_stats()["bytes_in_use"] == before
            errors.append(_bits([sess.run(product, ok)]))      # still usable
        return errors
    compiled, walked = both_ways(virtual_gpus, monkeypatch, program)
    assert compiled_runs["runs"] > 0
    assert compiled == walked
    assert compiled[0][0] == ("Matrix size-incompatible: In[0]: [2,3], In[1]: [2,4]",
                              "product")


def test_an_oom_in_a_compiled_run_is_tensorflows_with_its_report(
        virtual_gpus, monkeypatch, compiled_runs):
    def program():
        x = tf.placeholder(tf.float32, [None, 1000])
        y = tf.matmul(tf.nn.relu(x), tf.ones([1000, 1000]), name="MatMul")
        config = tf.ConfigProto(gpu_options=tf.GPUOptions(
            per_process_gpu_memory_fraction=0.012))          # ~12.9 MB of 1 GiB
        out = []
        with tf.Session(config=config) as sess:
            small = np.ones((10, 1000), np.float32)
            for _ in range(4):
                sess.run(y, {x: small})
            before = tf.config.memory_stats()["bytes_in_use"]
            with pytest.raises(tf.errors.ResourceExhaustedError) as info:
                sess.run(y, {x: np.ones((2000, 1000), np.float32)},
                         options=tf.RunOptions(report_tensor_allocations_upon_oom=True))
            out.append((str(info.value), info.value.op.name))
            assert tf.config.memory_stats()["bytes_in_use"] == before
            out.append(_bits([sess.run(y, {x: small})]))
        return out
    compiled, walked = both_ways(virtual_gpus, monkeypatch, program)
    assert compiled_runs["runs"] > 0
    assert compiled == walked
    text, op = compiled[0][0]
    assert text.startswith("OOM when allocating tensor with shape[2000,1000] and type float")
    assert "Current usage from device" in text


def test_threads_running_one_compiled_plan(virtual_gpus, compiled_runs):
    virtual_gpus(1, memory_limit=1024)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 50])
        w = tf.Variable(tf.random_normal([50, 50], seed=1))
        y = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * 3.0 + 1.0, axis=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            weights = sess.run(w)
            sess.run(y, {x: np.zeros((8, 50), np.float32)})  # its constants: on the GPU
            idle = tf.config.memory_stats()["bytes_in_use"]
            failures = []

            def work(seed):
                feed = np.random.RandomState(seed).randn(8, 50).astype(np.float32)
                expected = (np.tanh(feed @ weights) * 3.0 + 1.0).sum(axis=1)
                for _ in range(30):
                    got = sess.run(y, {x: feed})
                    if not np.allclose(got, expected, rtol=1e-5, atol=1e-4):
                        failures.append(seed)
            threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert failures == []
            assert tf.config.memory_stats()["bytes_in_use"] == idle
    assert compiled_runs["runs"] > 0


def test_a_slot_written_twice_is_left_to_the_walk():
    class Step:
        def __init__(self, outs):
            self.out_slots, self.single_out = outs, outs[0]
            self.in_slots, self.frees, self.alloc = (), (), None
            self.kernel, self.ctx, self.name = (lambda ctx: 1.0), None, "s"
            self.op = types.SimpleNamespace(_op_def=types.SimpleNamespace(
                stateful=False, ref_inputs=()))
    assert accounted_loop.compile_accounted([Step((1,)), Step((1,))], swallow=9) is None
    assert accounted_loop.compile_accounted([Step((9,)), Step((9,))], swallow=9) is not None


def test_a_run_waiting_in_a_queue_does_not_hold_the_gpus_accounting(
        virtual_gpus, compiled_runs):
    # The consumer's compiled loop charges `tanh(a)` on the GPU, then waits in the
    # dequeue until the producer's run, which charges on the same GPU, enqueues: the
    # consumer must not hold the allocator's lock (a lock segment) while it waits.
    virtual_gpus(1, memory_limit=256)
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [4])
        queue = tf.FIFOQueue(10, tf.float32, shapes=[[4]])
        before = tf.tanh(a) * 2.0
        out = before + queue.dequeue()
        x = tf.placeholder(tf.float32, [4])
        enqueue = queue.enqueue([tf.exp(x) * 3.0])
        with tf.Session() as sess:
            ones = np.ones(4, np.float32)
            for _ in range(4):                         # compiled by now, both plans
                sess.run(enqueue, {x: ones})
                sess.run(out, {a: ones})
            got = []
            consumer = threading.Thread(target=lambda: got.append(sess.run(out, {a: ones})),
                                        daemon=True)
            consumer.start()
            consumer.join(0.3)                          # waiting in the dequeue
            producer = threading.Thread(target=lambda: sess.run(enqueue, {x: ones}),
                                        daemon=True)
            producer.start()
            producer.join(30)
            consumer.join(30)
            assert not producer.is_alive() and not consumer.is_alive()
            np.testing.assert_allclose(got[0], np.tanh(1.0) * 2 + np.exp(1.0) * 3, rtol=1e-6)
    assert compiled_runs["runs"] >= 4
