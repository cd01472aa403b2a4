"""tf.nn.max_pool / avg_pool against NumPy references written with plain loops.

The reference computes the padding itself (TF's rule: SAME gives ceil(in / stride)
outputs; the missing rows are split with the smaller half before), then visits every
window cell and skips those in the padding.
"""
import itertools
import math

import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients
from tolerances import assert_close


def reference_pool(x, k, s, padding, kind):
    """NHWC pooling by direct loops; k = (kh, kw), s = (sh, sw)."""
    n, h, w, c = x.shape
    if padding == "VALID":
        oh, ow = math.ceil((h - k[0] + 1) / s[0]), math.ceil((w - k[1] + 1) / s[1])
        top = left = 0
    else:
        oh, ow = math.ceil(h / s[0]), math.ceil(w / s[1])
        top = max((oh - 1) * s[0] + k[0] - h, 0) // 2
        left = max((ow - 1) * s[1] + k[1] - w, 0) // 2
    out = np.zeros((n, oh, ow, c), np.float64)
    for b, i, j, ch in itertools.product(range(n), range(oh), range(ow), range(c)):
        cells = []
        for di in range(k[0]):
            for dj in range(k[1]):
                r, q = i * s[0] - top + di, j * s[1] - left + dj
                if 0 <= r < h and 0 <= q < w:
                    cells.append(x[b, r, q, ch])
        out[b, i, j, ch] = max(cells) if kind == "max" else sum(cells) / len(cells)
    return out


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


CASES = [(size, k, s, padding)
         for size in (5, 6, 7)                 # odd and even sizes
         for k, s in (((1, 1), (1, 1)), ((2, 2), (2, 2)), ((3, 3), (2, 2)), ((2, 3), (1, 2)),
                      ((3, 2), (3, 3)), ((4, 4), (3, 1)))
         for padding in ("SAME", "VALID")]


@pytest.mark.parametrize("size,k,s,padding", CASES)
def test_pooling_matches_loops(size, k, s, padding):
    x = np.random.RandomState(size).randn(2, size, size + 1, 3).astype(np.float32)
    ksize, strides = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
    mx = tf.nn.max_pool(x, ksize, strides, padding)
    av = tf.nn.avg_pool(x, ksize, strides, padding)
    want_max = reference_pool(x, k, s, padding, "max")
    want_avg = reference_pool(x, k, s, padding, "avg")
    assert mx.shape.as_list() == list(want_max.shape)
    got_max, got_avg = run([mx, av])
    np.testing.assert_array_equal(got_max, want_max.astype(np.float32))
    np.testing.assert_allclose(got_avg, want_avg, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_nchw_is_nhwc_transposed(padding):
    x = np.random.RandomState(1).randn(2, 7, 6, 3).astype(np.float32)
    x_nchw = x.transpose(0, 3, 1, 2)
    for fn, kind in ((tf.nn.max_pool, "max"), (tf.nn.avg_pool, "avg")):
        y = fn(x_nchw, [1, 1, 3, 2], [1, 1, 2, 2], padding, data_format="NCHW")
        want = reference_pool(x, (3, 2), (2, 2), padding, kind).transpose(0, 3, 1, 2)
        assert y.shape.as_list() == list(want.shape)
        np.testing.assert_allclose(run(y), want, rtol=1e-6, atol=1e-6)


def test_same_avg_divides_by_real_cells():
    x = np.ones((1, 3, 3, 1), np.float32)
    # every window average of ones is 1 only if padded cells are left out of the count
    np.testing.assert_array_equal(run(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")),
                                  np.ones((1, 2, 2, 1)))
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))[0, :, :, 0]
    np.testing.assert_allclose(got, [[(0 + 1 + 3 + 4) / 4, (2 + 5) / 2], [(6 + 7) / 2, 8]])


