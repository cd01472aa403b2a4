"""Session.run from several threads at once: TensorFlow documents it thread-safe.

Eight threads run a shuffled mix of steps of one Session — an MLP's loss and gradients, a
CNN's forward pass, a CNN's gradients through every fused path of the plan (patches
shared with the filter gradient, one channel and many, the Fourier-domain layer with and
without its input gradient, bias and relu written with the convolution, the relu's
gradient with its pool's gradient), while-loop gradients (a matrix product in the body,
a convolution in the body, a loop and a cond in a loop's body) — each with several
feeds. Every result must equal, bit
for bit, the one the same Session gave for the same step run alone (the same kernels on
the same values: nothing but a shared work array can make them differ). Then a training
loop beside threads that read the same layers: the weights it reaches are those of the
same training run alone. And two runs really overlap (no lock around a whole run).

Before run_state.py these failed: threads read each other's patch matrices, transforms
and loop histories (wrong values, or a false InvalidArgumentError from WhileGrad).
"""
import functools
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.framework.registry import get_op_def
from tfteach.kernels.cpu import conv_fourier, two_workers
from tfteach.kernels.cpu.conv_geometry import ConvParams
from tfteach.runtime import fusion

THREADS = 8
ROUNDS = 4           # each step and feed this many times per test, shuffled
FEEDS = 2            # different values per step, so a value read from another run shows


@pytest.fixture(autouse=True)
def two_workers_even_on_one_core(monkeypatch):
    """The big kernels split over the worker thread (their halves must see their own
    run's work arrays), even where the machine gives this process one core."""
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)


@pytest.fixture(autouse=True)
def one_blas_thread_throughout(one_blas_thread):
    """OpenBLAS's thread count is one number for the process, and a run makes it 1
    while another thread's run is in progress (docs/engine.md, "Threads"); for some
    shapes its one- and two-thread products round differently. Pinned to one thread
    here (conftest.py), every run computes alone what it computes beside others."""
    yield


def _rng(seed):
    return np.random.RandomState(seed)


# -- the programs: (fetches, [feed_dict, ...]) ---------------------------------------------------
def _mlp():
    rng = _rng(1)
    x = tf.placeholder(tf.float32, [None, 20])
    y = tf.placeholder(tf.float32, [None, 4])
    w1 = tf.Variable(rng.randn(20, 32).astype(np.float32) * 0.3)
    b1 = tf.Variable(np.zeros(32, np.float32))
    w2 = tf.Variable(rng.randn(32, 4).astype(np.float32) * 0.3)
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    fetches = [loss] + tf.gradients(loss, [w1, b1, w2])
    feeds = [{x: rng.rand(16, 20).astype(np.float32),
              y: np.eye(4, dtype=np.float32)[rng.randint(0, 4, 16)]} for _ in range(FEEDS)]
    return fetches, feeds


def _cnn_forward():
    """relu(conv) then a pool: im2col into the op's work array, over the two workers."""
    rng = _rng(2)
    x = tf.placeholder(tf.float32, [None, 14, 14, 8])
    f = tf.constant(rng.randn(5, 5, 8, 16).astype(np.float32) * 0.1)
    out = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")),
                         [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    feeds = [{x: rng.rand(8, 14, 14, 8).astype(np.float32)} for _ in range(FEEDS)]
    return [out], feeds


FOURIER_BATCH = 24    # with 14x14 images, 5x5 filters, 32 -> 32 channels: pays (asserted)


def _cnn_gradients():
    """LeNet-like: conv(1 -> 32) + b, relu, pool; conv(32 -> 32) + b, relu, pool (the
    Fourier layer, its input gradient joined); conv 3x3 (32 -> 16, im2col, many
    channels, its input gradient through the work array); a dense layer."""
    rng = _rng(3)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.float32, [None, 10])
    w1 = tf.Variable(rng.randn(5, 5, 1, 32).astype(np.float32) * 0.2)
    b1 = tf.Variable(rng.rand(32).astype(np.float32) * 0.1)
    w2 = tf.Variable(rng.randn(5, 5, 32, 32).astype(np.float32) * 0.05)
    b2 = tf.Variable(rng.rand(32).astype(np.float32) * 0.1)
    w3 = tf.Variable(rng.randn(3, 3, 32, 16).astype(np.float32) * 0.05)
    w4 = tf.Variable(rng.randn(7 * 7 * 16, 10).astype(np.float32) * 0.05)
    pool = functools.partial(tf.nn.max_pool, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                             padding="SAME")
    h = pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1))
    h = pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"), b2)))
    h = tf.nn.relu(tf.nn.conv2d(h, w3, [1, 1, 1, 1], "SAME"))
    logits = tf.matmul(tf.reshape(h, [-1, 7 * 7 * 16]), w4)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    fetches = [loss] + tf.gradients(loss, [w1, b1, w2, b2, w3, w4])
    feeds = [{x: rng.rand(FOURIER_BATCH, 28, 28, 1).astype(np.float32),
              y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, FOURIER_BATCH)]}
             for _ in range(FEEDS)]
    return fetches, feeds


