"""Device names as TensorFlow parses, merges and prints them.

`/cpu:0`, `/gpu:1`, `/device:GPU:0`, `GPU:0`, `/job:localhost/replica:0/task:0/device:CPU:0`
and partial specs all parse to a DeviceSpec; nested `tf.device` scopes merge field by
field (inner fields win) and print in TF's canonical form (`/device:GPU:0`).
"""
__all__ = ["DeviceSpec", "canonical_name", "merge_device"]


class DeviceSpec:
    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = None if device_type is None else device_type.upper()
        self.device_index = device_index

    @classmethod
    def from_string(cls, spec):
        spec = spec or ""
        out = cls()
        for part in spec.split("/"):
            if not part:
                continue
            pieces = part.split(":")
            head = pieces[0]
            if head == "job" and len(pieces) == 2:
                out.job = pieces[1]
            elif head == "replica" and len(pieces) == 2 and pieces[1].isdigit():
                out.replica = int(pieces[1])
            elif head == "task" and len(pieces) == 2 and pieces[1].isdigit():
                out.task = int(pieces[1])
            elif head == "device" and len(pieces) in (2, 3):
                out._set_device(pieces[1], pieces[2] if len(pieces) == 3 else None, spec)
            elif len(pieces) in (1, 2) and head.upper() in ("CPU", "GPU"):
                out._set_device(head, pieces[1] if len(pieces) == 2 else None, spec)
            else:
                raise ValueError("Unknown attribute: '%s' in '%s'" % (part, spec))
        return out

    def _set_device(self, device_type, index, spec):
        self.device_type = device_type.upper()
        if index is None or index == "*":
            self.device_index = None
        elif index.isdigit():
            self.device_index = int(index)
        else:
            raise ValueError("Unknown attribute: '%s' in '%s'" % (index, spec))

    def merge_from(self, other):
        """Fields set in `other` override ours (TensorFlow's inner-scope-wins rule)."""
        for field in self.__slots__:
            value = getattr(other, field)
            if value is not None:
                setattr(self, field, value)

    def to_string(self):
        parts = []
        if self.job is not None:
            parts.append("/job:" + self.job)
        if self.replica is not None:
            parts.append("/replica:%d" % self.replica)
        if self.task is not None:
            parts.append("/task:%d" % self.task)
        if self.device_type is not None:
            index = "*" if self.device_index is None else str(self.device_index)
            parts.append("/device:%s:%s" % (self.device_type, index))
        return "".join(parts)

    def __repr__(self):
        return "DeviceSpec(%r)" % self.to_string()


def canonical_name(spec):
    """`/gpu:0` -> `/device:GPU:0`; `''` stays `''`."""
    if not spec:
        return ""
    return DeviceSpec.from_string(spec).to_string()


def merge_device(outer, inner):
    """The device string an op gets inside `tf.device(inner)` nested in `tf.device(outer)`."""
    merged = DeviceSpec.from_string(outer or "")
    merged.merge_from(DeviceSpec.from_string(inner or ""))
    return merged.to_string()
