"""CUDA kernels on Numba's CUDA simulator, against their CPU twins: elementwise ops
(broadcasting), reductions, the tiled matmul, Cast, copies, and bad inputs.

conftest.py turns the simulator on before numba is imported. The simulator runs every
GPU thread as Python (~1 ms each), so the shapes are tiny: a few hundred threads per
launch at most. The same kernels run at full size on a real GPU in test_cuda_gpu.py.
"""
import numpy as np
import pytest
from numba.core import config as numba_config

import tfteach as tf
from tfteach.framework.errors import InvalidArgumentError

pytestmark = pytest.mark.skipif(not numba_config.ENABLE_CUDASIM,
                                reason="needs NUMBA_ENABLE_CUDASIM=1 before numba is "
                                "imported (tests/conftest.py sets it)")

cuda_testing = pytest.importorskip("tfteach.kernels.cuda.testing",
                                   reason="numba-cuda is not installed")
run_gpu, run_cpu = cuda_testing.run_gpu, cuda_testing.run_cpu


def _close(actual, expected, dtype=np.float32):
    tol = dict(rtol=2e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-13)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, **tol)


def _placeholder(dtype=tf.float32, shape=None):
    return tf.placeholder(dtype, shape)


# -- elementwise --------------------------------------------------------------------------------------
UNARY = [tf.negative, tf.abs, tf.square, tf.sqrt, tf.rsqrt, tf.exp, tf.log, tf.tanh,
         tf.sigmoid, tf.nn.relu, tf.sign, tf.reciprocal, tf.log1p]


def test_every_unary_op_matches_the_cpu_kernel_including_edge_values():
    # -inf .. inf, 0, -1 and NaN: log(0) = -inf, sqrt(-1) = nan, relu(nan) = nan, ...
    x = np.array([[-np.inf, -30.0, -1.5, -1.0, -0.25, 0.0],
                  [0.5, 1.0, 2.0, 30.0, np.inf, np.nan]], np.float32)
    for fn in UNARY:
        op = fn(_placeholder(shape=[2, 6])).op
        assert op.type in cuda_testing.table.GPU_KERNELS
        np.testing.assert_allclose(run_gpu(op, x), run_cpu(op, x), rtol=2e-6, atol=0,
                                   err_msg=op.type)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_ops_broadcast_as_numpy(dtype):
    rng = np.random.RandomState(1)
    a = rng.randn(2, 1, 4).astype(dtype)           # broadcast along axis 1
    b = (rng.rand(3, 1) + 0.5).astype(dtype)        # fewer axes, broadcast along the last
    tf_dtype = tf.as_dtype(dtype)
    for fn in (tf.add, tf.subtract, tf.multiply, tf.realdiv, tf.maximum, tf.minimum,
               tf.squared_difference):
        op = fn(_placeholder(tf_dtype), _placeholder(tf_dtype)).op
        _close(run_gpu(op, a, b), run_cpu(op, a, b), dtype)
    np.testing.assert_allclose(run_gpu(tf.add(_placeholder(tf_dtype), _placeholder(
        tf_dtype)).op, a, b), a + b, rtol=1e-6)           # and against NumPy itself


def test_scalar_operands_and_division_by_zero():
    op = tf.realdiv(_placeholder(), _placeholder()).op
    x = np.array([1.0, -1.0, 0.0, 2.0], np.float32)
    _close(run_gpu(op, x, np.float32(0)), run_cpu(op, x, np.float32(0)))  # inf, -inf, nan
    out = run_gpu(op, np.float32(6), np.float32(3))
    assert out.shape == () and out == 2


def test_gradient_ops_relu_sigmoid_tanh():
    rng = np.random.RandomState(2)
    g, x = rng.randn(3, 5).astype(np.float32), rng.randn(3, 5).astype(np.float32)
    y = np.tanh(x)
    from tfteach.ops.op_builder import apply_op
    for op_type, args in (("ReluGrad", (g, x)), ("SigmoidGrad", (1 / (1 + np.exp(-x)), g)),
                          ("TanhGrad", (y, g))):
        a, b = _placeholder(), _placeholder()
        op = apply_op(op_type, [a, b], {"T": tf.float32}, op_type).op
        _close(run_gpu(op, *args), run_cpu(op, *args))


def test_cast_follows_c_conversions():
    x = np.array([-1.7, -0.5, 0.0, 0.5, 2.9, 1e3], np.float32)
    for dtype in (tf.int32, tf.int64, tf.float64, tf.bool):
        op = tf.cast(_placeholder(), dtype).op
        out = run_gpu(op, x)
        np.testing.assert_array_equal(out, run_cpu(op, x))
        assert out.dtype == dtype.np
    op = tf.cast(_placeholder(tf.bool), tf.float32).op
    flags = np.array([True, False, True])
    np.testing.assert_array_equal(run_gpu(op, flags), [1.0, 0.0, 1.0])


# -- reductions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, keep", [(tf.reduce_sum, False), (tf.reduce_mean, True),
                                      (tf.reduce_max, False)])
def test_reductions_over_several_axes(fn, keep):
    x = np.random.RandomState(3).randn(3, 2, 4).astype(np.float32)
    for axis in ([0, 2], -1):
        op = fn(_placeholder(shape=[3, 2, 4]), axis=axis, keepdims=keep).op
        axis_value = np.asarray(axis, np.int32)
        _close(run_gpu(op, x, axis_value), run_cpu(op, x, axis_value))