def _fourier_layer_alone():
    """A Fourier layer whose input is fed: no input gradient to share transforms with."""
    rng = _rng(4)
    x = tf.placeholder(tf.float32, [None, 14, 14, 32])
    w = tf.Variable(rng.randn(5, 5, 32, 32).astype(np.float32) * 0.05)
    out = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    weights = tf.constant(rng.randn(FOURIER_BATCH, 14, 14, 32).astype(np.float32))
    grad, = tf.gradients(tf.reduce_sum(out * weights), [w])
    feeds = [{x: rng.rand(FOURIER_BATCH, 14, 14, 32).astype(np.float32)}
             for _ in range(FEEDS)]
    return [grad], feeds


def _after_the_loop(h_final, rng):
    """A loss that takes a while to compute after the loop (a wide product): another
    thread's run of the loop then falls between this run's loop and its gradient."""
    flat = tf.reshape(h_final, [h_final.shape[0].value, -1])
    v = tf.Variable(rng.randn(flat.shape[1].value, 4096).astype(np.float32) * 0.1)
    return tf.reduce_sum(tf.tanh(tf.matmul(flat, v)))


def _rnn_gradients():
    """A while loop with a product in its body: WhileGrad replays this run's history
    and multiplies the weight's products of all iterations as one."""
    rng = _rng(5)
    h0 = tf.placeholder(tf.float32, [32, 64])
    w = tf.Variable(rng.randn(64, 64).astype(np.float32) * 0.1)

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(h, w))
    _, h_final = tf.while_loop(lambda i, h: i < 3, body, [0, h0])
    fetches = [h_final] + tf.gradients(_after_the_loop(h_final, rng), [w, h0])
    feeds = [{h0: rng.randn(32, 64).astype(np.float32)} for _ in range(FEEDS)]
    return fetches, feeds


def _conv_loop_gradients():
    """A convolution inside a loop's body: its sub-plans' work arrays are the run's."""
    rng = _rng(6)
    h0 = tf.placeholder(tf.float32, [4, 8, 8, 8])
    f = tf.Variable(rng.randn(3, 3, 8, 8).astype(np.float32) * 0.2)

    def body(i, h):
        return i + 1, tf.nn.relu(tf.nn.conv2d(h, f, [1, 1, 1, 1], "SAME"))
    _, h_final = tf.while_loop(lambda i, h: i < 3, body, [0, h0])
    fetches = [h_final] + tf.gradients(_after_the_loop(h_final, rng), [f, h0])
    feeds = [{h0: rng.rand(4, 8, 8, 8).astype(np.float32)} for _ in range(FEEDS)]
    return fetches, feeds


def _nested_loop_gradients():
    """A loop (and a tf.cond) in a loop's body: the inner loop's history of each outer
    iteration is recorded in the run and handed to its gradient (LoopHistory)."""
    rng = _rng(8)
    x = tf.placeholder(tf.float32, [16, 32])
    w = tf.Variable(rng.randn(32, 32).astype(np.float32) * 0.2)

    def outer(i, s):
        def inner(j, z):
            z = tf.cond((i + j) % 2 < 1, lambda: tf.tanh(tf.matmul(z, w)),
                        lambda: tf.sin(z) + x)
            return j + 1, z
        return i + 1, tf.while_loop(lambda j, z: j < i + 1, inner, [0, s])[1]
    s_final = tf.while_loop(lambda i, s: i < 3, outer, [0, x])[1]
    fetches = [s_final] + tf.gradients(_after_the_loop(s_final, rng), [w, x])
    feeds = [{x: rng.randn(16, 32).astype(np.float32)} for _ in range(FEEDS)]
    return fetches, feeds


PROGRAMS = [_mlp, _cnn_forward, _cnn_gradients, _fourier_layer_alone, _rnn_gradients,
            _conv_loop_gradients, _nested_loop_gradients]


