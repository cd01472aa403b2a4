"""CUDA kernels of the neural-network ops on Numba's CUDA simulator, against their CPU
twins: softmax and the fused cross entropy, bias add and its gradient, conv2d and both
backprops, max/avg pooling and their gradients, and the random ops (TF's Philox stream,
as the CPU's: uniforms bit for bit, normals to the math libraries' last digits; their
rules and distributions too).

Tiny shapes: the simulator runs each GPU thread as Python (see test_cuda_kernels.py).
"""
import math

import numpy as np
import pytest
from numba.core import config as numba_config

import tfteach as tf
from tfteach.framework.errors import InvalidArgumentError, UnimplementedError

pytestmark = pytest.mark.skipif(not numba_config.ENABLE_CUDASIM,
                                reason="needs NUMBA_ENABLE_CUDASIM=1 before numba is "
                                "imported (tests/conftest.py sets it)")

cuda_testing = pytest.importorskip("tfteach.kernels.cuda.testing",
                                   reason="numba-cuda is not installed")
run_gpu, run_cpu, context = cuda_testing.run_gpu, cuda_testing.run_cpu, cuda_testing.context


def _op_of_type(op_type):
    ops = [op for op in tf.get_default_graph().get_operations() if op.type == op_type]
    assert len(ops) == 1, (op_type, ops)
    return ops[0]


def _close(actual, expected, rtol=2e-6, atol=2e-6):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


# -- softmax and cross entropy -------------------------------------------------------------------------
def test_softmax_is_stable_for_huge_logits_and_any_rank():
    x = np.random.RandomState(0).randn(2, 3, 5).astype(np.float32)
    x[0, 0] += 1000.0                               # exp(1000) would overflow
    op = tf.nn.softmax(tf.placeholder(tf.float32, [2, 3, 5])).op
    out = run_gpu(op, x)
    _close(out, run_cpu(op, x))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_cross_entropy_loss_and_backprop(dtype):
    rng = np.random.RandomState(1)
    logits = (rng.randn(6, 4) * 30).astype(dtype)  # large spread: needs the max shift
    labels = rng.dirichlet(np.ones(4), 6).astype(dtype)
    tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.placeholder(dtype, [6, 4]),
                                               logits=tf.placeholder(dtype, [6, 4]))
    op = _op_of_type("SoftmaxCrossEntropyWithLogits")
    loss, backprop = run_gpu(op, logits, labels)
    cpu_loss, cpu_backprop = run_cpu(op, logits, labels)
    tol = 2e-6 if dtype == np.float32 else 1e-12
    _close(loss, cpu_loss, rtol=tol, atol=tol)
    _close(backprop, cpu_backprop, rtol=tol, atol=tol)
    # and against the formula, in float64 NumPy
    lf = logits.astype(np.float64)
    log_softmax = lf - lf.max(1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(1, keepdims=True))
    np.testing.assert_allclose(loss, -(labels * log_softmax).sum(1), rtol=tol * 10)


def test_cross_entropy_broadcasts_one_row_of_labels():
    logits = np.random.RandomState(2).randn(3, 4).astype(np.float32)
    labels = np.array([[0.0, 1.0, 0.0, 0.0]], np.float32)
    from tfteach.ops.op_builder import apply_op
    op = apply_op("SoftmaxCrossEntropyWithLogits",
                  [tf.placeholder(tf.float32), tf.placeholder(tf.float32)],
                  {"T": tf.float32}, "xent")[0].op
    for gpu, cpu in zip(run_gpu(op, logits, labels), run_cpu(op, logits, labels)):
        _close(gpu, cpu)
    with pytest.raises(InvalidArgumentError, match="logits and labels must be broadcastable"):
        run_gpu(op, logits, np.ones((2, 4), np.float32))


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_cross_entropy(label_dtype):
    rng = np.random.RandomState(9)
    logits = (rng.randn(5, 4) * 20).astype(np.float32)
    labels = np.array([0, 3, 1, 3, 2], label_dtype)
    tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.placeholder(tf.as_dtype(label_dtype), [5]),
        logits=tf.placeholder(tf.float32, [5, 4]))
    op = _op_of_type("SparseSoftmaxCrossEntropyWithLogits")
    for gpu, cpu in zip(run_gpu(op, logits, labels), run_cpu(op, logits, labels)):
        _close(gpu, cpu)
    with pytest.raises(InvalidArgumentError, match=r"Received a label value of 4 which is "
                       r"outside the valid range of \[0, 4\)"):
        run_gpu(op, logits, np.array([0, 4, 1, 1, 1], label_dtype))


