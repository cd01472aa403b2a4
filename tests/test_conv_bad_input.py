"""Bad inputs to the convolution family: TF's error class and text, never a crash.

Each case was run against TensorFlow (2.21 via compat.v1; TF 1.15's texts where it had
the check). Before these fixes tfteach divided by zero, indexed out of range, raised
NumPy's reshape error, gave a wrong error class, or returned a silently wrong result.
Static problems are ValueError / TypeError at graph build; fed values are
InvalidArgumentError when the session runs.
"""
import numpy as np
import pytest

import tfteach as tf


def ones(*shape):
    return np.ones(shape, np.float32)


def fed(*values):
    """Float32 placeholders of unknown shape and the feed dict giving them `values`."""
    phs = [tf.placeholder(tf.float32) for _ in values]
    return phs, dict(zip(phs, values))


def run_error(build, cls, pattern):
    tf.reset_default_graph()
    y, feed = build()
    with tf.Session() as sess:
        with pytest.raises(cls, match=pattern):
            sess.run(y, feed)


# -- run time: the kernels' attribute and size checks ------------------------------------------
def _bpi(strides, dilations=(1, 1, 1, 1)):
    def build():
        (f, dy), feed = fed(ones(3, 3, 1, 2), ones(1, 3, 3, 2))
        return tf.nn.conv2d_backprop_input([1, 5, 5, 1], f, dy, list(strides), "VALID",
                                           dilations=list(dilations)), feed
    return build


def _bpf(strides):
    def build():
        (x, dy), feed = fed(ones(1, 5, 5, 1), ones(1, 3, 3, 2))
        return tf.nn.conv2d_backprop_filter(x, [3, 3, 1, 2], dy, list(strides), "VALID"), feed
    return build


def _tconv_strides(strides):
    def build():
        return tf.nn.conv2d_transpose(ones(1, 3, 3, 2), ones(3, 3, 1, 2), [1, 5, 5, 1],
                                      list(strides), "VALID"), {}
    return build


def _depthwise_filter(shape, padding="VALID"):
    def build():
        (x, f), feed = fed(ones(1, 9, 9, 2), ones(*shape))
        return tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], padding), feed
    return build


def _depthwise_sizes(which, sizes):
    def build():
        s = tf.placeholder(tf.int32)
        if which == "input":
            y = tf.nn.depthwise_conv2d_native_backprop_input(
                s, ones(3, 3, 2, 1), ones(1, 7, 7, 2), [1, 1, 1, 1], "VALID")
        else:
            y = tf.nn.depthwise_conv2d_native_backprop_filter(
                ones(1, 9, 9, 2), s, ones(1, 7, 7, 2), [1, 1, 1, 1], "VALID")
        return y, {s: sizes}
    return build


RUNTIME_CASES = {
    # was "integer division or modulo by zero" (TF 1.15 and 2.21 abort the process)
    "backprop_input_zero_stride": (_bpi([1, 0, 1, 1]), "Row and column strides should be "
                                   r"larger than 0\."),
    "backprop_input_negative_stride": (_bpi([1, 1, -1, 1]), "Row and column strides should "
                                       r"be larger than 0\."),
    "backprop_filter_zero_stride": (_bpf([1, 0, 1, 1]), "Row and column strides should be "
                                    r"larger than 0\."),
    "conv2d_transpose_zero_stride": (_tconv_strides([1, 0, 0, 1]), "Row and column strides "
                                     r"should be larger than 0\."),
    # was "list index out of range"
    "backprop_input_two_strides": (_bpi([1, 1]), "Sliding window strides field must specify "
                                   "4 dimensions"),
    "backprop_input_two_dilations": (_bpi([1, 1, 1, 1], [1, 1]), "Sliding window dilations "
                                     "field must specify 4 dimensions"),
    # was a misleading "Size of out_backprop doesn't match computed ... dilation: 0"
    "backprop_input_zero_dilation": (_bpi([1, 1, 1, 1], [1, 0, 1, 1]), "Dilated rates should "
                                     r"be larger than 0\."),
    # was a silently wrong result: (1, 10, 7, 2), (1, 7, 7, 0) and an all-zero (1, 9, 9, 2)
    "depthwise_zero_height_filter": (_depthwise_filter((0, 3, 2, 1)), r"filter must not have "
                                     r"zero elements \(i\.e\. all dimensions must be non-zero\)"),
    "depthwise_zero_multiplier": (_depthwise_filter((3, 3, 2, 0)), "filter must not have zero "
                                  "elements"),
    "depthwise_empty_filter_same": (_depthwise_filter((0, 0, 2, 1), "SAME"), "filter must not "
                                    "have zero elements"),
    # were "Computed output size would be negative ... input_size: -9" and an
    # out_backprop-shape message naming a size computed from the negative entry
    "depthwise_backprop_input_negative_size": (_depthwise_sizes("input", [1, 9, -9, 2]),
                                               "Dimension -9 must be >= 0"),
    "depthwise_backprop_filter_negative_size": (_depthwise_sizes("filter", [3, -3, 2, 1]),
                                                "Dimension -3 must be >= 0"),
}


