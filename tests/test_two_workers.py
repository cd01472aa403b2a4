"""The two-worker split of big kernels and the process-wide BLAS thread window.

Checked against NumPy computing the same thing in one call, and against OpenBLAS's own
thread count (read through its C API). The regression behind this file: restoring the
count per thread after a batch-split convolution left the whole process with one BLAS
thread for good, so every later `np.dot` — the student's own NumPy too — ran at half speed.
"""
import threading

import numpy as np
import pytest

import tfteach as tf
from tfteach.framework.registry import get_op_def
from tfteach.kernels.cpu import pooling_kernels, two_workers
from tfteach.kernels.cpu import nn_kernels
from tolerances import assert_close


@pytest.fixture
def two_blas_threads():
    """OpenBLAS with 2 threads for the test (skips where NumPy's BLAS is not OpenBLAS)."""
    blas = two_workers._find_blas()
    if blas is None:
        pytest.skip("NumPy's BLAS is not OpenBLAS: tfteach leaves its threads alone")
    before = blas[0]()
    blas[1](2)
    if blas[0]() != 2:
        blas[1](before)
        pytest.skip("this OpenBLAS cannot run 2 threads here")
    yield 2
    blas[1](before)


@pytest.fixture
def split_always(monkeypatch):
    """Two workers even on a one-core machine, so the split code paths really run."""
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)


def _lenet_like(batch=8):
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 14, 14, 8])
    w = tf.Variable(rng.randn(5, 5, 8, 16).astype(np.float32) * 0.1)
    b = tf.Variable(np.full(16, 0.1, np.float32))
    h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(h * h)
    train = tf.train.GradientDescentOptimizer(1e-4).minimize(loss)
    feed = {x: rng.rand(batch, 14, 14, 8).astype(np.float32)}
    return train, loss, [w, b], feed


def test_conv_training_leaves_blas_thread_count_as_it_was(two_blas_threads, split_always):
    train, _, _, feed = _lenet_like()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(30):            # the old per-thread restore lost the count here
            sess.run(train, feed)
    assert two_workers.blas_threads() == two_blas_threads


def test_eager_style_kernel_calls_restore_the_count_too(two_blas_threads, split_always):
    seen = []

    def half(lo, hi):
        seen.append(two_workers.blas_threads())
    for _ in range(30):
        two_workers.over_batch(half, 8, 10 ** 9)
    assert seen and set(seen) == {1}          # each half: one BLAS thread
    assert two_workers.blas_threads() == two_blas_threads


@pytest.mark.parametrize("slow_half", [0, 1])
def test_count_restored_whichever_half_finishes_last(two_blas_threads, split_always,
                                                     slow_half):
    import time

    def half(lo, hi):
        if (lo > 0) == bool(slow_half):
            time.sleep(0.02)
    for _ in range(3):
        two_workers.over_batch(half, 8, 10 ** 9)
    assert two_workers.blas_threads() == two_blas_threads


def test_both_halves_run_on_different_threads_inside_one_window(two_blas_threads, split_always):
    where = {}

    def half(lo, hi):
        where[lo] = (threading.get_ident(), two_workers.in_blas_window(),
                     two_workers.blas_threads())
    two_workers.over_batch(half, 10, 10 ** 9)
    assert sorted(where) == [0, 5]
    assert where[0][0] != where[5][0]
    assert all(inside and threads == 1 for _, inside, threads in where.values())
    assert not two_workers.in_blas_window()


def test_window_is_reentrant_and_closes_on_errors(two_blas_threads):
    with pytest.raises(RuntimeError):
        with two_workers.blas_window():
            with two_workers.blas_window():
                assert two_workers.blas_threads() == 1
            assert two_workers.blas_threads() == 1     # the outer one still holds it
            raise RuntimeError("a kernel failed")
    assert not two_workers.in_blas_window()
    assert two_workers.blas_threads() == two_blas_threads


