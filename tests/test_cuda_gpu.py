"""The CUDA kernels at full size on a real NVIDIA GPU (pytest marker `gpu`).

The test process runs with Numba's CUDA simulator on (conftest.py), and the simulator
cannot share a process with the real driver. So `test_real_gpu_suite` looks for a GPU
from a child process and, when there is one, runs this module again in a child with
the simulator off; there the other tests run on the card. Without a GPU everything is
skipped, saying why. On a GPU machine, to run only these:

    NUMBA_ENABLE_CUDASIM=0 python -m pytest -m gpu tests/test_cuda_gpu.py

Sizes are the lessons' (MNIST batches, LeNet-5 layers); values are compared with the
CPU kernels and NumPy, as the simulator tests do on tiny shapes.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from numba.core import config as numba_config

import tfteach as tf
from tolerances import assert_close

pytestmark = pytest.mark.gpu
pytest.importorskip("numba_cuda", reason="numba-cuda is not installed")

_CHILD = "TFTEACH_CUDA_GPU_CHILD"
_PROBE = "from numba import cuda; print(cuda.is_available() and len(cuda.gpus) > 0)"


def _real_gpu_here():
    if numba_config.ENABLE_CUDASIM:
        return False
    from numba import cuda
    return cuda.is_available()


on_gpu = pytest.mark.skipif(not _real_gpu_here(), reason=(
    "needs a real CUDA GPU with the simulator off: test_real_gpu_suite runs these in a "
    "child process when a GPU is present" if numba_config.ENABLE_CUDASIM else
    "no CUDA GPU: numba.cuda.is_available() is False"))


@pytest.mark.skipif(os.environ.get(_CHILD) == "1", reason="already the child process")
def test_real_gpu_suite():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", **{_CHILD: "1"})
    probe = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                           text=True, timeout=120)
    if probe.stdout.strip() != "True":
        pytest.skip("no CUDA GPU: numba.cuda.is_available() is False (%s)"
                    % (probe.stderr.strip().splitlines() or ["no driver"])[-1][:200])
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-m", "gpu", os.path.abspath(__file__)], env=env,
                          capture_output=True, text=True, timeout=1800,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    summary = proc.stdout.strip().splitlines()[-1]       # e.g. "6 passed, 1 skipped in 9s"
    assert re.search(r"\b12 passed", summary) and "failed" not in summary, summary


# -- run in the child, on the card -------------------------------------------------------------------
def _kernels():
    from tfteach.kernels.cuda import testing
    return testing.run_gpu, testing.run_cpu


def _op(op_type):
    return next(o for o in tf.get_default_graph().get_operations() if o.type == op_type)


@on_gpu
def test_matmul_and_elementwise_at_full_size():
    run_gpu, run_cpu = _kernels()
    rng = np.random.RandomState(0)
    for ta, tb in ((False, False), (True, True)):
        a, b = rng.randn(500, 784).astype(np.float32), rng.randn(784, 300).astype(np.float32)
        a_in, b_in = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
        op = tf.matmul(tf.placeholder(tf.float32, [None, None]),
                       tf.placeholder(tf.float32, [None, None]), transpose_a=ta,
                       transpose_b=tb).op
        np.testing.assert_allclose(run_gpu(op, a_in, b_in), a.astype(np.float64) @ b,
                                   rtol=1e-4, atol=1e-3)
    x, bias = rng.randn(256, 1024).astype(np.float32), rng.randn(1024).astype(np.float32)
    for fn in (tf.add, tf.multiply, tf.maximum, tf.squared_difference):
        op = fn(tf.placeholder(tf.float32), tf.placeholder(tf.float32)).op
        assert_close(run_gpu(op, x, bias), run_cpu(op, x, bias), rtol=1e-6)
    for fn in (tf.exp, tf.tanh, tf.sigmoid, tf.nn.relu, tf.log, tf.sqrt):
        op = fn(tf.placeholder(tf.float32)).op
        np.testing.assert_allclose(run_gpu(op, np.abs(x)), run_cpu(op, np.abs(x)),
                                   rtol=2e-6, atol=1e-7)


@on_gpu
def test_reductions_softmax_and_cross_entropy_at_full_size():
    run_gpu, run_cpu = _kernels()
    rng = np.random.RandomState(1)
    x = rng.randn(64, 128, 32).astype(np.float32)
    for fn in (tf.reduce_sum, tf.reduce_mean, tf.reduce_max):
        for axis in ([0, 2], [0, 1, 2]):
            op = fn(tf.placeholder(tf.float32, x.shape), axis=axis).op
            np.testing.assert_allclose(run_gpu(op, x, np.array(axis, np.int32)),
                                       run_cpu(op, x, np.array(axis, np.int32)),
                                       rtol=1e-5, atol=1e-4)
    logits = (rng.randn(512, 1000) * 10).astype(np.float32)
    labels = rng.dirichlet(np.ones(1000), 512).astype(np.float32)
    op = tf.nn.softmax(tf.placeholder(tf.float32, logits.shape)).op
    np.testing.assert_allclose(run_gpu(op, logits), run_cpu(op, logits), rtol=1e-5,
                               atol=1e-7)
    tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.placeholder(tf.float32, labels.shape),
        logits=tf.placeholder(tf.float32, logits.shape))
    op = _op("SoftmaxCrossEntropyWithLogits")
    for gpu, cpu in zip(run_gpu(op, logits, labels), run_cpu(op, logits, labels)):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


@on_gpu
@pytest.mark.parametrize("padding, stride", [("SAME", 1), ("VALID", 2)])
def test_lenet_sized_convolution_and_pooling(padding, stride):
    run_gpu, run_cpu = _kernels()
    rng = np.random.RandomState(2)
    x = rng.randn(64, 28, 28, 6).astype(np.float32)
    f = rng.randn(5, 5, 6, 16).astype(np.float32)
    xp, fp = tf.placeholder(tf.float32, x.shape), tf.placeholder(tf.float32, f.shape)
    y = tf.nn.conv2d(xp, fp, strides=[1, stride, stride, 1], padding=padding)
    out = run_gpu(y.op, x, f)
    np.testing.assert_allclose(out, run_cpu(y.op, x, f), rtol=1e-4, atol=1e-3)
    dy = rng.randn(*out.shape).astype(np.float32)
    tf.gradients(y, [xp, fp], tf.placeholder(tf.float32, out.shape))
    for op_type, args in (("Conv2DBackpropInput", (np.array(x.shape, np.int32), f, dy)),
                          ("Conv2DBackpropFilter", (x, np.array(f.shape, np.int32), dy))):
        np.testing.assert_allclose(run_gpu(_op(op_type), *args), run_cpu(_op(op_type), *args),
                                   rtol=1e-4, atol=1e-2)
    for pool, grad_type in ((tf.nn.max_pool, "MaxPoolGrad"), (tf.nn.avg_pool, "AvgPoolGrad")):
        tf.reset_default_graph()
        xp = tf.placeholder(tf.float32, out.shape)
        p = pool(xp, [1, 2, 2, 1], [1, 2, 2, 1], padding)
        pooled = run_gpu(p.op, out)
        np.testing.assert_allclose(pooled, run_cpu(p.op, out), rtol=1e-6, atol=1e-6)
        g = rng.randn(*pooled.shape).astype(np.float32)
        tf.gradients(p, [xp], tf.placeholder(tf.float32, pooled.shape))
        args = ((out, pooled, g) if grad_type == "MaxPoolGrad"
                else (np.array(out.shape, np.int32), g))
        np.testing.assert_allclose(run_gpu(_op(grad_type), *args),
                                   run_cpu(_op(grad_type), *args), rtol=1e-6, atol=1e-6)


@on_gpu
def test_random_numbers_at_full_size():
    run_gpu, _ = _kernels()
    tf.random_uniform([1 << 20], seed=1)
    uniform = run_gpu(_op("RandomUniform"), np.array([1 << 20], np.int32)).astype(np.float64)
    assert abs(uniform.mean() - 0.5) < 0.002 and abs(uniform.var() - 1 / 12) < 0.001
    tf.truncated_normal([1 << 20], seed=1)
    normal = run_gpu(_op("TruncatedNormal"), np.array([1 << 20], np.int32)).astype(np.float64)
    assert np.abs(normal).max() <= 2.0 and abs(normal.std() - 0.8796) < 0.005


@on_gpu
def test_a_training_step_on_the_gpu_matches_the_cpu():
    from tfteach.runtime import devices
    devices._registry = None                   # the real card, found by the registry
    try:
        gpus = [d for d in devices.local_devices() if d.device_type == "GPU"]
        assert gpus and gpus[0].kind == "cuda"
        rng = np.random.RandomState(3)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        w = tf.constant(rng.randn(784, 10).astype(np.float32) * 0.01)
        b = tf.constant(np.zeros(10, np.float32))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=y, logits=tf.nn.bias_add(tf.matmul(x, w), b)))
        fetches = [loss] + tf.gradients(loss, [w, b])
        feed = {x: rng.rand(100, 784).astype(np.float32),
                y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 100)]}
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
            expected = sess.run(fetches, feed)
        with tf.Session() as sess:
            got = sess.run(fetches, feed)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-6)
        stats = gpus[0].allocator.stats()
        assert stats["peak_bytes_in_use"] > 100 * 784 * 4 and stats["bytes_in_use"] == 0
    finally:
        devices._registry = None


# -- variables, optimizers and a CNN training step on the card ---------------------------------------
_OPTIMIZERS = {
    "GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "Adam": lambda: tf.train.AdamOptimizer(0.01),
    "RMSProp": lambda: tf.train.RMSPropOptimizer(0.01),      # a host-fallback update
}


def _lenet_sized_training(config, make_optimizer, steps=3):
    """A LeNet-5-like net at the lessons' size (batch 50, MNIST-shaped input), trained
    a few steps; its losses and final variables."""
    tf.reset_default_graph()
    rng = np.random.RandomState(4)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.float32, [None, 10])
    shapes = [(5, 5, 1, 8), (8,), (5, 5, 8, 16), (16,), (7 * 7 * 16, 64), (64,), (64, 10)]
    params = [tf.Variable((rng.randn(*s) * 0.1).astype(np.float32)) for s in shapes]
    w1, b1, w2, b2, w3, b3, w4 = params
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1),
                       [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.avg_pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"),
                                                 b2)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 16]), w3) + b3)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=y, logits=tf.matmul(h, w4)))
    train = make_optimizer().minimize(loss)
    feed = {x: rng.rand(50, 28, 28, 1).astype(np.float32),
            y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 50)]}
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], feed)[0] for _ in range(steps)]
        return losses, sess.run(params)


@on_gpu
@pytest.mark.parametrize("name", sorted(_OPTIMIZERS))
def test_training_a_cnn_with_variables_on_the_gpu_matches_the_cpu(name):
    from tfteach.runtime import devices
    devices._registry = None
    try:
        assert any(d.kind == "cuda" for d in devices.local_devices())
        cpu_losses, cpu_values = _lenet_sized_training(
            tf.ConfigProto(device_count={"GPU": 0}), _OPTIMIZERS[name])
        losses, values = _lenet_sized_training(None, _OPTIMIZERS[name])
        assert cpu_losses[-1] < cpu_losses[0]                   # it trained
        np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4, atol=1e-5)
        for got, expected in zip(values, cpu_values):
            np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
    finally:
        devices._registry = None


# -- the reservation, as the driver sees it ----------------------------------------------------------
# Run in a fresh process each: the reserving memory plugin must be installed before the
# process makes its CUDA context. Free memory is the driver's (cuMemGetInfo), what
# nvidia-smi shows.
_RESERVATION_SCRIPT = r"""
import json
import numpy as np
import tfteach as tf
from numba import cuda
from tfteach.runtime import devices

