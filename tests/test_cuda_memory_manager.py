"""The reserving Numba memory plugin (kernels/cuda/memory_manager.py) with a fake driver.

Numba's real CUDA package (not the simulator) is needed to build the plugin's
MemoryPointers, so this runs in a subprocess with the simulator off; no GPU or driver
is touched: the driver's cuMemAlloc / cuMemFree / cuMemGetInfo and the CUDA context are
fakes. What only a card can show (that Numba's kernels run on memory carved this way,
that nvidia-smi shows the reservation) is not checked here.
"""
import json
import os
import subprocess
import sys

import pytest

import tfteach

pytest.importorskip("numba_cuda", reason="numba-cuda is not installed")

SCRIPT = r"""
import gc, json
from types import SimpleNamespace
from tfteach.kernels.cuda import memory_manager
from tfteach.runtime import allocator as allocator_lib, devices

calls = []
out = {}


class FakeDriver(memory_manager.ReservingMemoryManager):
    def _driver_functions(self):
        state = {"next": 1 << 20}

        def alloc(n):
            base = state["next"]
            state["next"] += n + (1 << 20)
            calls.append(["alloc", n])
            return base
        return alloc, lambda a: calls.append(["free", a]), lambda: (900, 1000)


class Context:
    device = SimpleNamespace(id=0)


alloc = allocator_lib.Allocator(devices.full_name("GPU", 0), "GPU_0_bfc", 1 << 20,
                                virtual=False)
alloc.bytes_reserved = 8192                    # what TF's GPUOptions reserved on card 0
devices._registry = [devices.Device("CPU", 0, "cpu"),
                     devices.Device("GPU", 0, "cuda", 1 << 20, "", alloc)]
manager = FakeDriver(context=Context())
manager.initialize()
a = manager.memalloc(100)
b = manager.memalloc(1000)
arena = manager.arena
manager.initialize()                           # Numba calls it at every context push
out["same_arena"] = manager.arena is arena
out.update({"first_calls": list(calls), "a": int(a.device_pointer),
            "b": int(b.device_pointer), "in_use": manager.arena.bytes_in_use,
            "info": list(manager.get_memory_info())})
big = manager.memalloc(10000)                  # beyond the reservation: one more region
out["grown"] = calls[1:]
out["reserved"] = manager.arena.bytes_reserved
del big
gc.collect()                                   # its MemoryPointer's finalizer frees it
out["released_after_big"] = manager.arena.release_unused()
del a, b
gc.collect()
out["in_use_after"] = manager.arena.bytes_in_use
out["released_at_end"] = manager.arena.release_unused()
out["calls"] = calls
print(json.dumps(out))
"""


def test_the_plugin_reserves_once_carves_and_gives_back():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=os.path.dirname(os.path.dirname(tfteach.__file__)))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    base = 1 << 20
    assert out["first_calls"] == [["alloc", 8192]]      # the reservation, taken once
    assert out["same_arena"]                            # a second initialize keeps it
    assert (out["a"], out["b"]) == (base, base + 256)   # carved from it, 256-byte pieces
    assert out["in_use"] == 256 + 1024
    assert out["info"] == [900, 1000]
    assert out["grown"] == [["alloc", 10240]]
    assert out["reserved"] == 8192 + 10240
    assert out["released_after_big"] == 10240           # the grown region, now empty
    assert out["in_use_after"] == 0
    assert out["released_at_end"] == 8192
    assert [c[0] for c in out["calls"]] == ["alloc", "alloc", "free", "free"]


FULL_CARD_SCRIPT = r"""
import gc, json
from types import SimpleNamespace
from tfteach.kernels.cuda import memory_manager
from tfteach.runtime import allocator as allocator_lib, devices

CAPACITY = 6000
live = {}


class CardOfSixThousandBytes(memory_manager.ReservingMemoryManager):
    def _driver_functions(self):
        state = {"next": 1 << 20}

        def alloc(n):
            if sum(live.values()) + n > CAPACITY:
                raise MemoryError("CUDA_ERROR_OUT_OF_MEMORY")    # what the driver says
            base = state["next"]
            state["next"] += n + (1 << 20)
            live[base] = n
            return base
        return alloc, lambda a: live.pop(a), lambda: (CAPACITY - sum(live.values()), CAPACITY)


class Context:
    device = SimpleNamespace(id=0)


alloc = allocator_lib.Allocator(devices.full_name("GPU", 0), "GPU_0_bfc", CAPACITY,
                                virtual=False)
alloc.bytes_reserved = 4096                    # TF's reservation: most of the card
devices._registry = [devices.Device("CPU", 0, "cpu"),
                     devices.Device("GPU", 0, "cuda", CAPACITY, "", alloc)]
manager = CardOfSixThousandBytes(context=Context())
manager.initialize()
small = manager.memalloc(100)
out = {"reserved_first": sorted(live.values())}
del small
gc.collect()
big = manager.memalloc(5000)                   # fits no chunk, and the card is full
out["after_big"] = sorted(live.values())
print(json.dumps(out))
"""


def test_a_big_array_on_a_full_card_frees_the_empty_chunks_first():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=os.path.dirname(os.path.dirname(tfteach.__file__)))
    proc = subprocess.run([sys.executable, "-c", FULL_CARD_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["reserved_first"] == [4096]
    assert out["after_big"] == [5120]          # the empty reservation went back first
