"""A GPU's memory as TensorFlow's BFC allocator manages it: limit, reservation, buffers.

One Allocator per GPU (virtual or real), shared by every Session of the process, like
TensorFlow's process-wide `GPU_0_bfc`. Its figures are the ones TensorFlow reports:
  bytes_limit        what the process may use: (free memory - a system margin) by
                     default, or total * per_process_gpu_memory_fraction;
  bytes_reserved     what the process took from the driver (nvidia-smi's number): all of
                     bytes_limit at the first session by default; with allow_growth=True,
                     regions of 1 MiB, 2 MiB, 4 MiB, ... as tensors need them, never given
                     back while the process runs (TensorFlow's rule, to avoid
                     fragmentation);
  bytes_in_use       the live buffers (each rounded up to 256 bytes, as BFC does),
  peak_bytes_in_use, num_allocs, largest_alloc_size.
A request beyond bytes_limit raises ResourceExhaustedError with TensorFlow's OOM text.
tfteach adds what TensorFlow never had and the notes wished for: `release()` gives the
unused reservation back (never a live buffer), `reset()` forgets everything.

Buffers are keyed by the identity of the NumPy array holding the data: a kernel that
returns its input (Identity) or a view of it (Reshape) shares the buffer, as TensorFlow
forwards buffers, and a buffer keeps its array alive so the key stays unique.
Fragmentation is not modelled: a request fails only when in_use + request > limit.
On a real GPU the values are Numba device arrays, accounted the same way at their real
size, keyed by the memory they view (a reshaped array shares its input's buffer); the
device memory itself is Numba's (cudaMalloc per array), freed when the last reference
to it goes.
"""
import functools
import threading

import numpy as np

from tfteach.framework import errors

__all__ = ["Allocator", "Buffer", "OOM_HINT", "min_system_memory", "human_bytes",
           "rounded_size"]

_ROUND = 256
_MIB = 1 << 20
OOM_HINT = ("Hint: If you want to see a list of allocated tensors when OOM happens, add "
            "report_tensor_allocations_upon_oom to RunOptions for current allocation info.")

_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def rounded_size(nbytes):
    """The bytes a request of `nbytes` takes: a multiple of 256, at least 256 (BFC's)."""
    return (nbytes + _ROUND - 1) // _ROUND * _ROUND or _ROUND


def min_system_memory(available):
    """TensorFlow 1.15's margin left to the driver (gpu_device.cc MinSystemMemory)."""
    if available < (1 << 31):
        return 225 * _MIB
    return max(314572800, int(available * 0.05))


def human_bytes(n):
    """TensorFlow's HumanReadableNumBytes: 256B, 1.0KiB, 3.81MiB."""
    if n < 1024:
        return "%dB" % n
    units = "KMGTPE"
    unit = 0
    value = float(n)
    while value >= 1024 * 1024 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    return ("%.1f%siB" if units[unit] == "K" else "%.2f%siB") % (value / 1024, units[unit])



class Buffer:
    """One live allocation: who made it, its shape and dtype, its (rounded) size."""

    __slots__ = ("key", "value", "nbytes", "requested", "op_name", "shape", "dtype", "refs",
                 "allocator")

    def __init__(self, allocator, key, value, nbytes, requested, op_name, shape, dtype):
        self.allocator = allocator
        self.key = key
        self.value = value            # keeps the array alive while it is accounted
        self.nbytes = nbytes
        self.requested = requested
        self.op_name = op_name
        self.shape = shape
        self.dtype = dtype            # NumPy's; named TF's way only when shown
        self.refs = 1

    def as_dict(self):
        return {"op": self.op_name, "shape": tuple(self.shape),
                "dtype": _tf_type_name(self.dtype), "bytes": self.nbytes}

    def __repr__(self):
        return "<Buffer %s %s %s %d bytes>" % (self.op_name, list(self.shape),
                                               _tf_type_name(self.dtype), self.nbytes)


