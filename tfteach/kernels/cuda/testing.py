"""Running one op's GPU kernel and its CPU twin on the same inputs (for the tests).

`run_gpu(op, *inputs)` sends NumPy inputs to the device, runs the op's registered GPU
kernel (kernels/cuda/table.py) and brings the outputs back; `run_cpu` runs the op's
CPU kernel. Both get a fresh kernel context (attrs, an empty `state`), as a Session
gives each op. On Numba's CUDA simulator the "device" is host memory, but the kernels
run thread by thread, with shared memory, barriers and atomics, as on a GPU.
"""
from types import SimpleNamespace

import numpy as np

from tfteach.kernels.cuda import launch, table

__all__ = ["context", "run_gpu", "run_cpu"]


def context(op):
    return SimpleNamespace(op=op, attrs=op._attrs, state={}, session=None, device=None)


def _results(value):
    if isinstance(value, tuple):
        return tuple(_results(v) for v in value)
    return value.copy_to_host() if launch.is_device_array(value) else np.asarray(value)


def run_gpu(op, *inputs, ctx=None):
    """The op's GPU kernel on `inputs` (float arrays go to the device first)."""
    kernel = table.gpu_kernels()[op.type].kernel_for_op(op)
    args = [launch.on_device(x) if np.asarray(x).dtype.kind == "f" else x for x in inputs]
    return _results(kernel(ctx or context(op), *args))


def run_cpu(op, *inputs, ctx=None):
    """The op's CPU kernel on `inputs`."""
    kernel = op._op_def.kernels["CPU"]
    chooser = getattr(kernel, "kernel_for_op", None)
    if chooser is not None:
        kernel = chooser(op)
    with np.errstate(all="ignore"):
        return _results(kernel(ctx or context(op), *[np.asarray(x) for x in inputs]))
