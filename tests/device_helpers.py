"""Shared set-up for the device tests: a fresh device registry per test."""
import collections
import contextlib

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
