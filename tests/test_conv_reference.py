"""Differential tests: convolutions on tfteach and on TensorFlow (`tf.compat.v1`, graph mode).

Values, dtypes, static shapes, tensor names, error classes and messages, gradient values.
TensorFlow's CPU kernels refuse NCHW (TF 1.15: "Generic conv implementation only
supports NHWC"), so tfteach's NCHW results are compared with TF's NHWC ones, transposed.
Runtime errors are only compared where TF 2.x raises one: its oneDNN kernels abort the
process on some malformed inputs (a rank-3 input fed to a placeholder), never tried here.
"""
import numpy as np
import pytest

from gradient_check import check_gradients_match_tensorflow
from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytest.importorskip("tensorflow")
import tfteach  # noqa: E402

RNG = np.random.RandomState(3)
X = RNG.randn(2, 9, 8, 3).astype(np.float32)
X_ODD = RNG.randn(2, 7, 7, 3).astype(np.float32)
W3 = RNG.randn(3, 3, 3, 4).astype(np.float32)
W4 = RNG.randn(4, 4, 3, 2).astype(np.float32)
W2 = RNG.randn(2, 2, 3, 5).astype(np.float32)
DW = RNG.randn(3, 3, 3, 2).astype(np.float32)
B4 = RNG.randn(4).astype(np.float32)


def _convs(tf, x, w):
    return [tf.nn.conv2d(x, w, [1, s, s, 1], p) for p in ("SAME", "VALID") for s in (1, 2, 3)]


PROGRAMS = {
    "conv_k3": lambda tf: _convs(tf, X, W3),
    "conv_k4_even": lambda tf: _convs(tf, X, W4),
    "conv_k2_odd_input": lambda tf: _convs(tf, X_ODD, W2),
    "conv_dilated": lambda tf: [tf.nn.conv2d(X, W3, 1, p, dilations=d)
                                for p in ("SAME", "VALID") for d in (2, [1, 2, 3, 1])],
    "conv_explicit": lambda tf: tf.nn.conv2d(X, W3, [1, 2, 1, 1],
                                             [[0, 0], [2, 1], [0, 3], [0, 0]]),
    "conv_unequal_strides": lambda tf: tf.nn.conv2d(X, W4, [1, 3, 2, 1], "SAME"),
    "conv_float64": lambda tf: _convs(tf, X.astype(np.float64), W3.astype(np.float64)),
    "conv_float16": lambda tf: tf.nn.conv2d(X.astype(np.float16), W3.astype(np.float16), 1,
                                            "SAME"),
    "convolution": lambda tf: [tf.nn.convolution(X, W3, "SAME"),
                               tf.nn.convolution(X, W3, "VALID", dilation_rate=[2, 2]),
                               tf.nn.convolution(X, W3, "SAME", strides=[2, 1])],
    "conv2d_transpose": lambda tf: [
        tf.nn.conv2d_transpose(RNG.randn(2, 5, 4, 4).astype(np.float32), W3, [2, 9, 8, 3],
                               [1, 2, 2, 1], "SAME"),
        tf.nn.conv2d_transpose(RNG.randn(2, 3, 2, 4).astype(np.float32), W3, [2, 9, 8, 3],
                               [1, 3, 3, 1], "VALID"),
        tf.nn.conv2d_transpose(RNG.randn(2, 9, 8, 4).astype(np.float32), W3, [2, 9, 8, 3],
                               1)],
    "backprop_ops": lambda tf: [
        tf.nn.conv2d_backprop_input([2, 9, 8, 3], W3, RNG.randn(2, 5, 4, 4).astype(np.float32),
                                    [1, 2, 2, 1], "SAME"),
        tf.nn.conv2d_backprop_filter(X, [3, 3, 3, 4], RNG.randn(2, 4, 3, 4).astype(np.float32),
                                     [1, 2, 2, 1], "VALID")],
    "depthwise": lambda tf: [tf.nn.depthwise_conv2d(X, DW, [1, s, s, 1], p)
                             for p in ("SAME", "VALID") for s in (1, 2)],
    "depthwise_rate": lambda tf: [tf.nn.depthwise_conv2d(X, DW, [1, 1, 1, 1], p, rate=[2, 2])
                                  for p in ("SAME", "VALID")],
    "depthwise_native": lambda tf: tf.nn.depthwise_conv2d_native(X, DW, [1, 2, 2, 1], "SAME"),
    "bias_add": lambda tf: [tf.nn.bias_add(RNG.randn(2, 3, 4).astype(np.float32), B4),
                            tf.nn.bias_add(RNG.randn(3, 4), B4.astype(np.float64)),
                            tf.nn.bias_add(RNG.randn(2, 4, 3, 3).astype(np.float32), B4,
                                           data_format="NCHW")],
    "xw_plus_b": lambda tf: tf.nn.xw_plus_b(RNG.randn(3, 5).astype(np.float32),
                                            RNG.randn(5, 4).astype(np.float32), B4),
}


def _program(fetch):
    # Fixed random inputs inside a program must be the same on both sides.
    def build(tf):
        state = RNG.get_state()
        try:
            return fetch(tf), None
        finally:
            RNG.set_state(state)
    return build


