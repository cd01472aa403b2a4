"""2-D convolution in `tf.nn`: conv2d, its two backprop ops, conv2d_transpose, convolution.

Op types and attributes are TF 1.15's: `Conv2D(input, filter)`,
`Conv2DBackpropInput(input_sizes, filter, out_backprop)` and
`Conv2DBackpropFilter(input, filter_sizes, out_backprop)`, each with `strides`,
`padding` ("SAME", "VALID" or "EXPLICIT" + `explicit_paddings`), `data_format`
("NHWC" or "NCHW"), `dilations` and `use_cudnn_on_gpu` (kept for TF's signatures; there
is no GPU). `conv2d_transpose` is `Conv2DBackpropInput` (the gradient of a convolution
with respect to its input *is* the transposed convolution), as in TF.

The depthwise convolutions (depthwise_ops.py) and bias_add / xw_plus_b (bias_ops.py)
are re-exported from here. Shape functions: conv_shapes.py; kernels:
kernels/cpu/conv_kernels.py; gradients: ops/conv_grad.py. docs/conv.md explains the
padding arithmetic.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import conv_kernels
from tfteach.ops.op_builder import apply_op, deprecated_argument_lookup
from tfteach.ops.typed_inputs import convert_fixed_type, convert_same_type
from tfteach.nn.conv_shapes import (check_data_format, check_padding, conv2d_shape,
                                    convert_padding, get_sequence, make_int,
                                    shape_from_tensor)
from tfteach.nn.nn_dtypes import FLOATS, check_dtype
from tfteach.nn.bias_ops import bias_add, xw_plus_b
from tfteach.nn.depthwise_ops import (depthwise_conv2d, depthwise_conv2d_native,
                                      depthwise_conv2d_native_backprop_filter,
                                      depthwise_conv2d_native_backprop_input)

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose",
           "convolution", "depthwise_conv2d", "depthwise_conv2d_native",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
           "bias_add", "xw_plus_b"]


def _backprop_input_shape(op):
    return [(op._inputs[1].dtype.base_dtype, shape_from_tensor(op._inputs[0]))]


def _backprop_filter_shape(op):
    return [(op._inputs[0].dtype.base_dtype, shape_from_tensor(op._inputs[1]))]


register_op("Conv2D", conv2d_shape, cpu=conv_kernels.conv2d)
register_op("Conv2DBackpropInput", _backprop_input_shape, cpu=conv_kernels.conv2d_backprop_input)
register_op("Conv2DBackpropFilter", _backprop_filter_shape,
            cpu=conv_kernels.conv2d_backprop_filter)


def conv_attrs(op_type, dtype, strides, padding, data_format, dilations, explicit=(),
               use_cudnn_on_gpu=None):
    """The attribute dict of a convolution op, validated as TF's op_def_library does."""
    check_padding(op_type, padding, explicit=op_type.startswith("Conv2D"))
    check_data_format(op_type, data_format)
    for attr, value in (("strides", strides), ("dilations", dilations)):
        if not isinstance(value, (list, tuple)):
            raise TypeError("Expected list for '%s' argument to '%s' Op, not %r."
                            % (attr, op_type, value))
    attrs = {"T": dtype, "strides": [make_int(s, "strides") for s in strides],
             "padding": padding, "explicit_paddings": [int(p) for p in explicit],
             "data_format": data_format,
             "dilations": [make_int(d, "dilations") for d in dilations]}
    if use_cudnn_on_gpu is not None:
        attrs["use_cudnn_on_gpu"] = bool(use_cudnn_on_gpu)
    return attrs


def _float_pair(op_type, first, second):
    """Two `T` inputs converted like TF's op_def_library; T must be a float type."""
    a, b = convert_same_type(op_type, [first, second])
    check_dtype(a.dtype, FLOATS, first[0])
    return a, b


