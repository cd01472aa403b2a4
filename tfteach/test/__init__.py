"""`tf.test`: the device questions of TensorFlow's test module.

They answer truthfully: with virtual GPUs, `is_gpu_available()` is True (a GPU device
exists and ops are placed on it) but `is_gpu_available(cuda_only=True)` is False, and
`device_lib.list_local_devices()` describes those GPUs as virtual.
"""
from tfteach.runtime import devices as _devices

__all__ = ["is_gpu_available", "gpu_device_name", "is_built_with_cuda",
           "is_built_with_gpu_support"]


def _gpus():
    return [d for d in _devices.local_devices() if d.device_type == "GPU"]


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """True if a GPU device exists. `cuda_only` / `min_cuda_compute_capability` ask for
    a real CUDA GPU (a virtual one has no compute capability)."""
    gpus = _gpus()
    if cuda_only or min_cuda_compute_capability is not None:
        gpus = [d for d in gpus if d.kind == "cuda"]
        if min_cuda_compute_capability is not None:
            wanted = tuple(min_cuda_compute_capability)
            gpus = [d for d in gpus if _capability(d) >= wanted]
    return bool(gpus)


def _capability(device):
    text = device.description.rsplit("compute capability: ", 1)[-1]
    try:
        return tuple(int(x) for x in text.split("."))
    except ValueError:
        return (0, 0)


def gpu_device_name():
    """'/device:GPU:0' when there is a GPU (virtual or real), else ''."""
    gpus = _gpus()
    return gpus[0].short_name if gpus else ""


def is_built_with_cuda():
    """Whether Numba's CUDA target can be imported (tfteach's CUDA kernels need it)."""
    try:
        from numba import cuda  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return True


is_built_with_gpu_support = is_built_with_cuda