@pytest.mark.parametrize("case", sorted(RUNTIME_CASES))
def test_fed_bad_input_is_invalid_argument(case):
    build, pattern = RUNTIME_CASES[case]
    run_error(build, tf.errors.InvalidArgumentError, pattern)


def test_depthwise_zero_filter_is_an_error_even_with_static_shapes():
    # TF 2.21 gives garbage here ((1, 10, 7, 2) of zeros for a 0-row filter) while the
    # same program with fed values is the error: a TF bug; tfteach errs in both cases.
    run_error(lambda: (tf.nn.depthwise_conv2d(ones(1, 9, 9, 2), ones(0, 3, 2, 1),
                                              [1, 1, 1, 1], "VALID"), {}),
              tf.errors.InvalidArgumentError, "filter must not have zero elements")


# -- graph build: static problems -----------------------------------------------------------
BUILD_CASES = {
    # was an InvalidArgumentError only at run time ("Dimension -5 must be >= 0")
    "conv2d_transpose_negative_output_shape": (
        lambda: tf.nn.conv2d_transpose(ones(1, 3, 3, 2), ones(3, 3, 1, 2), [1, -5, 5, 1],
                                       [1, 1, 1, 1], "VALID"),
        ValueError, "Invalid value in tensor used for shape: -5"),
    "backprop_filter_negative_filter_sizes": (
        lambda: tf.nn.conv2d_backprop_filter(ones(1, 5, 5, 1), [3, -2, 1, 2],
                                             ones(1, 3, 3, 2), [1, 1, 1, 1], "VALID"),
        ValueError, "Invalid value in tensor used for shape: -2"),
    # was ValueError "Tensor conversion requested dtype int32 ..."
    "backprop_input_float_input_sizes": (
        lambda: tf.nn.conv2d_backprop_input(tf.placeholder(tf.float32), ones(3, 3, 1, 2),
                                            ones(1, 3, 3, 2), [1, 1, 1, 1], "VALID"),
        TypeError, "Input 'input_sizes' of 'Conv2DBackpropInput' Op has type float32 that "
                   "does not match expected type of int32"),
    "backprop_filter_float_filter_sizes": (
        lambda: tf.nn.conv2d_backprop_filter(ones(1, 5, 5, 1), tf.placeholder(tf.float32),
                                             ones(1, 3, 3, 2), [1, 1, 1, 1], "VALID"),
        TypeError, "Input 'filter_sizes' of 'Conv2DBackpropFilter' Op has type float32"),
    "depthwise_backprop_input_float_sizes": (
        lambda: tf.nn.depthwise_conv2d_native_backprop_input(
            tf.placeholder(tf.float32), ones(3, 3, 2, 1), ones(1, 7, 7, 2), [1, 1, 1, 1],
            "VALID"),
        TypeError, "Input 'input_sizes' of 'DepthwiseConv2dNativeBackpropInput' Op has type "
                   "float32"),
    # the message was tfteach's own
    "conv2d_negative_explicit_padding": (
        lambda: tf.nn.conv2d(ones(1, 5, 5, 1), ones(3, 3, 1, 1), [1, 1, 1, 1],
                             [[0, 0], [-1, 1], [1, 1], [0, 0]]),
        ValueError, "All elements of explicit_paddings must be nonnegative"),
    # was the op's shape-function text ("Dilation rate must be >= 1, but got 0")
    "convolution_zero_dilation_rate": (
        lambda: tf.nn.convolution(ones(1, 9, 9, 1), ones(3, 3, 1, 1), "VALID",
                                  dilation_rate=[0, 1]),
        ValueError, "^dilation_rate must be positive$"),
    # were silently read as NHWC (anything not starting "NC") or NCHW ("NCW")
    "convolution_data_format_hwnc": (
        lambda: tf.nn.convolution(ones(1, 9, 9, 1), ones(3, 3, 1, 1), "VALID",
                                  data_format="HWNC"),
        ValueError, '^data_format must be "NHWC" or "NCHW".$'),
    "convolution_data_format_ncw_on_2d": (
        lambda: tf.nn.convolution(ones(1, 1, 9, 9), ones(3, 3, 1, 1), "VALID",
                                  data_format="NCW"),
        ValueError, '^data_format must be "NHWC" or "NCHW".$'),
    # was accepted (TF 1.15's layer builds nn_ops.Convolution, which refuses it)
    "layers_conv2d_strides_and_dilation": (
        lambda: tf.layers.conv2d(ones(1, 9, 9, 1), 2, 3, strides=2, dilation_rate=2),
        ValueError, "^strides > 1 not supported in conjunction with dilation_rate > 1$"),
    # were read with int() ("1" -> 1): TF's op_def_library refuses a string
    "conv2d_string_strides": (
        lambda: tf.nn.conv2d(ones(1, 5, 5, 1), ones(3, 3, 1, 1), "1", "VALID"),
        TypeError, "^Expected int for argument 'strides' not '1'.$"),
    "conv2d_string_dilation": (
        lambda: tf.nn.conv2d(ones(1, 5, 5, 1), ones(3, 3, 1, 1), 1, "VALID",
                             dilations=[1, "2", 2, 1]),
        TypeError, "^Expected int for argument 'dilations' not '2'.$"),
    "backprop_input_string_stride": (
        lambda: tf.nn.conv2d_backprop_input([1, 5, 5, 1], ones(3, 3, 1, 2), ones(1, 3, 3, 2),
                                            [1, "1", 1, 1], "VALID"),
        TypeError, "^Expected int for argument 'strides' not '1'.$"),
    # was accepted (a bool "sum")
    "bias_add_bool": (
        lambda: tf.nn.bias_add(np.ones((2, 3), bool), np.ones(3, bool)),
        TypeError, "Value passed to parameter 'value' has DataType bool not in list of "
                   "allowed values: float32, float64, int32"),
}


