"""The devices a tfteach process has: `/cpu:0` always, and GPUs — real or virtual.

- Real GPUs are the CUDA devices Numba's driver sees (it already honours
  `CUDA_VISIBLE_DEVICES`). Numba's CUDA *simulator* is not a GPU: it is used only to
  test CUDA kernels, so it never counts as one here.
- Virtual GPUs are what a CPU-only classroom gets when it asks for them, with
  `tfteach.config.set_virtual_gpus(n, memory_limit=MiB)` or the environment variables
  `TFTEACH_VIRTUAL_GPUS=n` / `TFTEACH_VIRTUAL_GPU_MEMORY=MiB` (default 2048). They run
  the CPU kernels on their own buffers but keep a GPU's rules: placement, copies, a fixed
  memory size and its allocator. An explicit request for virtual GPUs wins over real
  ones, so a lesson behaves the same on every machine. `CUDA_VISIBLE_DEVICES` applies to
  virtual GPUs too (they stand for the physical cards), read when the devices are first
  listed — as CUDA reads it once, "before import tensorflow" in the notes.
  `TFTEACH_VIRTUAL_GPUS_IF_NO_GPU=n` asks for n virtual GPUs only when Numba sees no
  real one (the teaching kernel sets it: a GPU machine keeps its real cards).

A Session sees a `DeviceSet`: the process devices filtered by its ConfigProto
(`device_count={'GPU': 0}`, `gpu_options.visible_device_list="1"`, which also renumbers:
physical GPU 1 becomes that session's `/device:GPU:0`, as in TensorFlow).
"""
import ctypes
import os
import sys

from tfteach.runtime import allocator as allocator_lib

__all__ = ["Device", "DeviceSet", "local_devices", "known_devices", "set_virtual_gpus",
           "session_devices",
           "full_name", "CPU_NAME", "SessionDeviceAttributes"]

_PREFIX = "/job:localhost/replica:0/task:0"
CPU_NAME = _PREFIX + "/device:CPU:0"
_MIB = 1 << 20
CPU_MEMORY_LIMIT = 268435456       # what TensorFlow reports for the CPU device (256 MiB)


def full_name(device_type, index):
    return "%s/device:%s:%d" % (_PREFIX, device_type, index)


class Device:
    """One device as a Session sees it (TensorFlow's Device / DeviceAttributes).

    `kind` is 'cpu', 'virtual' (a virtual GPU) or 'cuda' (a real GPU); `kernel_type` is
    the registry key of the kernels it runs ('CPU' for the CPU and virtual GPUs).
    `allocator` is None for the CPU: host memory is NumPy's, not accounted.
    """

    def __init__(self, device_type, index, kind, memory_limit=0, description="",
                 allocator=None, physical_index=None):
        self.device_type = device_type
        self.index = index
        self.name = full_name(device_type, index)
        self.short_name = "/device:%s:%d" % (device_type, index)
        self.kind = kind
        self.kernel_type = "GPU" if kind == "cuda" else "CPU"
        self.memory_limit = memory_limit          # total device memory, bytes
        self.description = description            # TF's physical_device_desc
        self.allocator = allocator
        self.physical_index = index if physical_index is None else physical_index

    @property
    def is_virtual(self):
        return self.kind == "virtual"

    def renamed(self, index):
        """The same physical device under another logical index (visible_device_list)."""
        return Device(self.device_type, index, self.kind, self.memory_limit,
                      self.description, self.allocator, self.physical_index)

    def __repr__(self):
        return "<Device %s%s>" % (self.name, " (virtual)" if self.is_virtual else "")


# -- the process registry ----------------------------------------------------------------------
_registry = None          # [Device], CPU first; built on first use


def _env_int(name, default):
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def _visible_indices(count):
    """CUDA_VISIBLE_DEVICES applied to `count` (virtual) cards: the physical indices."""
    spec = os.environ.get("CUDA_VISIBLE_DEVICES")
    if spec is None:
        return list(range(count))
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= count:
            break                      # CUDA stops at the first invalid entry
        out.append(int(part))
    return out


