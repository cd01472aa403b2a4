"""GPU kernels of `BiasAdd` and `BiasAddGrad`, built from the generic kernels.
CPU twin: kernels/cpu/bias_kernels.py (same checks, same messages).

BiasAdd adds bias[c] to every element of channel c: that is a broadcasting add of the
bias reshaped to [1, ..., 1, C] (NHWC) or [1, C, 1, ...] (NCHW), so it runs
elementwise.py's `binary_kernel`. Its gradient sums the incoming gradient over every
axis but the channel axis: reduce.py's `reduce_kernel`. No new CUDA code is needed —
on a GPU, as in TensorFlow, most "new" ops are old kernels with new shapes.
"""
from types import SimpleNamespace

from tfteach.kernels.cpu.bias_kernels import bias_grad_axes, bias_shape
from tfteach.kernels.cuda import elementwise, launch, reduce

__all__ = ["bias_add", "bias_add_grad"]


def bias_add(ctx, x, bias):
    x, bias = launch.on_device(x), launch.on_device(bias)
    launch.check_float(ctx, x, bias)
    shape = bias_shape(ctx, x, bias)
    # binary() picks its formula from ctx.op.type: run it as an "Add".
    add = SimpleNamespace(op=SimpleNamespace(type="Add", name=getattr(ctx.op, "name", "")),
                          attrs={})
    return elementwise.binary(add, x, bias.reshape(*shape))


def bias_add_grad(ctx, grad):
    grad = launch.on_device(grad)
    launch.check_float(ctx, grad)
    return reduce.reduce(grad, bias_grad_axes(ctx, grad), reduce.SUM, keep_dims=False)
