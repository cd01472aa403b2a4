"""Copies between the host and real GPUs (the copy steps `x/_copy_to_GPU:0` run these).

MEMCPYHtoD: `cuda.to_device` allocates device memory and copies the NumPy array into
it; MEMCPYDtoH: `copy_to_host` brings a device array back as a new NumPy array;
MEMCPYDtoD between two cards goes through the host here — simple, and correct for any
pair of cards (a peer-to-peer copy is an optimisation not written yet). Each half runs
with its own card current (cards.py), so the destination's memory is on the
destination card; card 0 needs no context switch.

int32 values stay on the host: in TensorFlow, int32 tensors of GPU ops live in host
memory (shapes, axes, counters), and the GPU kernels here read such arguments on the host
(table.py runs int32 ops with their CPU kernel). Values that are not arrays (a
variable's reference, a dead tensor, None) pass through.
"""
import contextlib

import numpy as np

from tfteach.kernels.cuda import cards, launch

__all__ = ["to_device", "to_host", "device_to_device", "mover"]


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


def _on(index):
    return cards.card(index) if index else contextlib.nullcontext()


def mover(src_index, dst_index, src_is_gpu, dst_is_gpu):
    """The copy function from one device to another (`None` index: the host), chosen
    once, when the plan is built."""
    if src_is_gpu and dst_is_gpu:
        if src_index == dst_index == 0:
            return device_to_device

        def card_to_card(value):
            if not launch.is_device_array(value):
                return value
            with _on(src_index):
                host = value.copy_to_host()
            with _on(dst_index):
                return launch.on_device(host)
        return card_to_card
    if dst_is_gpu:
        if not dst_index:
            return to_device

        def host_to_card(value):
            with _on(dst_index):
                return to_device(value)
        return host_to_card
    if not src_index:
        return to_host

    def card_to_host(value):
        with _on(src_index):
            return to_host(value)
    return card_to_host
