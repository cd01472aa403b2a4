"""Shared set-up for the device tests: a fresh device registry per test."""
import collections
import contextlib

import numpy as np
import pytest

import tfteach as tf
from tfteach.runtime import devices


@pytest.fixture
def virtual_gpus(monkeypatch):
    """`virtual_gpus(n, memory_mib)` gives the process n virtual GPUs for this test;
    afterwards the registry is rebuilt from the environment, as at import."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPU_MEMORY", raising=False)
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS_IF_NO_GPU", raising=False)
    devices._registry = None

    def make(count, memory_limit=2048):
        return tf.config.set_virtual_gpus(count, memory_limit=memory_limit)
    yield make
    devices._registry = None


CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def gpu(i):
    return "/job:localhost/replica:0/task:0/device:GPU:%d" % i


@contextlib.contextmanager
def counted_allocations():
    """A Counter of (op, bytes) for every buffer a GPU's allocator charges in the block:
    two ways of running a program charge the same tensors when their counters agree."""
    from tfteach.runtime import allocator
    counts = collections.Counter()
    plain = allocator.Allocator.allocate_locked

    def counted(self, nbytes, op_name, *args, **kwargs):
        counts[(op_name, nbytes)] += 1
        return plain(self, nbytes, op_name, *args, **kwargs)
    allocator.Allocator.allocate_locked = counted
    try:
        yield counts
    finally:
        allocator.Allocator.allocate_locked = plain


FIGURES = ("peak_bytes_in_use", "num_allocs", "largest_alloc_size", "bytes_in_use",
           "bytes_reserved", "live_buffers")


@pytest.fixture
def compiled_runs(monkeypatch):
    """How many runs went through a compiled accounted loop (runtime/accounted_loop.py)."""
    from tfteach.runtime import accounted_loop
    count = {"runs": 0}
    plain = accounted_loop.compile_accounted

    def counting(steps, swallow):
        made = plain(steps, swallow)
        if made is None:
            return None
        accounted, lines = made

        def counted(values, held):
            count["runs"] += 1
            return accounted(values, held)
        return counted, lines
    monkeypatch.setattr(accounted_loop, "compile_accounted", counting)
    return count


def on_a_fresh_gpu(virtual_gpus, monkeypatch, program, compiled=True, memory_limit=1024,
                   seed=None):
    """(what `program()` returned, memory figures) on a fresh virtual GPU, with the
    accounted loop compiled after its first runs, or walked step by step."""
    from tfteach.runtime import accounted_loop
    monkeypatch.setattr(accounted_loop, "COMPILE_AFTER_RUNS", 2 if compiled else 10**9)
    virtual_gpus(1, memory_limit=memory_limit)           # a fresh allocator
    with tf.Graph().as_default():
        if seed is not None:
            tf.set_random_seed(seed)
        out = program()
        stats = tf.config.memory_stats()
    return out, {k: stats[k] for k in FIGURES}


def both_ways(virtual_gpus, monkeypatch, program, memory_limit=1024):
    """[(what `program` returned, memory figures)] with the accounted loop compiled after
    its first runs, then walked step by step, each on a fresh virtual GPU."""
    return [on_a_fresh_gpu(virtual_gpus, monkeypatch, program, compiled, memory_limit,
                           seed=5) for compiled in (True, False)]


def bits(values):
    """Each value's dtype, shape and bytes: equal only for the same bits."""
    return [(np.asarray(v).dtype, np.shape(v), np.asarray(v).tobytes()) for v in values]
