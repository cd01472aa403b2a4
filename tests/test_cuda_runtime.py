"""The runtime's real-GPU path, run on Numba's CUDA simulator.

No real GPU is needed to check the dispatch: the test gives the process a device of
kind 'cuda' (what runtime/devices.py makes for a real card) whose memory is the
simulator's. Sessions then place ops on it by TensorFlow's rules (an op needs a
registered "GPU" kernel), copy values with real host<->device copies, run the CUDA
kernels on device arrays and account those arrays on the GPU's allocator. Everything
is compared with the same graph run on the CPU alone.
"""
import numpy as np
import pytest
from numba.core import config as numba_config

import tfteach as tf
from tfteach.framework.registry import get_op_def
from tfteach.runtime import allocator as allocator_lib
from tfteach.runtime import devices

pytestmark = pytest.mark.skipif(not numba_config.ENABLE_CUDASIM,
                                reason="needs NUMBA_ENABLE_CUDASIM=1 before numba is "
                                "imported (tests/conftest.py sets it)")

cuda_kernels = pytest.importorskip("tfteach.kernels.cuda", reason="numba-cuda is missing")
table = pytest.importorskip("tfteach.kernels.cuda.table")
launch = pytest.importorskip("tfteach.kernels.cuda.launch")

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"

# What the lessons' MLP and CNN run (forward, backward), besides variables and feeds.
LESSON_OPS = ["MatMul", "BiasAdd", "BiasAddGrad", "Relu", "ReluGrad", "Sigmoid",
              "SigmoidGrad", "Tanh", "TanhGrad", "Softmax", "SoftmaxCrossEntropyWithLogits",
              "Add", "AddV2", "Sub", "Mul", "RealDiv", "Sum", "Mean", "Max", "Conv2D",
              "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad",
              "AvgPool", "AvgPoolGrad", "RandomUniform", "RandomStandardNormal",
              "TruncatedNormal", "Cast"]


@pytest.fixture
def simulated_cuda_gpu(monkeypatch):
    """The process gets one 'cuda' GPU (memory: the simulator's), with its kernels."""
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    cuda_kernels.register_gpu_kernels()
    cpu = devices.Device("CPU", 0, "cpu", devices.CPU_MEMORY_LIMIT, "")
    alloc = allocator_lib.Allocator(GPU0, "GPU_0_bfc", 1 << 30, virtual=False)
    gpu = devices.Device("GPU", 0, "cuda", 1 << 30, "device: 0, name: CUDA simulator, "
                         "pci bus id: 0000:00:00.0, compute capability: 5.2", alloc)
    devices._registry = [cpu, gpu]
    yield gpu
    devices._registry = None


def test_the_lesson_ops_have_registered_gpu_kernels():
    cuda_kernels.register_gpu_kernels()
    cuda_kernels.register_gpu_kernels()            # a second call changes nothing
    for op_type in LESSON_OPS:
        kernel = get_op_def(op_type).kernels["GPU"]
        assert kernel.gpu_fn is table.GPU_KERNELS[op_type], op_type
    assert "GPU" not in get_op_def("ArgMax").kernels      # not written: stays on the CPU
    from numba.cuda.core import config
    assert not config.CUDA_LOW_OCCUPANCY_WARNINGS         # no warning at each small launch


def test_a_failure_to_load_the_kernels_is_a_warning_not_a_crash(monkeypatch):
    def broken():
        raise ImportError("no libnvvm")
    monkeypatch.setattr(cuda_kernels, "register_gpu_kernels", broken)
    with pytest.warns(RuntimeWarning, match="CUDA kernels could not be loaded.*no libnvvm"):
        devices._register_cuda_kernels()


def _mlp_step():
    """A small MLP's loss and gradients, with fixed weights (constants)."""
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    w1 = tf.constant(rng.randn(4, 5).astype(np.float32), name="w1")
    b1 = tf.constant(rng.randn(5).astype(np.float32), name="b1")
    w2 = tf.constant(rng.randn(5, 3).astype(np.float32), name="w2")
    hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    logits = tf.matmul(hidden, w2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y,
                                                                      logits=logits))
    grads = tf.gradients(loss, [w1, b1, w2])
    feed = {x: rng.randn(6, 4).astype(np.float32),
            y: np.eye(3, dtype=np.float32)[rng.randint(0, 3, 6)]}
    return [loss] + grads, feed


