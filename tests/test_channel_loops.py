"""The per-channel bias add (`x + b`, b of x's last axis) and the bias gradient (Sum over
all axes but the last) as row loops (kernels/cpu/channel_loops.py).

Checked against NumPy computing the same thing independently: an elementwise add is
correctly rounded, so its bits must match NumPy's; a float32 sum must match a float64
sum to float32 accuracy. Outside and inside a BLAS window (a step with convolutions).
"""
import numpy as np
import pytest

import tfteach as tf
from tfteach.framework.registry import get_op_def
from tfteach.kernels.cpu import channel_loops, two_workers
from tfteach.kernels.cpu.cwise import quiet_add_kernel
from tolerances import assert_close


class Ctx:
    op = None
    attrs = {"keep_dims": False}


@pytest.fixture
def split_always(monkeypatch):
    """Two workers even on a one-core machine, as in a step with convolutions on two
    cores (NumPy's add and sum would split there; the row loops run whole)."""
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)


def _conv_like(rng, shape, dtype):
    """Random values with NaN, +-inf and -0.0 in them, read-only as Session values are."""
    x = (rng.randn(*shape) * 3).astype(dtype)
    x.reshape(-1, shape[-1])[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    x.flags.writeable = False
    return x


def _bias(rng, channels, dtype):
    b = rng.randn(channels).astype(dtype)
    b[3] = -0.0                      # -0.0 + -0.0 must stay -0.0
    b.flags.writeable = False
    return b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 9, 9, 32), (3, 25, 64), (129, 40), (51, 28, 28, 16)])
def test_bias_add_both_orders_gives_numpys_bits(dtype, shape):
    rng = np.random.RandomState(0)
    x, b = _conv_like(rng, shape, dtype), _bias(rng, shape[-1], dtype)
    x_before, b_before = x.copy(), b.copy()
    for pair in (channel_loops.bias_operands(x, b), channel_loops.bias_operands(b, x)):
        assert pair[0] is x and pair[1] is b
    kernel = quiet_add_kernel()
    expected = np.add(x, b)
    for got in (kernel(Ctx, x, b), kernel(Ctx, b, x)):
        assert got.dtype == dtype and got.shape == shape and got.flags.writeable
        np.testing.assert_array_equal(got, expected)       # NaN where NaN, inf stays inf
        assert np.signbit(got.reshape(-1, shape[-1])[0, 3])   # -0.0 + -0.0
    np.testing.assert_array_equal(x, x_before)               # inputs untouched
    np.testing.assert_array_equal(b, b_before)


def test_bias_add_inside_a_blas_window(split_always):
    rng = np.random.RandomState(1)
    for batch in (33, 50):                                   # odd and even batches
        x, b = _conv_like(rng, (batch, 28, 28, 32), np.float32), _bias(rng, 32, np.float32)
        with two_workers.blas_window():
            got = quiet_add_kernel()(Ctx, b, x)
        np.testing.assert_array_equal(got, x + b)


def test_other_adds_keep_numpys_path():
    rng = np.random.RandomState(2)
    x = rng.randn(20, 10, 10, 16).astype(np.float32)
    b = rng.randn(16).astype(np.float32)
    kernel = quiet_add_kernel()
    cases = [(x[:, ::2], b),                       # strided view of x
             (np.asfortranarray(x), b),            # not C-contiguous
             (x, 2.5),                             # weak Python scalar: stays float32
             (x, np.float32(2)),                   # NumPy scalar
             (x, b.reshape(1, 16)),                # 2-D bias: a plain broadcast
             (x, x),                               # same shapes
             (x[..., :4], b[:4]),                  # too few channels for the row loop
             (x[:2, :2, :2], b),                   # too small
             (x, b[::-1]),                         # strided bias: fast path, copied
             (x.astype(np.float16), b.astype(np.float16))]
    for left, right in cases:
        got = kernel(Ctx, left, right)
        want = np.add(left, right)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_bias_of_the_wrong_length_is_tfs_incompatible_shapes():
    x = tf.placeholder(tf.float32, [None, 8, 8, None])
    b = tf.placeholder(tf.float32, [None])
    with tf.Session() as sess:
        feed = {x: np.ones((64, 8, 8, 16), np.float32), b: np.ones(17, np.float32)}
        for out in (x + b, b + x):
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out, feed)
            first = str(info.value).splitlines()[0]
            assert first in ("Incompatible shapes: [64,8,8,16] vs. [17]",
                             "Incompatible shapes: [17] vs. [64,8,8,16]")


def test_graph_bias_add_and_its_gradient_float64():
    rng = np.random.RandomState(3)
    x_val = rng.randn(17, 6, 6, 24)
    b_val = rng.randn(24)
    x = tf.placeholder(tf.float64, [None, 6, 6, 24])
    b = tf.constant(b_val)
    y = x + b
    grad_b = tf.gradients(tf.reduce_sum(y * y), b)[0]
    with tf.Session() as sess:
        got_y, got_g = sess.run([y, grad_b], {x: x_val})
    np.testing.assert_array_equal(got_y, x_val + b_val)
    assert_close(got_g, (2 * (x_val + b_val)).sum(axis=(0, 1, 2)), rtol=1e-12,
                 scale=np.abs(2 * (x_val + b_val)).sum(axis=(0, 1, 2)))


