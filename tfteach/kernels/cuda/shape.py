"""GPU kernels of `Reshape` and `Identity`: no CUDA code at all.

A reshape of a C-contiguous array changes only how its elements are numbered, so the
result is a *view* of the same device memory (as TensorFlow's Reshape forwards its input
buffer), and Identity returns its input. The new shape is checked by the CPU twin
(kernels/cpu/shape_kernels.py), run on a stand-in with the input's shape that holds no
memory, so the errors are TensorFlow's, word for word.
"""
import numpy as np

from tfteach.kernels.cpu import shape_kernels
from tfteach.kernels.cuda import launch

__all__ = ["reshape", "identity"]


def reshape(ctx, x, sizes):
    x = launch.on_device(x)
    stand_in = np.broadcast_to(np.zeros((), x.dtype), tuple(x.shape))   # 0 bytes
    shape = shape_kernels.reshape(ctx, stand_in, launch.on_host(sizes)).shape
    return x.reshape(tuple(shape))


def identity(ctx, x):
    return x
