"""tf.nn.conv2d and friends against a NumPy reference written here with direct loops.

The reference computes TF's padding split on its own (SAME: out = ceil(in / stride),
the odd padding element at the bottom/right) and convolves pixel by pixel, so it shares
no code with tfteach's im2col kernels. Gradients are checked by float64 finite
differences (tests/gradient_check.py).
"""
import itertools

import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients
from tolerances import assert_close

RNG = np.random.RandomState(42)


# -- an independent reference ------------------------------------------------------------------
def ref_pads(size, k, stride, dilation, padding):
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        return -(-(size - eff + 1) // stride), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return out, total // 2, total - total // 2


def ref_conv2d(x, f, strides=(1, 1), padding="SAME", dilations=(1, 1), explicit=None):
    """NHWC x, HWIO f; float64 direct loops."""
    n, h, w, c = x.shape
    kh, kw, _, oc = f.shape
    if explicit is None:
        oh, top, _ = ref_pads(h, kh, strides[0], dilations[0], padding)
        ow, left, _ = ref_pads(w, kw, strides[1], dilations[1], padding)
    else:
        (top, bottom), (left, right) = explicit
        oh = (h + top + bottom - (kh - 1) * dilations[0] - 1) // strides[0] + 1
        ow = (w + left + right - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = np.zeros((n, oh, ow, oc))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for e in range(kw):
                    y = i * strides[0] + a * dilations[0] - top
                    xx = j * strides[1] + e * dilations[1] - left
                    if 0 <= y < h and 0 <= xx < w:
                        out[:, i, j, :] += x[:, y, xx, :].astype(np.float64) @ f[a, e]
    return out


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def nchw(a):
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


def nhwc(a):
    return a.transpose(0, 2, 3, 1)


# -- padding arithmetic: every SAME/VALID x stride x odd/even size x kernel size ----------------
SIZE_CASES = list(itertools.product(["SAME", "VALID"], [1, 2, 3], [7, 8], [1, 2, 3, 4]))


@pytest.mark.parametrize("padding,stride,size,k", SIZE_CASES)
def test_output_size_and_values(padding, stride, size, k):
    x = RNG.randn(2, size, size + 1, 2).astype(np.float32)
    f = RNG.randn(k, k, 2, 3).astype(np.float32)
    y = tf.nn.conv2d(x, f, [1, stride, stride, 1], padding)
    expected = ref_conv2d(x, f, (stride, stride), padding)
    assert y.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(run(y), expected, rtol=1e-5, atol=1e-5)


ONE_CHANNEL_CASES = list(itertools.product(["SAME", "VALID"], [1, 2, 3], [7, 8], [1, 3, 5],
                                          [1, 2]))


@pytest.mark.parametrize("padding,stride,size,k,dilation", ONE_CHANNEL_CASES)
def test_one_input_channel(padding, stride, size, k, dilation):
    # One channel (MNIST's first layer) takes the transposed patch layout: the forward
    # values and the filter gradient (adjoint of the forward) against the reference.
    x = RNG.randn(3, size, size + 1, 1)
    f = RNG.randn(k, k, 1, 4)
    if (k - 1) * dilation + 1 > size and padding == "VALID":
        return
    conv = dict(strides=(stride, stride), padding=padding, dilations=(dilation, dilation))
    expected = ref_conv2d(x, f, **conv)
    dy = RNG.randn(*expected.shape)
    strides = [1, stride, stride, 1]
    y = tf.nn.conv2d(x, f, strides, padding, dilations=[1, dilation, dilation, 1])
    df = tf.nn.conv2d_backprop_filter(x, list(f.shape), dy, strides, padding,
                                      dilations=[1, dilation, dilation, 1])
    vy, vdf = run([y, df])
    np.testing.assert_allclose(vy, expected, rtol=1e-10, atol=1e-12)
    # d<conv(x, f), dy>/df, each filter entry by its own reference convolution
    for a, e in itertools.product(range(k), range(k)):
        unit = np.zeros_like(f)
        unit[a, e, 0, :] = 1
        tap = ref_conv2d(x, unit, **conv)     # [.., o] = the input pixel under tap (a, e)
        np.testing.assert_allclose(vdf[a, e, 0], np.sum(tap * dy, axis=(0, 1, 2)),
                                   rtol=1e-9, atol=1e-9)


def test_one_channel_patches_equal_the_general_layout():
    from tfteach.kernels.cpu.conv_patches import im2col, im2col_transposed
    rng = np.random.RandomState(5)
    for n, h, w, kh, kw, sh, sw, dh, dw, top, left in [
            (2, 7, 9, 3, 2, 2, 1, 1, 2, 1, 0), (1, 5, 5, 5, 5, 3, 3, 1, 1, 2, 2),
            (3, 4, 6, 2, 3, 1, 2, 2, 1, 0, 1), (1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1)]:
        oh = (h + 2 * top - (kh - 1) * dh - 1) // sh + 1
        ow = (w + 2 * left - (kw - 1) * dw - 1) // sw + 1
        x = rng.rand(n, h, w, 1).astype(np.float32)
        cols = np.full((n * oh * ow, kh * kw), np.nan, np.float32)
        cols_t = np.full((kh * kw, n * oh * ow), np.nan, np.float32)
        im2col(x, kh, kw, sh, sw, dh, dw, top, left, oh, ow, cols)
        im2col_transposed(x, kh, kw, sh, sw, dh, dw, top, left, oh, ow, cols_t)
        np.testing.assert_array_equal(cols_t.T, cols)        # every entry written


@pytest.mark.parametrize("x_shape,f_shape", [((2, 5, 5, 0), (3, 3, 0, 4)),
                                             ((2, 5, 5, 2), (3, 3, 2, 0)),
                                             ((2, 5, 5, 2), (0, 3, 2, 4))])
def test_a_filter_with_zero_elements_is_a_clear_error(x_shape, f_shape):
    # TF 1.15 divided by zero (the process died); TF 2.x's message, here a clean error.
    x, f = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"filter must not have zero elements \(i.e. all dimensions"):
            sess.run(y, {x: np.ones(x_shape), f: np.ones(f_shape)})
        assert sess.run(y, {x: np.ones((0, 5, 5, 2)), f: np.ones((3, 3, 2, 4))}).shape == \
            (0, 5, 5, 4)                      # an empty batch is fine: an empty result


def test_same_padding_split_puts_the_extra_row_at_the_bottom():
    # in 4, k 2, stride 1: 1 padding row needed -> 0 on top, 1 at the bottom.
    x = np.arange(16, dtype=np.float64).reshape(1, 4, 4, 1)
    f = np.ones((2, 2, 1, 1))
    y = run(tf.nn.conv2d(x, f, 1, "SAME"))[0, :, :, 0]
    assert y[0, 0] == 0 + 1 + 4 + 5            # window starts at the top-left pixel
    assert y[3, 3] == 15                        # bottom-right window: only the corner
    # in 5, k 4, stride 2: out 3, needed (3-1)*2 + 4 - 5 = 3 -> top 1, bottom 2.
    assert ref_pads(5, 4, 2, 1, "SAME") == (3, 1, 2)


def test_documented_examples():
    assert tf.nn.conv2d(np.zeros((1, 28, 28, 1), np.float32), np.zeros((5, 5, 1, 32), np.float32),
                        1, "SAME").shape.as_list() == [1, 28, 28, 32]
    assert tf.nn.conv2d(np.zeros((1, 28, 28, 1), np.float32), np.zeros((5, 5, 1, 32), np.float32),
                        1, "VALID").shape.as_list() == [1, 24, 24, 32]
    assert tf.nn.conv2d(np.zeros((1, 7, 7, 1), np.float32), np.zeros((3, 3, 1, 1), np.float32),
                        2, "SAME").shape.as_list() == [1, 4, 4, 1]


@pytest.mark.parametrize("dilation,padding", [(2, "SAME"), (2, "VALID"), (3, "SAME")])
def test_dilations(dilation, padding):
    x = RNG.randn(2, 9, 8, 3)
    f = RNG.randn(3, 2, 3, 2)
    y = tf.nn.conv2d(x, f, 1, padding, dilations=[1, dilation, dilation, 1])
    assert_close(run(y), ref_conv2d(x, f, padding=padding,
                                    dilations=(dilation, dilation)), rtol=1e-10)
    conv = tf.nn.convolution(x, f, padding, dilation_rate=[dilation, dilation])
    assert_close(run(conv), run(y))


def test_explicit_padding_and_unequal_strides():
    x = RNG.randn(1, 6, 7, 2)
    f = RNG.randn(3, 3, 2, 2)
    y = tf.nn.conv2d(x, f, [1, 2, 3, 1], [[0, 0], [1, 2], [0, 1], [0, 0]])
    expected = ref_conv2d(x, f, (2, 3), explicit=((1, 2), (0, 1)))
    assert y.shape.as_list() == list(expected.shape)
    assert_close(run(y), expected, rtol=1e-10)


@pytest.mark.parametrize("stride,padding", [(1, "SAME"), (2, "VALID"), (2, "SAME")])
def test_nchw_equals_nhwc(stride, padding):
    x = RNG.randn(2, 7, 6, 3).astype(np.float32)
    f = RNG.randn(3, 3, 3, 4).astype(np.float32)
    a = tf.nn.conv2d(x, f, stride, padding)
    b = tf.nn.conv2d(nchw(x), f, stride, padding, data_format="NCHW")
    assert b.shape.as_list() == [2, 4] + a.shape.as_list()[1:3]
    va, vb = run([a, b])
    np.testing.assert_allclose(nhwc(vb), va, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(np.float16, 2e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_dtypes(dtype, tol):
    x = RNG.randn(2, 5, 5, 3).astype(dtype)
    f = RNG.randn(3, 3, 3, 2).astype(dtype)
    y = run(tf.nn.conv2d(x, f, 1, "SAME"))
    assert y.dtype == dtype
    np.testing.assert_allclose(y, ref_conv2d(x, f), rtol=tol, atol=tol)


def test_one_by_one_filter_is_a_matmul():
    x = RNG.randn(2, 4, 5, 3)
    f = RNG.randn(1, 1, 3, 6)
    assert_close(run(tf.nn.conv2d(x, f, 1, "VALID")), x @ f[0, 0], rtol=1e-12)


def test_unknown_shapes_at_build_time():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.nn.conv2d(x, np.zeros((5, 5, 1, 8), np.float32), 2, "VALID")
    assert y.shape.as_list() == [None, 12, 12, 8]
    z = tf.nn.conv2d(tf.placeholder(tf.float32), np.zeros((5, 5, 1, 8), np.float32), 1, "SAME")
    assert z.shape.as_list() == [None, None, None, 8]
    val = RNG.randn(3, 28, 28, 1).astype(np.float32)
    assert run(y, {x: val}).shape == (3, 12, 12, 8)


# -- transposed convolution and the backprop ops ------------------------------------------------
def ref_conv_transpose(dy, f, input_shape, stride, padding):
    """The adjoint of ref_conv2d: <conv(x), dy> = <x, transpose(dy)> for every x."""
    n, h, w, c = input_shape
    oh, top, _ = ref_pads(h, f.shape[0], stride, 1, padding)
    ow, left, _ = ref_pads(w, f.shape[1], stride, 1, padding)
    dx = np.zeros(input_shape)
    for i in range(oh):
        for j in range(ow):
            for a in range(f.shape[0]):
                for e in range(f.shape[1]):
                    y, xx = i * stride + a - top, j * stride + e - left
                    if 0 <= y < h and 0 <= xx < w:
                        dx[:, y, xx, :] += dy[:, i, j, :] @ f[a, e].T
    return dx


@pytest.mark.parametrize("stride,padding,size", [(2, "SAME", 10), (2, "SAME", 9), (2, "VALID", 11),
                                                 (3, "VALID", 8), (1, "SAME", 5)])
def test_conv2d_transpose(stride, padding, size):
    f = RNG.randn(3, 3, 2, 4)          # [h, w, out_channels, in_channels]
    out_hw = ref_pads(size, 3, stride, 1, padding)[0]
    value = RNG.randn(2, out_hw, out_hw, 4)
    y = tf.nn.conv2d_transpose(value, f, [2, size, size, 2], [1, stride, stride, 1], padding)
    assert y.shape.as_list() == [2, size, size, 2] and y.op.type == "Conv2DBackpropInput"
    assert_close(run(y), ref_conv_transpose(value, f, (2, size, size, 2), stride,
                                            padding), rtol=1e-10)
    t = tf.nn.conv2d_transpose(nchw(value), f, [2, 2, size, size], [1, 1, stride, stride],
                               padding, data_format="NCHW")
    assert_close(nhwc(run(t)), run(y), rtol=1e-10)


def test_backprop_ops_are_adjoint_to_conv2d():
    x = RNG.randn(2, 6, 5, 3)
    f = RNG.randn(3, 2, 3, 4)
    dy = RNG.randn(*ref_conv2d(x, f, (2, 2), "SAME").shape)
    dx = tf.nn.conv2d_backprop_input([2, 6, 5, 3], f, dy, [1, 2, 2, 1], "SAME")
    df = tf.nn.conv2d_backprop_filter(x, [3, 2, 3, 4], dy, [1, 2, 2, 1], "SAME")
    vdx, vdf = run([dx, df])
    # <conv(x, f), dy> = <x, dx> = <f, df>
    inner = np.sum(ref_conv2d(x, f, (2, 2), "SAME") * dy)
    assert_close([np.sum(x * vdx), np.sum(f * vdf)], [inner, inner], rtol=1e-10)


def test_conv2d_transpose_output_shape_checks():
    f = np.zeros((3, 3, 2, 4), np.float32)
    value = np.zeros((1, 5, 5, 4), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
                             "actual = 5, computed = 4 spatial_dim: 1 input: 8 filter: 3 output: 5 "
                             "stride: 2 dilation: 1"):
        run(tf.nn.conv2d_transpose(value, f, [1, 8, 10, 2], [1, 2, 2, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Conv2DCustomBackpropInput: input and filter must have the same depth"):
        run(tf.nn.conv2d_transpose(value, f, [1, 10, 10, 3], [1, 2, 2, 1]))
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.conv2d_transpose(value, f, [1, 10, 10], [1, 2, 2, 1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="filter and out_backprop must have the same out_depth"):
        run(tf.nn.conv2d_transpose(np.zeros((1, 5, 5, 3), np.float32), f, [1, 10, 10, 2], 2))


# -- depthwise, bias_add, xw_plus_b -------------------------------------------------------------
def ref_depthwise(x, f, stride, padding, rate=1):
    m = f.shape[3]
    outs = [ref_conv2d(x[..., c:c + 1], f[:, :, c:c + 1, :], (stride, stride), padding,
                       (rate, rate)) for c in range(x.shape[3])]
    return np.concatenate(outs, axis=3).reshape(outs[0].shape[:3] + (x.shape[3] * m,))


@pytest.mark.parametrize("stride,padding,rate", [(1, "SAME", 1), (2, "VALID", 1), (2, "SAME", 1),
                                                 (1, "SAME", 2)])
def test_depthwise_conv2d(stride, padding, rate):
    x = RNG.randn(2, 7, 6, 3)
    f = RNG.randn(3, 3, 3, 2)
    y = tf.nn.depthwise_conv2d(x, f, [1, stride, stride, 1], padding, rate=[rate, rate])
    expected = ref_depthwise(x, f, stride, padding, rate)
    assert y.shape.as_list() == list(expected.shape)
    assert_close(run(y), expected, rtol=1e-10)
    z = tf.nn.depthwise_conv2d(nchw(x), f, [1, 1, stride, stride], padding, rate=[rate, rate],
                               data_format="NCHW")
    assert_close(nhwc(run(z)), expected, rtol=1e-10)


def test_bias_add_and_xw_plus_b():
    x = RNG.randn(2, 3, 4, 5)
    b = RNG.randn(5)
    np.testing.assert_allclose(run(tf.nn.bias_add(x, b)), x + b)
    np.testing.assert_allclose(run(tf.nn.bias_add(x, b[:3], data_format="NCHW")),
                               x + b[:3, None, None])
    w = RNG.randn(5, 2)
    assert_close(run(tf.nn.xw_plus_b(x[0, 0], w, b[:2])), x[0, 0] @ w + b[:2])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 4"):
        tf.nn.bias_add(x, b[:4])
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        tf.nn.bias_add(b, b)
    with pytest.raises(ValueError, match="data_format must be of the form"):
        tf.nn.bias_add(x, b, data_format="HWCN")


# -- gradients by finite differences ------------------------------------------------------------
CONV_GRADS = {
    "same_s1": dict(strides=1, padding="SAME"),
    "valid_s2": dict(strides=2, padding="VALID"),
    "same_s2": dict(strides=[2, 1], padding="SAME"),
    "dilated": dict(strides=1, padding="SAME", dilations=2),
    "explicit": dict(strides=1, padding=[[0, 0], [1, 0], [2, 1], [0, 0]]),
    "nchw": dict(strides=2, padding="SAME", data_format="NCHW"),
}


@pytest.mark.parametrize("name", sorted(CONV_GRADS))
def test_conv2d_gradients(name):
    kw = CONV_GRADS[name]
    shape = (2, 3, 5, 4) if kw.get("data_format") == "NCHW" else (2, 5, 4, 3)
    check_gradients(lambda tf, x, f: tf.nn.conv2d(x, f, **kw),
                    [RNG.randn(*shape), RNG.randn(3, 2, 3, 2)])


def test_conv2d_gradients_with_unknown_batch():
    check_gradients(lambda tf, x, f: tf.nn.conv2d(x, f, 1, "SAME"),
                    [RNG.randn(2, 4, 4, 2), RNG.randn(3, 3, 2, 2)], shapes=[[None, 4, 4, 2], None])


@pytest.mark.parametrize("padding,stride", [("SAME", 2), ("VALID", 1)])
def test_backprop_op_gradients(padding, stride):
    x_shape, f_shape = (2, 5, 5, 2), (3, 3, 2, 3)
    dy_hw = ref_pads(5, 3, stride, 1, padding)[0]
    dy = RNG.randn(2, dy_hw, dy_hw, 3)
    st = [1, stride, stride, 1]
    check_gradients(lambda tf, f, g: tf.nn.conv2d_backprop_input(list(x_shape), f, g, st, padding),
                    [RNG.randn(*f_shape), dy])
    check_gradients(lambda tf, x, g: tf.nn.conv2d_backprop_filter(x, list(f_shape), g, st,
                                                                  padding),
                    [RNG.randn(*x_shape), dy])


def test_conv2d_transpose_gradients():
    check_gradients(lambda tf, v, f: tf.nn.conv2d_transpose(v, f, [2, 6, 6, 2], [1, 2, 2, 1]),
                    [RNG.randn(2, 3, 3, 3), RNG.randn(3, 3, 2, 3)])


@pytest.mark.parametrize("kw", [dict(strides=[1, 1, 1, 1], padding="SAME"),
                                dict(strides=[1, 2, 2, 1], padding="VALID"),
                                dict(strides=[1, 1, 1, 1], padding="SAME", rate=[2, 2]),
                                dict(strides=[1, 1, 2, 2], padding="SAME", data_format="NCHW")])
def test_depthwise_gradients(kw):
    shape = (1, 2, 5, 5) if kw.get("data_format") == "NCHW" else (1, 5, 5, 2)
    check_gradients(lambda tf, x, f: tf.nn.depthwise_conv2d(x, f, **kw),
                    [RNG.randn(*shape), RNG.randn(3, 3, 2, 2)])


def test_depthwise_backprop_op_gradients():
    st = [1, 2, 2, 1]
    dy = RNG.randn(1, 3, 3, 4)
    check_gradients(lambda tf, f, g: tf.nn.depthwise_conv2d_native_backprop_input(
        [1, 5, 5, 2], f, g, st, "SAME"), [RNG.randn(3, 3, 2, 2), dy])
    check_gradients(lambda tf, x, g: tf.nn.depthwise_conv2d_native_backprop_filter(
        x, [3, 3, 2, 2], g, st, "SAME"), [RNG.randn(1, 5, 5, 2), dy])


@pytest.mark.parametrize("fmt,shape,bias", [(None, (3, 4), 4), ("NHWC", (2, 3, 2, 4), 4),
                                            ("NCHW", (2, 3, 2, 4), 3)])
def test_bias_add_gradients(fmt, shape, bias):
    check_gradients(lambda tf, x, b: tf.nn.bias_add(x, b, data_format=fmt),
                    [RNG.randn(*shape), RNG.randn(bias)])


def test_bias_add_second_derivative_and_xw_plus_b():
    def build(tf, x, b):
        y = tf.nn.bias_add(x, b)
        g = tf.gradients(tf.reduce_sum(y * y), b)[0]      # BiasAddGrad(2y)
        return g * g
    check_gradients(build, [RNG.randn(3, 4), RNG.randn(4)])
    check_gradients(lambda tf, x, w, b: tf.nn.xw_plus_b(x, w, b),
                    [RNG.randn(3, 4), RNG.randn(4, 2), RNG.randn(2)])


def test_gradient_ops_are_the_backprop_ops():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    w = tf.Variable(np.zeros((3, 3, 1, 4), np.float32))
    y = tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), tf.zeros([4]))
    gx, gw = tf.gradients(y, [x, w])
    assert gx.op.type == "Conv2DBackpropInput" and gw.op.type == "Conv2DBackpropFilter"
    assert gx.shape.as_list() == [None, 8, 8, 1] and gw.shape.as_list() == [3, 3, 1, 4]


# -- errors --------------------------------------------------------------------------------------
X = np.zeros((1, 5, 5, 3), np.float32)
W = np.zeros((3, 3, 3, 4), np.float32)

BUILD_ERRORS = [
    (lambda: tf.nn.conv2d(X[0], W, 1, "SAME"), ValueError, "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.conv2d(X, W[:, :, :2], 1, "SAME"), ValueError,
     r"Depth of input \(3\) is not a multiple of input depth of filter \(2\)"),
    (lambda: tf.nn.conv2d(X, np.zeros((6, 6, 3, 1), np.float32), 1, "VALID"), ValueError,
     "Negative dimension size caused by subtracting 6 from 5 for 'Conv2D' "
     r"\(op: 'Conv2D'\) with input shapes: \[1,5,5,3\], \[6,6,3,1\]"),
    (lambda: tf.nn.conv2d(X, W, 1, "VALID", dilations=3), ValueError,
     "Negative dimension size caused by subtracting 7 from 5"),
    (lambda: tf.nn.conv2d(X, W, [1, 1, 1], "SAME"), ValueError,
     "strides should be of length 1, 2 or 4 but was 3"),
    (lambda: tf.nn.conv2d(X, W, [1, 0, 1, 1], "SAME"), ValueError, "Stride must be > 0, but got 0"),
    (lambda: tf.nn.conv2d(X, W, 1, "FOO"), ValueError,
     "Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: "
     "\"SAME\", \"VALID\", \"EXPLICIT\"."),
    (lambda: tf.nn.conv2d(X, W, 1, "SAME", data_format="NHCW"), ValueError,
     "Attr 'data_format' of 'Conv2D' Op passed string 'NHCW' not in"),
    (lambda: tf.nn.conv2d(X, W, 1, [[1, 0], [1, 1], [0, 0], [0, 0]]), ValueError,
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    (lambda: tf.nn.conv2d(X, W, 1, "EXPLICIT"), ValueError, "is not a valid value for the padding"),
    (lambda: tf.nn.conv2d(X.astype(np.int32), W.astype(np.int32), 1, "SAME"), TypeError,
     "Value passed to parameter 'input' has DataType int32 not in list of allowed values: "
     "float16, bfloat16, float32, float64"),
    (lambda: tf.nn.conv2d(tf.constant(X), tf.constant(W, tf.float64), 1, "SAME"), TypeError,
     "Input 'filter' of 'Conv2D' Op has type float64 that does not match type float32"),
    (lambda: tf.nn.conv2d(X, W, 1, "SAME", filter=W, filters=W), TypeError, "multiple values"),
    (lambda: tf.nn.depthwise_conv2d(X, W[:, :, :2], [1, 1, 1, 1], "SAME"), ValueError,
     "Dimensions must be equal, but are 3 and 2"),
    (lambda: tf.nn.depthwise_conv2d(X, W, [1, 2, 1, 1], "SAME"), ValueError,
     "only supports equal length strides in the row and column dimensions"),
]


@pytest.mark.parametrize("case", range(len(BUILD_ERRORS)))
def test_build_time_errors(case):
    build, cls, pattern = BUILD_ERRORS[case]
    with pytest.raises(cls, match=pattern):
        build()


def _runtime_error(x_shape, f_shape, **kw):
    x = tf.placeholder(tf.float32)
    f = tf.placeholder(tf.float32)
    y = tf.nn.conv2d(x, f, **kw)
    return lambda: run(y, {x: np.zeros(x_shape, np.float32), f: np.zeros(f_shape, np.float32)})


RUNTIME_ERRORS = [
    (((1, 3, 3, 1), (5, 5, 1, 1), 1, "VALID"), tf.errors.InvalidArgumentError,
     r"Computed output size would be negative: -1 \[input_size: 3, effective_filter_size: 5, "
     r"stride: 1\]"),
    (((3, 3, 1), (1, 1, 1, 1), 1, "VALID"), tf.errors.InvalidArgumentError,
     r"input must be 4-dimensional\[3,3,1\]"),
    (((1, 3, 3, 1), (1, 1, 1), 1, "VALID"), tf.errors.InvalidArgumentError,
     r"filter must be 4-dimensional: \[1,1,1\]"),
    (((1, 3, 3, 3), (1, 1, 2, 1), 1, "VALID"), tf.errors.InvalidArgumentError,
     "input depth must be evenly divisible by filter depth: 3 vs 2"),
    (((1, 3, 3, 4), (1, 1, 2, 2), 1, "VALID"), tf.errors.UnimplementedError,
     "does not support grouped convolutions"),
    # Invalid for any implementation: TF 2.x checks it first (TF 1.15 said Unimplemented).
    (((1, 3, 3, 4), (1, 1, 2, 1), 1, "VALID"), tf.errors.InvalidArgumentError,
     "output depth must be evenly divisible by number of groups: 1 vs 2"),
    (((1, 3, 3, 1), (1, 1, 1, 1), [2, 1, 1, 1], "VALID"), tf.errors.InvalidArgumentError,
     "does not yet support strides in the batch and depth dimensions"),
]


@pytest.mark.parametrize("case", range(len(RUNTIME_ERRORS)))
def test_runtime_errors(case):
    (x_shape, f_shape, strides, padding), cls, pattern = RUNTIME_ERRORS[case]
    with pytest.raises(cls, match=pattern):
        _runtime_error(x_shape, f_shape, strides=strides, padding=padding)()


def test_runtime_empty_output_like_tf():
    # input 4, filter 5, VALID: TF's C++ division gives 0 rows, an empty result.
    assert _runtime_error((1, 4, 4, 1), (5, 5, 1, 1), strides=1, padding="VALID")().shape == \
        (1, 0, 0, 1)


def test_bias_add_runtime_errors():
    x = tf.placeholder(tf.float32)
    b = tf.placeholder(tf.float32)
    y = tf.nn.bias_add(x, b)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Must provide as many biases as the last dimension of the input "
                             r"tensor: \[3\] vs. \[2,4\]"):
        run(y, {x: np.zeros((2, 4)), b: np.zeros(3)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input tensor must be at least 2D: \[4\]"):
        run(y, {x: np.zeros(4), b: np.zeros(4)})