def test_a_run_beside_another_keeps_blas_one_threaded_and_does_not_split(
        two_blas_threads, monkeypatch):
    """Two session threads: OpenBLAS's threads would take the cores the other run
    computes on, so a step without convolutions runs with one BLAS thread while another
    run is in progress (alone, with OpenBLAS's own); it does not split its own kernels
    for that (its sums stay in the order they have alone)."""
    seen = []
    inside, release = threading.Event(), threading.Event()
    relu_def, sqrt_def = get_op_def("Relu"), get_op_def("Sqrt")
    relu, sqrt = relu_def.kernels["CPU"], sqrt_def.kernels["CPU"]

    def recording_relu(ctx, x):
        seen.append((two_workers.blas_threads(), two_workers.in_blas_window()))
        return relu(ctx, x)

    def holding_sqrt(ctx, x):       # keeps its run in progress until released
        inside.set()
        assert release.wait(30)
        return sqrt(ctx, x)
    monkeypatch.setitem(relu_def.kernels, "CPU", recording_relu)
    monkeypatch.setitem(sqrt_def.kernels, "CPU", holding_sqrt)
    x = tf.placeholder(tf.float32, [None, 6])
    mlp = tf.nn.relu(tf.matmul(x, tf.ones([6, 3])))
    held = tf.sqrt(x)
    feed = {x: np.ones((2, 6))}
    with tf.Session() as sess:
        sess.run(mlp, feed)                                  # alone
        other = threading.Thread(target=sess.run, args=(held, feed))
        other.start()
        assert inside.wait(30)
        sess.run(mlp, feed)                                  # beside the held run
        release.set()
        other.join(30)
        sess.run(mlp, feed)                                  # alone again
    assert seen == [(two_blas_threads, False), (1, False), (two_blas_threads, False)]
    assert two_workers.blas_threads() == two_blas_threads


def _record_window(monkeypatch, op_type):
    """Wraps op_type's CPU kernel to record whether each call ran inside a window."""
    op_def = get_op_def(op_type)
    kernel, calls = op_def.kernels["CPU"], []

    def recording(ctx, *args):
        calls.append(two_workers.in_blas_window())
        return kernel(ctx, *args)
    monkeypatch.setitem(op_def.kernels, "CPU", recording)
    return calls


def test_only_steps_with_convolutions_run_in_the_window(monkeypatch):
    calls = _record_window(monkeypatch, "Relu")
    x = tf.placeholder(tf.float32, [None, 6])
    mlp = tf.nn.relu(tf.matmul(x, tf.ones([6, 3])))
    img = tf.placeholder(tf.float32, [None, 4, 4, 1])
    cnn = tf.nn.relu(tf.nn.conv2d(img, tf.ones([3, 3, 1, 2]), [1, 1, 1, 1], "SAME"))
    with tf.Session() as sess:
        sess.run(mlp, {x: np.ones((2, 6))})
        assert calls == [False]                  # an MLP keeps OpenBLAS's own threads
        sess.run(cnn, {img: np.ones((2, 4, 4, 1))})
        assert calls == [False, True]
    assert not two_workers.in_blas_window()


def test_split_matmul_equals_one_product(split_always):
    rng = np.random.RandomState(1)
    cases = [(rng.rand(300, 200), rng.rand(200, 100)),       # tall: split rows
             (rng.rand(50, 400), rng.rand(400, 600)),        # wide: split columns
             (rng.rand(400, 50).T, rng.rand(400, 300)),      # transposed views
             (rng.rand(50, 400), rng.rand(600, 400).T)]
    for a, b in cases:
        a, b = a.astype(np.float32), b.astype(np.float32)
        with two_workers.blas_window():
            got = two_workers.split_matmul(a, b)
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=2e-5)
        assert got.dtype == np.float32 and got.shape == (a.shape[0], b.shape[1])


