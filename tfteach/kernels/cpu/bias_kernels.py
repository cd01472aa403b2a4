"""CPU kernels of `BiasAdd` and `BiasAddGrad`: broadcasting along the channel axis.

BiasAdd adds bias[c] to every element of channel c: the last axis (NHWC, any rank >= 2)
or axis 1 (NCHW). Its gradient with respect to the bias, BiasAddGrad, sums the incoming
gradient over every axis but that one. Both are single NumPy calls, except with the
channels last (NHWC), where they are the row loops of `x + b` and its gradient Sum
(channel_loops.py: ~2x and ~4x faster than NumPy's broadcast and reduction).
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.channel_loops import (add_channel_bias, is_channel_bias,
                                               is_channel_rows, sum_all_but_last,
                                               sums_all_but_last)
from tfteach.kernels.cpu.conv_kernels import compute_dtype
from tfteach.kernels.cpu.cwise import shape_string

__all__ = ["bias_add", "bias_add_grad", "bias_shape", "bias_grad_axes"]


def _channel_axis(ctx, ndim):
    # NCHW always has its channels at axis 1, whatever the rank (TF's bias_op.cc).
    return 1 if ctx.attrs.get("data_format", "NHWC") == "NCHW" else ndim - 1


def bias_shape(ctx, x, bias):
    """TF's checks of BiasAdd's inputs; the shape the bias broadcasts as ([1,..,C,..,1]).
    The CUDA kernel makes the same checks (kernels/cuda/bias.py)."""
    if np.ndim(x) < 2:
        raise InvalidArgumentError(None, ctx.op, "Input tensor must be at least 2D: %s"
                                   % shape_string(x))
    if np.ndim(bias) != 1:
        raise InvalidArgumentError(None, ctx.op, "Biases must be 1D: %s" % shape_string(bias))
    axis = _channel_axis(ctx, x.ndim)
    if bias.shape[0] != x.shape[axis]:
        raise InvalidArgumentError(
            None, ctx.op, "Must provide as many biases as the last dimension of the input "
            "tensor: %s vs. %s" % (shape_string(bias), shape_string(x)))
    shape = [1] * x.ndim
    shape[axis] = bias.shape[0]
    return shape


def bias_grad_axes(ctx, grad):
    """TF's check of BiasAddGrad's input; the axes its gradient sums over (all but the
    channel axis)."""
    if np.ndim(grad) < 2:
        raise InvalidArgumentError(None, ctx.op, "Input tensor must be at least 2D: %s"
                                   % shape_string(grad))
    axis = _channel_axis(ctx, grad.ndim)
    return tuple(a for a in range(grad.ndim) if a != axis)


def bias_add(ctx, x, bias):
    # The row loop's case first: it passes TF's checks (x at least 2-D, a 1-D bias as
    # long as x's channel axis), so bias_shape's np.ndim calls are skipped (a dense
    # layer's and an RNN cell's BiasAdd, 40 a step in bench/nn_steps.py's LSTM).
    if is_channel_bias(x, bias) and _channel_axis(ctx, x.ndim) == x.ndim - 1:
        return add_channel_bias(x, bias)
    shape = bias_shape(ctx, x, bias)
    return np.add(x, bias.reshape(shape))


def bias_add_grad(ctx, grad):
    # As bias_add: the row loop's case (channels last, >= 2-D) passes TF's check.
    if is_channel_rows(grad) and _channel_axis(ctx, grad.ndim) == grad.ndim - 1:
        return sum_all_but_last(grad, keep_dims=False)
    axes = bias_grad_axes(ctx, grad)
    if sums_all_but_last(grad, axes):           # channels last
        return sum_all_but_last(grad, keep_dims=False)
    return np.sum(grad, axis=axes, dtype=compute_dtype(grad.dtype)).astype(grad.dtype)