def _sum(x, axes, keep_dims=False):
    Ctx.attrs = {"keep_dims": keep_dims}
    try:
        return get_op_def("Sum").kernels["CPU"](Ctx, x, np.array(axes))
    finally:
        Ctx.attrs = {"keep_dims": False}


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(7, 9, 9, 32), (129, 40), (3, 25, 64)])
def test_sum_over_all_but_the_last_axis(dtype, rtol, shape):
    rng = np.random.RandomState(4)
    x = rng.rand(*shape).astype(dtype)     # positive: a relative tolerance is meaningful
    x.flags.writeable = False
    before = x.copy()
    axes = list(range(len(shape) - 1))
    assert channel_loops.sums_all_but_last(x, tuple(axes))
    want = x.astype(np.float64).sum(axis=tuple(axes))
    got = _sum(x, axes)
    assert got.dtype == dtype and got.shape == (shape[-1],)
    np.testing.assert_allclose(got, want, rtol=rtol)
    kept = _sum(x, axes[::-1], keep_dims=True)                 # any order of the axes
    assert kept.shape == (1,) * len(axes) + (shape[-1],)
    np.testing.assert_array_equal(kept.reshape(-1), got)
    np.testing.assert_array_equal(_sum(x, [a - len(shape) for a in axes]), got)  # negative
    np.testing.assert_array_equal(x, before)


def test_sum_propagates_nan_and_inf():
    x = np.ones((10, 8, 8, 16), np.float32)
    x[3, 2, 1, 0] = np.nan
    x[4, 0, 0, 1] = np.inf
    x[5, 0, 0, 2], x[6, 0, 0, 2] = np.inf, -np.inf
    got = _sum(x, [0, 1, 2])
    assert np.isnan(got[0]) and got[1] == np.inf and np.isnan(got[2])
    assert np.all(got[3:] == 640)


def test_sum_inside_a_blas_window(split_always):
    rng = np.random.RandomState(5)
    x = rng.rand(33, 28, 28, 32).astype(np.float32)
    with two_workers.blas_window():
        got = _sum(x, [0, 1, 2])
        kept = _sum(x, [0, 1, 2], keep_dims=True)
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=(0, 1, 2)), rtol=2e-5)
    assert got.dtype == np.float32 and kept.shape == (1, 1, 1, 32)


def test_other_sums_keep_numpys_path():
    rng = np.random.RandomState(6)
    x = rng.rand(20, 10, 10, 16).astype(np.float32)
    cases = [(x, [0, 1]), (x, [1, 2, 3]), (x, [0, 1, 2, 3]), (x[:, ::2], [0, 1, 2]),
             (np.asfortranarray(x), [0, 1, 2]), (x[..., :4], [0, 1, 2]),
             (x.astype(np.float16), [0, 1, 2]), ((x * 100).astype(np.int32), [0, 1, 2])]
    for value, axes in cases:
        assert not channel_loops.sums_all_but_last(value, tuple(axes)) or value is x
        got = _sum(value, axes)
        want = np.sum(value, axis=tuple(axes), dtype=value.dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-3 if value.dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nn_bias_add_and_bias_add_grad(data_format, dtype):
    """tf.nn.bias_add takes the same row loops with channels last (NHWC, or any rank-2
    input); NCHW keeps NumPy's broadcast over axis 1. Its bias gradient is BiasAddGrad."""
    rng = np.random.RandomState(7)
    shape = (9, 16, 10, 10) if data_format == "NCHW" else (9, 10, 10, 16)
    x_val = rng.randn(*shape).astype(dtype)
    b_val = rng.randn(16).astype(dtype)
    bias_view = b_val.reshape(16, 1, 1) if data_format == "NCHW" else b_val
    axes = (0, 2, 3) if data_format == "NCHW" else (0, 1, 2)
    x = tf.placeholder(tf.as_dtype(dtype), shape)
    b = tf.constant(b_val)
    y = tf.nn.bias_add(x, b, data_format=data_format)
    grad_b = tf.gradients(y, b, grad_ys=tf.constant(x_val))[0]     # BiasAddGrad(x_val)
    flat = tf.nn.bias_add(tf.reshape(x, [9, -1]), tf.ones([1600], tf.as_dtype(dtype)))
    with tf.Session() as sess:
        got_y, got_g, got_flat = sess.run([y, grad_b, flat], {x: x_val})
    np.testing.assert_array_equal(got_y, x_val + bias_view)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got_g, x_val.astype(np.float64).sum(axis=axes), rtol=rtol,
                               atol=1e-4 if dtype == np.float32 else 1e-10)
    assert got_y.dtype == got_g.dtype == dtype
    np.testing.assert_array_equal(got_flat, x_val.reshape(9, -1) + 1)
    short = tf.placeholder(tf.as_dtype(dtype), [None])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="Must provide as many biases"):
        sess.run(tf.nn.bias_add(x, short, data_format=data_format),
                 {x: x_val, short: np.ones(15, dtype)})
