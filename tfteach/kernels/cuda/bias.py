"""GPU kernels of `BiasAdd` and `BiasAddGrad`, built from the generic kernels.
CPU twin: kernels/cpu/bias_kernels.py (same checks, same messages).

BiasAdd adds bias[c] to every element of channel c: that is a broadcasting add of the
bias reshaped to [1, ..., 1, C] (NHWC) or [1, C, 1, ...] (NCHW), so it runs
elementwise.py's `binary_kernel`. Its gradient sums the incoming gradient over every
axis but the channel axis: reduce.py's `reduce_kernel`. No new CUDA code is needed —
on a GPU, as in TensorFlow, most "new" ops are old kernels with new shapes.
"""
from types import SimpleNamespace

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cuda import elementwise, launch, reduce

__all__ = ["bias_add", "bias_add_grad"]


def _shape(value):
    return "[%s]" % ",".join(str(d) for d in value.shape)


def _channel_axis(ctx, ndim):
    # NCHW always has its channels at axis 1, whatever the rank (TF's bias_op.cc).
    return 1 if ctx.attrs.get("data_format", "NHWC") == "NCHW" else ndim - 1


def bias_add(ctx, x, bias):
    x, bias = launch.on_device(x), launch.on_device(bias)
    launch.check_float(ctx, x, bias)
    if x.ndim < 2:
        raise InvalidArgumentError(None, ctx.op, "Input tensor must be at least 2D: %s"
                                   % _shape(x))
    if bias.ndim != 1:
        raise InvalidArgumentError(None, ctx.op, "Biases must be 1D: %s" % _shape(bias))
    axis = _channel_axis(ctx, x.ndim)
    if bias.shape[0] != x.shape[axis]:
        raise InvalidArgumentError(
            None, ctx.op, "Must provide as many biases as the last dimension of the input "
            "tensor: %s vs. %s" % (_shape(bias), _shape(x)))
    shape = [1] * x.ndim
    shape[axis] = bias.shape[0]
    # binary() picks its formula from ctx.op.type: run it as an "Add".
    add = SimpleNamespace(op=SimpleNamespace(type="Add", name=getattr(ctx.op, "name", "")),
                          attrs={})
    return elementwise.binary(add, x, bias.reshape(*shape))


def bias_add_grad(ctx, grad):
    grad = launch.on_device(grad)
    launch.check_float(ctx, grad)
    if grad.ndim < 2:
        raise InvalidArgumentError(None, ctx.op, "Input tensor must be at least 2D: %s"
                                   % _shape(grad))
    axis = _channel_axis(ctx, grad.ndim)
    axes = tuple(a for a in range(grad.ndim) if a != axis)
    return reduce.reduce(grad, axes, reduce.SUM, keep_dims=False)
