"""TensorFlow's checks of an output whose size comes from data, made before allocating.

`fill(dims, v)`, `range(start, limit, delta)` and `dynamic_stitch(indices, data)` compute
their output's shape from input *values*; a bad value must give TensorFlow's error, not
a NumPy exception or gigabytes of memory:

- a shape with more than 2**63 - 1 elements: InvalidArgumentError "Shape [..] would have
  more than 2**63 - 1 elements" (TensorShape's own check);
- more bytes than the machine has: ResourceExhaustedError, TF's "OOM when allocating
  tensor with shape[..] and type .. on .. by allocator cpu" (TF's CPU allocator fails
  the same way, just later: once malloc refuses);
- a number TF computes in int32 that overflows (dynamic_stitch's size, max index + 1):
  the negative number TF then reports ("Expected a non-negative size, got -2147483648").
"""
import os

import numpy as np

from tfteach.framework import errors

__all__ = ["check_shape", "wrap_int32", "INT64_MAX"]

INT64_MAX = 2 ** 63 - 1
# DataTypeString's names, as TF's OOM message prints them (runtime/allocator.py has the
# same table; kernels sit below the runtime).
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half",
                  "object": "string"}


def _memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):       # not a POSIX system: no limit
        return None


def wrap_int32(value):
    """`value` as a C++ int32 holds it (two's complement wrap-around)."""
    return (int(value) + 2 ** 31) % 2 ** 32 - 2 ** 31


def check_shape(ctx, shape, dtype):
    """Raises TF's error if an output of `shape` and NumPy `dtype` cannot exist."""
    count = 1
    for d in shape:
        count *= int(d)
    if count > INT64_MAX:
        raise errors.InvalidArgumentError(
            None, ctx.op, "Shape [%s] would have more than 2**63 - 1 elements"
            % ",".join(str(int(d)) for d in shape))
    itemsize = 8 if np.dtype(dtype) == object else np.dtype(dtype).itemsize
    memory = _memory_bytes()
    if memory is not None and count * itemsize > memory:
        device = getattr(ctx, "device", None) or "/job:localhost/replica:0/task:0/device:CPU:0"
        allocator = "cpu" if "CPU" in device else "GPU_%s_bfc" % device.rsplit(":", 1)[-1]
        raise errors.ResourceExhaustedError(
            None, ctx.op, "OOM when allocating tensor with shape[%s] and type %s on %s by "
            "allocator %s" % (",".join(str(int(d)) for d in shape),
                              _TF_TYPE_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name),
                              device, allocator))
