"""`from tensorflow.python.client import device_lib`: the local devices, as TF lists them.

    from tfteach.python.client import device_lib
    print(device_lib.list_local_devices())

Each entry prints like TensorFlow's DeviceAttributes protobuf (name '/device:GPU:0',
device_type, memory_limit, locality, incarnation, physical_device_desc). A virtual GPU
says so in its physical_device_desc.
"""
from tfteach.runtime import devices as _devices

__all__ = ["list_local_devices", "DeviceAttributes"]


class DeviceAttributes:
    def __init__(self, device, memory_limit, incarnation):
        self.name = device.short_name
        self.device_type = device.device_type
        self.memory_limit = memory_limit
        self.incarnation = incarnation
        self.physical_device_desc = device.description
        self.bus_id = 1 if device.device_type == "GPU" else 0
        self.is_virtual = device.is_virtual

    def __str__(self):
        lines = ['name: "%s"' % self.name, 'device_type: "%s"' % self.device_type,
                 "memory_limit: %d" % self.memory_limit, "locality {"]
        if self.bus_id:
            lines += ["  bus_id: %d" % self.bus_id, "  links {", "  }"]
        lines += ["}", "incarnation: %d" % self.incarnation]
        if self.physical_device_desc:
            lines.append('physical_device_desc: "%s"' % self.physical_device_desc)
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def list_local_devices(session_config=None):
    """The devices a Session would get; GPU memory_limit is what its allocator may use
    (total minus TensorFlow's system margin, or the per_process_gpu_memory_fraction)."""
    from tfteach.runtime.config import ConfigProto
    config = session_config if session_config is not None else ConfigProto()
    out = []
    for i, d in enumerate(_devices.session_devices(config).devices):
        if d.allocator is None:
            limit = d.memory_limit
        else:
            fraction = config.gpu_options.per_process_gpu_memory_fraction
            limit = (int(d.memory_limit * fraction) // 256 * 256 if fraction and fraction > 0
                     else d.allocator.default_limit())
        # A stable, made-up incarnation number (TF's is random per process).
        out.append(DeviceAttributes(d, limit, (0x9E3779B97F4A7C15 * (i + 1)) % (1 << 63)))
    return out
