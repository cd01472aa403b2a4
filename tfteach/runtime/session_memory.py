"""What one Session keeps in GPU memory between runs, and gives back when it closes.

Two kinds of value outlive a `sess.run` on a GPU: variables' values (TensorFlow keeps
them in the device's memory while the session lives) and constants (each Const kernel
owns its tensor). Temporaries are the executor's business (executor._run_accounted).

`DeviceVariableStore` is the Session's `variable_values` dict when the session has a
GPU: storing the value of a variable placed on a GPU charges it to that GPU's allocator
and frees the value it replaces. A session with only the CPU keeps a plain dict, so
nothing is paid where nothing is accounted. `SessionMemory.release()` runs when the
session closes — or is garbage-collected, as TensorFlow's `Session.__del__` does.
"""
import threading

__all__ = ["DeviceVariableStore", "SessionMemory"]


class DeviceVariableStore(dict):
    """VariableV2 op name -> value; values of GPU variables are accounted."""

    def __init__(self, placer):
        super().__init__()
        self._placer = placer
        self._buffers = {}               # name -> (allocator, Buffer)
        self._allocators = {}            # name -> its device's allocator (or None)
        # Session threads assigning one variable at once: its value and its Buffer are
        # replaced together.
        self._lock = threading.RLock()

    def _allocator_of(self, name):
        try:
            return self._allocators[name]
        except KeyError:
            op = self._placer.graph._get_operation_or_none(name)
            alloc = None if op is None else self._placer.device_of(op).allocator
            if (alloc is not None and not alloc.virtual and
                    op._outputs[0].dtype.base_dtype.name == "int32"):
                alloc = None   # on a real GPU int32 values live in host memory (HostMemory)
            self._allocators[name] = alloc
            return alloc

    def accounting_holders(self, name):
        """References to the value of `name` the accounting itself keeps (its Buffer)."""
        return 1 if name in self._buffers else 0

    def __setitem__(self, name, value):
        self._store(name, value, own_buffer=True)

    def take(self, name, value):
        """Stores a tensor of the running plan whose last reader is the Assign storing it
        (kernels/cpu/state_kernels.assign_taking_value): the variable keeps its buffer,
        as TensorFlow's Assign forwards it, and the run's charge for it passes over."""
        self._store(name, value, own_buffer=False)

    def _store(self, name, value, own_buffer):
        if dict.get(self, name) is value:
            return          # updated in place (training_kernels): same buffer, same bytes
        with self._lock:
            self._replace(name, value, own_buffer)

    def _replace(self, name, value, own_buffer):
        alloc = self._allocator_of(name)
        new = None
        if alloc is not None:
            if own_buffer and alloc.owns(value):
                # The value is another tensor's buffer (a constant initial value): like
                # TF's Assign, the variable gets a buffer of its own.
                value = value.copy()
                value.flags.writeable = False
            # Charge first: on OOM the variable keeps its old value, as in TensorFlow.
            new = (alloc, alloc.charge(value, name))
        super().__setitem__(name, value)
        old = self._buffers.pop(name, None)
        if new is not None and new[1] is not None:
            self._buffers[name] = new
        if old is not None:
            old[0].unref(old[1])

    def __delitem__(self, name):
        with self._lock:
            super().__delitem__(name)
            old = self._buffers.pop(name, None)
        if old is not None:
            old[0].unref(old[1])

    def pop(self, name, *default):
        if name in self:
            value = self[name]
            del self[name]
            return value
        if default:
            return default[0]
        raise KeyError(name)

    def clear(self):
        super().clear()
        buffers, self._buffers = self._buffers, {}
        for alloc, buf in buffers.values():
            alloc.unref(buf)


class SessionMemory:
    """The session's persistent device buffers (constants), and its variable store."""

    def __init__(self, store):
        self.store = store
        self.held = []                   # [(allocator, Buffer)]

    def hold(self, alloc, value, name):
        buf = alloc.charge(value, name)
        if buf is not None:
            self.held.append((alloc, buf))

    def held_bytes(self):
        """{Allocator: bytes} this session holds on each GPU now (each buffer once, even
        when a variable and a constant share it). Read by the notebook's summary."""
        seen = {}
        for alloc, buf in list(self.store._buffers.values()) + self.held:
            if alloc.live.get(buf.key) is buf:        # not freed by a reset_memory()
                seen[id(buf)] = (alloc, buf.nbytes)
        out = {}
        for alloc, nbytes in seen.values():
            out[alloc] = out.get(alloc, 0) + nbytes
        return out

    def release(self):
        self.store.clear()
        held, self.held = self.held, []
        for alloc, buf in held:
            alloc.unref(buf)