def _virtual_gpus(count, memory_mib):
    gpus = []
    for logical, physical in enumerate(_visible_indices(count)):
        total = int(memory_mib * _MIB)
        desc = ("device: %d, name: tfteach virtual GPU (runs CPU kernels), pci bus id: "
                "virtual, compute capability: virtual" % physical)
        alloc = allocator_lib.Allocator(full_name("GPU", logical), "GPU_%d_bfc" % logical,
                                        total, virtual=True)
        gpus.append(Device("GPU", logical, "virtual", total, desc, alloc, physical))
    return gpus


def _cuda_gpus():
    """Real CUDA GPUs through Numba, or [] when there is no driver, no GPU or only the
    simulator. Every call into numba.cuda is guarded: it may be missing or broken."""
    try:
        if not _cuda_driver_present():    # first: without a driver, Numba is not imported
            return []
        from numba import config as numba_config
        if getattr(numba_config, "ENABLE_CUDASIM", 0):
            return []
        from numba import cuda
        if not cuda.is_available():
            return []
        if os.environ.get("TFTEACH_CUDA_RESERVE", "1").strip() != "0":
            # Device arrays carved from a real reservation, as TensorFlow's BFC allocator
            # (docs/devices.md); TFTEACH_CUDA_RESERVE=0 keeps Numba's one cudaMalloc per
            # array. Must come before any CUDA context exists.
            from tfteach.kernels.cuda import memory_manager
            memory_manager.install()
        gpus = []
        for i, gpu in enumerate(cuda.gpus):
            with gpu:
                free, total = cuda.current_context().get_memory_info()
                name = gpu.name.decode() if isinstance(gpu.name, bytes) else str(gpu.name)
                cc = "%d.%d" % tuple(gpu.compute_capability)
                pci = "%04x:%02x:%02x.0" % (getattr(gpu, "PCI_DOMAIN_ID", 0),
                                            getattr(gpu, "PCI_BUS_ID", 0),
                                            getattr(gpu, "PCI_DEVICE_ID", 0))
            desc = "device: %d, name: %s, pci bus id: %s, compute capability: %s" % (
                i, name, pci, cc)
            # The kernels' device arrays are accounted at their real size on this
            # allocator (allocator.charge); the limit starts from the driver's free memory.
            alloc = allocator_lib.Allocator(full_name("GPU", i), "GPU_%d_bfc" % i,
                                            int(total), virtual=False, free_memory=int(free))
            gpus.append(Device("GPU", i, "cuda", int(total), desc, alloc))
        if gpus:
            _register_cuda_kernels()
        return gpus
    except Exception:  # noqa: BLE001 - a broken CUDA install means: no real GPU
        return []


def _cuda_driver_present():
    """Whether the CUDA driver library loads. Importing numba.cuda takes ~0.3 s (the
    first session of every process on a CPU-only machine paid it); without a driver it
    can only answer "no GPU", so we ask the dynamic loader first, as Numba would."""
    if os.environ.get("NUMBA_CUDA_DRIVER"):
        return True                  # a driver at a path of the user's choosing
    names = (("nvcuda.dll",) if sys.platform == "win32" else
             ("libcuda.so.1", "libcuda.so", "libcuda.dylib"))
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def _register_cuda_kernels():
    """Ops get their "GPU" kernels (kernels/cuda/table.py). If that fails, the GPU stays
    listed but no op has a GPU kernel, so the placer keeps every op on the CPU."""
    try:
        from tfteach.kernels.cuda import register_gpu_kernels
        register_gpu_kernels()
    except Exception as e:  # noqa: BLE001
        import warnings
        warnings.warn("tfteach: the CUDA kernels could not be loaded (%s: %s); every op "
                      "will run on the CPU" % (type(e).__name__, e), RuntimeWarning)