def test_an_mlp_step_on_the_cuda_device_matches_the_cpu(simulated_cuda_gpu):
    fetches, feed = _mlp_step()
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        expected = sess.run(fetches, feed)
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        got = sess.run(fetches, feed, options=options, run_metadata=metadata)
    for g, e in zip(got, expected):
        assert isinstance(g, (np.ndarray, np.generic))      # fetches come back to the host
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    ran = {n.node_name: (n.node_name, n.device) for n in metadata.step_stats.all_nodes()}
    assert ran["MatMul"][1] == GPU0 and ran["Relu"][1] == GPU0
    assert ran["x/_copy_to_GPU:0"][1] == GPU0                 # fed on the host, copied
    kinds = {n.node_name: n for n in metadata.step_stats.all_nodes()}
    assert any(name.endswith("/_copy_to_CPU:0") for name in kinds)


def test_a_real_gpu_plan_is_left_as_built_and_says_so(simulated_cuda_gpu):
    # The graph optimizer rewrites plans whose values are host arrays (the CPU, virtual
    # GPUs); on a real card it leaves the plan as built, and rewrites_of says why.
    from tfteach.runtime.optimizer import NOT_OPTIMIZED, rewrites_of
    fetches, feed = _mlp_step()
    with tf.Session() as sess:
        sess.run(fetches, feed)
        done = rewrites_of(sess, fetches, list(feed))
    assert [r.pass_name for r in done] == [NOT_OPTIMIZED]
    assert done[0].result.startswith("not optimized: its ops are placed on a real GPU")


