"""Several real GPUs: each op's kernels run, and its outputs are allocated, on its card.

Numba's simulator has one card, so the test gives the process two 'cuda' devices,
GPU:0 and GPU:1, both backed by the simulator's card, and replaces
`kernels/cuda/cards.card` (the `with cuda.gpus[i]:` context) by a spy that records which
card is current. What this cannot check: that Numba really switches contexts between two
physical cards, and the speed of card-to-card copies (docs/devices.md).
"""
import numpy as np
import pytest
from numba import cuda

import tfteach as tf
from test_cuda_runtime import GPU0, cuda_kernels, launch  # noqa: F401
from tfteach.kernels.cuda import cards
from tfteach.runtime import allocator as allocator_lib
from tfteach.runtime import devices

GPU1 = GPU0[:-1] + "1"


@pytest.fixture
def two_cuda_gpus(monkeypatch):
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    cuda_kernels.register_gpu_kernels()
    cpu = devices.Device("CPU", 0, "cpu", devices.CPU_MEMORY_LIMIT, "")
    gpus = []
    for i in range(2):
        alloc = allocator_lib.Allocator(devices.full_name("GPU", i), "GPU_%d_bfc" % i,
                                        1 << 30, virtual=False)
        gpus.append(devices.Device("GPU", i, "cuda", 1 << 30, "device: %d, name: CUDA "
                                   "simulator" % i, alloc))
    devices._registry = [cpu] + gpus
    current = []                 # the card made current by cards.card, innermost last
    entered = []

    class Card:
        def __init__(self, index):
            self.index = index

        def __enter__(self):
            entered.append(self.index)
            current.append(self.index)
            return cuda.gpus[0].__enter__()           # the simulator's only card

        def __exit__(self, *exc):
            current.pop()
            return cuda.gpus[0].__exit__(*exc)
    monkeypatch.setattr(cards, "card", Card)
    allocated_on = []
    empty = launch.empty

    def recording_empty(shape, dtype):
        allocated_on.append(current[-1] if current else 0)
        return empty(shape, dtype)
    monkeypatch.setattr(launch, "empty", recording_empty)
    yield gpus, entered, allocated_on
    devices._registry = None


def test_an_op_on_gpu1_runs_and_allocates_on_card_1(two_cuda_gpus):
    gpus, entered, allocated_on = two_cuda_gpus
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 2), np.float32)
    x = tf.placeholder(tf.float32, [2, 3])
    one, weights = tf.constant(1.0), tf.constant(b)    # (Const has no GPU kernel yet)
    with tf.device("/gpu:0"):
        y0 = tf.nn.relu(x - one)
    with tf.device("/gpu:1"):
        y1 = tf.matmul(y0, weights)
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        got = sess.run(y1, {x: a}, options=options, run_metadata=metadata)
        on_gpu0 = sess._kernel_context(y0.op).kernel
        on_gpu1 = sess._kernel_context(y1.op).kernel
    np.testing.assert_allclose(got, np.maximum(a - 1.0, 0) @ b)
    assert not hasattr(on_gpu0, "__wrapped__")        # GPU:0: the kernel itself
    assert on_gpu1.__wrapped__ is not None            # GPU:1: wrapped once, at plan time
    # Sub and Relu ran with no card switch (GPU 0), MatMul allocated its output on card 1
    assert allocated_on == [0, 0, 1]                  # Sub, Relu; MatMul
    assert 1 in entered and 0 not in entered
    steps = {n.node_name: n for n in metadata.step_stats.all_nodes()}
    assert steps["MatMul"].device == GPU1
    assert steps["Relu/_copy_to_GPU:1"].device == GPU1       # card 0 -> card 1
    assert steps["Relu/_copy_to_GPU:1"].op == "MEMCPYDtoD"
    assert gpus[1].allocator.stats()["peak_bytes_in_use"] > 0
    assert gpus[0].allocator.bytes_in_use == gpus[1].allocator.bytes_in_use == 0


def test_the_copy_movers_enter_the_right_cards(two_cuda_gpus):
    from tfteach.kernels.cuda import copies
    _, entered, _ = two_cuda_gpus
    host = np.arange(3, dtype=np.float32)
    on1 = copies.mover(None, 1, False, True)(host)           # HtoD to card 1
    assert entered == [1] and launch.is_device_array(on1)
    on0 = copies.mover(1, 0, True, True)(on1)                # DtoD, card 1 -> card 0
    assert entered == [1, 1]                                 # card 0: no switch needed
    back = copies.mover(1, None, True, False)(on0)           # DtoH from card 1
    assert entered == [1, 1, 1]
    np.testing.assert_array_equal(back, host)
    assert copies.mover(None, 0, False, True) is copies.to_device   # GPU:0: plain copies


def test_a_variable_on_gpu1_lives_and_trains_on_card_1(two_cuda_gpus):
    gpus, entered, _ = two_cuda_gpus
    initial = tf.constant(np.ones(3, np.float32))
    with tf.device("/gpu:1"):
        v = tf.Variable(initial, name="v")
    # The update goes where its variable is (colocation): on GPU:1 too.
    step = tf.train.GradientDescentOptimizer(0.5).apply_gradients(
        [(tf.constant(np.full(3, 2.0, np.float32)), v)])
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(step, options=options, run_metadata=metadata)
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0, 0.0])
        # v, and the three constants only GPU:1 ops use (its initial value, the gradient,
        # the learning rate: a constant goes where its only consumer goes), 256 B each.
        held = {b.op_name for b in gpus[1].allocator.live.values()}
        assert held == {"v", "Const", "Const_1", "GradientDescent/learning_rate"}, held
        assert gpus[1].allocator.bytes_in_use == 4 * 256
        assert gpus[0].allocator.bytes_in_use == 0
    assert 1 in entered and 0 not in entered
    ran = {n.node_name: n.device for n in metadata.step_stats.all_nodes()}
    assert ran["GradientDescent/update_v/ApplyGradientDescent"] == GPU1
