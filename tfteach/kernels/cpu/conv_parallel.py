"""Splitting a convolution over the batch: two halves on two threads, BLAS one-threaded.

Why not let BLAS use both cores? OpenBLAS splits each matrix product into many blocks
and its threads wait for each other after every block. On a quiet 2-core machine that
is fast, but as soon as another process wants a core, one of its threads is descheduled
for a whole time slice at every wait: measured here with a test run beside it, LeNet's
conv layers took 30-700 ms instead of 5-15 (docs/conv.md). Numba's `parallel=True`
with its default OpenMP layer also spins its threads and fights with OpenBLAS's.

So the convolution kernels split the *batch* in two: each half does its own im2col and
its own one-threaded matrix product, and the two halves meet once, at the end. Images
are independent, so nothing is shared but the (disjoint) output rows. The Numba loops
are compiled with `nogil=True` so both halves really run at the same time.

`openblas_set_num_threads_local` (OpenBLAS >= 0.3.27) sets the BLAS thread count of the
calling thread only; where it is missing, BLAS keeps its own threads (still correct).
"""
import ctypes
import glob
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["over_batch", "worker_count"]

_POOL = None          # created on first use: nothing starts at import time
_SET_LOCAL = None     # openblas_set_num_threads_local, if found
_SEARCHED = False
# Below this many multiply-adds per op a second thread costs more than it saves.
MIN_PARALLEL_WORK = 2_000_000


def _find_set_local():
    """NumPy's bundled OpenBLAS's per-thread `openblas_set_num_threads_local`."""
    global _SET_LOCAL, _SEARCHED
    if not _SEARCHED:
        _SEARCHED = True
        libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
        for path in glob.glob(os.path.join(libs, "*openblas*.so*")):
            try:
                fn = ctypes.CDLL(path).openblas_set_num_threads_local
            except (OSError, AttributeError):
                continue
            fn.argtypes, fn.restype = [ctypes.c_int], ctypes.c_int
            _SET_LOCAL = fn
            break
    return _SET_LOCAL


def worker_count():
    return min(2, os.cpu_count() or 1)


def _one_blas_thread(fn, lo, hi):
    set_local = _find_set_local()
    previous = set_local(1) if set_local is not None else None
    try:
        return fn(lo, hi)
    finally:
        if previous is not None:
            set_local(previous)


def over_batch(fn, batch, work):
    """Runs fn(lo, hi) over batch rows [0, batch), in two halves when it pays.

    `work` (multiply-adds) decides; small ops run in one call, with BLAS as configured.
    Returns the results of the calls as a list.
    """
    global _POOL
    if batch < 2 or work < MIN_PARALLEL_WORK or worker_count() < 2:
        return [fn(0, batch)]
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tfteach-conv")
    mid = batch // 2
    second = _POOL.submit(_one_blas_thread, fn, mid, batch)
    first = _one_blas_thread(fn, 0, mid)
    return [first, second.result()]