def test_split_ufunc_gives_the_same_bits_as_one_call(split_always, monkeypatch):
    rng = np.random.RandomState(2)
    x = (rng.randn(40, 30, 30, 8) * 3).astype(np.float32)
    x[0, 0, 0, :3] = [np.nan, -0.0, np.inf]
    bias = rng.randn(8).astype(np.float32)
    halves = []
    real_two_halves = two_workers._two_halves
    monkeypatch.setattr(two_workers, "_two_halves",
                        lambda fn, size: halves.append(size) or real_two_halves(fn, size))
    g = rng.randn(*x.shape).astype(np.float32)
    g[0, 0, 0, :2] = [np.nan, -1.0]
    with two_workers.blas_window(), np.errstate(invalid="ignore"):
        added = two_workers.split_ufunc(np.add, (x, bias))
        scaled = two_workers.split_ufunc(np.multiply, (np.float32(2), x))
        weak = two_workers.split_ufunc(np.add, (x, 2.5))     # a Python scalar stays weak
        wide = two_workers.split_ufunc(np.add, (x, np.float64(2.5)))
        activated = nn_kernels.relu(x)            # nogil loops, not the Numba ufunc
        passed = nn_kernels.relu_grad(g, x)
    assert halves == [40] * 4 + [x.size] * 2      # all six really split
    assert weak.dtype == np.float32 and wide.dtype == np.add(x, np.float64(2.5)).dtype
    np.testing.assert_array_equal(weak, x + 2.5)
    np.testing.assert_array_equal(wide, x + np.float64(2.5))
    np.testing.assert_array_equal(added, x + bias)
    np.testing.assert_array_equal(scaled, 2 * x)
    assert added.dtype == scaled.dtype == activated.dtype == passed.dtype == np.float32
    with np.errstate(invalid="ignore"):           # the same bits as the whole ufunc
        np.testing.assert_array_equal(activated, nn_kernels._relu_ufunc(x))
        np.testing.assert_array_equal(passed, nn_kernels._relu_grad_ufunc(g, x))
    assert np.signbit(activated[0, 0, 0, 1])      # relu(-0.0) stays -0.0
    assert np.isnan(passed[0, 0, 0, 0])           # NaN gradient where x is NaN: g * 0
    np.testing.assert_array_equal(activated, np.where(x < 0, 0, x))
    np.testing.assert_array_equal(passed, np.where(x > 0, g, g * 0))
    with two_workers.blas_window(), pytest.raises(ValueError):
        two_workers.split_ufunc(np.add, (x, np.ones(7, np.float32)))


def test_incompatible_shapes_in_a_conv_step_are_tf_errors(split_always):
    img = tf.placeholder(tf.float32, [None, 8, 8, 1])
    extra = tf.placeholder(tf.float32)
    out = tf.nn.conv2d(img, tf.ones([3, 3, 1, 4]), [1, 1, 1, 1], "SAME") + extra
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
            sess.run(out, {img: np.ones((64, 8, 8, 1)), extra: np.ones(5)})


def test_sum_over_the_batch_in_halves(split_always):
    x = np.random.RandomState(3).rand(64, 32, 32, 4).astype(np.float32)
    kernel = get_op_def("Sum").kernels["CPU"]

    class Ctx:
        op = None
        attrs = {"keep_dims": False}
    with two_workers.blas_window():
        by_channel = kernel(Ctx, x, np.array([0, 1, 2]))
        everything = kernel(Ctx, x, np.array([0, 1, 2, 3]))
        Ctx.attrs = {"keep_dims": True}
        kept = kernel(Ctx, x, np.array([0, 1]))
    np.testing.assert_allclose(by_channel, x.astype(np.float64).sum(axis=(0, 1, 2)), rtol=1e-5)
    assert by_channel.dtype == np.float32 and by_channel.shape == (4,)
    np.testing.assert_allclose(everything, x.astype(np.float64).sum(), rtol=1e-5)
    assert np.ndim(everything) == 0
    assert kept.shape == (1, 1, 32, 4)