def _as_list(x):
    return x if isinstance(x, list) else [x]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_values_dtypes_and_shapes(name):
    expected, got = run_both(_program(PROGRAMS[name]))
    for e, g in zip(_as_list(expected), _as_list(got)):
        e, g = np.asarray(e), np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape
        tol = {np.float16: 1e-2, np.float32: 2e-5}.get(e.dtype.type, 1e-12)
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol * 10)


def _names(tf, fetch):
    with tf.Graph().as_default():
        state = RNG.get_state()
        result = [(t.name, t.shape.as_list(), t.dtype.name, t.op.type)
                  for t in _as_list(fetch(tf))]
        RNG.set_state(state)
        return result


# convolution / depthwise with rate: TF wraps SpaceToBatchND around the op (other names).
@pytest.mark.parametrize("name", ["conv_k3", "conv_explicit", "conv2d_transpose", "backprop_ops",
                                  "depthwise", "depthwise_native", "bias_add", "xw_plus_b"])
def test_same_tensor_names_and_static_shapes(name):
    assert _names(tfteach, PROGRAMS[name]) == _names(tensorflow_v1(), PROGRAMS[name])


def test_static_shapes_with_unknown_dimensions():
    def fetch(tf):
        x = tf.placeholder(tf.float32, [None, 28, None, 1])
        w = tf.placeholder(tf.float32, [5, 5, 1, None])
        return [tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), tf.nn.conv2d(x, w, 1, "VALID"),
                tf.nn.conv2d(tf.placeholder(tf.float32), w, 1, "SAME"),
                tf.nn.depthwise_conv2d(x, tf.placeholder(tf.float32, [3, 3, 1, 4]),
                                       [1, 1, 1, 1], "VALID"),
                tf.nn.bias_add(x, tf.placeholder(tf.float32, [None]))]
    assert _names(tfteach, fetch) == _names(tensorflow_v1(), fetch)


def test_same_padding_sizes_need_no_filter_size():
    """SAME's output size is ceil(input / stride) whatever the filter: known even when the
    filter's sizes are not (VALID's is then unknown)."""
    def fetch(tf):
        x = tf.placeholder(tf.float32, [None, 7, 5, 3])
        w = tf.placeholder(tf.float32, [None, None, None, None])
        return [tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), tf.nn.conv2d(x, w, 1, "VALID"),
                tf.nn.conv2d(x, w, [1, 3, 1, 1], "SAME", dilations=[1, 1, 1, 1])]
    assert _names(tfteach, fetch) == _names(tensorflow_v1(), fetch)


@pytest.mark.parametrize("stride,padding", [(1, "SAME"), (2, "VALID"), (2, "SAME")])
def test_nchw_matches_tensorflow_nhwc(stride, padding):
    def ours(tf):
        x = np.ascontiguousarray(X.transpose(0, 3, 1, 2))
        return [tf.nn.conv2d(x, W3, stride, padding, data_format="NCHW")], None
    with tfteach.Graph().as_default(), tfteach.Session() as sess:
        got = sess.run(ours(tfteach)[0])[0]
    tf = tensorflow_v1()
    with tf.Graph().as_default(), tf.Session() as sess:
        expected = sess.run(tf.nn.conv2d(X, W3, stride, padding))
    np.testing.assert_allclose(got.transpose(0, 2, 3, 1), expected, rtol=2e-5, atol=2e-5)


# -- errors ----------------------------------------------------------------------------------------
def _fed_conv(x_shape, f_shape, **kw):
    def build(tf):
        x = tf.placeholder(tf.float32)
        f = tf.placeholder(tf.float32)
        return tf.nn.conv2d(x, f, **kw), {x: np.zeros(x_shape, np.float32),
                                         f: np.zeros(f_shape, np.float32)}
    return build


def _fed_transpose(value_shape, output_shape, strides):
    def build(tf):
        v = tf.placeholder(tf.float32)
        return tf.nn.conv2d_transpose(v, W3, output_shape, strides), \
            {v: np.zeros(value_shape, np.float32)}
    return build