def _build(virtual_count=None, memory_mib=None):
    cpu = Device("CPU", 0, "cpu", CPU_MEMORY_LIMIT, "")
    from_env = virtual_count is None     # set_virtual_gpus(0) means: real GPUs only
    if virtual_count is None:
        virtual_count = _env_int("TFTEACH_VIRTUAL_GPUS", 0)
    if memory_mib is None:
        memory_mib = _env_int("TFTEACH_VIRTUAL_GPU_MEMORY", 2048)
    gpus = _virtual_gpus(virtual_count, memory_mib) if virtual_count > 0 else _cuda_gpus()
    fallback = _env_int("TFTEACH_VIRTUAL_GPUS_IF_NO_GPU", 0)
    if not gpus and from_env and virtual_count == 0 and fallback > 0:
        gpus = _virtual_gpus(fallback, memory_mib)
    return [cpu] + gpus


def local_devices():
    """The process's devices, CPU first (built on first use)."""
    global _registry
    if _registry is None:
        _registry = _build()
    return _registry


def known_devices():
    """The devices if they were already listed, else [] — never probes CUDA, so the
    notebook's per-cell sampling costs nothing before the first session."""
    return _registry or []


def set_virtual_gpus(count, memory_limit=None):
    """Replaces the process's GPUs by `count` virtual GPUs of `memory_limit` MiB each
    (0 gives back the real GPUs, if any). Sessions already open keep their devices."""
    global _registry
    if count < 0:
        raise ValueError("count must be >= 0, got %d" % count)
    if memory_limit is not None and memory_limit <= 0:
        raise ValueError("memory_limit must be a positive number of MiB, got %r"
                         % (memory_limit,))
    _registry = _build(count, memory_limit)
    return [d for d in _registry if d.device_type == "GPU"]


class SessionDeviceAttributes:
    """What `Session.list_devices()` returns in TensorFlow (`_DeviceAttributes`)."""

    def __init__(self, device):
        self.name = device.name
        self.device_type = device.device_type
        self.memory_limit_bytes = (device.allocator.bytes_limit if device.allocator
                                   else device.memory_limit)
        self.incarnation = 0
        self.is_virtual = device.is_virtual

    def __repr__(self):
        return ("_DeviceAttributes(%s, %s, %d, %d)" % (self.name, self.device_type,
                                                        self.memory_limit_bytes,
                                                        self.incarnation))


# -- what one session sees ---------------------------------------------------------------------
class DeviceSet:
    """The devices of one Session, CPU first; `by_name` keys are full names."""

    def __init__(self, devices):
        self.devices = devices
        self.cpu = devices[0]
        self.gpus = [d for d in devices if d.device_type == "GPU"]
        self.by_name = {d.name: d for d in devices}
        self.has_gpu = bool(self.gpus)

    def names(self):
        """Full names, sorted as TensorFlow lists them in placement errors."""
        return sorted(self.by_name)

    def mapping_lines(self):
        """TF's "Device mapping:" lines: devices with a physical description."""
        return ["%s -> %s" % (d.name, d.description) for d in self.devices if d.description]


def _parse_visible_list(spec, count):
    indices = []
    for part in spec.split(","):
        part = part.strip()
        if not part.isdigit():
            raise ValueError("Could not parse entry in 'visible_device_list': '%s'. "
                             "visible_device_list = %s" % (part, spec))
        index = int(part)
        if index >= count:
            from tfteach.framework import errors
            raise errors.InvalidArgumentError(
                None, None, "'visible_device_list' listed an invalid GPU id '%d' but "
                "visible device count is %d" % (index, count))
        if index in indices:
            from tfteach.framework import errors
            raise errors.InvalidArgumentError(
                None, None, "visible_device_list contained a duplicate entry: %s" % spec)
        indices.append(index)
    return indices


def session_devices(config):
    """The DeviceSet a Session with ConfigProto `config` gets."""
    registry = local_devices()
    cpu, gpus = registry[0], registry[1:]
    spec = config.gpu_options.visible_device_list if config is not None else ""
    if spec:
        gpus = [gpus[i].renamed(k) for k, i in enumerate(_parse_visible_list(spec, len(gpus)))]
    count = (config.device_count or {}).get("GPU") if config is not None else None
    if count is not None:
        gpus = gpus[:max(0, int(count))]
    return DeviceSet([cpu] + gpus)