# -- bias ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_bias_add_and_its_gradient(data_format):
    rng = np.random.RandomState(3)
    x = rng.randn(2, 3, 2, 4).astype(np.float32)
    channels = 4 if data_format == "NHWC" else 3
    bias = rng.randn(channels).astype(np.float32)
    y = tf.nn.bias_add(tf.placeholder(tf.float32, x.shape),
                       tf.placeholder(tf.float32, [channels]), data_format=data_format)
    _close(run_gpu(y.op, x, bias), run_cpu(y.op, x, bias))
    tf.gradients(y, [y.op.inputs[1]], tf.placeholder(tf.float32, x.shape))
    grad_op = _op_of_type("BiasAddGrad")
    _close(run_gpu(grad_op, x), run_cpu(grad_op, x))
    with pytest.raises(InvalidArgumentError, match="Must provide as many biases"):
        run_gpu(y.op, x, np.ones(channels + 1, np.float32))


# -- convolution ---------------------------------------------------------------------------------------
CONV_CASES = [("SAME", 1, 1), ("VALID", 1, 1), ("SAME", 2, 1), ("VALID", 2, 1), ("SAME", 1, 2)]


@pytest.mark.parametrize("padding, stride, dilation", CONV_CASES)
def test_conv2d_and_both_backprops(padding, stride, dilation):
    rng = np.random.RandomState(4)
    x = rng.randn(2, 5, 4, 3).astype(np.float32)
    f = rng.randn(3, 2, 3, 2).astype(np.float32)    # a 3 x 2 window, 3 -> 2 channels
    xp, fp = tf.placeholder(tf.float32, x.shape), tf.placeholder(tf.float32, f.shape)
    y = tf.nn.conv2d(xp, fp, strides=[1, stride, stride, 1], padding=padding,
                     dilations=[1, dilation, dilation, 1])
    out = run_gpu(y.op, x, f)
    _close(out, run_cpu(y.op, x, f), rtol=1e-5, atol=1e-5)
    dy = rng.randn(*out.shape).astype(np.float32)
    tf.gradients(y, [xp, fp], tf.placeholder(tf.float32, out.shape))
    sizes_x, sizes_f = np.array(x.shape, np.int32), np.array(f.shape, np.int32)
    op = _op_of_type("Conv2DBackpropInput")
    _close(run_gpu(op, sizes_x, f, dy), run_cpu(op, sizes_x, f, dy), rtol=1e-5, atol=1e-5)
    op = _op_of_type("Conv2DBackpropFilter")
    _close(run_gpu(op, x, sizes_f, dy), run_cpu(op, x, sizes_f, dy), rtol=1e-5, atol=1e-5)


def test_conv2d_bad_inputs_are_clear_errors():
    y = tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32),
                     strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(InvalidArgumentError, match="input depth must be equal to filter "
                       "depth: 3 vs 2"):
        run_gpu(y.op, np.ones((1, 3, 3, 3), np.float32), np.ones((2, 2, 2, 1), np.float32))
    with pytest.raises(InvalidArgumentError, match="input must be 4-dimensional"):
        run_gpu(y.op, np.ones((3, 3, 3), np.float32), np.ones((2, 2, 3, 1), np.float32))
    nchw = tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32),
                        strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW")
    with pytest.raises(UnimplementedError, match="NHWC only"):
        run_gpu(nchw.op, np.ones((1, 3, 3, 3), np.float32), np.ones((2, 2, 3, 1), np.float32))


# -- pooling -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pool, grad_type", [(tf.nn.max_pool, "MaxPoolGrad"),
                                             (tf.nn.avg_pool, "AvgPoolGrad")])
@pytest.mark.parametrize("padding, size, stride", [("SAME", 3, 2), ("VALID", 2, 1)])
def test_pooling_and_its_gradient(pool, grad_type, padding, size, stride):
    # stride < size: windows overlap, so MaxPoolGrad's atomic adds meet on one element.
    rng = np.random.RandomState(5)
    x = rng.randn(2, 5, 4, 3).astype(np.float32)
    x[0, 1, 1, 0] = 9.0                           # the max of several overlapping windows
    xp = tf.placeholder(tf.float32, x.shape)
    y = pool(xp, ksize=[1, size, size, 1], strides=[1, stride, stride, 1], padding=padding)
    out = run_gpu(y.op, x)
    _close(out, run_cpu(y.op, x))
    dy = rng.randn(*out.shape).astype(np.float32)
    tf.gradients(y, [xp], tf.placeholder(tf.float32, out.shape))
    op = _op_of_type(grad_type)
    args = (x, out, dy) if grad_type == "MaxPoolGrad" else (np.array(x.shape, np.int32), dy)
    _close(run_gpu(op, *args), run_cpu(op, *args))


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = np.zeros((1, 2, 2, 1), np.float32)        # a tie: every element is the max
    y = tf.nn.max_pool(tf.placeholder(tf.float32, x.shape), [1, 2, 2, 1], [1, 2, 2, 1],
                       "VALID")
    tf.gradients(y, [y.op.inputs[0]], tf.placeholder(tf.float32, [1, 1, 1, 1]))
    dx = run_gpu(_op_of_type("MaxPoolGrad"), x, x[:, :1, :1], np.full((1, 1, 1, 1), 5.0,
                                                                      np.float32))
    np.testing.assert_array_equal(dx.ravel(), [5.0, 0.0, 0.0, 0.0])