ERRORS = {
    "rank3": lambda tf: tf.nn.conv2d(X[0], W3, 1, "SAME"),
    "depth": lambda tf: tf.nn.conv2d(X, W3[:, :, :2], 1, "SAME"),
    "negative": lambda tf: tf.nn.conv2d(X, np.zeros((10, 3, 3, 1), np.float32), 1, "VALID"),
    "negative_dilated": lambda tf: tf.nn.conv2d(X, W3, 1, "VALID", dilations=5),
    "zero_stride": lambda tf: tf.nn.conv2d(X, W3, [1, 0, 1, 1], "SAME"),
    "bad_padding": lambda tf: tf.nn.conv2d(X, W3, 1, "FOO"),
    "bad_data_format": lambda tf: tf.nn.conv2d(X, W3, 1, "SAME", data_format="NHCW"),
    "explicit_batch": lambda tf: tf.nn.conv2d(X, W3, 1, [[1, 0], [1, 1], [0, 0], [0, 0]]),
    "strides_length": lambda tf: tf.nn.conv2d(X, W3, [1, 1, 1], "SAME"),
    "bias_dims": lambda tf: tf.nn.bias_add(X, B4),
    "bias_rank": lambda tf: tf.nn.bias_add(B4, B4),
    "depthwise_depth": lambda tf: tf.nn.depthwise_conv2d(X, DW[:, :, :2], [1, 1, 1, 1], "SAME"),
    "transpose_rank": lambda tf: tf.nn.conv2d_transpose(X, W3, [2, 9, 8], [1, 1, 1, 1]),
}
# TF 2.x reworded these (TF 1.15's texts are tfteach's): compare the class only.
# (TF 2's Conv2DBackpropInput shape function checks input_sizes' length first; 1.15's
# MakeShapeFromShapeTensor + WithRank(4) says "Shape must be rank 4 but is rank 3".)
CLASS_ONLY = {"strides_length", "transpose_rank"}
RUNTIME_ERRORS = {
    "negative_output": _fed_conv((1, 3, 3, 1), (5, 5, 1, 1), strides=1, padding="VALID"),
    "depth_not_divisible": _fed_conv((1, 3, 3, 3), (1, 1, 2, 1), strides=1, padding="VALID"),
    "batch_stride": _fed_conv((1, 3, 3, 1), (1, 1, 1, 1), strides=[2, 1, 1, 1],
                              padding="VALID"),
    "transpose_size_mismatch": _fed_transpose((2, 5, 4, 4), [2, 12, 8, 3], [1, 2, 2, 1]),
    "transpose_depth_mismatch": _fed_transpose((2, 5, 4, 2), [2, 9, 8, 3], [1, 2, 2, 1]),
}
# TF 2.x raises Unimplemented (batch stride) or, from its oneDNN kernel, Aborted (the
# transposed-convolution checks) where TF 1.15 and tfteach raise InvalidArgument.
RUNTIME_CLASS_DIFFERS = {"batch_stride", "transpose_size_mismatch", "transpose_depth_mismatch"}
# Messages TF 2.x kept from TF 1.15.
RUNTIME_SAME_TEXT = {"negative_output"}


def core_message(exc):
    """TF 2's build-time shape errors print the NodeDef where TF 1 printed
    `'NAME' (op: 'TYPE')`: compare the part before."""
    return first_line(exc).split(" for '")[0]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_build_errors(name):
    expected, got = errors_of_both(lambda tf: (ERRORS[name](tf), None))
    assert expected is not None and got is not None
    assert type(got).__name__ == type(expected).__name__
    if name not in CLASS_ONLY:
        assert core_message(got) == core_message(expected)


@pytest.mark.parametrize("name", sorted(RUNTIME_ERRORS))
def test_same_runtime_error_classes(name):
    expected, got = errors_of_both(RUNTIME_ERRORS[name])
    assert expected is not None and got is not None
    if name not in RUNTIME_CLASS_DIFFERS:
        assert type(got).__name__ == type(expected).__name__
    if name in RUNTIME_SAME_TEXT:     # TF 2 wraps it in "Graph execution error: ..."
        assert first_line(got).split(" [[")[0].strip() in str(expected)


# -- gradients --------------------------------------------------------------------------------
X64 = RNG.randn(2, 6, 5, 3)
W64 = RNG.randn(3, 2, 3, 2)
GRADIENTS = {
    "conv_same": (lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME"), [X64, W64]),
    "conv_valid_s2": (lambda tf, x, w: tf.nn.conv2d(x, w, 2, "VALID"), [X64, W64]),
    # (no dilated case: TF's CPU Conv2DBackpropFilter refuses dilations > 1; tfteach's
    # dilated gradients are checked by finite differences in test_conv_ops.py)
    "conv_explicit": (lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 1, 1],
                                                    [[0, 0], [1, 2], [0, 1], [0, 0]]),
                      [X64, W64]),
    "conv2d_transpose": (lambda tf, v, w: tf.nn.conv2d_transpose(v, w, [2, 6, 5, 2],
                                                                 [1, 2, 2, 1]),
                         [RNG.randn(2, 3, 3, 3), RNG.randn(3, 3, 2, 3)]),
    "depthwise": (lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"),
                  [X64, RNG.randn(3, 3, 3, 2)]),
    "bias_add": (lambda tf, x, b: tf.nn.bias_add(x, b), [X64, RNG.randn(3)]),
    "bias_add_nchw": (lambda tf, x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
                      [X64, RNG.randn(6)]),
    "xw_plus_b": (lambda tf, x, w, b: tf.nn.xw_plus_b(x, w, b),
                  [RNG.randn(3, 4), RNG.randn(4, 2), RNG.randn(2)]),
    "conv_second_order": (lambda tf, x, w: tf.gradients(
        tf.reduce_sum(tf.square(tf.nn.conv2d(x, w, 2, "SAME"))), w)[0], [X64, W64]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_tensorflow(name):
    build, inputs = GRADIENTS[name]
    check_gradients_match_tensorflow(build, inputs, rtol=1e-10, atol=1e-10)