def _sizes(op_type, value, input_name):
    """An int32 sizes input; a tensor of another dtype is TF's TypeError (not a cast)."""
    return convert_fixed_type(op_type, [(input_name, value)], dtypes.int32)[0]


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """2-D convolution of a 4-D `input` with a [h, w, in_channels, out_channels] filter.

    `strides` / `dilations`: 1, 2 or 4 numbers (the batch and channel entries must be 1);
    `padding`: "SAME" (output size ceil(in / stride)), "VALID" (only windows that fit)
    or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
    """
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = get_sequence(strides, 2, channel_index, "strides")
    dilations = get_sequence(dilations, 2, channel_index, "dilations")
    with name_scope(name, "Conv2D", [input, filter]) as scope:
        x, f = _float_pair("Conv2D", ("input", input), ("filter", filter))
        attrs = conv_attrs("Conv2D", x.dtype.base_dtype, strides, padding, data_format,
                           dilations, explicit, use_cudnn_on_gpu)
        return apply_op("Conv2D", [x, f], attrs, scope)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None,  # noqa: A002
                          strides=None, padding=None, use_cudnn_on_gpu=True,
                          data_format="NHWC", dilations=[1, 1, 1, 1], name=None,  # noqa: B006
                          filters=None):
    """The gradient of conv2d with respect to its input, an image of shape `input_sizes`."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    with name_scope(name, "Conv2DBackpropInput", [input_sizes, filter, out_backprop]) as scope:
        sizes = _sizes("Conv2DBackpropInput", input_sizes, "input_sizes")
        f, dy = _float_pair("Conv2DBackpropInput", ("filter", filter),
                            ("out_backprop", out_backprop))
        attrs = conv_attrs("Conv2DBackpropInput", f.dtype.base_dtype, strides, padding,
                           data_format, dilations, explicit, use_cudnn_on_gpu)
        return apply_op("Conv2DBackpropInput", [sizes, f, dy], attrs, scope)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC",
                           dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of conv2d with respect to its filter, of shape `filter_sizes`."""
    padding, explicit = convert_padding(padding)
    with name_scope(name, "Conv2DBackpropFilter", [input, filter_sizes, out_backprop]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        sizes = _sizes("Conv2DBackpropFilter", filter_sizes, "filter_sizes")
        x, dy = _float_pair("Conv2DBackpropFilter", ("input", x),
                            ("out_backprop", out_backprop))
        attrs = conv_attrs("Conv2DBackpropFilter", x.dtype.base_dtype, strides, padding,
                           data_format, dilations, explicit, use_cudnn_on_gpu)
        return apply_op("Conv2DBackpropFilter", [x, sizes, dy], attrs, scope)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transposed convolution ("deconvolution"): the gradient of conv2d w.r.t. its input.

    `value` [batch, h, w, in_channels]; `filter` [kh, kw, out_channels, in_channels]
    (note the order: conv2d's filter for the convolution this undoes); `output_shape`
    the 4 numbers of the result, which must be an input shape the forward convolution
    maps to `value`'s shape (checked when the op runs).
    """
    value = deprecated_argument_lookup("input", input, "value", value)
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        strides = get_sequence(strides, 2, channel_index, "strides")
        dilations = get_sequence(dilations, 2, channel_index, "dilations")
        return conv2d_backprop_input(output_shape, filter, value, strides, padding,
                                     data_format=data_format, dilations=dilations, name=scope)


def convolution(input, filter, padding, strides=None, dilation_rate=None,  # noqa: A002
                name=None, data_format=None, filters=None, dilations=None):
    """N-D convolution, 2-D here: `Conv2D` with `dilation_rate` as its dilations.

    (TF builds SpaceToBatchND / BatchToSpaceND around a dilated convolution; one dilated
    Conv2D gives the same values.)
    """
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    dilation_rate = deprecated_argument_lookup("dilations", dilations, "dilation_rate",
                                               dilation_rate)
    with name_scope(name, "convolution", [input, filter]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        f = convert.convert_to_tensor(filter, name="filter")
        if x.shape.ndims not in (None, 4):
            raise ValueError("tfteach's convolution supports 2-D (rank 4) inputs only, got "
                             "rank %d" % x.shape.ndims)
        strides = [1, 1] if strides is None else [int(s) for s in strides]
        rate = [1, 1] if dilation_rate is None else [int(d) for d in dilation_rate]
        if any(r < 1 for r in rate):        # TF 1.15's with_space_to_batch check
            raise ValueError("dilation_rate must be positive")
        if any(s > 1 for s in strides) and any(r > 1 for r in rate):
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        if data_format not in (None, "NHWC", "NCHW"):    # was read as NHWC ("HWNC", "NCW")
            raise ValueError('data_format must be "NHWC" or "NCHW".')     # TF 1.15's text
        fmt = data_format or "NHWC"
        return conv2d(x, f, strides, padding, data_format=fmt, dilations=rate, name=scope)


from tfteach.ops import conv_grad  # noqa: F401,E402 - registers the gradients