def test_full_reduction_uses_every_thread_of_the_block():
    # 150 elements > 64 threads: each thread adds several, then the shared-memory tree.
    x = np.random.RandomState(4).rand(150).astype(np.float64)
    op = tf.reduce_sum(_placeholder(tf.float64), axis=0).op
    out = run_gpu(op, x, np.int32(0))
    assert out.shape == ()
    np.testing.assert_allclose(out, np.sum(x), rtol=1e-14)
    op = tf.reduce_max(_placeholder(tf.float64), axis=0).op
    assert run_gpu(op, x, np.int32(0)) == x.max()


def test_reductions_of_nothing_and_of_nan():
    empty = np.zeros((0, 3), np.float32)
    for fn in (tf.reduce_sum, tf.reduce_mean, tf.reduce_max):
        op = fn(_placeholder(shape=[None, 3]), axis=0).op
        _close(run_gpu(op, empty, np.int32(0)), run_cpu(op, empty, np.int32(0)))
    op = tf.reduce_max(_placeholder(), axis=0).op
    assert np.isnan(run_gpu(op, np.array([1, np.nan, 3], np.float32), np.int32(0)))


# -- matmul -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False),
                                                      (False, True), (True, True)])
def test_tiled_matmul_with_transposes(transpose_a, transpose_b):
    # depth 20 > TILE (16): two tiles along k, the second one partial.
    rng = np.random.RandomState(5)
    a, b = rng.randn(5, 20).astype(np.float32), rng.randn(20, 3).astype(np.float32)
    a_in, b_in = (a.T.copy() if transpose_a else a), (b.T.copy() if transpose_b else b)
    op = tf.matmul(_placeholder(shape=[None, None]), _placeholder(shape=[None, None]),
                   transpose_a=transpose_a,
                   transpose_b=transpose_b).op
    out = run_gpu(op, a_in, b_in)
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out, run_cpu(op, a_in, b_in), rtol=1e-5, atol=1e-5)


def test_matmul_over_several_blocks_float64():
    rng = np.random.RandomState(6)
    a, b = rng.randn(17, 3), rng.randn(3, 18)      # a 2 x 2 grid of 16 x 16 blocks
    matrix = [None, None]
    op = tf.matmul(_placeholder(tf.float64, matrix), _placeholder(tf.float64, matrix)).op
    _close(run_gpu(op, a, b), a @ b, np.float64)


# -- copies -------------------------------------------------------------------------------------------
def test_copies_round_trip_and_keep_int32_on_the_host():
    from tfteach.kernels.cuda import copies, launch
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    on_gpu = copies.to_device(x)
    assert launch.is_device_array(on_gpu)
    back = copies.to_host(copies.device_to_device(on_gpu))
    np.testing.assert_array_equal(back, x)
    assert isinstance(back, np.ndarray) and back is not x
    shape = np.array([2, 3], np.int32)
    assert copies.to_device(shape) is shape      # TF: int32 lives in host memory
    assert copies.to_host(None) is None


# -- bad input ----------------------------------------------------------------------------------------
def test_shapes_that_do_not_broadcast_are_tensorflows_error():
    op = tf.add(_placeholder(), _placeholder()).op
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        run_gpu(op, np.ones(2, np.float32), np.ones(3, np.float32))


def test_matmul_size_mismatch_is_tensorflows_error():
    op = tf.matmul(_placeholder(shape=[None, None]), _placeholder(shape=[None, None])).op
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: "
                       r"\[2,3\], In\[1\]: \[4,2\]"):
        run_gpu(op, np.ones((2, 3), np.float32), np.ones((4, 2), np.float32))


def test_unsupported_dtypes_get_a_clear_error_not_a_numba_crash():
    op = tf.exp(_placeholder(tf.float16)).op
    with pytest.raises(InvalidArgumentError, match="no GPU kernel for Exp with dtype "
                       "float16.*tf.device"):
        run_gpu(op, np.ones(3, np.float16))
    op = tf.add(_placeholder(tf.float32), _placeholder(tf.float32)).op
    with pytest.raises(InvalidArgumentError, match="same dtype"):
        run_gpu(op, np.ones(3, np.float32), np.ones(3, np.float64))


def test_int32_ops_run_their_cpu_kernel_on_the_host():
    # TensorFlow keeps int32 tensors of GPU ops in host memory; so does tfteach.
    op = tf.add(_placeholder(tf.int32), _placeholder(tf.int32)).op
    out = run_gpu(op, np.array([1, 2], np.int32), np.array([10, 20], np.int32))
    np.testing.assert_array_equal(out, [11, 22])
    assert out.dtype == np.int32
    op = tf.reduce_sum(_placeholder(tf.int32), axis=0).op
    assert run_gpu(op, np.array([3, 4], np.int32), np.int32(0)) == 7


# -- reshape / identity ------------------------------------------------------------------------------
def test_reshape_is_a_view_with_tensorflows_checks():
    from tfteach.kernels.cuda import launch, shape
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    op = tf.reshape(_placeholder(), _placeholder(tf.int32)).op
    np.testing.assert_array_equal(run_gpu(op, x, np.array([2, -1], np.int32)),
                                  x.reshape(2, 6))
    on_gpu = launch.on_device(x)
    ctx = cuda_testing.context(op)
    assert shape.reshape(ctx, on_gpu, np.array([12], np.int32)).shape == (12,)
    assert shape.identity(ctx, on_gpu) is on_gpu
    for sizes in ([5, -1], [-1, -1]):
        with pytest.raises(InvalidArgumentError) as gpu_error:
            run_gpu(op, x, np.array(sizes, np.int32))
        with pytest.raises(InvalidArgumentError) as cpu_error:
            run_cpu(op, x, np.array(sizes, np.int32))
        assert str(gpu_error.value.message) == str(cpu_error.value.message)
