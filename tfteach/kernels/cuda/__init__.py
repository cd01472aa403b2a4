"""tfteach's CUDA kernels: `@cuda.jit` twins of the CPU kernels, for real NVIDIA GPUs.

Importing this package imports nothing heavy: `numba.cuda` and the kernel modules are
loaded by `register_gpu_kernels()`, which the device registry calls when it finds a
real GPU (runtime/devices.py), and which tests call under Numba's CUDA simulator.
Kernels compile on their first launch, once per dtype signature (`cache=True`).
See docs/cuda_kernels.md.
"""

__all__ = ["register_gpu_kernels"]

_registered = False


def register_gpu_kernels():
    """Registers every GPU kernel of `kernels.cuda.table` under device type "GPU" (once)."""
    global _registered
    if _registered:
        return
    from tfteach.framework.registry import get_op_def
    from tfteach.kernels.cuda.table import gpu_kernels
    for op_type, fn in gpu_kernels().items():
        op_def = get_op_def(op_type)
        op_def.kernels.setdefault("GPU", fn)
    _quiet_low_occupancy_warnings()
    _registered = True


def _quiet_low_occupancy_warnings():
    """numba-cuda warns at every launch of fewer than 128 blocks ("GPU under-utilization").
    A lesson's tensors are small, so every step would print it: it is for CUDA
    programmers tuning a kernel, not for students running a graph."""
    try:
        from numba.cuda.core import config
    except ImportError:                      # Numba's older built-in CUDA target
        from numba.core import config
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
