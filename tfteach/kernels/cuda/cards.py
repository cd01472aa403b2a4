"""Which card a kernel runs on, when a machine has several GPUs.

Numba launches kernels, and allocates device arrays, in the *current* CUDA context;
when nothing else made one current, that is GPU 0's. An op placed on `/gpu:1` must run
(and keep its outputs) on card 1, so its kernel is wrapped, once, when the Session makes
the op's kernel context, in `with cuda.gpus[1]:` — the context of that card, pushed for
the launch and popped after. Ops on GPU 0 keep their kernel as it is: the run loop pays
nothing for a choice made when the plan was built.

The index is the card's *physical* index as Numba numbers them (after
CUDA_VISIBLE_DEVICES); a session's `visible_device_list` renames devices but keeps it
(devices.Device.physical_index).
"""
from numba import cuda

__all__ = ["card", "on_card"]


def card(index):
    """The context manager that makes card `index` current (Numba's `cuda.gpus[index]`)."""
    return cuda.gpus[index]


def on_card(kernel, index):
    """`kernel`, run with card `index` current; `kernel` itself for card 0."""
    if index == 0:
        return kernel

    def kernel_on_card(ctx, *inputs):
        with card(index):
            return kernel(ctx, *inputs)
    kernel_on_card.__name__ = getattr(kernel, "__name__", "kernel") + "_on_gpu%d" % index
    kernel_on_card.__wrapped__ = kernel
    return kernel_on_card