def _fused_paths(sess):
    """What the fast loops of the session's plans fuse, by name."""
    found = set()
    for plan in sess._plans.values():
        for step in plan.fast_steps:
            kernel = step.kernel
            keywords = getattr(kernel, "keywords", {})
            if keywords.get("shared") is not None:
                found.add("shared patches")
            spectra = keywords.get("spectra")
            if spectra is not None:
                found.add("spectra with input gradient" if spectra.with_input_gradient
                          else "spectra alone")
            if getattr(kernel, "func", None) is fusion._conv_bias_relu:
                found.add("conv bias relu")
            if keywords.get("relu_of_input"):
                found.add("relu into pool gradient")
    return found


def _run_all_threaded(sess, tasks):
    """Runs every (fetches, feed) of `tasks` on THREADS threads at once; their results
    in the same order."""
    start = threading.Barrier(THREADS)

    def first_wait(_):
        start.wait(timeout=60)      # every thread started before the first run
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(first_wait, range(THREADS)))
        return list(pool.map(lambda task: sess.run(*task), tasks))


def _assert_same(got, want, label):
    for g, w in zip(got, want):
        assert np.array_equal(g, w), "%s: a threaded result differs from the serial one " \
            "(largest difference %g)" % (label, np.max(np.abs(np.subtract(g, w))))