@pytest.mark.parametrize("case", sorted(BUILD_CASES))
def test_static_bad_input_fails_at_graph_build(case):
    build, cls, pattern = BUILD_CASES[case]
    tf.reset_default_graph()
    with pytest.raises(cls, match=pattern):
        build()


# -- silently wrong / crashing before, correct now -------------------------------------------
def test_conv2d_transpose_with_zero_channels_is_zeros():
    # value and filter with 0 channels: nothing flows back; was NumPy's "cannot reshape
    # array of size 0 into shape (0)" (TF: zeros of output_shape).
    tf.reset_default_graph()
    y = tf.nn.conv2d_transpose(ones(1, 3, 3, 0), ones(3, 3, 1, 0), [1, 5, 5, 1],
                               [1, 1, 1, 1], "VALID")
    with tf.Session() as sess:
        out = sess.run(y)
    assert out.shape == (1, 5, 5, 1) and not out.any()


def test_conv2d_backprop_filter_with_zero_out_channels_is_empty():
    tf.reset_default_graph()
    y = tf.nn.conv2d_backprop_filter(ones(1, 5, 5, 1), [3, 3, 1, 0], ones(1, 3, 3, 0),
                                     [1, 1, 1, 1], "VALID")
    with tf.Session() as sess:
        assert sess.run(y).shape == (3, 3, 1, 0)


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 3, 2, 4, 5)])
def test_bias_add_nchw_other_ranks_adds_along_axis_1(shape):
    # TF 1.15's shape function merged an NCHW bias into dimension -3 (axis 1 only at rank
    # 4) and refused these valid inputs at graph build, while its kernel (and later TFs)
    # add along axis 1. tfteach follows the kernel, statically and when fed.
    tf.reset_default_graph()
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    bias = np.array([10, 20, 30], np.float32)
    expected = x + bias.reshape((1, 3) + (1,) * (len(shape) - 2))
    y = tf.nn.bias_add(x, bias, data_format="NCHW")
    assert y.shape.as_list() == list(shape)
    p = tf.placeholder(tf.float32, [None] * len(shape))
    yp = tf.nn.bias_add(p, bias, data_format="NCHW")
    assert yp.shape.as_list() == [None, 3] + [None] * (len(shape) - 2)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), expected)
        np.testing.assert_array_equal(sess.run(yp, {p: x}), expected)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
        tf.nn.bias_add(ones(*shape[:1] + (4,) + shape[2:]), bias, data_format="NCHW")


@pytest.mark.parametrize("build", [
    lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), None, 1, "SAME"),
    lambda: tf.add(tf.ones([2]), None),
    lambda: tf.matmul(None, tf.ones([2, 2])),
    lambda: tf.constant(None),
    lambda: tf.nn.relu(None),
    lambda: tf.convert_to_tensor(None)])
def test_none_for_a_tensor_is_tfs_value_error(build):
    # A forgotten return value passed on (a frequent student slip): TF's ValueError text,
    # not a "failed to convert NoneType" TypeError.
    with pytest.raises(ValueError, match="None values not supported"):
        build()