def _locked(method):
    """`method`, holding the allocator's lock (one thread at a time changes its figures)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self.lock:
            return method(self, *args, **kwargs)
    return locked


class Allocator:
    def __init__(self, device_name, name, total_memory, virtual=True, free_memory=None):
        self.device_name = device_name
        self.name = name                          # "GPU_0_bfc", as in TF's OOM text
        self.total_memory = total_memory
        self.free_memory = total_memory if free_memory is None else free_memory
        self.virtual = virtual
        self._unconfigure()
        self.peak_bytes_in_use = 0
        self.num_allocs = 0
        self.largest_alloc_size = 0
        self.bytes_in_use = 0
        self.live = {}                            # key -> Buffer
        # Several session threads account on one device at once (Session.run is
        # thread-safe): every change of the figures and of `live` holds this lock.
        self.lock = threading.RLock()

    def _unconfigure(self):
        self.configured = False
        self.allow_growth = False
        self.bytes_limit = self.default_limit()
        self.bytes_reserved = 0
        self._region = self.bytes_limit

    def default_limit(self):
        # TF 1.15's gpu_device.cc takes the margin off only when there is more than it:
        # a card (a virtual one of 100 MiB) no bigger than 225 MiB is all usable.
        margin = min_system_memory(self.free_memory)
        return self.free_memory - margin if margin < self.free_memory else self.free_memory

    # -- GPUOptions, at the first Session ----------------------------------------------------
    def configure(self, gpu_options):
        """Applies a Session's GPUOptions (None: the defaults) if this is the first one to
        use the device (TensorFlow: the first session decides; later sessions' options
        are ignored)."""
        if self.configured:
            return False
        self.configured = True
        defaults = gpu_options is None
        fraction = 0.0 if defaults else gpu_options.per_process_gpu_memory_fraction
        if fraction and fraction > 0:
            self.bytes_limit = int(self.total_memory * fraction) // _ROUND * _ROUND
        else:
            self.bytes_limit = self.default_limit()
        self.allow_growth = not defaults and bool(gpu_options.allow_growth)
        if self.allow_growth:
            self._region = min(self.bytes_limit, _MIB)
        else:
            self._region = self.bytes_limit
            self._extend(0)                       # take everything now, like TensorFlow
        return True

    def _extend(self, needed):
        """BFC's Extend: grow the reservation by a region (doubling) covering `needed`."""
        available = self.bytes_limit - self.bytes_reserved
        if needed > available:
            return False
        increased = False
        while needed > self._region:
            self._region *= 2
            increased = True
        self.bytes_reserved += min(self._region, available)
        if not increased:
            self._region *= 2
        return True

    # -- buffers -----------------------------------------------------------------------------------
    @_locked
    def charge(self, value, op_name):
        """Accounts the array `value` produced by `op_name`; returns its Buffer (shared
        when it is, or is a view of, an array already accounted), or None for values
        that are not arrays (a variable reference, a dead tensor)."""
        root, nbytes = value, None
        if type(root) is np.ndarray or isinstance(root, np.ndarray):
            while isinstance(root.base, np.ndarray):
                root = root.base
        elif hasattr(root, "copy_to_host"):       # a CUDA device array (real GPU)
            nbytes = root.nbytes
            root = _device_memory(root)           # shared by its views (Reshape)
        elif getattr(root, "stands_for_array", False):
            # A product or gather-gradient not made yet (runtime/fusion.py: a weight
            # gradient left to its update's GEMM, a loop's kept for one summing GEMM or
            # row addition): charged as the tensor it stands for, which TensorFlow's
            # GPU graph makes, so the figures stay TensorFlow's.
            nbytes = int(np.prod(root.shape)) * np.dtype(root.dtype).itemsize
        elif not isinstance(root, np.generic):
            return None
        buf = self.live.get(id(root))
        if buf is not None:
            buf.refs += 1
            return buf
        # A new array, or a view of a new one (the kernel returned part of a temporary):
        # the memory held is the base array's.
        return self.allocate(root.nbytes if nbytes is None else nbytes, op_name,
                             value.shape, value.dtype, root)

    def owns(self, value):
        """Whether the array `value` (or the array it views) is already accounted here."""
        while isinstance(value, np.ndarray) and isinstance(value.base, np.ndarray):
            value = value.base
        return id(value) in self.live and isinstance(value, (np.ndarray, np.generic))

    def allocate(self, nbytes, op_name, shape, dtype, value=None):
        """A new Buffer of `nbytes`, or ResourceExhaustedError with TensorFlow's text."""
        with self.lock:
            return self.allocate_locked(nbytes, op_name, shape, dtype, value)

    def allocate_locked(self, nbytes, op_name, shape, dtype, value=None):
        """`allocate`, for a caller that holds `self.lock` already (the accounted loop,
        device_run.py: every tensor a GPU step produces, so kept lean: an RLock taken
        twice and a wrapper call were a third of a small step's accounting)."""
        size = (nbytes + _ROUND - 1) // _ROUND * _ROUND or _ROUND     # rounded_size, inline
        in_use = self.bytes_in_use + size
        if in_use > self.bytes_reserved and not self._grow(size):
            raise self._oom(shape, dtype)
        buf = Buffer(self, id(value) if value is not None else object(), value, size, nbytes,
                     op_name, shape, dtype)
        self.live[buf.key] = buf
        self.bytes_in_use = in_use
        self.num_allocs += 1
        if size > self.largest_alloc_size:
            self.largest_alloc_size = size
        if in_use > self.peak_bytes_in_use:
            self.peak_bytes_in_use = in_use
        return buf

    def _grow(self, size):
        """Makes room for `size` more bytes in the reservation, within the limit."""
        if not self.configured:
            self.configure(None)                  # the default GPUOptions
        if self.bytes_in_use + size > self.bytes_limit:
            return False
        free = self.bytes_reserved - self.bytes_in_use
        return size <= free or self._extend(size - free)

    def unref(self, buf):
        # (the lock once, not again through free: the accounted loop calls this for
        # every tensor a GPU step made)
        with self.lock:
            buf.refs -= 1
            if buf.refs <= 0:
                self.free_locked(buf)

    @_locked
    def free(self, buf):
        self.free_locked(buf)

    def free_locked(self, buf):
        """`free`, for a caller that holds `self.lock` already."""
        if self.live.get(buf.key) is buf:       # not already gone (reset)
            del self.live[buf.key]
            self.bytes_in_use -= buf.nbytes
            buf.value = None

    def _oom(self, shape, dtype):
        error = errors.ResourceExhaustedError(
            None, None, "OOM when allocating tensor with shape[%s] and type %s on %s by "
            "allocator %s" % (",".join(str(d) for d in shape), _tf_type_name(dtype),
                              self.device_name, self.name))
        error.hint = OOM_HINT
        error.oom_allocator = self
        return error

    def allocation_report(self, top=6):
        """TensorFlow's report_tensor_allocations_upon_oom text: the largest live buffers."""
        by_op = {}
        for buf in self.live.values():
            by_op[buf.op_name] = by_op.get(buf.op_name, 0) + buf.nbytes
        ranked = sorted(by_op.items(), key=lambda kv: -kv[1])
        lines = ["Current usage from device: %s, allocator: %s"
                 % (self.device_name, self.name)]
        lines += ["  %s from %s" % (human_bytes(n), name) for name, n in ranked[:top]]
        rest = ranked[top:]
        if rest:
            lines.append("  Remaining %d nodes with %s"
                         % (len(rest), human_bytes(sum(n for _, n in rest))))
        return "\n".join(lines)

    # -- giving memory back ----------------------------------------------------------------------
    @_locked
    def release(self):
        """Gives the unused reservation back to the driver; returns how many bytes. Live
        buffers stay. A device left with nothing in use forgets its GPUOptions, so the
        next Session's options apply as in a fresh process."""
        freed = self.bytes_reserved - self.bytes_in_use
        self.bytes_reserved = self.bytes_in_use
        if not self.virtual:
            _flush_cuda_frees()
        if self.bytes_in_use == 0:
            self._unconfigure()
        else:
            self._region = max(_MIB, self._region)
        return freed

    @_locked
    def reset(self):
        """Hard reset: forgets every buffer and every figure (the kernel-restart button)."""
        for buf in self.live.values():
            buf.value = None
            buf.refs = 0
        self.live = {}
        self.bytes_in_use = 0
        self.peak_bytes_in_use = 0
        self.num_allocs = 0
        self.largest_alloc_size = 0
        self._unconfigure()

    def stats(self):
        return {"device": self.device_name, "allocator": self.name, "virtual": self.virtual,
                "total_memory": self.total_memory, "bytes_limit": self.bytes_limit,
                "bytes_reserved": self.bytes_reserved, "bytes_in_use": self.bytes_in_use,
                "peak_bytes_in_use": self.peak_bytes_in_use, "num_allocs": self.num_allocs,
                "largest_alloc_size": self.largest_alloc_size,
                "allow_growth": self.allow_growth,
                "live_buffers": [b.as_dict() for b in
                                 sorted(self.live.values(), key=lambda b: -b.nbytes)],
                # TF 2's tf.config.experimental.get_memory_info names
                "current": self.bytes_in_use, "peak": self.peak_bytes_in_use}


def _flush_cuda_frees():
    """Numba frees device arrays in batches; a real GPU's release() frees the pending ones
    now, so the driver (nvidia-smi) gets the memory back at once."""
    try:
        from numba import cuda
        context = cuda.current_context()
        pending = getattr(context, "deallocations", None)  # not in the simulator
        if pending is not None:
            pending.clear()
        # With the reserving plugin (kernels/cuda/memory_manager.py, opt-in), the empty
        # regions of the reservation go back to the driver too.
        arena = getattr(getattr(context, "memory_manager", None), "arena", None)
        if arena is not None:
            arena.release_unused()
    except Exception:  # noqa: BLE001 - no context, no driver: nothing to free
        pass


def _device_memory(array):
    """The object owning a device array's memory, shared by its views: Numba's
    MemoryPointer (`gpu_data`), or the simulator's underlying NumPy array."""
    memory = getattr(array, "gpu_data", None)
    if memory is None:
        memory = getattr(array, "_ary", array)
        while isinstance(memory, np.ndarray) and isinstance(memory.base, np.ndarray):
            memory = memory.base
    return memory


def _tf_type_name(dtype):
    name = getattr(dtype, "name", str(dtype))
    return _TF_TYPE_NAMES.get(name, name)
