"""A Numba External Memory Management plugin: device arrays inside TF's reservation.

On by default on a real GPU (`TFTEACH_CUDA_RESERVE=0` before the first session turns it
off; see docs/devices.md): runtime/devices.py calls `install()` before Numba creates any
CUDA context. From then on every device array Numba allocates on a card comes from a
`runtime.gpu_arena.Arena` that first takes from the driver what the card's tfteach
allocator has reserved (`bytes_reserved`, by TensorFlow's GPUOptions: nearly the whole
card by default), in 256 MiB chunks, so `nvidia-smi` shows TensorFlow's big reservation;
an array that fits no chunk (allow_growth, or a big tensor) gets a region of its own, and
when the card is full the empty chunks go back to the driver first.
`tf.config.release_memory()` (and the notebook's release after each cell) gives every
chunk nothing is carved from back to the driver (`release_unused`).

Verified on an H100 (scripts/gpu_check.sh; figures in docs/cuda_kernels.md) and tested
without a GPU with a fake driver and context (tests/test_cuda_memory_manager.py).
"""
import weakref

from numba import cuda

try:
    from numba.cuda import (GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo,
                            MemoryPointer)
except ImportError:
    # Numba's CUDA simulator (the tests' NUMBA_ENABLE_CUDASIM=1) has no memory managers:
    # the module still imports there, and `install` says why it cannot work.
    class GetIpcHandleMixin:                      # stand-ins, never instantiated
        pass

    class HostOnlyCUDAMemoryManager:
        pass
    MemoryInfo = MemoryPointer = None

from tfteach.runtime.gpu_arena import Arena

__all__ = ["ReservingMemoryManager", "install", "release_unused"]


def install():
    """Makes Numba allocate through the plugin (must run before any CUDA context)."""
    if MemoryPointer is None:
        raise RuntimeError("tfteach's reserving CUDA memory manager needs Numba's real CUDA "
                           "driver, not its simulator")
    cuda.set_memory_manager(ReservingMemoryManager)


def release_unused():
    """Gives the current card's empty regions back to the driver (release_memory)."""
    manager = getattr(cuda.current_context(), "memory_manager", None)
    if isinstance(manager, ReservingMemoryManager):
        return manager.arena.release_unused()
    return 0


class ReservingMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Numba's device memory for one context (one card), carved from one reservation."""

    def initialize(self):
        # Numba calls this again at every push of the context (`with cuda.gpus[i]`,
        # prepare_for_use): a second Arena would orphan the first one's regions, which
        # the driver still holds (seen on a card: the next session found it full).
        if getattr(self, "arena", None) is not None:
            return
        alloc, free, self._info = self._driver_functions()
        self.arena = Arena(alloc, free)

    def _driver_functions(self):
        """(alloc(n) -> int address, free(address), info() -> (free, total)): the driver's;
        a test replaces them."""
        from numba.cuda.cudadrv import driver as drv
        return (lambda n: int(drv.driver.cuMemAlloc(n)),
                lambda address: drv.driver.cuMemFree(drv.binding.CUdeviceptr(address)),
                drv.driver.cuMemGetInfo)

    def _target(self):
        """What this card's tfteach allocator has reserved (TF's GPUOptions)."""
        from tfteach.runtime import devices
        index = getattr(getattr(self.context, "device", None), "id", 0)
        for device in devices.known_devices():
            if device.kind == "cuda" and device.physical_index == index:
                return device.allocator.bytes_reserved
        return 0

    def memalloc(self, size):
        arena = self.arena
        with arena.lock:                       # one session thread at a time grows it
            try:
                arena.reserve_up_to(self._target())
            except Exception:  # noqa: BLE001 - the driver is out of room: carve what we have
                pass
            address = arena.allocate(size)
            if address is None:                # beyond the reservation: grow by a region
                try:
                    arena.reserve(size)
                except Exception:  # noqa: BLE001 - the card is full of empty chunks: free
                    if not arena.release_unused():
                        raise
                    arena.reserve(size)
                address = arena.allocate(size)
        return MemoryPointer(weakref.proxy(self.context), self._pointer(address), size,
                             finalizer=lambda: arena.free(address))

    def _pointer(self, address):
        from numba.cuda.cudadrv import driver as drv
        return drv.binding.CUdeviceptr(address)

    def get_memory_info(self):
        free, total = self._info()
        return MemoryInfo(free=free, total=total)

    def reset(self):
        self.arena.release_unused()

    @property
    def interface_version(self):
        return 1