MIB = 1 << 20
gpu = [d for d in devices.local_devices() if d.kind == "cuda"][0]   # plugin, then context
free = lambda: cuda.current_context().get_memory_info()[0] / MIB     # noqa: E731
rng = np.random.RandomState(5)
x = tf.placeholder(tf.float32, [None, 784])
w = tf.Variable((rng.randn(784, 4096) * 0.01).astype(np.float32))      # 12.25 MiB
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
train = tf.train.AdamOptimizer(0.01).minimize(loss)
feed = {x: rng.rand(256, 784).astype(np.float32)}
with tf.Session() as warm_up:          # loads the kernels' code onto the card first
    warm_up.run(tf.global_variables_initializer())
    warm_up.run(train, feed)
tf.config.release_memory()
out = {"free_before": free()}
sess = tf.Session()
sess.run(tf.global_variables_initializer())
out["losses"] = [float(sess.run([loss, train], feed)[0]) for _ in range(3)]
out["free_with_session"] = free()
out["reserved"] = gpu.allocator.bytes_reserved / MIB
out["in_use"] = gpu.allocator.bytes_in_use / MIB
manager = getattr(cuda.current_context(), "memory_manager", None)
out["arena"] = getattr(getattr(manager, "arena", None), "bytes_reserved", -MIB) / MIB
tf.config.release_memory()                      # the session is open: its variables stay
out["free_after_release_open"] = free()
out["losses"].append(float(sess.run(loss, feed)))      # still runs after the release
sess.close()
tf.config.release_memory()
out["free_after_close"] = free()
with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as cpu:
    cpu.run(tf.global_variables_initializer())
    out["cpu_losses"] = [float(cpu.run([loss, train], feed)[0]) for _ in range(3)]
    out["cpu_losses"].append(float(cpu.run(loss, feed)))