def test_max_pool_and_its_gradient_in_halves(split_always):
    rng = np.random.RandomState(4)
    x = rng.rand(32, 28, 28, 16).astype(np.float32)
    args = ([1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    whole = pooling_kernels.max_pool(x, *args)
    grad = rng.rand(*whole.shape).astype(np.float32)
    whole_dx = pooling_kernels.max_pool_grad(x, whole, grad, *args)
    with two_workers.blas_window():
        halves = pooling_kernels.max_pool(x, *args)
        halves_dx = pooling_kernels.max_pool_grad(x, halves, grad, *args)
    np.testing.assert_array_equal(halves, whole)
    np.testing.assert_array_equal(halves_dx, whole_dx)
    np.testing.assert_array_equal(whole, x.reshape(32, 14, 2, 14, 2, 16).max(axis=(2, 4)))


def test_training_with_and_without_splitting_agrees(monkeypatch, split_always):
    def train_once():
        tf.reset_default_graph()
        train, loss, params, feed = _lenet_like(batch=16)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, feed)
            return sess.run([loss] + params, feed)
    monkeypatch.setattr(two_workers, "MIN_SPLIT_ELEMENTS", 1024)   # every kernel splits
    split = train_once()
    monkeypatch.setattr(two_workers, "MIN_PARALLEL_WORK", 1 << 62)
    monkeypatch.setattr(two_workers, "MIN_SPLIT_ELEMENTS", 1 << 62)
    whole = train_once()
    for a, b in zip(split, whole):
        assert_close(a, b, rtol=1e-4)


def test_a_half_that_splits_again_does_not_wait_for_itself(split_always):
    seen = []

    def inner(lo, hi):
        seen.append((lo, hi))

    def outer(lo, hi):            # the worker's half splits again: must run it inline
        two_workers.over_batch(inner, 8, 10 ** 9)
    runner = threading.Thread(target=two_workers.over_batch, args=(outer, 8, 10 ** 9),
                              daemon=True)
    runner.start()
    runner.join(30)
    assert not runner.is_alive(), "the worker waited for itself (deadlock)"
    assert sorted(seen) == [(0, 4), (0, 4), (4, 8), (4, 8)]
    assert not two_workers.in_blas_window()


def _split_in_child(queue):
    out = []
    two_workers.over_batch(lambda lo, hi: out.append((lo, hi)), 8, 10 ** 9)
    queue.put(sorted(out))


def test_a_forked_child_gets_its_own_worker(split_always):
    import multiprocessing
    two_workers.over_batch(lambda lo, hi: None, 8, 10 ** 9)      # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_split_in_child, args=(queue,))
    child.start()
    child.join(30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung on the parent's worker pool")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == [(0, 4), (4, 8)]


# -- OpenBLAS's thread count within the process's CPU quota (fit_blas_to_cpus) -----------------
@pytest.mark.parametrize("usable, start, expected", [
    (1.0, 2, 1),       # a 1-CPU quota: one thread
    (1.2, 2, 1),
    (1.5, 2, 2),       # 1.5 CPUs: two, as worker_count
    (2.0, 2, 2),       # no quota below the affinity: unchanged
    (4.0, 2, 2),       # never raised
    (1.0, 1, 1),       # OPENBLAS_NUM_THREADS=1 kept
])
def test_the_first_session_caps_blas_at_the_usable_cpus(monkeypatch, two_blas_threads,
                                                        usable, start, expected):
    blas = two_workers._find_blas()
    blas[1](start)
    monkeypatch.setattr(two_workers, "usable_cpus", lambda: usable)
    monkeypatch.setattr(two_workers, "_FITTED", False)
    tf.Session(graph=tf.Graph())
    assert two_workers.blas_threads() == expected
    blas[1](start)                  # only the first Session of a process fits it
    tf.Session(graph=tf.Graph())
    assert two_workers.blas_threads() == start


def test_a_cap_while_a_step_holds_the_window_applies_when_it_closes(monkeypatch,
                                                                     two_blas_threads):
    monkeypatch.setattr(two_workers, "usable_cpus", lambda: 1.0)
    monkeypatch.setattr(two_workers, "_FITTED", False)
    with two_workers.blas_window():
        assert two_workers.blas_threads() == 1
        two_workers.fit_blas_to_cpus()
        assert two_workers.blas_threads() == 1
    assert two_workers.blas_threads() == 1     # the window put back the capped count


def test_eager_execution_caps_blas_too(monkeypatch, two_blas_threads):
    """Eager ops make no Session: turning eager execution on fits the count instead."""
    from tfteach.eager import context
    from tfteach.framework import eager_mode
    monkeypatch.setattr(two_workers, "usable_cpus", lambda: 1.0)
    monkeypatch.setattr(two_workers, "_FITTED", False)
    saved = eager_mode.STATE.enabled
    try:
        context.eager_mode_on()
        assert two_workers.blas_threads() == 1
    finally:
        eager_mode.STATE.enabled = saved
