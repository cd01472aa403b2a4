"""Depthwise convolution: `tf.nn.depthwise_conv2d` and the `DepthwiseConv2dNative` ops.

Each input channel is convolved with its own `channel_multiplier` filters (filter shape
[h, w, in_channels, channel_multiplier]); nothing is summed across channels, so the
output has in_channels * channel_multiplier channels. MobileNet-style networks pair it
with a 1x1 conv2d. Kernels: kernels/cpu/depthwise_kernels.py; gradients: ops/conv_grad.py.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import depthwise_kernels
from tfteach.ops.op_builder import apply_op, deprecated_argument_lookup
from tfteach.ops.typed_inputs import convert_fixed_type, convert_same_type
from tfteach.nn.conv_shapes import depthwise_shape, shape_from_tensor
from tfteach.nn.nn_dtypes import FLOATS, check_dtype

__all__ = ["depthwise_conv2d", "depthwise_conv2d_native", "depthwise_conv2d_native_backprop_input",
           "depthwise_conv2d_native_backprop_filter"]

register_op("DepthwiseConv2dNative", depthwise_shape, cpu=depthwise_kernels.depthwise_conv2d)
register_op("DepthwiseConv2dNativeBackpropInput",
            lambda op: [(op._inputs[1].dtype.base_dtype, shape_from_tensor(op._inputs[0]))],
            cpu=depthwise_kernels.depthwise_backprop_input)
register_op("DepthwiseConv2dNativeBackpropFilter",
            lambda op: [(op._inputs[0].dtype.base_dtype, shape_from_tensor(op._inputs[1]))],
            cpu=depthwise_kernels.depthwise_backprop_filter)


def _attrs(op_type, dtype, strides, padding, data_format, dilations):
    from tfteach.nn.conv_ops import conv_attrs   # (conv_ops imports this module)
    return conv_attrs(op_type, dtype, strides, padding, data_format or "NHWC",
                      dilations or [1, 1, 1, 1])


def _apply(op_type, named, strides, padding, data_format, dilations, name, sizes=None):
    with name_scope(name, op_type, [v for _, v in named]) as scope:
        floats = [(n, v) for n, v in named if n not in ("input_sizes", "filter_sizes")]
        a, b = convert_same_type(op_type, floats)
        check_dtype(a.dtype, FLOATS, floats[0][0])
        tensors = {floats[0][0]: a, floats[1][0]: b}
        for n, v in named:
            if n not in tensors:
                tensors[n] = convert_fixed_type(op_type, [(n, v)], dtypes.int32)[0]
        attrs = _attrs(op_type, a.dtype.base_dtype, strides, padding, data_format, dilations)
        return apply_op(op_type, [tensors[n] for n, _ in named], attrs, scope)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The `DepthwiseConv2dNative` op: `strides` / `dilations` are 4 numbers."""
    return _apply("DepthwiseConv2dNative", [("input", input), ("filter", filter)], strides,
                  padding, data_format, dilations, name)


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop,  # noqa: A002
                                           strides, padding, data_format="NHWC",
                                           dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    return _apply("DepthwiseConv2dNativeBackpropInput",
                  [("input_sizes", input_sizes), ("filter", filter),
                   ("out_backprop", out_backprop)], strides, padding, data_format, dilations,
                  name)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    return _apply("DepthwiseConv2dNativeBackpropFilter",
                  [("input", input), ("filter_sizes", filter_sizes),
                   ("out_backprop", out_backprop)], strides, padding, data_format, dilations,
                  name)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """Depthwise 2-D convolution; `rate` [r_h, r_w] dilates the filter (atrous).

    TF builds SpaceToBatchND / BatchToSpaceND around the op for rate > 1; tfteach passes
    the rate as the op's dilations, which gives the same values.
    """
    rate = deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with name_scope(name, "depthwise", [input, filter]) as scope:
        x = convert.convert_to_tensor(input, name="tensor_in")
        f = convert.convert_to_tensor(filter, name="filter_in")
        rate = [1, 1] if rate is None else [int(r) for r in rate]
        if len(rate) != 2:
            raise ValueError("rate must have shape [2], got %d values" % len(rate))
        if any(r < 1 for r in rate):
            raise ValueError("dilation_rate must be positive")
        if any(r > 1 for r in rate) and any(s != 1 for s in strides):
            raise ValueError("When dilation rate is greater than 1, then all values of "
                             "strides must be 1.")
        fmt = data_format or "NHWC"
        dil = [1, 1] + rate if fmt == "NCHW" else [1] + rate + [1]
        return depthwise_conv2d_native(x, f, strides, padding, data_format=fmt,
                                       dilations=dil, name=scope)
