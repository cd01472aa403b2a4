"""Copies between the host and a real GPU (the copy steps `x/_copy_to_GPU:0` run these).

MEMCPYHtoD: `cuda.to_device` allocates device memory and copies the NumPy array into
it; MEMCPYDtoH: `copy_to_host` brings a device array back as a new NumPy array;
MEMCPYDtoD (between two GPUs, or on one) goes through the host here — simple, and
correct for any pair of cards (peer-to-peer copies are an optimisation).

int32 values stay on the host: in TensorFlow, int32 tensors of GPU ops live in host
memory (shapes, axes, counters), and the GPU kernels here read such arguments on the host
(table.py runs int32 ops with their CPU kernel). Values that are not arrays (a
variable's reference, a dead tensor, None) pass through.
"""
import numpy as np

from tfteach.kernels.cuda import launch

__all__ = ["to_device", "to_host", "device_to_device"]


def to_device(value):
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype != np.int32:
        return launch.on_device(value)
    return value


def to_host(value):
    if launch.is_device_array(value):
        return value.copy_to_host()
    return value


def device_to_device(value):
    if launch.is_device_array(value):
        return launch.on_device(value.copy_to_host())
    return value