def test_ksize_and_strides_short_forms():
    x = np.random.RandomState(2).randn(1, 4, 4, 2).astype(np.float32)
    full = run(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    np.testing.assert_array_equal(run(tf.nn.max_pool(x, 2, 2, "VALID")), full)
    np.testing.assert_array_equal(run(tf.nn.max_pool(x, [2], [2, 2], "VALID")), full)
    np.testing.assert_array_equal(run(tf.nn.max_pool2d(x, 2, 2, "VALID")), full)
    assert_close(run(tf.nn.avg_pool2d(x, [2, 2], 2, "VALID")),
                 reference_pool(x, (2, 2), (2, 2), "VALID", "avg"), rtol=1e-6)
    with pytest.raises(ValueError, match="ksize should be of length 1, 2 or 4 but was 3"):
        tf.nn.max_pool(x, [1, 2, 2], 2, "VALID")


def test_names_dtypes_and_static_shapes():
    x = tf.placeholder(tf.float32, [None, 28, 28, 32])
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    assert y.name == "MaxPool:0" and y.shape.as_list() == [None, 14, 14, 32]
    z = tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID", name="pool")
    assert z.name == "pool:0" and z.shape.as_list() == [None, 13, 13, 32]
    assert y.op.get_attr("ksize") == [1, 2, 2, 1] and y.op.get_attr("padding") == "SAME"
    ints = np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1)
    got = run(tf.nn.max_pool(ints, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    assert got.dtype == np.int32 and got[0, :, :, 0].tolist() == [[5, 7], [13, 15]]
    half = run(tf.nn.max_pool(ints.astype(np.float16), 2, 2, "VALID"))
    assert half.dtype == np.float16
    assert run(tf.nn.avg_pool(ints.astype(np.float64), 2, 2, "VALID")).dtype == np.float64


def test_shape_and_type_errors():
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 from 2"):
        tf.nn.max_pool(tf.zeros([1, 2, 2, 1]), [1, 3, 3, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.avg_pool(tf.zeros([2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
        tf.nn.avg_pool(tf.zeros([1, 2, 2, 1], tf.int32), 1, 1, "VALID")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.max_pool(tf.zeros([1, 2, 2, 1]), 1, 1, "FULL")
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch dimension"):
        run(tf.nn.max_pool(tf.zeros([2, 2, 2, 1]), [2, 1, 1, 1], [1, 1, 1, 1], "VALID"))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_gradients_by_finite_differences(padding, fmt):
    x = np.random.RandomState(3).randn(2, 5, 4, 2)
    if fmt == "NCHW":
        ksize, strides = [1, 1, 3, 2], [1, 1, 2, 1]
    else:
        ksize, strides = [1, 3, 2, 1], [1, 2, 1, 1]
    for fn in (tf.nn.max_pool, tf.nn.avg_pool):
        check_gradients(lambda tf, x: fn(x, ksize, strides, padding, data_format=fmt), [x])


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = np.array([[1.0, 3.0], [3.0, 0.0]]).reshape(1, 2, 2, 1)
    xt = tf.constant(x)
    g = tf.gradients(tf.nn.max_pool(xt, 2, 2, "VALID"), xt)[0]
    assert g.op.type == "MaxPoolGrad"
    np.testing.assert_array_equal(run(g)[0, :, :, 0], [[0, 1], [0, 0]])
    # overlapping windows: a cell that is the maximum of two windows gets both gradients
    x = np.array([[0.0, 5.0, 1.0, 2.0]]).reshape(1, 1, 4, 1)
    xt = tf.constant(x)
    g = tf.gradients(tf.nn.max_pool(xt, [1, 1, 2, 1], [1, 1, 1, 1], "VALID"), xt)[0]
    np.testing.assert_array_equal(run(g).ravel(), [0, 2, 0, 1])


def test_second_derivatives():
    x = np.random.RandomState(4).randn(1, 4, 5, 2)
    def max_grad(tf, x, g):
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 1, 2, 1], "SAME")
        return tf.gradients(y, x, grad_ys=g)[0]
    def avg_grad(tf, x, g):
        y = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 2, 1], "SAME")
        return tf.gradients(y, x, grad_ys=g)[0]
    g = np.random.RandomState(5).randn(1, 4, 3, 2)
    check_gradients(max_grad, [x, g], wrt=[1])
    check_gradients(avg_grad, [x, g], wrt=[1])


def test_unknown_batch_runs_and_avg_grad_uses_runtime_shape():
    x = tf.placeholder(tf.float64, [None, 4, 4, 1])
    y = tf.nn.avg_pool(x, 2, 2, "VALID")
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    got = run(g, {x: np.zeros((3, 4, 4, 1))})
    np.testing.assert_allclose(got, np.full((3, 4, 4, 1), 0.25))


# -- bad windows: clear TensorFlow errors, never a division by zero or a wrong shape ----------
@pytest.mark.parametrize("pool", [tf.nn.max_pool, tf.nn.avg_pool])
def test_zero_ksize_is_refused_when_building(pool):
    with pytest.raises(ValueError, match=r"`ksize` cannot be zero. Received: ksize=\[1, 0, 2, 1\]"):
        pool(tf.placeholder(tf.float32), [1, 0, 2, 1], [1, 1, 1, 1], "VALID")


@pytest.mark.parametrize("pool", [tf.nn.max_pool, tf.nn.avg_pool])
def test_zero_stride_is_a_shape_error_even_for_unknown_shapes(pool):
    with pytest.raises(ValueError, match="Stride must be > 0, but got 0"):
        pool(tf.placeholder(tf.float32), [1, 2, 2, 1], [1, 0, 1, 1], "SAME")


@pytest.mark.parametrize("pool", [tf.nn.max_pool, tf.nn.avg_pool])
def test_valid_window_larger_than_the_fed_image(pool):
    x = tf.placeholder(tf.float32)           # unknown shape: only the run can tell
    y = pool(x, [1, 9, 2, 1], [1, 1, 1, 1], "VALID")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Computed output size would be negative: -3 \[input_size: "
                                 r"5, effective_filter_size: 9, stride: 1\]"):
            sess.run(y, {x: np.ones((2, 5, 5, 3), np.float32)})
        assert sess.run(y, {x: np.ones((2, 9, 5, 3), np.float32)}).shape == (2, 1, 4, 3)


@pytest.mark.parametrize("ksize,text", [([1, 0, 2, 1], "dimension 1 was zero"),
                                        ([1, 2, -1, 1], "dimension 2 was negative: -1")])
def test_raw_ops_with_bad_windows_fail_at_run_time(ksize, text):
    # Attributes set directly (no tf.nn checks): the kernel still refuses cleanly.
    from tfteach.nn.pooling_ops import pool_attrs
    from tfteach.ops.op_builder import apply_op
    x = tf.placeholder(tf.float32)
    y = apply_op("MaxPool", [x], pool_attrs(tf.float32, ksize, [1, 1, 1, 1], "SAME", "NHWC"),
                 "raw_pool")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=text):
            sess.run(y, {x: np.ones((1, 4, 4, 1), np.float32)})


@pytest.mark.parametrize("pool", [tf.nn.max_pool, tf.nn.avg_pool])
def test_string_window_entries_are_type_errors(pool):
    # TF's op_def_library: not silently int()'d (the convolutions' helper, shared)
    with pytest.raises(TypeError, match="Expected int for argument 'strides' not '2'"):
        pool(tf.placeholder(tf.float32), [1, 2, 2, 1], "2", "SAME")
    with pytest.raises(TypeError, match="Expected int for argument 'ksize' not '2'"):
        pool(tf.placeholder(tf.float32), [1, "2", 2, 1], 1, "SAME")


def _reference_max_pool_grad(x, g, k, s, padding):
    """dx by NumPy: each window's gradient to its first maximum (row-major), windows
    clipped to the image as TF's SAME padding does."""
    n, in_h, in_w, c = x.shape
    dx = np.zeros_like(x)
    pads = []
    for size, kk, ss in ((in_h, k[0], s[0]), (in_w, k[1], s[1])):
        out = (size - kk + ss) // ss if padding == "VALID" else -(-size // ss)
        pads.append(0 if padding == "VALID" else max((out - 1) * ss + kk - size, 0) // 2)
    for b in range(n):
        for i in range(g.shape[1]):
            for j in range(g.shape[2]):
                h0, w0 = i * s[0] - pads[0], j * s[1] - pads[1]
                rows = range(max(h0, 0), min(h0 + k[0], in_h))
                cols = range(max(w0, 0), min(w0 + k[1], in_w))
                cells = [(h, w) for h in rows for w in cols]
                for ch in range(c):
                    values = np.array([x[b, h, w, ch] for h, w in cells])
                    first = 0
                    for m in range(1, len(values)):
                        if values[m] > values[first]:
                            first = m
                    h, w = cells[first]
                    dx[b, h, w, ch] += g[b, i, j, ch]
    return dx


@pytest.mark.parametrize("shape, k, s, padding", [
    ((2, 6, 6, 3), (2, 2), (2, 2), "SAME"),
    ((2, 7, 5, 3), (2, 2), (2, 2), "SAME"),      # odd sizes: clipped last windows
    ((2, 7, 5, 3), (2, 2), (2, 2), "VALID"),     # a last row and column no window covers
    ((1, 9, 9, 2), (3, 3), (3, 3), "SAME"),
    ((1, 8, 7, 2), (2, 1), (3, 2), "VALID"),     # gaps between windows
    ((1, 8, 8, 2), (3, 3), (2, 2), "SAME"),      # overlapping: the general kernel
])
def test_max_pool_gradient_of_tiled_and_overlapping_windows_matches_numpy(shape, k, s,
                                                                           padding):
    rng = np.random.RandomState(sum(shape))
    x = rng.randint(-2, 3, size=shape).astype(np.float32)    # many ties
    x[0, 0, 0, 0] = np.nan
    x[-1, -1, -1, -1] = -np.inf
    xt = tf.constant(x)
    y = tf.nn.max_pool(xt, [1, *k, 1], [1, *s, 1], padding)
    g_val = rng.randn(*y.shape.as_list()).astype(np.float32)
    dx = tf.gradients(y, xt, grad_ys=tf.constant(g_val))[0]
    np.testing.assert_array_equal(run(dx), _reference_max_pool_grad(x, g_val, k, s, padding))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("k, s", [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((2, 3), (3, 3))])
def test_max_pool_gradient_with_the_relu_gradient_of_its_input_is_the_two_ops(k, s, dtype):
    from tfteach.kernels.cpu import nn_kernels, pooling_kernels
    rng = np.random.RandomState(k[0] * 10 + s[0])
    x = np.maximum(rng.randint(-2, 3, size=(3, 7, 8, 4)), 0).astype(dtype)   # ties, zeros
    x[0, 0, 0, 0] = np.nan
    window = ([1, *k, 1], [1, *s, 1], "SAME")
    y = pooling_kernels.max_pool(x, *window)
    g = rng.randn(*y.shape).astype(dtype)
    g[1, 0, 0, 1] = np.nan
    g[2, 1, 1, 2] = -1.0
    with np.errstate(invalid="ignore"):         # NaN * 0: on purpose
        two_ops = nn_kernels.relu_grad(pooling_kernels.max_pool_grad(x, y, g, *window), x)
        one_pass = pooling_kernels.max_pool_grad(x, y, g, *window, relu_of_input=True)
    assert one_pass.dtype == dtype
    np.testing.assert_array_equal(one_pass, two_ops)
    assert np.array_equal(np.signbit(one_pass), np.signbit(two_ops))     # -0.0 kept