def test_a_cnn_step_on_the_cuda_device_matches_the_cpu(simulated_cuda_gpu):
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [None, 4, 4, 1])
    labels = tf.placeholder(tf.int32, [None])
    f = tf.constant(rng.randn(2, 2, 1, 2).astype(np.float32))
    b = tf.constant(rng.randn(2).astype(np.float32))
    w = tf.constant(rng.randn(8, 3).astype(np.float32))
    conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b))
    pooled = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    logits = tf.matmul(tf.reshape(pooled, [-1, 8]), w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    fetches = [loss] + tf.gradients(loss, [f, b, w])
    feed = {x: rng.randn(2, 4, 4, 1).astype(np.float32), labels: np.array([2, 0], np.int32)}
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        expected = sess.run(fetches, feed)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        got = sess.run(fetches, feed, run_metadata=metadata,
                       options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    on_gpu = {n.op for n in metadata.step_stats.all_nodes() if n.device == GPU0}
    assert {"Conv2D", "BiasAdd", "MaxPool", "Reshape", "MatMul",
            "SparseSoftmaxCrossEntropyWithLogits", "MaxPoolGrad", "Conv2DBackpropFilter",
            "BiasAddGrad"} <= on_gpu
    assert simulated_cuda_gpu.allocator.bytes_in_use == 0


def test_gpu_values_are_device_arrays_accounted_then_freed(simulated_cuda_gpu, monkeypatch):
    x = tf.placeholder(tf.float32, [2, 3])
    w = tf.constant(np.ones((3, 2), np.float32))
    y = tf.reduce_sum(tf.nn.relu(tf.reshape(tf.matmul(x, w), [4])))
    alloc = simulated_cuda_gpu.allocator
    charged = {}
    charge = alloc.charge

    def recording_charge(value, op_name):
        buf = charge(value, op_name)
        charged[op_name] = (value, buf)
        return buf
    monkeypatch.setattr(alloc, "charge", recording_charge)
    with tf.Session() as sess:
        out = sess.run(y, {x: np.full((2, 3), 2.0, np.float32)})
    assert out == 24.0
    for name, nbytes in (("Placeholder/_copy_to_GPU:0", 24), ("MatMul", 16), ("Relu", 16),
                         ("Sum", 4)):
        value, buf = charged[name]
        assert launch.is_device_array(value), name         # real device memory
        assert buf.requested == nbytes, name
    # Reshape's result is a view of MatMul's memory: one buffer, not two
    assert charged["Reshape"][1] is charged["MatMul"][1]
    assert launch.is_device_array(charged["Reshape"][0]) and charged["Reshape"][0].shape == (4,)
    stats = alloc.stats()
    assert stats["peak_bytes_in_use"] >= 3 * 256      # rounded to 256 bytes, as BFC
    assert stats["bytes_in_use"] == 0                 # all freed when the run ended


def test_ops_without_a_gpu_kernel_stay_on_the_cpu_with_copies(simulated_cuda_gpu):
    x = tf.placeholder(tf.float32, [2, 3])
    scores = tf.nn.softmax(x * 2.0)
    best = tf.argmax(scores, axis=1)                 # no GPU kernel: placed on the CPU
    value = np.array([[1.0, 3.0, 2.0], [0.0, -1.0, 5.0]], np.float32)
    with tf.Session() as sess:
        got, devices_of = _devices_of(sess, best, {x: value})
    np.testing.assert_array_equal(got, [1, 2])
    assert devices_of["Softmax"] == GPU0
    assert devices_of["ArgMax"].endswith("CPU:0")
    assert "Softmax/_copy_to_CPU:0" in devices_of


def test_kernel_errors_on_the_gpu_name_the_node_and_the_session_survives(simulated_cuda_gpu):
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    total = tf.add(a, b, name="total")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Incompatible shapes: \[2\] vs. \[3\](.|\n)*node total"):
            sess.run(total, {a: np.ones(2), b: np.ones(3)})
        np.testing.assert_array_equal(sess.run(total, {a: [1.0], b: [2.0]}), [3.0])
    assert simulated_cuda_gpu.allocator.bytes_in_use == 0     # nothing leaked by the error


def _devices_of(sess, fetch, feed):
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    value = sess.run(fetch, feed, options=options, run_metadata=metadata)
    return value, {n.node_name: n.device for n in metadata.step_stats.all_nodes()}


def test_ops_of_dtypes_the_cuda_kernels_lack_run_on_the_cpu(simulated_cuda_gpu):
    # TF registers GPU kernels per dtype and places an op where one exists for its
    # dtypes; the CUDA kernels here are float32/float64 (Cast: and ints, bool), so a
    # uint8 image cast to float, an int64 sum and a float16 exp run on the CPU.
    image = tf.placeholder(tf.uint8, [2, 3], name="image")
    scaled = tf.cast(image, tf.float32, name="scaled") * 0.5
    back = tf.cast(scaled, tf.uint8, name="back")
    counts = tf.reduce_sum(tf.cast(image, tf.int64), name="count")
    half = tf.exp(tf.placeholder(tf.float16, name="h"), name="half_exp")
    pixels = np.array([[0, 7, 255], [1, 2, 3]], np.uint8)
    halves = np.array([0.5, -1.0], np.float16)
    with tf.Session() as sess:
        (s, b, c, h), where = _devices_of(sess, [scaled, back, counts, half],
                                          {image: pixels, "h:0": halves})
    np.testing.assert_array_equal(s, pixels.astype(np.float32) * 0.5)
    np.testing.assert_array_equal(b, (pixels.astype(np.float32) * 0.5).astype(np.uint8))
    assert c.dtype == np.int64 and c == int(pixels.astype(np.int64).sum())
    assert h.dtype == np.float16 and np.array_equal(h, np.exp(halves))
    for name in ("scaled", "back", "count", "half_exp"):
        assert where[name].endswith("CPU:0"), (name, where[name])
    assert where["mul"] == GPU0                   # the float32 product is the card's
    assert simulated_cuda_gpu.allocator.bytes_in_use == 0


def test_an_explicit_gpu_request_for_a_dtype_without_a_kernel_fails_as_in_tensorflow(
        simulated_cuda_gpu):
    with tf.device("/gpu:0"):
        half = tf.exp(tf.placeholder(tf.float16, name="h"), name="half_exp")
    feed = {"h:0": np.ones(2, np.float16)}
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Cannot assign a device for operation half_exp: Could not "
                           r"satisfy explicit device specification '/device:GPU:0' because "
                           r"no supported kernel for GPU devices is available"):
            sess.run(half, feed)
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        value, where = _devices_of(sess, half, feed)
    assert where["half_exp"].endswith("CPU:0")
    np.testing.assert_array_equal(value, np.exp(np.ones(2, np.float16)))


def test_virtual_gpus_still_run_the_cpu_kernels(virtual_gpus_and_cuda_kernels):
    x = tf.placeholder(tf.float32, [2])
    y = tf.exp(x)
    with tf.Session() as sess:
        out = sess.run(y, {x: np.zeros(2, np.float32)})
        ctx = sess._kernel_context(y.op)
    np.testing.assert_array_equal(out, [1.0, 1.0])
    assert ctx.device == GPU0
    cpu_kernel = get_op_def("Exp").kernels["CPU"].kernel_for_op(y.op)
    assert ctx.kernel is cpu_kernel                   # the CPU kernel, not the CUDA one


@pytest.fixture
def virtual_gpus_and_cuda_kernels(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cuda_kernels.register_gpu_kernels()
    devices._registry = None
    tf.config.set_virtual_gpus(1, memory_limit=1024)
    yield
    devices._registry = None


def test_releasing_a_real_gpu_frees_numbas_pending_deallocations(simulated_cuda_gpu,
                                                                  monkeypatch):
    from numba import cuda
    cleared = []
    context = type("Context", (), {})()
    context.deallocations = type("Pending", (), {"clear": lambda self: cleared.append(1)})()
    monkeypatch.setattr(cuda, "current_context", lambda: context)
    simulated_cuda_gpu.allocator.release()
    assert cleared == [1]
    devices_virtual = allocator_lib.Allocator("virtual", "GPU_0_bfc", 1 << 30, virtual=True)
    devices_virtual.release()                       # a virtual GPU has no driver to call
    assert cleared == [1]