def test_max_pool_skips_nan_as_the_cpu_kernel():
    """As TF's CPU kernel (and tfteach's): a NaN never wins, a window of NaNs or -inf
    gives the lowest float (tests/test_max_pool_nan_reference.py checks the CPU vs TF)."""
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    x[0, 0, 0, 0] = x[0, 2, 3, 0] = np.nan
    x[0, 2:, :2, 0] = -np.inf
    x[0, 3, 0, 0] = np.nan
    y = tf.nn.max_pool(tf.placeholder(tf.float32, x.shape), [1, 2, 2, 1], [1, 2, 2, 1],
                       "VALID")
    out = run_gpu(y.op, x)
    np.testing.assert_array_equal(out, run_cpu(y.op, x))
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(out.ravel(), [5, 7, lowest, 15])


# -- random --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, mean, std, bound", [
    (tf.random_uniform, 0.5, math.sqrt(1 / 12), None),
    (tf.random_normal, 0.0, 1.0, None),
    # a standard normal cut at 2 sigma has std 0.8796
    (tf.truncated_normal, 0.0, 0.8796, 2.0)])
def test_random_distributions(make, mean, std, bound):
    t = make([256], seed=7)
    op = next(o for o in tf.get_default_graph().get_operations()
              if o.type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"))
    values = run_gpu(op, np.array([256], np.int32)).astype(np.float64)
    assert t.dtype == tf.float32 and values.shape == (256,)
    # 256 draws: the mean is within 4 standard errors, the std within 15%
    assert abs(values.mean() - mean) < 4 * std / 16
    assert abs(values.std() - std) < 0.15 * std
    if bound is not None:
        assert np.abs(values).max() <= bound
    if make is tf.random_uniform:
        assert values.min() >= 0 and values.max() < 1
    assert len(np.unique(values)) > 250           # not a constant or a short cycle


def test_random_stream_rules_follow_the_cpu_kernels():
    tf.random_uniform([8], seed=3, name="a")
    tf.random_uniform([8], seed=3, name="b")      # the same seeds: the same numbers
    tf.random_uniform([8], seed=4, name="c")
    ops = {o.name.split("/")[0]: o for o in tf.get_default_graph().get_operations()
           if o.type == "RandomUniform"}
    shape = np.array([8], np.int32)
    ctx = context(ops["a"])
    first, second = run_gpu(ops["a"], shape, ctx=ctx), run_gpu(ops["a"], shape, ctx=ctx)
    assert not np.array_equal(first, second)      # each run continues the stream
    np.testing.assert_array_equal(run_gpu(ops["b"], shape), first)   # a new session: again
    assert not np.array_equal(run_gpu(ops["c"], shape), first)
    # TF's rule: a run reserves 256 counters per element, so one call of 16 starts as
    # the call of 8 did, and goes on with other numbers than the second call of 8
    ctx16 = context(ops["a"])
    sixteen = run_gpu(ops["a"], np.array([16], np.int32), ctx=ctx16)
    np.testing.assert_array_equal(sixteen[:8], first)
    assert not np.array_equal(sixteen[8:], second)


@pytest.mark.parametrize("op_type, make", [
    ("RandomUniform", tf.random_uniform), ("RandomStandardNormal", tf.random_normal),
    ("TruncatedNormal", tf.truncated_normal)])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_random_numbers_are_the_cpus_and_so_tensorflows(op_type, make, dtype):
    """The GPU draws TF's Philox stream as the CPU kernel does (kernels/cpu/philox.py,
    compared with TensorFlow in test_random_philox_reference.py): uniforms bit for bit,
    normals within the math libraries' last digits (the GPU's log/sin/cos are CUDA's),
    two runs in a row, an odd size."""
    make([37], dtype=dtype, seed=5)
    op = _op_of_type(op_type)
    shape = np.array([37], np.int32)
    gpu_ctx, cpu_ctx = context(op), context(op)
    for _ in range(2):
        gpu, cpu = run_gpu(op, shape, ctx=gpu_ctx), run_cpu(op, shape, ctx=cpu_ctx)
        assert gpu.dtype == cpu.dtype == dtype.as_numpy_dtype
        if op_type == "RandomUniform":
            np.testing.assert_array_equal(gpu, cpu)
        else:
            np.testing.assert_allclose(gpu, cpu, rtol=2e-6, atol=2e-6)


def test_random_float64_and_bad_dtype():
    t = tf.random_normal([2, 3], dtype=tf.float64, seed=1)
    op = next(o for o in tf.get_default_graph().get_operations()
              if o.type == "RandomStandardNormal")
    values = run_gpu(op, np.array([2, 3], np.int32))
    assert values.dtype == np.float64 and values.shape == (2, 3) and t.shape == (2, 3)
    op._attrs["dtype"] = tf.float16               # what no GPU kernel here supports
    with pytest.raises(InvalidArgumentError, match="no GPU kernel for RandomStandardNormal "
                       "with dtype float16"):
        run_gpu(op, np.array([2], np.int32))
