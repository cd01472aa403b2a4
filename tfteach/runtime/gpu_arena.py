"""A reservation of real device memory, and the arrays carved out of it.

TensorFlow's BFC allocator takes (nearly) the whole card from the driver at the first
session and hands pieces of it to tensors; `nvidia-smi` shows the reservation, not the
tensors. `Arena` is that bookkeeping, without any CUDA in it: `reserve(n)` asks the
driver for one region of n bytes (`driver_alloc(n) -> address`), `allocate(n)` gives
the first free piece big enough (rounded to 256 bytes, as BFC), `free(address)` returns
it and merges it with its free neighbours, and `release_unused()` gives every region
nothing is carved from back to the driver (`driver_free(address)`).

kernels/cuda/memory_manager.py plugs it into Numba (an External Memory Management
plugin) so that device arrays live inside the reservation; the tests drive it with a
fake driver (tests/test_gpu_arena.py).

`reserve_up_to` takes the reservation in chunks (`chunk` bytes each, 256 MiB by
default) rather than in one region, because a region goes back to the driver only when
nothing is carved from it: with one region of the whole card, a session's variables
would pin all of it, and the notebook's release after each cell (which leaves live
buffers alone) would give nothing back. With chunks, only those holding live buffers
stay. An array bigger than a chunk gets a region of its own (`reserve`).
"""

import functools
import threading

__all__ = ["Arena", "ROUND", "CHUNK"]

ROUND = 256
CHUNK = 256 << 20


class _Region:
    __slots__ = ("base", "size", "free", "used")

    def __init__(self, base, size):
        self.base = base
        self.size = size
        self.free = [(base, size)]      # (address, size), sorted by address, merged
        self.used = {}                  # address -> size

    def take(self, nbytes):
        for k, (address, size) in enumerate(self.free):
            if size >= nbytes:
                if size == nbytes:
                    del self.free[k]
                else:
                    self.free[k] = (address + nbytes, size - nbytes)
                self.used[address] = nbytes
                return address
        return None

    def give_back(self, address):
        size = self.used.pop(address)
        free = self.free
        k = 0
        while k < len(free) and free[k][0] < address:
            k += 1
        free.insert(k, (address, size))
        # merge with the right neighbour, then the left one
        if k + 1 < len(free) and free[k][0] + free[k][1] == free[k + 1][0]:
            free[k] = (address, free[k][1] + free[k + 1][1])
            del free[k + 1]
        if k > 0 and free[k - 1][0] + free[k - 1][1] == free[k][0]:
            free[k - 1] = (free[k - 1][0], free[k - 1][1] + free[k][1])
            del free[k]


def _locked(method):
    """`method`, holding the arena's lock: session threads allocate at once (and Numba
    frees from whichever thread drops an array's last reference); two threads must
    never take the same free piece."""
    @functools.wraps(method)
    def locked(self, *args):
        with self.lock:
            return method(self, *args)
    return locked


class Arena:
    """Regions reserved from the driver, and the pieces in use inside them."""

    def __init__(self, driver_alloc, driver_free, chunk=CHUNK):
        self._alloc = driver_alloc
        self._free = driver_free
        self.chunk = _rounded(chunk)
        self.regions = []
        self._reserved = 0              # kept as a sum: read at every allocation
        self.lock = threading.RLock()

    @property
    def bytes_reserved(self):
        return self._reserved

    @property
    def bytes_in_use(self):
        return sum(sum(r.used.values()) for r in self.regions)

    @_locked
    def reserve(self, nbytes):
        """One more region of `nbytes` (rounded up) from the driver."""
        nbytes = _rounded(nbytes)
        region = _Region(self._alloc(nbytes), nbytes)
        self.regions.append(region)
        self._reserved += nbytes
        return region.base

    @_locked
    def reserve_up_to(self, total):
        """Reserves what is missing for `bytes_reserved` to reach `total`, in chunks."""
        missing = total - self._reserved
        while missing > 0:
            self.reserve(min(missing, self.chunk))
            missing = total - self._reserved

    @_locked
    def allocate(self, nbytes):
        """The address of a free piece of `nbytes` (rounded), or None if none fits."""
        nbytes = _rounded(nbytes)
        for region in self.regions:
            address = region.take(nbytes)
            if address is not None:
                return address
        return None

    @_locked
    def free(self, address):
        for region in self.regions:
            if address in region.used:
                region.give_back(address)
                return
        raise KeyError("address %#x was not allocated here" % address)

    @_locked
    def release_unused(self):
        """Gives back every region with nothing in use; returns the bytes given back."""
        kept, freed = [], 0
        for region in self.regions:
            if region.used:
                kept.append(region)
            else:
                self._free(region.base)
                freed += region.size
        self.regions = kept
        self._reserved -= freed
        return freed


def _rounded(nbytes):
    return max(ROUND, (int(nbytes) + ROUND - 1) // ROUND * ROUND)