print(json.dumps(out))
"""


def _reservation_run(reserve):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", TFTEACH_CUDA_RESERVE=reserve,
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    env.pop("TFTEACH_VIRTUAL_GPUS", None)
    proc = subprocess.run([sys.executable, "-c", _RESERVATION_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=600, cwd=root)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print("reservation (TFTEACH_CUDA_RESERVE=%s), MiB: %s" % (reserve, out))
    return out


@on_gpu
def test_the_reservation_is_real_device_memory_and_goes_back():
    out = _reservation_run("1")                 # the default on a real GPU
    np.testing.assert_allclose(out["losses"], out["cpu_losses"], rtol=1e-4)
    # TensorFlow's default: nearly the whole card, taken from the driver at once
    assert out["reserved"] > 0.8 * out["free_before"]
    assert abs(out["arena"] - out["reserved"]) < 1
    assert out["free_with_session"] < out["free_before"] - 0.9 * out["reserved"]
    # released with the session open: only the chunks holding its buffers stay
    held = out["free_before"] - out["free_after_release_open"]
    assert 0 <= held <= 2 * 256 + 64, held
    # closed and released: back to what the process had before its first session
    assert out["free_before"] - out["free_after_close"] < 64


@on_gpu
def test_without_the_reservation_only_the_arrays_are_taken():
    out = _reservation_run("0")
    np.testing.assert_allclose(out["losses"], out["cpu_losses"], rtol=1e-4)
    assert out["arena"] < 0                     # Numba's own memory manager
    assert out["reserved"] > 0.8 * out["free_before"]      # accounted all the same
    assert out["free_before"] - out["free_with_session"] < 512
    assert out["free_before"] - out["free_after_close"] < 64