def test_the_layers_take_every_fused_path():
    """Guards the test below: its CNN plans really take the paths it means to cover."""
    p = ConvParams.from_attrs({"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1],
                               "padding": "SAME", "data_format": "NHWC"})
    rows, cols = p.output_geometry(14, 14, 5, 5)
    assert conv_fourier.pays(p, FOURIER_BATCH, 14, 14, 32, 5, 5, 32, rows, cols)
    with tf.Graph().as_default():
        programs = [_cnn_gradients(), _fourier_layer_alone()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for fetches, feeds in programs:
                sess.run(fetches, feeds[0])
            assert _fused_paths(sess) == {"shared patches", "spectra with input gradient",
                                          "spectra alone", "conv bias relu",
                                          "relu into pool gradient"}


def _serial_runs(sess, programs):
    """([(label, (fetches, feed))], [its result run alone]) for every feed of every
    program, run one after another: what the threads must reproduce."""
    tasks, serial = [], []
    for name, (fetches, feeds) in programs:
        for i, feed in enumerate(feeds):
            tasks.append(("%s, feed %d" % (name, i), (fetches, feed)))
            serial.append(sess.run(fetches, feed))
    return tasks, serial


def test_eight_threads_of_mixed_steps_give_the_serial_results():
    with tf.Graph().as_default():
        programs = [(make.__name__, make()) for make in PROGRAMS]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tasks, serial = _serial_runs(sess, programs)
            # Each program's feeds give different results: a value taken from another
            # run of the same step would show.
            for k in range(0, len(serial), FEEDS):
                assert not np.array_equal(serial[k][0], serial[k + 1][0])
            order = [k for _ in range(ROUNDS) for k in range(len(tasks))]
            for attempt in range(3):
                random.Random(attempt).shuffle(order)
                results = _run_all_threaded(sess, [tasks[k][1] for k in order])
                for k, got in zip(order, results):
                    _assert_same(got, serial[k], tasks[k][0])
            # And once more alone: the threads left nothing behind that changes a run.
            for (label, task), want in zip(tasks, serial):
                _assert_same(sess.run(*task), want, label + ", after the threads")


def test_threads_on_a_virtual_gpu_give_the_serial_results_and_its_memory_figures(
        virtual_gpus):
    """On a GPU every value a step makes is accounted on the device's allocator while
    it lives: threads at once must leave the same figures (nothing lost or counted
    twice), and the same values, as runs one after another."""
    virtual_gpus(1, memory_limit=2048)
    # Threads switch every microsecond (not 5 ms): a count updated by two at once
    # without the allocator's lock then loses updates within a few runs.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _gpu_threads()
    finally:
        sys.setswitchinterval(switch)


def _gpu_threads():
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            programs = [(make.__name__, make()) for make in (_mlp, _cnn_gradients,
                                                              _rnn_gradients)]
            net = _training_program()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tasks, serial = _serial_runs(sess, programs)
            sess.run(net["train"], net["batches"][0])   # its plan's constants: held
            in_use = tf.config.memory_stats("/gpu:0")["bytes_in_use"]
            assert in_use > 0               # the variables and constants, on the device
            order = [k for _ in range(ROUNDS) for k in range(len(tasks))]
            # training steps among them: their variables are replaced on the device
            steps = [(net["train"], batch) for batch in net["batches"]]
            for attempt in range(4):
                random.Random(attempt).shuffle(order)
                results = _run_all_threaded(sess, [tasks[k][1] for k in order] + steps)
                for k, got in zip(order, results):
                    _assert_same(got, serial[k], tasks[k][0])
                assert tf.config.memory_stats("/gpu:0")["bytes_in_use"] == in_use


def _training_program():
    """A small LeNet-like classifier and its GradientDescent step (the weight updates
    take the GEMM-fused path; the convolutions pair their patches)."""
    rng = _rng(7)
    x = tf.placeholder(tf.float32, [None, 14, 14, 4])
    y = tf.placeholder(tf.float32, [None, 5])
    w1 = tf.Variable(rng.randn(5, 5, 4, 16).astype(np.float32) * 0.1, name="w1")
    b1 = tf.Variable(np.zeros(16, np.float32), name="b1")
    w2 = tf.Variable(rng.randn(7 * 7 * 16, 5).astype(np.float32) * 0.05, name="w2")
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1),
                       [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    logits = tf.matmul(tf.reshape(h, [-1, 7 * 7 * 16]), w2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    batches = [{x: rng.rand(16, 14, 14, 4).astype(np.float32),
                y: np.eye(5, dtype=np.float32)[rng.randint(0, 5, 16)]} for _ in range(4)]
    return dict(train=train, loss=loss, weights=[w1, b1, w2], batches=batches, x=x, y=y)


STEPS = 30


def _train(sess, net):
    for step in range(STEPS):
        sess.run(net["train"], net["batches"][step % len(net["batches"])])
    return sess.run(net["weights"])


def test_a_training_loop_beside_reading_threads_reaches_the_serial_weights():
    """The readers run the same layers (another plan of the same ops) and the loss: the
    trainer's steps must not see their work arrays, so its weights end where training
    alone ends. (What a reader sees of weights being updated is TF's race as well:
    GradientDescent does not lock by default; only its own values are checked.)"""
    with tf.Graph().as_default():
        net = _training_program()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            alone = _train(sess, net)
            sess.run(tf.global_variables_initializer())
            done = threading.Event()
            read_losses, failures = [], []
            probe = {net["x"]: np.ones((16, 14, 14, 4), np.float32) * 0.5,
                     net["y"]: net["batches"][0][net["y"]]}

            def reader():
                try:
                    while not done.is_set():
                        read_losses.append(sess.run(net["loss"], probe))
                except Exception as e:  # noqa: BLE001 - reported below
                    failures.append(e)
            readers = [threading.Thread(target=reader) for _ in range(3)]
            for r in readers:
                r.start()
            try:
                beside = _train(sess, net)
            finally:
                done.set()
                for r in readers:
                    r.join(60)
            assert not failures, failures
            assert read_losses and all(np.isfinite(v) for v in read_losses)
            for got, want in zip(beside, alone):
                assert np.array_equal(got, want)


def test_two_runs_of_one_session_overlap(monkeypatch):
    """A run held inside a kernel does not stop another thread's run of the same
    Session: there is no lock around a whole run."""
    entered, released = threading.Event(), threading.Event()
    op_def = get_op_def("Sqrt")
    sqrt = op_def.kernels["CPU"]

    def waiting_sqrt(ctx, x):
        entered.set()
        assert released.wait(30), "the other run never finished"
        return sqrt(ctx, x)
    monkeypatch.setitem(op_def.kernels, "CPU", waiting_sqrt)
    with tf.Graph().as_default():
        # Both plans have a convolution: each run takes a RunState from the same pool.
        a = tf.placeholder(tf.float32, [1, 1, 1, 3])
        conv = tf.nn.conv2d(a, tf.ones([1, 1, 3, 3]) / 3, [1, 1, 1, 1], "VALID")
        held, other = tf.sqrt(conv), tf.square(conv)
        with tf.Session() as sess:
            results = {}
            first = threading.Thread(target=lambda: results.setdefault(
                "held", sess.run(held, {a: [[[[4., 4., 4.]]]]})))
            first.start()
            assert entered.wait(30)
            second = threading.Thread(target=lambda: results.setdefault(
                "other", sess.run(other, {a: [[[[1., 2., 3.]]]]})))
            second.start()
            second.join(30)
            overlapped = not second.is_alive()
            released.set()
            first.join(30)
            second.join(30)
            assert overlapped, "the second run waited for the first to finish"
            np.testing.assert_allclose(results["other"], np.full((1, 1, 1, 3), 4.),
                                       rtol=1e-6)
            np.testing.assert_allclose(results["held"], np.full((1, 1, 1, 3), 2.), rtol=1e-6)
