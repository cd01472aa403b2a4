"""What every CUDA kernel wrapper needs: device arrays, launch sizes, dtype checks.

A CUDA kernel runs one *thread* per piece of work; threads come in *blocks* (here of
`THREADS` threads) and blocks in a *grid*. Thread `i = cuda.grid(1)` handles element
`i`; the grid is rounded up to whole blocks, so every kernel starts with `if i < n`.

The wrappers (`fn(ctx, *inputs)`, registered as an op's "GPU" kernel) receive device
arrays — or host NumPy arrays (a constant kept on the host, an int32 shape that lives in
host memory as in TensorFlow) which `on_device` copies over. They check the inputs with
TensorFlow's messages *before* launching anything: a kernel that reads out of bounds on
a real GPU does not raise, it silently reads garbage (or crashes the context).
"""
import numpy as np
from numba import cuda

from tfteach.framework.errors import InvalidArgumentError

__all__ = ["THREADS", "blocks_for", "on_device", "on_host", "is_device_array", "empty", "zeros",
           "check_float", "FLOAT_TYPES", "strides_of", "error"]

THREADS = 128                 # threads per block of the 1-D kernels (4 warps)
FLOAT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


def blocks_for(n, threads=THREADS):
    """Blocks of `threads` needed to give each of `n` elements a thread."""
    return (n + threads - 1) // threads


def is_device_array(x):
    # Numba's DeviceNDArray and the simulator's FakeCUDAArray both have copy_to_host.
    return hasattr(x, "copy_to_host")


def on_device(x):
    """`x` as a device array (copied from the host if it is a NumPy value)."""
    if is_device_array(x):
        return x
    x = np.asarray(x)
    # (not np.ascontiguousarray: it turns a 0-d scalar into shape [1])
    return cuda.to_device(x if x.flags.c_contiguous else x.copy(order="C"))


def on_host(x):
    """`x` as a NumPy array: for small arguments read on the host (axes, shapes)."""
    return x.copy_to_host() if is_device_array(x) else np.asarray(x)


def empty(shape, dtype):
    """A new, uninitialised device array."""
    return cuda.device_array(tuple(int(d) for d in shape), dtype=np.dtype(dtype))


def zeros(shape, dtype):
    """A device array of zeros (sent from the host: simple, and rare enough here)."""
    return cuda.to_device(np.zeros(tuple(int(d) for d in shape), np.dtype(dtype)))


def error(ctx, message):
    return InvalidArgumentError(None, getattr(ctx, "op", None), message)


def check_float(ctx, *values):
    """The GPU kernels here are written for float32 and float64 only: any other dtype
    (float16, integers) gets a clear error instead of a Numba typing error."""
    for x in values:
        if np.dtype(x.dtype) not in FLOAT_TYPES:
            op_type = getattr(getattr(ctx, "op", None), "type", "this op")
            raise error(ctx, "tfteach has no GPU kernel for %s with dtype %s (only float32 "
                        "and float64); place the op on the CPU with tf.device('/cpu:0')"
                        % (op_type, np.dtype(x.dtype).name))
    dtypes = {np.dtype(x.dtype) for x in values}
    if len(dtypes) > 1:
        raise error(ctx, "inputs must have the same dtype, got %s"
                    % ", ".join(sorted(d.name for d in dtypes)))


def strides_of(shape):
    """Element strides of a C-contiguous array of `shape` (the last axis moves fastest)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * int(shape[d + 1])
    return strides
