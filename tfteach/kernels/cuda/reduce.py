"""CUDA kernels of `Sum`, `Mean` and `Max` over any axes. CPU twin:
kernels/cpu/reduction_kernels.py (one NumPy call there).

One *block* computes one output element, with the classic shared-memory tree:
  1. each of the block's REDUCE_THREADS threads walks the input elements that fall into
     its output element, REDUCE_THREADS apart, keeping a running sum (or max);
  2. the threads write their partial results to shared memory (fast memory a block
     shares) and then halve the array again and again: thread t adds element t + s to
     element t, s = 32, 16, ..., 1, with `cuda.syncthreads()` between the rounds so that
     nobody reads a value before it is written;
  3. thread 0 writes element 0: the block's result.
The element positions come from strides, so no axis is moved or copied: an output
element's *kept* coordinates give the start, and the *reduced* coordinates (walked by
the threads) give the offsets from it.

Partial sums are float64 whatever the input (rounded once at the end), so a float32 sum
can differ from the CPU's in the last bit: the order of the additions differs
(docs/cuda_kernels.md).
"""
import math

import numpy as np
from numba import cuda, float64

from tfteach.kernels.cpu.reduction_kernels import reduction_axes
from tfteach.kernels.cuda import launch

__all__ = ["REDUCE_THREADS", "SUM", "MAX", "reduce_kernel", "reduce", "sum_kernel",
           "mean_kernel", "max_kernel"]

REDUCE_THREADS = 64          # threads per block; a power of two (the tree halves it)
SUM, MAX = 0, 1


@cuda.jit(device=True, cache=True)
def _offset(index, shape, strides):
    """Position of the `index`-th element of a (shape, strides) walk, last axis fastest."""
    offset = 0
    for d in range(shape.size - 1, -1, -1):
        offset += (index % shape[d]) * strides[d]
        index //= shape[d]
    return offset


@cuda.jit(device=True, cache=True)
def _combine(code, a, b):
    if code == SUM:
        return a + b
    return a if a > b or a != a else b            # max; a NaN wins, as np.max


@cuda.jit(cache=True)
def reduce_kernel(out, x, code, scale, kept_shape, kept_strides, red_shape, red_strides,
                  count):
    partial = cuda.shared.array(REDUCE_THREADS, float64)
    t = cuda.threadIdx.x
    o = cuda.blockIdx.x                              # this block's output element
    start = _offset(o, kept_shape, kept_strides)
    acc = 0.0 if code == SUM else -math.inf
    for r in range(t, count, REDUCE_THREADS):        # step 1
        acc = _combine(code, acc, float64(x[start + _offset(r, red_shape, red_strides)]))
    partial[t] = acc
    cuda.syncthreads()
    s = REDUCE_THREADS // 2                          # step 2
    while s > 0:
        if t < s:
            partial[t] = _combine(code, partial[t], partial[t + s])
        cuda.syncthreads()
        s //= 2
    if t == 0:                                       # step 3
        out[o] = partial[0] * scale if code == SUM else partial[0]


def reduce(x, axes, code, keep_dims, mean=False):
    """`x` (a device array) reduced over `axes` (non-negative ints) on the GPU."""
    strides = launch.strides_of(x.shape)
    kept = [d for d in range(x.ndim) if d not in axes]
    count = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    out_shape = [1 if d in axes else x.shape[d] for d in range(x.ndim)] if keep_dims \
        else [x.shape[d] for d in kept]
    out = launch.empty(out_shape, x.dtype)
    n_out = out.size
    if n_out == 0:
        return out

    def walk(dims):                # (shape, strides) of the dims; [1], [0] when none
        if not dims:
            return cuda.to_device(np.ones(1, np.int64)), cuda.to_device(np.zeros(1, np.int64))
        return (cuda.to_device(np.asarray([x.shape[d] for d in dims], np.int64)),
                cuda.to_device(np.asarray([strides[d] for d in dims], np.int64)))
    kept_shape, kept_strides = walk(kept)
    red_shape, red_strides = walk(list(axes))
    scale = 1.0
    if mean:
        scale = 1.0 / count if count else math.nan     # the mean of nothing is nan
    flat_x = x.reshape(x.size) if x.ndim != 1 else x
    reduce_kernel[n_out, REDUCE_THREADS](out.reshape(n_out), flat_x, code, scale,
                                          kept_shape, kept_strides, red_shape, red_strides,
                                          count)
    return out


def _reduction(code, mean=False):
    def kernel(ctx, x, axis):
        x = launch.on_device(x)
        launch.check_float(ctx, x)
        axes = reduction_axes(ctx, launch.on_host(axis), x.ndim)   # TF's checks, CPU's code
        return reduce(x, axes, code, ctx.attrs["keep_dims"], mean)
    return kernel


sum_kernel = _reduction(SUM)
mean_kernel = _reduction(SUM, mean=True)
max_kernel = _reduction(MAX)
