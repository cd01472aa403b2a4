"""Gradients of the convolution ops and of BiasAdd, as TF 1.15's nn_grad.py builds them.

A convolution is linear in each of its inputs, so every gradient is another
convolution-shaped op with the same strides / padding / dilations / data_format:

    Conv2D(x, f) -> dy:      dx = Conv2DBackpropInput(shape(x), f, dy)
                             df = Conv2DBackpropFilter(x, shape(f), dy)
    Conv2DBackpropInput(sizes, f, dy) -> dx (conv2d_transpose):
                             d f  = Conv2DBackpropFilter(grad, shape(f), dy)
                             d dy = Conv2D(grad, f)
    Conv2DBackpropFilter(x, sizes, dy) -> df:
                             d x  = Conv2DBackpropInput(shape(x), grad, dy)
                             d dy = Conv2D(x, grad)

(the integer sizes inputs get None). Depthwise ops follow the same pattern. Shapes
known when the graph is built become constants (no Shape op to run), else one ShapeN.
"""
from tfteach.framework.registry import gradient
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.shape_ops import shape, shape_n
from tfteach.nn import bias_ops, conv_ops, depthwise_ops

__all__ = []

_CONV_ATTRS = ("strides", "padding", "data_format", "dilations")


def _attrs(op, with_explicit=True):
    kwargs = {k: op.get_attr(k) for k in _CONV_ATTRS}
    explicit = op.get_attr("explicit_paddings") if with_explicit else []
    if kwargs["padding"] == "EXPLICIT":
        # The Python wrappers take explicit padding as [before, after] pairs.
        kwargs["padding"] = [explicit[i:i + 2] for i in range(0, 8, 2)]
    return kwargs


def _shapes(*tensors):
    """TF's ShapeN of the tensors, or constants when every static shape is known."""
    if all(t.shape.is_fully_defined() for t in tensors):
        return [shape(t) for t in tensors]
    return shape_n(list(tensors))


@gradient("Conv2D")
def _conv2d_grad(op, grad):
    x, f = op.inputs
    kw = _attrs(op)
    kw["use_cudnn_on_gpu"] = op.get_attr("use_cudnn_on_gpu")
    shape_x, shape_f = _shapes(x, f)
    return [conv_ops.conv2d_backprop_input(shape_x, f, grad, **kw),
            conv_ops.conv2d_backprop_filter(x, shape_f, grad, **kw)]


@gradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op, grad):
    _, f, dy = op.inputs
    kw = _attrs(op)
    return [None,
            conv_ops.conv2d_backprop_filter(grad, _shapes(f)[0], dy, **kw),
            conv_ops.conv2d(grad, f, **kw)]


@gradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    kw = _attrs(op)
    return [conv_ops.conv2d_backprop_input(_shapes(x)[0], grad, dy, **kw),
            None,
            conv_ops.conv2d(x, grad, **kw)]


@gradient("DepthwiseConv2dNative")
def _depthwise_grad(op, grad):
    x, f = op.inputs
    kw = _attrs(op, with_explicit=False)
    shape_x, shape_f = _shapes(x, f)
    return [depthwise_ops.depthwise_conv2d_native_backprop_input(shape_x, f, grad, **kw),
            depthwise_ops.depthwise_conv2d_native_backprop_filter(x, shape_f, grad, **kw)]


@gradient("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input_grad(op, grad):
    _, f, dy = op.inputs
    kw = _attrs(op, with_explicit=False)
    return [None,
            depthwise_ops.depthwise_conv2d_native_backprop_filter(grad, _shapes(f)[0], dy,
                                                                  **kw),
            depthwise_ops.depthwise_conv2d_native(grad, f, **kw)]


@gradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    kw = _attrs(op, with_explicit=False)
    return [depthwise_ops.depthwise_conv2d_native_backprop_input(_shapes(x)[0], grad, dy,
                                                                 **kw),
            None,
            depthwise_ops.depthwise_conv2d_native(x, grad, **kw)]


@gradient("BiasAdd")
def _bias_add_grad(op, grad):
    fmt = op.get_attr("data_format")
    return [grad, bias_ops.bias_add_grad(grad, data_format=fmt)]


@gradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    # BiasAddGrad sums over all but the channel axis; its gradient spreads `grad` back
    # over those axes: zeros shaped like the input plus `grad` along the channel axis.
    g = op.inputs[0]
    return [bias_ops.bias_add(zeros_like(g), grad, data_format=op.get_attr("data_format"))]
