"""`tfteach.config`: the devices of this process and their memory.

    import tfteach as tf
    tf.config.set_virtual_gpus(2, memory_limit=1024)   # two 1 GiB virtual GPUs
    tf.config.memory_stats("/gpu:0")                    # bytes_in_use, bytes_reserved, ...
    tf.config.release_memory()                          # give unused reservations back
    tf.config.reset_memory()                            # forget everything (hard reset)

TensorFlow 1.15 has no such calls — its GPU memory stays taken until the process ends,
which is the pain the course notes describe. tfteach adds them so a notebook can show,
and give back, what each cell took. `list_physical_devices` and
`experimental.get_memory_info` follow TensorFlow 2's names.

`tf.config.threading` and `tf.config.optimizer` are TensorFlow's (1.15 and 2): the
process's default thread counts and graph optimizer options, which every Session made
without a config, every tf.function and eager execution use
(runtime/context_config.py).
"""
import types

from tfteach.framework.device_spec import DeviceSpec
from tfteach.runtime import context_config as _context_config
from tfteach.runtime import devices as _devices

__all__ = ["set_virtual_gpus", "memory_stats", "release_memory", "reset_memory",
           "list_physical_devices", "list_logical_devices", "experimental", "threading",
           "optimizer"]


def set_virtual_gpus(count, memory_limit=None):
    """Gives this process `count` virtual GPUs of `memory_limit` MiB each (default
    TFTEACH_VIRTUAL_GPU_MEMORY or 2048). They run the CPU kernels but follow a GPU's
    rules (placement, copies, memory). Sessions already open keep their devices.
    `set_virtual_gpus(0)` returns to the real GPUs, if Numba sees any."""
    gpus = _devices.set_virtual_gpus(int(count), memory_limit)
    return [PhysicalDevice(d) for d in gpus]


def _find(device):
    spec = DeviceSpec.from_string(device if isinstance(device, str) else device.name)
    kind = spec.device_type or "CPU"
    index = spec.device_index or 0
    for d in _devices.local_devices():
        if d.device_type == kind and d.index == index:
            return d
    raise ValueError("No such device: %r. This process has: %s" % (
        device, ", ".join(d.short_name for d in _devices.local_devices())))


def memory_stats(device="/gpu:0"):
    """A dict of the device's memory figures: bytes_in_use, peak_bytes_in_use,
    bytes_reserved, bytes_limit, total_memory, num_allocs, largest_alloc_size,
    live_buffers (op, shape, dtype, bytes; largest first), virtual. The CPU's host
    memory is not accounted: its figures are zero and 'accounted' is False."""
    d = _find(device)
    if d.allocator is None:
        return {"device": d.name, "accounted": False, "virtual": False,
                "total_memory": d.memory_limit, "bytes_limit": d.memory_limit,
                "bytes_reserved": 0, "bytes_in_use": 0, "peak_bytes_in_use": 0,
                "num_allocs": 0, "largest_alloc_size": 0, "live_buffers": [],
                "current": 0, "peak": 0}
    stats = d.allocator.stats()
    stats["accounted"] = True
    return stats


def release_memory():
    """Gives every GPU's unused reservation back; returns {device name: bytes freed}.
    Memory that live objects (an open session's variables) use is never freed: close
    the session first."""
    return {d.name: d.allocator.release() for d in _devices.local_devices()
            if d.allocator is not None}


def reset_memory():
    """Hard reset of every GPU's accounting: buffers, figures and GPUOptions forgotten,
    as after a kernel restart. Open sessions should be closed first; their later frees
    are ignored."""
    for d in _devices.local_devices():
        if d.allocator is not None:
            d.allocator.reset()


class PhysicalDevice:
    """TensorFlow 2's `PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')`."""

    def __init__(self, device):
        self.name = "/physical_device:%s:%d" % (device.device_type, device.index)
        self.device_type = device.device_type
        self.is_virtual = device.is_virtual

    def __repr__(self):
        return "PhysicalDevice(name='%s', device_type='%s')" % (self.name, self.device_type)

    def __eq__(self, other):
        return isinstance(other, PhysicalDevice) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


def list_physical_devices(device_type=None):
    return [PhysicalDevice(d) for d in _devices.local_devices()
            if device_type is None or d.device_type == device_type.upper()]


list_logical_devices = list_physical_devices


def _get_memory_info(device):
    stats = memory_stats(device)
    return {"current": stats["bytes_in_use"], "peak": stats["peak_bytes_in_use"]}


experimental = types.SimpleNamespace(list_physical_devices=list_physical_devices,
                                     get_memory_info=_get_memory_info)


# -- tf.config.threading and tf.config.optimizer: the process's default options ------------
def _get_intra_op_parallelism_threads():
    """Threads used within an individual op (0: the system picks)."""
    return _context_config.intra_op_threads()


def _set_intra_op_parallelism_threads(num_threads):
    """Sets the threads used within an op, for eager ops, tf.functions and every Session
    made without a config: 1 runs each step on one thread, as
    `ConfigProto(intra_op_parallelism_threads=1)` does (docs/engine.md, "Threads")."""
    _context_config.set_intra_op_threads(num_threads)


def _get_inter_op_parallelism_threads():
    """Threads used for independent ops (0: the system picks)."""
    return _context_config.inter_op_threads()


def _set_inter_op_parallelism_threads(num_threads):
    """Sets the threads used for independent ops (kept in the sessions' ConfigProto;
    tfteach runs a step's ops one after another whatever it says)."""
    _context_config.set_inter_op_threads(num_threads)


def _get_experimental_options():
    """The graph optimizer's options set for the process, as TensorFlow reads them back:
    the toggles set (True: ON), `disable_model_pruning`, `disable_meta_optimizer`."""
    return _context_config.optimizer_options()


def _set_experimental_options(options):
    """Turns graph optimizer passes on or off for every Session made without a config
    and every tf.function, e.g. `{"constant_folding": False, "remapping": False}`: the
    fields of `RewriterConfig` (docs/optimizer.md)."""
    _context_config.set_optimizer_options(options)


def _get_jit():
    """Whether JIT compilation is on (TF 1.15: a bool; later TF: a string)."""
    return _context_config.optimizer_jit()


def _set_jit(enabled):
    """Sets `global_jit_level` ON_1 (True) or back (False) in the sessions' options.
    There is no XLA here: tfteach's fusions run either way (docs/optimizer.md)."""
    _context_config.set_optimizer_jit(enabled)


threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=_get_intra_op_parallelism_threads,
    set_intra_op_parallelism_threads=_set_intra_op_parallelism_threads,
    get_inter_op_parallelism_threads=_get_inter_op_parallelism_threads,
    set_inter_op_parallelism_threads=_set_inter_op_parallelism_threads)
optimizer = types.SimpleNamespace(get_experimental_options=_get_experimental_options,
                                  set_experimental_options=_set_experimental_options,
                                  get_jit=_get_jit, set_jit=_set_jit)
